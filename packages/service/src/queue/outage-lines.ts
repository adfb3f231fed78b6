/**
 * What a worker tells of a database outage: one line for each kind of error, however often pg-boss's pollers and the
 * pool meet it, until the outage is over.
 */

/** Milliseconds without an error after which the outage is over: every poller meets it within a few seconds. */
export const OUTAGE_QUIET_MS = 10_000;

/** The kind of an error message: the message without what pg-boss appends to name the poller that met it. */
export function errorKind(message: string): string {
  return message.replace(/ \(Queue: [^()]*, Worker: [^()]*\)$/, '');
}

/** Tells errors by kind (see {@link outageLines}). */
export interface OutageLines {
  /** Tells `message`'s kind, unless already told in this outage. */
  error(message: string): void;
  /** The database answered (a chunk was written): the outage is over. */
  recovered(): void;
}

/**
 * Tells each kind of error once per outage through `tell`. An outage is over once recovered() is called, or after
 * OUTAGE_QUIET_MS without an error; the next error starts another.
 */
export function outageLines(tell: (line: string) => void, now: () => number = Date.now): OutageLines {
  const told = new Set<string>();
  let lastErrorAt = -Infinity;
  return {
    error(message) {
      const at = now();
      if (at - lastErrorAt > OUTAGE_QUIET_MS) told.clear();
      lastErrorAt = at;
      const kind = errorKind(message);
      if (told.has(kind)) return;
      told.add(kind);
      tell(kind);
    },
    recovered() {
      told.clear();
      lastErrorAt = -Infinity;
    },
  };
}
