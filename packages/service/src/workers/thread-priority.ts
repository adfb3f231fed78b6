import { readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/**
 * Lowers the calling thread's scheduling priority by `steps` of niceness from the one it started with, the
 * process's (at most to 19, the lowest) (Linux, where niceness is a thread's own; its
 * `/proc/thread-self` names the thread). A thread that verifies bodies then gives way to the event loop's thread
 * whenever both want a core, so a health check or a small request is not queued behind verification (bench
 * health.bench.ts). Elsewhere there is no portable way to set one thread's priority (`os.setPriority` would set the
 * whole process's), so nothing is done; a failure is ignored too, as the priority changes timing, never a verdict.
 * Never called on the main thread: its niceness is the process's own.
 */
export function lowerThreadPriority(steps: number): void {
  if (process.platform !== 'linux') return;
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').at(-1));
    // The main thread's id is the process's: lowering it would lower the event loop, the opposite of the aim.
    if (Number.isSafeInteger(tid) && tid !== process.pid) setPriority(tid, Math.min(19, getPriority(tid) + steps));
  } catch {
    // No /proc, or a priority the process may not take: the thread runs at the process's priority.
  }
}
