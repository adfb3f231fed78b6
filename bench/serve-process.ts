/**
 * The URL a `serve` process listens on, from its log's "listening" line; the benches that start one (health, hostile)
 * measure it from outside, as a client would.
 */
import type { ChildProcess } from 'node:child_process';

/**
 * Resolves with the URL of `child`'s "listening" line (its standard output piped), or rejects if it exits first. The
 * request log after it is drained unread: reading it would take CPU from the server measured on the same machine.
 */
export function listeningUrl(child: ChildProcess): Promise<string> {
  let out = '';
  return new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`serve exited with code ${code} before it listened`)));
    const read = (chunk: Buffer) => {
      out += String(chunk);
      const line = out.split('\n').find((l) => l.includes('"msg":"listening"'));
      if (line === undefined) return;
      child.stdout!.off('data', read);
      child.stdout!.resume();
      resolve((JSON.parse(line) as { url: string }).url);
    };
    child.stdout!.on('data', read);
  });
}
