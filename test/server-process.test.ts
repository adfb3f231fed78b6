/**
 * The service as an operator starts it: `evm-integrity serve …` in a child
 * process (the built dist/, as `npm start` runs it), its stdout and stderr, its
 * exit status, and clients on loopback.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
}

/** Starts `evm-integrity serve ARGS` (no PORT/HOST/EVM_INTEGRITY_CONFIG from this environment). */
function serve(args: string[]): Served {
  const env = { ...process.env };
  for (const name of ['PORT', 'HOST', 'EVM_INTEGRITY_CONFIG']) delete env[name];
  const child = spawn(process.execPath, [BIN, 'serve', ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  let err = '';
  child.stderr!.on('data', (chunk) => (err += String(chunk)));
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
  return { child, stdout: () => out, stderr: () => err, exited, listening };
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
