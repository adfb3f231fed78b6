/**
 * A log of events that may come by the thousand (a flood of connections refused): `note(kind)`
 * counts one, and `report` is called with the counts since its last call at most once every
 * `periodMs`, at once for the first event after a quiet period and at the period's end for those
 * that came within it, so none goes untold and a flood costs one line a period.
 */
export function rateLimitedLog(
  report: (counts: Readonly<Record<string, number>>) => void,
  periodMs = 1000,
): (kind: string) => void {
  let counts: Record<string, number> = {};
  let lastAt = -Infinity;
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    // A timer may fire a few milliseconds early by this clock (the event loop's time is read once an iteration, and
    // may be stale when the timer is set): wait out the rest, so that lines are never closer than a period.
    const early = lastAt + periodMs - performance.now();
    if (early > 0) {
      timer = setTimeout(flush, early);
      timer.unref();
      return;
    }
    timer = undefined;
    lastAt = performance.now();
    const told = counts;
    counts = {};
    report(told);
  };
  return (kind) => {
    counts[kind] = (counts[kind] ?? 0) + 1;
    if (timer !== undefined) return;
    const wait = lastAt + periodMs - performance.now();
    if (wait <= 0) return flush();
    timer = setTimeout(flush, wait);
    timer.unref();
  };
}
