/**
 * The bounds on connections, over real HTTP on loopback: a connection that never sends a byte is
 * closed `header_timeout_ms` after its accept; `max_connections_per_address` and `max_connections`
 * close the oldest connection idle for 250 ms for a new one and refuse the new one when there is none,
 * so a request sent just before a burst of connections is answered; the closes are logged at most once
 * a second; and a server whose file-descriptor limit is below the connections a client opens stays reachable.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { ServerConfig } from '../packages/service/src/server/config/config.js';
import {
  ConnectionBounds,
  EVICTABLE_AFTER_IDLE_MS,
} from '../packages/service/src/server/connections/connection-bounds.js';
import { startServer, type RunningServer } from '../packages/service/src/server/start-server.js';
import { auditorAccount, capturingLogger, testConfig } from './helpers/server.js';

const BIN = fileURLToPath(new URL('../packages/service/bin/evm-integrity.js', import.meta.url));
const KEY = 'evmi_connections-test-key-0123456789abcdefghijkl';
const SMALL_BODY = JSON.stringify({ expected_bloom: '00'.repeat(256), logs: [] });
/** How long a connection the server should close is given: a deadline, not a measure. */
const EVENTUALLY_MS = 15_000;

const servers: RunningServer[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function serve(over: Partial<ServerConfig>) {
  const log = capturingLogger();
  const server = await startServer(
    testConfig({ host: '127.0.0.1', accounts: [auditorAccount(KEY, 'connections')], ...over }),
    { logger: log.logger },
  );
  servers.push(server);
  return { server, log };
}

/** A connection to `port`, and a promise of whether the server closed it within EVENTUALLY_MS. */
function open(port: number): { socket: Socket; closed: Promise<boolean>; text: () => string } {
  const socket = connect(port, '127.0.0.1');
  sockets.push(socket);
  let text = '';
  socket.on('data', (chunk) => (text += chunk.toString('latin1')));
  socket.on('error', () => undefined);
  const closed = new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), EVENTUALLY_MS);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
  return { socket, closed, text: () => text };
}

/** Resolves once the connection's data so far matches `pattern`; throws when it closes first. */
async function received(connection: ReturnType<typeof open>, pattern: RegExp): Promise<void> {
  while (!pattern.test(connection.text())) {
    if (connection.socket.destroyed) throw new Error(`closed, having received ${JSON.stringify(connection.text())}`);
    await new Promise((resolve) => {
      connection.socket.once('data', resolve);
      connection.socket.once('close', resolve);
    });
  }
}

/** A connection that has had one answer and stays open, idle between requests (keep-alive). */
async function idleConnection(port: number) {
  const connection = open(port);
  connection.socket.write('GET /v1/health HTTP/1.1\r\nHost: x\r\n\r\n');
  await received(connection, /^HTTP\/1\.1 200 [^]*\r\n\r\n[^]*\}/);
  return connection;
}

/**
 * A connection whose request is being worked on: its headers in, the server's `100 Continue` out (so
 * the server has the request), its body not sent.
 */
async function busyConnection(port: number) {
  const connection = open(port);
  connection.socket.write(
    `POST /v1/evm/verify/logs-bloom HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nContent-Length: ${SMALL_BODY.length}\r\nExpect: 100-continue\r\n\r\n`,
  );
  await received(connection, /^HTTP\/1\.1 100 /);
  return connection;
}

/** Waits until the connections idle now may be closed for a new one. */
const idleLongEnough = () => new Promise((resolve) => setTimeout(resolve, EVICTABLE_AFTER_IDLE_MS + 50));

/** The counts of the connection-bounds log lines, summed by reason. */
function closedCounts(lines: Array<Record<string, unknown>>): Record<string, number> {
  const sums: Record<string, number> = {};
  for (const line of lines.filter((l) => String(l.msg).startsWith('connection bounds')))
    for (const reason of ['refused', 'evicted', 'silent'])
      if (typeof line[reason] === 'number') sums[reason] = (sums[reason] ?? 0) + line[reason];
  return sums;
}

describe('a connection that never sends a byte', () => {
  it('is closed header_timeout_ms after its accept, and the close is logged', async () => {
    const { server, log } = await serve({ headerTimeoutMs: 300, bodyTimeoutMs: 300 });
    const silent = open(server.port);
    expect(await silent.closed).toBe(true);
    expect(silent.text()).toBe('');
    await expect.poll(() => closedCounts(log.lines).silent, { timeout: EVENTUALLY_MS }).toBe(1);
    // A client that sends its request is served as before.
    expect((await fetch(`${server.url}/v1/health`)).status).toBe(200);
  });
});

describe('max_connections_per_address', () => {
  it('closes the oldest idle connection of the address for a new one', async () => {
    const { server, log } = await serve({ maxConnectionsPerAddress: 3 });
    const first = await idleConnection(server.port);
    const second = await idleConnection(server.port);
    const third = await idleConnection(server.port);
    await idleLongEnough();
    const fourth = await idleConnection(server.port);
    expect(await first.closed).toBe(true);
    second.socket.write('GET /v1/health HTTP/1.1\r\nHost: x\r\n\r\n');
    await received(second, /\}[^]*HTTP\/1\.1 200 /);
    expect(third.socket.destroyed || fourth.socket.destroyed).toBe(false);
    expect(closedCounts(log.lines)).toEqual({ evicted: 1 });
  });

  it('refuses a new connection when every connection of the address is busy, and logs it', async () => {
    const { server, log } = await serve({ maxConnectionsPerAddress: 2 });
    const busy = [await busyConnection(server.port), await busyConnection(server.port)];
    const refused = open(server.port);
    expect(await refused.closed).toBe(true);
    expect(refused.text()).toBe('');
    // The busy ones are still served.
    busy[0]!.socket.write(SMALL_BODY);
    await received(busy[0]!, /HTTP\/1\.1 200 /);
    await expect.poll(() => closedCounts(log.lines).refused, { timeout: EVENTUALLY_MS }).toBe(1);
  });

  it('logs a flood of refusals at most once a second, every refusal counted', async () => {
    const { server, log } = await serve({ maxConnectionsPerAddress: 1 });
    await busyConnection(server.port);
    const refusals = 40;
    for (let i = 0; i < refusals; i++) expect(await open(server.port).closed).toBe(true);
    await expect.poll(() => closedCounts(log.lines).refused, { timeout: EVENTUALLY_MS }).toBe(refusals);
    const times = log.lines.filter((l) => String(l.msg).startsWith('connection bounds')).map((l) => l.time as number);
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(990);
  });
});

describe('max_connections', () => {
  it('closes the oldest idle connection of any address for a new one, and refuses when none is idle', async () => {
    const { server, log } = await serve({ maxConnections: 2 });
    const first = await idleConnection(server.port);
    const second = await busyConnection(server.port);
    await idleLongEnough();
    await idleConnection(server.port);
    expect(await first.closed).toBe(true);
    expect(second.socket.destroyed).toBe(false);
    await idleLongEnough();
    await busyConnection(server.port);
    expect(await open(server.port).closed).toBe(true);
    await expect.poll(() => closedCounts(log.lines), { timeout: EVENTUALLY_MS }).toEqual({ evicted: 2, refused: 1 });
  });
});

/**
 * A client in a process of its own: once it has said "ready", it opens a connection, writes a whole request on it and
 * opens BURST connections more; it prints what the first connection received before it closed. It holds the burst
 * open until the server has closed one of them (or 10 s have passed), so that the burst is still there when the server
 * takes it up, however late that is on a loaded machine: a client gone first leaves nothing to refuse.
 */
const BURST_CLIENT = `
const net = require('node:net');
process.stdout.write('ready\\n');
let answer;
let burstClosed = 0;
const done = () => process.stdout.write(answer || '(closed without an answer)', () => process.exit(0));
const doneOnceBoth = () => answer !== undefined && burstClosed > 0 && done();
setTimeout(() => {
  const sender = net.connect(Number(process.env.PORT), '127.0.0.1', () => {
    sender.write(process.env.REQUEST);
    for (let i = 0; i < Number(process.env.BURST); i++)
      net.connect(Number(process.env.PORT), '127.0.0.1').on('error', () => {}).on('close', () => (burstClosed++, doneOnceBoth()));
  });
  let text = '';
  sender.on('data', (chunk) => (text += chunk));
  sender.on('error', () => {});
  sender.on('close', () => ((answer = text), doneOnceBoth()));
  setTimeout(() => ((answer ??= ''), done()), 10_000);
}, 200);
`;

describe('a request sent just before a burst of connections', () => {
  it('is answered, and the burst beyond the bound is refused: no connection idle for under 250 ms is closed for it', async () => {
    const { server, log } = await serve({ maxConnectionsPerAddress: 4 });
    const burst = 60;
    const request = `POST /v1/evm/verify/logs-bloom HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nContent-Length: ${SMALL_BODY.length}\r\nConnection: close\r\n\r\n${SMALL_BODY}`;
    const client = spawn(process.execPath, ['-e', BURST_CLIENT], {
      env: { ...process.env, PORT: String(server.port), REQUEST: request, BURST: String(burst) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    client.stdout.on('data', (chunk) => (out += String(chunk)));
    const exited = new Promise((resolve) => client.once('exit', resolve));
    await expect.poll(() => out, { timeout: EVENTUALLY_MS }).toMatch(/^ready\n/);
    // This process, the server's, holds its event loop while the client connects and sends: the kernel queues the
    // connections and the request's bytes, so that the burst reaches the server at once, its request among it.
    const until = performance.now() + 1500;
    while (performance.now() < until);
    await exited;
    expect(out.slice('ready\n'.length)).toMatch(/^HTTP\/1\.1 200 [^]*"is_identical":true/);
    // Connections beyond the address's bound were refused, none closed for another: none held was idle long enough.
    await expect.poll(() => closedCounts(log.lines).refused ?? 0, { timeout: EVENTUALLY_MS }).toBeGreaterThan(0);
    expect(closedCounts(log.lines).evicted).toBeUndefined();
  });
});

describe('ConnectionBounds', () => {
  /** A socket as the bounds see one: its address, and whether it was destroyed. */
  const socket = (address = '10.0.0.1') => {
    const fake = { remoteAddress: address, destroyed: false, destroy: () => void (fake.destroyed = true) };
    return fake as unknown as Socket & { destroyed: boolean };
  };
  /** Bounds with a grace of 1000 ms on a clock the test sets (`clock.now`), and the actions they took, in order. */
  const boundsOnClock = (caps: { maxConnections: number; maxConnectionsPerAddress: number }) => {
    const clock = { now: 0 };
    const closed: string[] = [];
    const bounds = new ConnectionBounds(
      caps,
      (action) => closed.push(action),
      1000,
      () => clock.now,
    );
    return { bounds, closed, clock };
  };

  it('closes an idle connection for a new one only once it has been idle for the grace, the oldest idle first', () => {
    const { bounds, closed, clock } = boundsOnClock({ maxConnections: 2, maxConnectionsPerAddress: 10 });
    const [a, b, c, d] = [socket(), socket(), socket(), socket()];
    expect(bounds.accept(a)).toBe(true);
    clock.now = 10;
    expect(bounds.accept(b)).toBe(true);
    clock.now = 999;
    // a has been idle 999 ms: the new connection is refused, a kept.
    expect(bounds.accept(c)).toBe(false);
    expect([a.destroyed, c.destroyed, closed]).toEqual([false, true, ['refused']]);
    clock.now = 1000;
    // a (idle since 0) goes before b (idle since 10).
    expect(bounds.accept(d)).toBe(true);
    expect([a.destroyed, b.destroyed, closed]).toEqual([true, false, ['refused', 'evicted']]);
  });

  it('counts the grace from when a connection last became idle, and never closes a busy one', () => {
    const { bounds, closed, clock } = boundsOnClock({ maxConnections: 10, maxConnectionsPerAddress: 1 });
    const [a, b, c] = [socket(), socket(), socket()];
    bounds.accept(a);
    bounds.busy(a);
    clock.now = 5000;
    expect(bounds.accept(b)).toBe(false);
    bounds.idle(a);
    clock.now = 5999;
    expect(bounds.accept(b)).toBe(false);
    clock.now = 6000;
    expect(bounds.accept(c)).toBe(true);
    expect([a.destroyed, closed]).toEqual([true, ['refused', 'refused', 'evicted']]);
  });
});

describe('a server with few file descriptors', () => {
  const dirs: string[] = [];
  const children: ChildProcess[] = [];
  afterAll(() => {
    for (const child of children) child.kill('SIGKILL');
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('derives max_connections below its limit and is reachable past the idle grace when a client opens more connections than it has', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'evm-integrity-connections-'));
    dirs.push(dir);
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ store: 'memory', port: 0, auth: false }));
    const child = spawn(
      'bash',
      ['-c', 'ulimit -n 256; exec "$@"', 'bash', process.execPath, BIN, 'serve', '--config', join(dir, 'config.json')],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    children.push(child);
    let out = '';
    const listening = await new Promise<{ url: string; max_connections: number }>((resolve, reject) => {
      child.stdout.on('data', (chunk) => {
        out += String(chunk);
        const line = out.split('\n').find((l) => l.includes('"msg":"listening"'));
        if (line !== undefined) resolve(JSON.parse(line) as { url: string; max_connections: number });
      });
      child.on('exit', (code) => reject(new Error(`serve exited with ${code}`)));
    });
    const port = Number(new URL(listening.url).port);
    const silent = Array.from({ length: 300 }, () => open(port));
    await new Promise((resolve) => silent.at(-1)!.socket.once('connect', resolve));
    // Once the silent connections have been idle long enough to be closed for new ones: each probe on a connection of
    // its own, as a health probe makes.
    await idleLongEnough();
    for (let i = 0; i < 5; i++) {
      const probe = open(port);
      probe.socket.write('GET /v1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
      await probe.closed;
      expect(probe.text()).toMatch(/^HTTP\/1\.1 200 /);
    }
    expect(listening.max_connections).toBe(256 - 128);
  });
});
