/**
 * A TCP proxy in front of PostgreSQL that can cut a connection at a chosen point of its protocol: once armed, it
 * passes the server's next complete answer (up to and including its ReadyForQuery message) to the client and then
 * closes both sides, as a connection lost right after a statement committed. Everything else passes unchanged.
 */
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';

/** The proxy: `url` is `target` through it; `cutAfterNextAnswer()` arms it for the next answer on any connection. */
export interface CuttingProxy {
  url: string;
  cutAfterNextAnswer: () => void;
  close: () => Promise<void>;
}

/** ReadyForQuery: the server's last message of every answer (PostgreSQL's frontend/backend protocol). */
const READY_FOR_QUERY = 0x5a;

export async function cuttingProxy(target: string): Promise<CuttingProxy> {
  const to = new URL(target);
  let armed = false;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(Number(to.port || 5432), to.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => undefined);
    }
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
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(target);
  url.hostname = '127.0.0.1';
  url.port = String((server.address() as AddressInfo).port);
  return {
    url: url.toString(),
    cutAfterNextAnswer: () => {
      armed = true;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
