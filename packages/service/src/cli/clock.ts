/**
 * Milliseconds on a monotonic clock, read from process.hrtime. The `performance` global would do,
 * but its first read loads Node's perf_hooks (nine modules, about 2 ms of a short audit's process).
 */
export function monotonicMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}
