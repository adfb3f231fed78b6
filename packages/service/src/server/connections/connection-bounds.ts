import { readFileSync } from 'node:fs';
import type { Socket } from 'node:net';

/**
 * File descriptors kept back from connections: the store's (SQLite's files, PostgreSQL's pool), the
 * workers' pipes, the metrics listener, the log, and Node's own.
 */
const RESERVED_DESCRIPTORS = 128;

/** The file-descriptor limit assumed where the process's own cannot be read (not Linux): the usual soft default. */
const ASSUMED_DESCRIPTORS = 1024;

/**
 * The process's limit on open file descriptors (its soft `RLIMIT_NOFILE`, which Node raises to the
 * hard limit at start), from /proc/self/limits; ASSUMED_DESCRIPTORS where that cannot be read.
 */
export function openFileLimit(limits = '/proc/self/limits'): number {
  try {
    const line = /^Max open files\s+(\d+|unlimited)/m.exec(readFileSync(limits, 'utf8'));
    if (line === null) return ASSUMED_DESCRIPTORS;
    return line[1] === 'unlimited' ? Number.MAX_SAFE_INTEGER : Number(line[1]);
  } catch {
    return ASSUMED_DESCRIPTORS;
  }
}

/**
 * The connections a process with `descriptors` open files may hold: all but RESERVED_DESCRIPTORS,
 * so that at the bound the store, the workers and a new connection's accept still get theirs.
 *
 * @example maxConnectionsFor(1024) // 896
 */
export function maxConnectionsFor(descriptors: number): number {
  return Math.max(1, descriptors - RESERVED_DESCRIPTORS);
}

/** What the connections of the server may hold: in all, and from one address. */
export interface ConnectionCaps {
  maxConnections: number;
  maxConnectionsPerAddress: number;
}

/**
 * How long a connection must have been idle before it is closed for a new one. A request may have reached the server
 * and not yet been read: the connections of a burst are accepted before the bytes that came on an older connection in
 * the same turn of the event loop are read, and that connection, idle by every sign the server has, was closed with
 * its whole request unanswered (a user check: 1 or 2 requests in 5, each sent just before a burst of 300 connections).
 * A connection idle for less than this is not closed for another; the new connection is refused instead. It is well
 * above the event loop's turn under load (a few ms, docs/speed.md), and short enough that a flood of connections that
 * send nothing shuts new clients out only briefly: past it, each new client closes the oldest of them.
 */
export const EVICTABLE_AFTER_IDLE_MS = 250;

/** Why a connection was closed by the bounds: `refused` (no idle one to close for it) or `evicted` (the oldest idle). */
export type BoundAction = 'refused' | 'evicted';

/** A connection held: its address, whether it is idle (no request of it worked on or waiting), and since when. */
interface Held {
  address: string;
  idle: boolean;
  idleSince: number;
}

/**
 * The bound on connections held at once, in all (`maxConnections`, kept below the file-descriptor
 * limit so a flood cannot take the descriptors the store and new clients need) and from one address
 * (`maxConnectionsPerAddress`, so one client cannot take them all). A connection over either bound
 * closes the oldest idle connection that holds the place (of that address, or of any), one that
 * has had no request in progress (a keep-alive connection between requests, a client that never sent
 * one) for `evictableAfterMs` at least; when there is none, the new one is refused (closed at once).
 */
export class ConnectionBounds {
  readonly #held = new Map<Socket, Held>();
  /** Idle connections in the order they became idle, oldest first (a Set keeps insertion order). */
  readonly #idle = new Set<Socket>();
  readonly #idleOf = new Map<string, Set<Socket>>();
  readonly #countOf = new Map<string, number>();

  constructor(
    private readonly caps: ConnectionCaps,
    private readonly onClosed: (action: BoundAction, socket: Socket) => void,
    private readonly evictableAfterMs = EVICTABLE_AFTER_IDLE_MS,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Takes a place for `socket`, idle; false when it is refused (and destroyed). */
  accept(socket: Socket): boolean {
    const address = socket.remoteAddress;
    if (address === undefined) {
      // Already gone: nothing to hold.
      socket.destroy();
      return false;
    }
    if (
      (this.#countOf.get(address) ?? 0) >= this.caps.maxConnectionsPerAddress &&
      !this.#evict(this.#idleOf.get(address))
    )
      return this.#refuse(socket);
    if (this.#held.size >= this.caps.maxConnections && !this.#evict(this.#idle)) return this.#refuse(socket);
    this.#held.set(socket, { address, idle: false, idleSince: 0 });
    this.#countOf.set(address, (this.#countOf.get(address) ?? 0) + 1);
    this.idle(socket);
    return true;
  }

  /** `socket` has a request worked on or waiting: it is not closed for another. */
  busy(socket: Socket): void {
    const held = this.#held.get(socket);
    if (held === undefined || !held.idle) return;
    held.idle = false;
    this.#idle.delete(socket);
    this.#idleOf.get(held.address)!.delete(socket);
  }

  /** `socket` has no request left: the newest idle connection, the last to be closed for another. */
  idle(socket: Socket): void {
    const held = this.#held.get(socket);
    if (held === undefined || held.idle) return;
    held.idle = true;
    held.idleSince = this.now();
    this.#idle.add(socket);
    let ofAddress = this.#idleOf.get(held.address);
    if (ofAddress === undefined) this.#idleOf.set(held.address, (ofAddress = new Set()));
    ofAddress.add(socket);
  }

  /** Gives back the place of `socket`, closed. */
  closed(socket: Socket): void {
    const held = this.#held.get(socket);
    if (held === undefined) return;
    this.busy(socket);
    this.#held.delete(socket);
    const count = this.#countOf.get(held.address)! - 1;
    if (count > 0) this.#countOf.set(held.address, count);
    else {
      this.#countOf.delete(held.address);
      this.#idleOf.delete(held.address);
    }
  }

  /**
   * Closes the oldest of `idle`, giving back its place at once; false when there is none idle for `evictableAfterMs`
   * (the first is the one idle longest: a Set keeps the order they became idle in).
   */
  #evict(idle: Set<Socket> | undefined): boolean {
    const oldest = idle?.values().next().value;
    if (oldest === undefined || this.now() - this.#held.get(oldest)!.idleSince < this.evictableAfterMs) return false;
    this.closed(oldest);
    oldest.destroy();
    this.onClosed('evicted', oldest);
    return true;
  }

  #refuse(socket: Socket): false {
    socket.destroy();
    this.onClosed('refused', socket);
    return false;
  }
}
