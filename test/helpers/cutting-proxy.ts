/**
 * A TCP proxy in front of PostgreSQL that can cut a connection at a chosen point of its protocol: once armed, it
 * passes the server's next complete answer (up to and including its ReadyForQuery message) to the client and then
 * closes both sides, as a connection lost right after a statement committed. Everything else passes unchanged.
 */
import { postgresProxy } from './postgres-proxy.js';

/** The proxy: `url` is `target` through it; `cutAfterNextAnswer()` arms it for the next answer on any connection. */
export interface CuttingProxy {
  url: string;
  cutAfterNextAnswer: () => void;
  close: () => Promise<void>;
}

/** ReadyForQuery: the server's last message of every answer (PostgreSQL's frontend/backend protocol). */
const READY_FOR_QUERY = 0x5a;

export async function cuttingProxy(target: string): Promise<CuttingProxy> {
  let armed = false;
  const proxy = await postgresProxy(target, (client, upstream) => {
    client.pipe(upstream);
    // The server's messages, framed (a type byte, then a length that counts itself), to find where an answer ends.
    let pending = Buffer.alloc(0);
    upstream.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      let end = 0;
      while (pending.length - end >= 5) {
        const size = 1 + pending.readUInt32BE(end + 1);
        if (pending.length - end < size) break;
        const type = pending[end]!;
        end += size;
        if (armed && type === READY_FOR_QUERY) {
          armed = false;
          client.end(pending.subarray(0, end));
          upstream.destroy();
          return;
        }
      }
      client.write(pending.subarray(0, end));
      pending = pending.subarray(end);
    });
    upstream.on('close', () => client.destroy());
    client.on('close', () => upstream.destroy());
  });
  return {
    url: proxy.url,
    cutAfterNextAnswer: () => {
      armed = true;
    },
    close: proxy.close,
  };
}
