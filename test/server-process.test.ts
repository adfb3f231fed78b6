/**
 * The service as an operator starts it: `evm-integrity serve …` in a child
 * process (the built dist/, as `npm start` runs it), its stdout and stderr, its
 * exit status, and clients on loopback.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, createServer, type AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import pg from 'pg';
import { freshDatabase, type FreshDatabase } from './helpers/postgres.js';
import { withFullOutput } from './helpers/cli-process.js';
import { SqliteStore } from '../packages/service/src/store/sqlite/sqlite-store.js';

const BIN = fileURLToPath(new URL('../packages/service/bin/evm-integrity.js', import.meta.url));
const KEY = 'evmi_process-test-key-0123456789abcdefghijklmnop';
const dirs: string[] = [];
const children: ChildProcess[] = [];

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'evm-integrity-process-'));
  dirs.push(dir);
  return dir;
}

/** A configuration file in a fresh directory; its path. */
function configFile(json: unknown): string {
  const file = join(tempDir(), 'config.json');
  writeFileSync(file, JSON.stringify(json));
  return file;
}

interface Served {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** The exit status once the process has ended. */
  exited: Promise<number | null>;
  /** The URL of the 'listening' log line; rejects when the process ends first. */
  listening: Promise<string>;
  /** Resolves once stdout or stderr matches `pattern`. */
  printed: (pattern: RegExp) => Promise<void>;
}

/**
 * Starts `evm-integrity serve ARGS` (no PORT/HOST/EVM_INTEGRITY_CONFIG nor MALLOC_MMAP_THRESHOLD_ from this
 * environment; `extraEnv` added), `nodeArgs` given to node.
 */
function serve(args: string[], extraEnv: Record<string, string> = {}, nodeArgs: string[] = []): Served {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ['PORT', 'HOST', 'EVM_INTEGRITY_CONFIG', 'MALLOC_MMAP_THRESHOLD_']) delete env[name];
  Object.assign(env, extraEnv);
  const child = spawn(process.execPath, [...nodeArgs, BIN, 'serve', ...args], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  let err = '';
  const checks: Array<() => void> = [];
  const printed = (pattern: RegExp) =>
    new Promise<void>((resolve) => {
      const check = () => (pattern.test(out) || pattern.test(err)) && resolve();
      checks.push(check);
      check();
    });
  child.stderr.on('data', (chunk) => {
    err += String(chunk);
    for (const check of checks) check();
  });
  child.stdout.on('data', (chunk) => {
    out += String(chunk);
    for (const check of checks) check();
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const listening = new Promise<string>((resolve, reject) => {
    child.stdout.on('data', () => {
      const line = out.split('\n').find((l) => l.includes('"msg":"listening"'));
      if (line !== undefined) resolve((JSON.parse(line) as { url: string }).url);
    });
    void exited.then((code) => reject(new Error(`serve exited with ${code} before listening: ${err}`)));
  });
  listening.catch(() => undefined); // awaited by the tests that expect a start
  return { child, stdout: () => out, stderr: () => err, exited, listening, printed };
}

/** The exit status of a start that must fail; throws if the server comes up instead. */
const refused = (served: Served) =>
  Promise.race([
    served.exited,
    served.listening.then((url) => {
      throw new Error(`serve started at ${url} instead of refusing`);
    }),
  ]);

const usage = (url: string, key: string) => fetch(`${url}/v1/usage`, { headers: { Authorization: `Bearer ${key}` } });

afterEach(() => {
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('serve: configuration as the operator gives it', () => {
  it("--config with --host and --port keeps the file's accounts: the configured key is accepted, no bootstrap key is made", async () => {
    const dataDir = tempDir();
    const file = configFile({
      data_dir: dataDir,
      accounts: [{ id: 'acme', plan: 'pro', cu_limit: 5, keys: [{ label: 'ci', key: KEY }] }],
    });
    const served = serve(['--config', file, '--host', '127.0.0.1', '--port', '0']);
    const url = await served.listening;
    const res = await usage(url, KEY);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ plan: 'pro', cu_limit: 5 });
    served.child.kill('SIGTERM');
    expect(await served.exited).toBe(0);
    expect(served.stderr()).not.toMatch(/First start|evmi_/);
    expect(served.stdout()).not.toMatch(/evmi_/);
  });

  it('a configured key with a misspelt "sha256": one line naming its path and the member, exit 2, no store written', async () => {
    const dataDir = join(tempDir(), 'data');
    const file = configFile({
      data_dir: dataDir,
      accounts: [
        {
          id: 'acme',
          keys: [
            { label: 'ci', key: KEY },
            { label: 'typo', sah256: 'ab'.repeat(32) },
          ],
        },
      ],
    });
    const served = serve(['--config', file, '--port', '0']);
    expect(await refused(served)).toBe(2);
    expect(served.stderr()).toBe(
      'evm-integrity: accounts[0].keys[1]: unknown member "sah256"; known: label, sha256, key\n',
    );
    expect(existsSync(dataDir)).toBe(false);
  });
});

describe('serve: while it starts', () => {
  it('bound, its store not yet answering: every request gets the 503 envelope with Retry-After, then one line and exit 2', async () => {
    // A "database" that takes connections and never answers: the server is bound, its store never ready.
    const mute = createServer(() => undefined);
    await new Promise<void>((resolve) => mute.listen(0, '127.0.0.1', resolve));
    const { port: mutePort } = mute.address() as AddressInfo;
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise((resolve) => probe.close(resolve));
    try {
      const served = serve([
        '--config',
        configFile({
          store: 'postgres',
          database_url: `postgres://postgres@127.0.0.1:${mutePort}/none`,
          pg_connect_timeout_ms: 3000,
          port,
        }),
      ]);
      let res: Response | undefined;
      for (let tries = 0; res === undefined && tries < 100; tries++) {
        res = await fetch(`http://127.0.0.1:${port}/v1/health`).catch(() => undefined);
        if (res === undefined) await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(res?.status).toBe(503);
      expect(res!.headers.get('retry-after')).toBe('1');
      expect(res!.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await res!.json()).toMatchObject({
        error: {
          code: 'SERVICE_UNAVAILABLE',
          message: expect.stringContaining('starting'),
          docs_url: `http://127.0.0.1:${port}/v1/docs#error-service_unavailable`,
        },
      });
      expect(await served.exited).toBe(2);
      expect(served.stderr()).toMatch(/^evm-integrity: .*\n$/);
    } finally {
      mute.close();
    }
  }, 20_000);
});

describe('serve: a start that cannot work says why in one line and exits 2', () => {
  it.each([
    [
      'a --data-dir under a regular file',
      (dir: string) => ['--data-dir', join(dir, 'file', 'data')],
      /^evm-integrity: data_dir: cannot create ".*\/file\/data": a part of its path is a file; a directory was expected\n$/,
    ],
    [
      'a --host that is no host name',
      () => ['--host', 'bad host!'],
      /^evm-integrity: host "bad host!": no such host name or address \((ENOTFOUND|EAI_AGAIN)\)\n$/,
    ],
    [
      "a --host that is not this machine's",
      () => ['--host', '203.0.113.7'],
      /^evm-integrity: host "203.0.113.7": not an address of this machine \(EADDRNOTAVAIL\)\n$/,
    ],
  ])('%s', async (_case, flags, message) => {
    const dir = tempDir();
    writeFileSync(join(dir, 'file'), '');
    const served = serve(['--data-dir', join(dir, 'data'), '--port', '0', ...flags(dir)]);
    expect(await refused(served)).toBe(2);
    expect(served.stderr()).toMatch(message);
  });
});

describe("serve: the first start's API key", () => {
  /** A start on `dataDir` after one that failed: it makes the key, prints it once, and the key is accepted. */
  async function nextStartShowsOneKey(dataDir: string): Promise<void> {
    const next = serve(['--data-dir', dataDir, '--host', '127.0.0.1', '--port', '0']);
    const url = await next.listening;
    await next.printed(/Try, with KEY/);
    const keys = `${next.stdout()}${next.stderr()}`.match(/evmi_[\w-]+/g) ?? [];
    expect(keys).toHaveLength(1);
    expect((await usage(url, keys[0]!)).status).toBe(200);
  }

  it('on a busy port: exit 2 and no key made; the next start on a free port makes the key and prints it once', async () => {
    const dataDir = tempDir();
    const occupant = createServer();
    await new Promise<void>((resolve) => occupant.listen(0, '127.0.0.1', resolve));
    const busy = (occupant.address() as AddressInfo).port;
    try {
      const first = serve(['--data-dir', dataDir, '--host', '127.0.0.1', '--port', String(busy)]);
      expect(await refused(first)).toBe(2);
      expect(first.stderr()).toBe(`evm-integrity: port ${busy} on 127.0.0.1 is in use\n`);
    } finally {
      occupant.close();
    }

    await nextStartShowsOneKey(dataDir);
  });

  it('with an evidence directory that is none: exit 2 and no key made; the next start makes the key and prints it once (was: a key left active that no one saw, and "its API keys were shown once": a user check)', async () => {
    const dataDir = tempDir();
    const missing = join(tempDir(), 'no-such-evidence');
    const first = serve(['--data-dir', dataDir, '--host', '127.0.0.1', '--port', '0', '--evidence', missing]);
    expect(await refused(first)).toBe(2);
    expect(first.stderr()).toContain(missing);
    expect(first.stdout()).not.toMatch(/evmi_/);
    await nextStartShowsOneKey(dataDir);
  });
});

describe('serve: a first start whose API key standard error does not take', () => {
  /**
   * `command ARGS` (a `serve` whose standard error cannot be written; its standard error closed before it has started,
   * when `stderrGone`), in the environment `serve` gets: its exit status and standard output.
   */
  function run(
    command: string,
    args: string[],
    stderrGone: boolean,
  ): Promise<{ status: number | null; stdout: string }> {
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const name of ['PORT', 'HOST', 'EVM_INTEGRITY_CONFIG', 'MALLOC_MMAP_THRESHOLD_']) delete env[name];
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    if (stderrGone) child.stderr.destroy();
    let stdout = '';
    child.stdout.on('data', (chunk) => (stdout += String(chunk)));
    return new Promise((resolve) => child.on('close', (status) => resolve({ status, stdout })));
  }

  it.each([
    ['its reader gone (`serve 2>&1 >log | true`)', 'gone', 'its reader has gone'],
    ['a file it cannot grow (ulimit -f)', 'full', 'the file is larger than this process may write (ulimit -f)'],
  ] as const)(
    '%s: the key revoked and its account removed, told on stdout, exit 2; the next start makes both and shows the key (it stayed active, shown nowhere: a user check)',
    async (_, how, why) => {
      const dataDir = tempDir();
      const args = ['serve', '--data-dir', dataDir, '--host', '127.0.0.1', '--port', '47761'];
      const first =
        how === 'gone'
          ? await run(process.execPath, [BIN, ...args], true)
          : await run(...withFullOutput(2, join(dataDir, 'stderr.log'), args), false);
      expect(first.status).toBe(2);
      const told = first.stdout.split('\n').find((line) => line.includes('first start'));
      expect(JSON.parse(told!)).toMatchObject({
        level: 50,
        account: 'local',
        why: `standard error: cannot write it: ${why}`,
        msg: 'first start: its API key could not be shown, so it was revoked and account "local" removed: the next start makes both again, and shows the key; stopped',
      });
      expect(first.stdout).not.toMatch(/evmi_/);
      const store = new SqliteStore(join(dataDir, 'evm-integrity.sqlite'));
      try {
        expect([await store.listAccounts(), await store.listKeys()]).toEqual([[], []]);
      } finally {
        await store.close();
      }

      const next = serve(args.slice(1));
      const url = await next.listening;
      await next.printed(/Try, with KEY/);
      const key = /evmi_[\w-]+/.exec(next.stderr())![0];
      expect((await usage(url, key)).status).toBe(200);
      next.child.kill('SIGTERM');
      expect(await next.exited).toBe(0);
    },
  );
});

describe('serve: what the first start prints', () => {
  it('behind 0.0.0.0 the hint calls loopback, an address that answers, never the wildcard', async () => {
    const served = serve(['--data-dir', join(tempDir(), 'data'), '--host', '0.0.0.0', '--port', '0']);
    const url = await served.listening;
    await served.printed(/Try, with KEY/);
    const port = new URL(url).port;
    expect(served.stderr()).toContain(`curl -s http://127.0.0.1:${port}/v1/usage`);
    expect(served.stderr()).not.toContain('0.0.0.0');
    const key = served.stderr().match(/evmi_[\w-]+/)![0];
    expect((await usage(`http://127.0.0.1:${port}`, key)).status).toBe(200);
  });
});

describe('serve: a key lost after the first start', () => {
  it('a start on a store that has an account says once, on stderr, the command that makes another key for it; that command works', async () => {
    const dataDir = join(tempDir(), 'data dir');
    const first = serve(['--data-dir', dataDir, '--host', '127.0.0.1', '--port', '0']);
    await first.listening;
    await first.printed(/Try, with KEY/);
    expect(first.stderr()).not.toMatch(/Lost one\?/);
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);

    const second = serve(['--data-dir', dataDir, '--host', '127.0.0.1', '--port', '0']);
    const url = await second.listening;
    await second.printed(/Lost one\?/);
    const quoted = `'${dataDir}'`;
    const hint =
      `This store already has account "local"; its API keys were shown once, when made. ` +
      `Lost one? Make another: evm-integrity keys create local --data-dir ${quoted} (keys list and keys revoke take the same --data-dir ${quoted})\n`;
    expect(second.stderr()).toBe(hint);
    expect(second.stdout()).not.toMatch(/evmi_/);

    // The command of the hint, as a shell would split it.
    const made = spawnSync(process.execPath, [BIN, 'keys', 'create', 'local', '--data-dir', dataDir], {
      encoding: 'utf8',
    });
    expect(made.status).toBe(0);
    const key = /evmi_[\w-]+/.exec(made.stdout)![0];
    expect((await usage(url, key)).status).toBe(200);
  });
});

describe('serve: a restart on a store whose accounts the configuration gives', () => {
  /** Starts `serve` with `args` and stops it: its standard error once it is up. */
  async function startAndStop(args: string[]): Promise<string> {
    const served = serve([...args, '--host', '127.0.0.1', '--port', '0']);
    // The hint is written once the server is up, before the signal is awaited.
    await served.listening;
    served.child.kill('SIGTERM');
    expect(await served.exited).toBe(0);
    return served.stderr();
  }
  const configured = { accounts: [{ id: 'acme', keys: [{ label: 'ci', key: KEY }] }] };

  it('says their keys come from the configuration, never that they were shown (they never were: a user check)', async () => {
    const dataDir = tempDir();
    const file = configFile({ data_dir: dataDir, ...configured });
    expect(await startAndStop(['--config', file])).toBe('');
    const flags = `--config ${file} --data-dir ${dataDir}`;
    expect(await startAndStop(['--config', file])).toBe(
      'This store already has account "acme"; its API keys come from the configuration (accounts[].keys), or were ' +
        `shown once when made by keys create. Lost one? Make another: evm-integrity keys create acme ${flags} ` +
        `(keys list and keys revoke take the same ${flags})\n`,
    );
  });

  it("beside an account made by the first start, tells the configuration's from the one shown when made", async () => {
    const dataDir = tempDir();
    expect(await startAndStop(['--data-dir', dataDir])).toMatch(/First start: created account "local"/);
    const stderr = await startAndStop(['--config', configFile(configured), '--data-dir', dataDir]);
    expect(stderr).toContain(
      "the API keys of acme come from the configuration (accounts[].keys); the others' were shown once, when made. ",
    );
    expect(stderr).toMatch(/^This store already has accounts \((acme, local|local, acme)\); /);
  });
});

describe('serve on PostgreSQL: a key lost after the first start', () => {
  let database: FreshDatabase | undefined;
  afterAll(async () => database?.drop());

  it('says so too, with the command for that store, which works in the same environment (it said nothing: a user check)', async () => {
    database = await freshDatabase();
    const env = { DATABASE_URL: database.url };
    const flags = ['--store', 'postgres', '--host', '127.0.0.1', '--port', '0'];
    const first = serve(flags, env);
    await first.listening;
    await first.printed(/Try, with KEY/);
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);

    const second = serve(flags, env);
    const url = await second.listening;
    await second.printed(/Lost one\?/);
    expect(second.stderr()).toBe(
      'This store already has account "local"; its API keys were shown once, when made. ' +
        'Lost one? Make another: evm-integrity keys create local --store postgres (keys list and keys revoke take the same --store postgres)\n',
    );
    const made = spawnSync(process.execPath, [BIN, 'keys', 'create', 'local', '--store', 'postgres'], {
      encoding: 'utf8',
      env: { ...process.env, ...env },
    });
    expect(made.status, made.stderr).toBe(0);
    const key = /evmi_[\w-]+/.exec(made.stdout)![0];
    expect((await usage(url, key)).status).toBe(200);
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  });
});

describe('serve on PostgreSQL: stopped while it waits for another replica to migrate', () => {
  let database: FreshDatabase | undefined;
  afterAll(async () => database?.drop());

  it('SIGTERM ends the wait and the start at once, exit 0 (it ran on until the lock was let go: a user check)', async () => {
    database = await freshDatabase();
    const other = new pg.Client({ connectionString: database.url });
    await other.connect();
    try {
      await other.query('SELECT pg_advisory_lock(1702260073)');
      const waiting = serve(['--store', 'postgres', '--host', '127.0.0.1', '--port', '0'], {
        DATABASE_URL: database.url,
      });
      await new Promise((resolve) => setTimeout(resolve, 1500));
      // The lock is held until the test ends: without the fix the process would not exit before it times out.
      waiting.child.kill('SIGTERM');
      expect(await waiting.exited).toBe(0);
      expect(waiting.stdout()).toContain('stopped while starting');
      expect(waiting.stdout()).not.toContain('"msg":"listening"');
    } finally {
      await other.end();
    }
  });
});

/** What a raw client saw: everything received, and when the server closed the connection. */
interface Closed {
  received: string;
  /** Milliseconds from before the connection to its close. */
  ms: number;
  /** Milliseconds from the first byte received to the close. */
  msAfterFirstByte: number;
}

/**
 * A raw connection that writes `head`, then (when `drip` is true) one more byte
 * every 50 ms and never finishes; `closed` resolves once the server closes it.
 */
function rawClient(url: string, head: string, drip: boolean): { closed: Promise<Closed>; isOpen: () => boolean } {
  const started = performance.now();
  const { port } = new URL(url);
  const socket = connect(Number(port), '127.0.0.1', () => socket.write(head));
  let received = '';
  let firstByte: number | undefined;
  socket.on('data', (chunk) => {
    firstByte ??= performance.now();
    received += String(chunk);
  });
  const timer = drip ? setInterval(() => socket.write(' '), 50) : undefined;
  const closed = new Promise<Closed>((resolve) =>
    socket.on('close', () => {
      clearInterval(timer);
      const now = performance.now();
      resolve({ received, ms: now - started, msAfterFirstByte: now - (firstByte ?? now) });
    }),
  );
  socket.on('error', () => undefined); // the server may reset a socket it cuts off; `closed` still resolves
  return { closed, isOpen: () => !socket.closed };
}

/** The 408 of a request cut off at its deadline: the error envelope, whole, then the close. */
const REQUEST_TIMEOUT =
  /^HTTP\/1\.1 408 Request Timeout\r\nContent-Type: application\/json\r\nContent-Length: \d+\r\nConnection: close\r\n\r\n\{"error":\{"code":"REQUEST_TIMEOUT","http_status":408,[^]*\}\}$/;

describe('serve: slow and idle clients are cut off, and do not stall the others', () => {
  // The header deadline far below the body one, so a cut before the body deadline is the header timeout's.
  const timeouts = { header_timeout_ms: 300, body_timeout_ms: 3000, idle_timeout_ms: 500 };

  it('a trickled body at body_timeout_ms, unfinished headers at header_timeout_ms (408), an idle keep-alive socket after idle_timeout_ms; /v1/health answers meanwhile', async () => {
    const served = serve(['--config', configFile({ store: 'memory', auth: false, port: 0, ...timeouts })]);
    const url = await served.listening;
    const trickledBody = rawClient(
      url,
      'POST /v1/evm/verify/logs-bloom HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n',
      true,
    );
    const unfinishedHeaders = rawClient(url, 'POST /v1/evm/verify/logs-bloom HTTP/1.1\r\nHost: x\r\nX-Slow: ', true);
    const idle = rawClient(url, 'GET /v1/health HTTP/1.1\r\nHost: x\r\n\r\n', false);

    const health = await fetch(`${url}/v1/health`);
    expect(health.status).toBe(200);
    expect(trickledBody.isOpen()).toBe(true);

    const body = await trickledBody.closed;
    expect(body.received).toMatch(REQUEST_TIMEOUT);
    expect(body.ms).toBeGreaterThanOrEqual(timeouts.body_timeout_ms);

    const headers = await unfinishedHeaders.closed;
    expect(headers.received).toMatch(REQUEST_TIMEOUT);
    expect(headers.ms).toBeGreaterThanOrEqual(timeouts.header_timeout_ms);
    expect(headers.ms).toBeLessThan(timeouts.body_timeout_ms);

    const kept = await idle.closed;
    expect(kept.received).toMatch(/^HTTP\/1\.1 200 OK\r\n[^]*\r\nConnection: keep-alive\r\n[^]*\{"status":"ok"\}$/);
    expect(kept.msAfterFirstByte).toBeGreaterThanOrEqual(timeouts.idle_timeout_ms);
    // The cut body is logged as the 408 the server sent (not as a client's abort, 499), never as an incident.
    await served.printed(/"status":408,"msg":"request timed out"/);
    expect(served.stdout()).not.toMatch(/request aborted by the client/);
    expect(served.stdout()).not.toMatch(/"level":50/);
  }, 20_000);
});

describe('serve: a request cut off at body_timeout_ms', () => {
  it('is logged as the 408 the server sent, not as a client that left (499)', async () => {
    const timeouts = { header_timeout_ms: 1000, body_timeout_ms: 1000 };
    const served = serve(['--config', configFile({ store: 'memory', auth: false, port: 0, ...timeouts })]);
    const url = await served.listening;
    const trickled = rawClient(
      url,
      'POST /v1/evm/verify/logs-bloom HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n',
      true,
    );
    expect((await trickled.closed).received).toMatch(REQUEST_TIMEOUT);
    await served.printed(/"path":"\/v1\/evm\/verify\/logs-bloom"[^\n]*"status":408,"msg":"request timed out"/);
    expect(served.stdout()).not.toMatch(/request aborted by the client/);
  }, 20_000);
});

describe('serve: shutdown', () => {
  it('on SIGTERM: stops accepting, answers the request that finishes in time, cuts the one still open at shutdown_timeout_ms (logged 444, not 499), exits 0', async () => {
    const shutdownTimeoutMs = 1000;
    const served = serve([
      '--config',
      configFile({ store: 'memory', auth: false, port: 0, shutdown_timeout_ms: shutdownTimeoutMs }),
    ]);
    const url = await served.listening;
    const body = JSON.stringify({ expected_bloom: '00'.repeat(256), logs: [] });
    const head = `POST /v1/evm/verify/logs-bloom HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
    const stuck = rawClient(url, `${head}${body.slice(0, 10)}`, false);
    const inTime = connect(Number(new URL(url).port), '127.0.0.1');
    await new Promise((resolve) => inTime.write(`${head}${body.slice(0, 10)}`, resolve));
    let answer = '';
    inTime.on('data', (chunk) => (answer += String(chunk)));
    const answered = new Promise((resolve) => inTime.on('close', resolve));

    // A request on a later connection is answered only after the server has read both requests' headers.
    await fetch(`${url}/v1/health`);
    const signalled = performance.now();
    served.child.kill('SIGTERM');
    await served.printed(/shutting down/);
    // A new connection is refused (fetch's kept-alive one would be answered, Connection: close, in its grace). The
    // listening socket is closed by the event loop's next turn: a connection the kernel took before that is asked
    // again.
    const refused = async (): Promise<string | undefined> => {
      for (let attempt = 0; attempt < 40; attempt++) {
        const code = await new Promise<string | undefined>((resolve) => {
          const probe = connect(Number(new URL(url).port), '127.0.0.1', () => {
            probe.destroy();
            resolve(undefined);
          });
          probe.on('error', (error: NodeJS.ErrnoException) => resolve(error.code));
        });
        if (code !== undefined) return code;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      return undefined;
    };
    expect(await refused()).toBe('ECONNREFUSED');
    inTime.write(body.slice(10));
    await answered;
    expect(answer).toMatch(/^HTTP\/1\.1 200 OK\r\n[^]*"is_identical":true/);

    expect(await served.exited).toBe(0);
    expect(performance.now() - signalled).toBeGreaterThanOrEqual(shutdownTimeoutMs);
    expect((await stuck.closed).received).toBe('');
    const cut = served
      .stdout()
      .split('\n')
      .find((line) => line.includes('shutdown deadline'));
    expect(JSON.parse(cut!)).toMatchObject({ level: 40, connections: 1, shutdown_timeout_ms: shutdownTimeoutMs });
    // The request the server cut is told as the server's doing (444), not as a client that left (499).
    const requests = served
      .stdout()
      .split('\n')
      .filter((line) => line.includes('"path":"/v1/evm/verify/logs-bloom"'))
      .map((line) => JSON.parse(line) as { status: number; msg: string });
    expect(requests).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ status: 200, msg: 'request' }),
        expect.objectContaining({ status: 444, msg: 'request cut at shutdown' }),
      ]),
    );
    expect(served.stdout()).not.toMatch(/request aborted by the client/);
    expect(served.stdout()).toMatch(/"msg":"stopped"/);
    expect(served.stdout()).not.toMatch(/"level":50/);
  }, 20_000);
});

describe('serve: compute units across processes', () => {
  it('two servers on one store, cu_limit 20: 40 requests at once are answered 20 times and refused 20 times, never overdrawn', async () => {
    const dataDir = tempDir();
    const file = configFile({
      data_dir: dataDir,
      port: 0,
      accounts: [{ id: 'acme', cu_limit: 20, rate_limit_rps: 1000, keys: [{ label: 'ci', key: KEY }] }],
    });
    const [a, b] = [serve(['--config', file]), serve(['--config', file])];
    const urls = await Promise.all([a.listening, b.listening]);
    const body = JSON.stringify({ expected_bloom: '00'.repeat(256), logs: [] });
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        fetch(`${urls[i % 2]}/v1/evm/verify/logs-bloom`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${KEY}`, 'Content-Type': 'application/json' },
          body,
        }).then((r) => r.status),
      ),
    );
    expect(answers.filter((s) => s === 200)).toHaveLength(20);
    expect(answers.filter((s) => s === 429)).toHaveLength(20);
    const usage = (await (
      await fetch(`${urls[0]}/v1/usage`, { headers: { Authorization: `Bearer ${KEY}` } })
    ).json()) as {
      cu_used: number;
      cu_remaining: number;
    };
    expect(usage).toMatchObject({ cu_used: 20, cu_remaining: 0 });
  }, 20_000);
});

describe('serve: the worker pool in the installed command', () => {
  it('a body over pool_threshold_bytes is verified on a worker thread of the bundled CLI, with the inline answer', async () => {
    const served = serve([
      '--config',
      configFile({ store: 'memory', auth: false, port: 0, pool_workers: 1, pool_threshold_bytes: 1 }),
    ]);
    const url = await served.listening;
    const body = readFileSync(new URL('../fixtures/requests/receipt-root-mainnet-19426587.json', import.meta.url));
    const res = await fetch(`${url}/v1/evm/verify/receipt-root`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body,
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { data: Array<{ is_identical: boolean }> }).data[0]!.is_identical).toBe(true);
    served.child.kill('SIGTERM');
    expect(await served.exited).toBe(0);
    expect(served.stdout()).not.toMatch(/"level":50/);
  }, 20_000);
});

/** The value of `name` in the environment of the live process `pid` (Linux's /proc), or undefined. */
const environmentOf = (pid: number, name: string) =>
  readFileSync(`/proc/${pid}/environ`, 'latin1')
    .split('\0')
    .find((entry) => entry.startsWith(`${name}=`))
    ?.slice(name.length + 1);

describe.runIf(process.platform === 'linux')(
  "serve: glibc's mmap threshold kept fixed, so large bodies' memory goes back",
  () => {
    it('a serve process without MALLOC_MMAP_THRESHOLD_ (or with it empty) runs with 131072, in the same process; one that sets it, in its environment or by --env-file, runs with its own', async () => {
      const config = configFile({ store: 'memory', auth: false, port: 0 });
      const fixed = serve(['--config', config]);
      await fixed.listening;
      expect(environmentOf(fixed.child.pid!, 'MALLOC_MMAP_THRESHOLD_')).toBe('131072');
      const own = serve(['--config', config], { MALLOC_MMAP_THRESHOLD_: '65536' });
      await own.listening;
      expect(environmentOf(own.child.pid!, 'MALLOC_MMAP_THRESHOLD_')).toBe('65536');
      // Empty, glibc would map every allocation: as unset.
      const empty = serve(['--config', config], { MALLOC_MMAP_THRESHOLD_: '' });
      await empty.listening;
      expect(environmentOf(empty.child.pid!, 'MALLOC_MMAP_THRESHOLD_')).toBe('131072');
      // From --env-file, after glibc read the environment: started again with it, so glibc reads it.
      const envFile = join(tempDir(), '.env');
      writeFileSync(envFile, 'MALLOC_MMAP_THRESHOLD_=65536\n');
      const fromFile = serve(['--config', config], {}, [`--env-file=${envFile}`]);
      await fromFile.listening;
      expect(environmentOf(fromFile.child.pid!, 'MALLOC_MMAP_THRESHOLD_')).toBe('65536');
      for (const served of [fixed, own, empty, fromFile]) {
        served.child.kill('SIGTERM');
        expect(await served.exited).toBe(0);
      }
    }, 20_000);
  },
);
