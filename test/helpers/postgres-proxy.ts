/**
 * A TCP proxy in front of PostgreSQL, on a port of its own on loopback: each client's connection gets one to the
 * server, and `relay` decides what passes between them. The sockets are tracked, their errors swallowed (a proxy that
 * cuts or holds connections makes them), and `close` ends them all.
 */
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';

/** The proxy: `url` is the target's URL through it. */
export interface PostgresProxy {
  url: string;
  close: () => Promise<void>;
}

export async function postgresProxy(
  target: string,
  relay: (client: Socket, upstream: Socket) => void,
): Promise<PostgresProxy> {
  const to = new URL(target);
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(Number(to.port || 5432), to.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => undefined);
    }
    relay(client, upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(target);
  url.hostname = '127.0.0.1';
  url.port = String((server.address() as AddressInfo).port);
  return {
    url: url.toString(),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
