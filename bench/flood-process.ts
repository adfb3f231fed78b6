/**
 * A flood of requests from a process of its own (pipelined-flood.ts), so that the load's CPU is not the bench's: the
 * health and hostile benches start it and read how many answers it has counted.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';

/** A running flood: the answers it has counted so far, and how to end it. */
export interface Flood {
  answered(): number;
  stop(): void;
}

/**
 * Starts `pipelined-flood` against 127.0.0.1:`port`: `connections` connections each sending the request in
 * `requestFile` (raw HTTP), `count` at a time; resolves once the process has started.
 */
export async function startFlood(
  port: number,
  connections: number,
  count: number,
  requestFile: string,
): Promise<Flood> {
  // The compiled bench runs the compiled client; a bench run from its TypeScript runs the TypeScript one.
  const client = join(import.meta.dirname, `pipelined-flood.${import.meta.filename.endsWith('.ts') ? 'ts' : 'js'}`);
  const child = spawn(process.execPath, [client, String(port), String(connections), String(count), requestFile], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let answered = 0;
  let carry = '';
  child.stdout.on('data', (chunk) => {
    // The flood prints its running count a line at a time; the last whole line is the latest.
    const lines = (carry + String(chunk)).split('\n');
    carry = lines.pop()!;
    if (lines.length > 0) answered = Number(lines.at(-1));
  });
  await new Promise((resolve) => child.once('spawn', resolve));
  return { answered: () => answered, stop: () => child.kill('SIGKILL') };
}
