/**
 * The service as an operator starts it: `evm-integrity serve …` in a child
 * process (the built dist/, as `npm start` runs it), its stdout and stderr, its
 * exit status, and clients on loopback.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';

const BIN = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
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
  /** Resolves once stderr matches `pattern`. */
  stderrMatching: (pattern: RegExp) => Promise<void>;
}

/** Starts `evm-integrity serve ARGS` (no PORT/HOST/EVM_INTEGRITY_CONFIG from this environment). */
function serve(args: string[]): Served {
  const env = { ...process.env };
  for (const name of ['PORT', 'HOST', 'EVM_INTEGRITY_CONFIG']) delete env[name];
  const child = spawn(process.execPath, [BIN, 'serve', ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  let err = '';
  const stderrChecks: Array<() => void> = [];
  child.stderr!.on('data', (chunk) => {
    err += String(chunk);
    for (const check of stderrChecks) check();
  });
  const stderrMatching = (pattern: RegExp) =>
    new Promise<void>((resolve) => {
      const check = () => pattern.test(err) && resolve();
      stderrChecks.push(check);
      check();
    });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const listening = new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (chunk) => {
      out += String(chunk);
      const line = out.split('\n').find((l) => l.includes('"msg":"listening"'));
      if (line !== undefined) resolve((JSON.parse(line) as { url: string }).url);
    });
    void exited.then((code) => reject(new Error(`serve exited with ${code} before listening: ${err}`)));
  });
  listening.catch(() => undefined); // awaited by the tests that expect a start
  return { child, stdout: () => out, stderr: () => err, exited, listening, stderrMatching };
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
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('serve: configuration as the operator gives it', () => {
  it('--config with --host and --port keeps the file\'s accounts: the configured key is accepted, no bootstrap key is made', async () => {
    const dataDir = tempDir();
    const file = configFile({ data_dir: dataDir, accounts: [{ id: 'acme', plan: 'pro', cu_limit: 5, keys: [{ label: 'ci', key: KEY }] }] });
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

  it('a configured key with neither "key" nor "sha256": one line naming its path, exit 2, no store written', async () => {
    const dataDir = join(tempDir(), 'data');
    const file = configFile({ data_dir: dataDir, accounts: [{ id: 'acme', keys: [{ label: 'ci', key: KEY }, { label: 'typo', sah256: 'ab'.repeat(32) }] }] });
    const served = serve(['--config', file, '--port', '0']);
    expect(await refused(served)).toBe(2);
    expect(served.stderr()).toBe('evm-integrity: accounts[0].keys[1]: expected "key" (the key itself) or "sha256" (its SHA-256), got neither\n');
    expect(existsSync(dataDir)).toBe(false);
  });
});

describe('serve: a start that cannot work says why in one line and exits 2', () => {
  it.each([
    ['a --data-dir under a regular file', (dir: string) => ['--data-dir', join(dir, 'file', 'data')], /^evm-integrity: data_dir: cannot create ".*\/file\/data": ENOTDIR: not a directory, mkdir .*\n$/],
    ['a --host that is no host name', () => ['--host', 'bad host!'], /^evm-integrity: host "bad host!": no such host name or address \((ENOTFOUND|EAI_AGAIN)\)\n$/],
    ['a --host that is not this machine\'s', () => ['--host', '203.0.113.7'], /^evm-integrity: host "203.0.113.7": not an address of this machine \(EADDRNOTAVAIL\)\n$/],
  ])('%s', async (_case, flags, message) => {
    const dir = tempDir();
    writeFileSync(join(dir, 'file'), '');
    const served = serve(['--data-dir', join(dir, 'data'), '--port', '0', ...flags(dir)]);
    expect(await refused(served)).toBe(2);
    expect(served.stderr()).toMatch(message);
  });
});

describe('serve: the first start\'s API key', () => {
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

    const second = serve(['--data-dir', dataDir, '--host', '127.0.0.1', '--port', '0']);
    const url = await second.listening;
    await second.stderrMatching(/Try, with KEY/);
    const keys = `${second.stdout()}${second.stderr()}`.match(/evmi_[\w-]+/g) ?? [];
    expect(keys).toHaveLength(1);
    expect((await usage(url, keys[0]!)).status).toBe(200);
  });
});
