/**
 * How the CLI reads its files, run as a real process: `verify block` over many files (one
 * answer a block, a file that cannot be read or is not JSON told on one line naming it, the
 * others still verified), standard input with `-` or no FILE, and text that is not JSON told in
 * the CLI's words for every `verify` command.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { closeOutputEarly } from './helpers/pipe.js';
import { buildArtifact } from './helpers/logs-proofs.js';
import { bytesToHex } from '../packages/core/src/index.js';
import { runWithoutFileSpace } from './helpers/cli-process.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = fileURLToPath(new URL('../packages/service/bin/evm-integrity.js', import.meta.url));

/** Runs the built CLI (npm test builds it first) as an operator would. */
function run(args: string[], input = '') {
  const result = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, input, encoding: 'utf8' });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

const GOOD = ['mainnet-1000001', 'mainnet-22869878'].map((n) => `fixtures/blocks/${n}.json`);
const dir = mkdtempSync(join(tmpdir(), 'cli-input-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const notJson = join(dir, 'blocks.json');
writeFileSync(notJson, '{\n  "chain_id": 1,\n  }\n');
const missing = join(dir, 'missing.json');
const notABlock = join(dir, 'array.json');
writeFileSync(notABlock, '[]');

/** What `verify block FILE` prints on stdout for a good file alone. */
const alone = (file: string) => run(['verify', 'block', file]).stdout;

/** What a block read whole is, as every refusal of one names it. */
const BLOCK_OBJECT =
  'a block object {chain_id, header, receipts}: the "result" of eth_getBlockByNumber as header, of eth_getBlockReceipts as receipts';

describe('verify block over many files', () => {
  it('a missing file and a file that is not JSON get one line each on stderr naming them; the other blocks are still verified; exit 2', () => {
    const { code, stdout, stderr } = run(['verify', 'block', GOOD[0]!, missing, notJson, GOOD[1]!]);
    expect(code).toBe(2);
    expect(stdout).toBe(alone(GOOD[0]!) + alone(GOOD[1]!));
    expect(stderr).toBe(
      [
        `evm-integrity: ${missing}: cannot read it: no such file`,
        `evm-integrity: ${notJson}: not JSON (Expected double-quoted property name at line 3 column 3)`,
        'evm-integrity: 4 files: 2 identical, 0 different, 2 refused',
        '',
      ].join('\n'),
    );
    expect(stderr).not.toMatch(/Usage:/);
  });

  it('the same on worker threads (--workers 2): lines in argument order, the errors named', () => {
    const { code, stdout, stderr } = run(['verify', 'block', missing, GOOD[0]!, notJson, GOOD[1]!, '--workers', '2']);
    expect(code).toBe(2);
    expect(stdout).toBe(alone(GOOD[0]!) + alone(GOOD[1]!));
    expect(stderr).toMatch(
      new RegExp(`^evm-integrity: ${missing}: cannot read it: no such file\nevm-integrity: ${notJson}: not JSON \\(`),
    );
  });

  it('a directory and an unreadable file are named too', () => {
    const locked = join(dir, 'locked.json');
    writeFileSync(locked, '{}');
    chmodSync(locked, 0);
    const { code, stderr } = run(['verify', 'block', dir, GOOD[0]!]);
    expect(code).toBe(2);
    expect(stderr).toBe(
      `evm-integrity: ${dir}: cannot read it: it is a directory\nevm-integrity: 2 files: 1 identical, 0 different, 1 refused\n`,
    );
    // root reads any file: the permission check only holds for other users.
    if (process.getuid?.() !== 0)
      expect(run(['verify', 'block', locked]).stderr).toBe(
        `evm-integrity: ${locked}: cannot read it: permission denied\n`,
      );
  });

  it('a block refused as invalid: its envelope on stdout (as alone) and a line naming the file on stderr', () => {
    const { code, stdout, stderr } = run(['verify', 'block', notABlock, GOOD[0]!]);
    expect(code).toBe(2);
    expect(JSON.parse(stdout.split('\n')[0]!).error).toMatchObject({ code: 'BAD_REQUEST' });
    expect(stderr).toMatch(new RegExp(`^evm-integrity: ${notABlock}: Invalid parameter`));
  });

  it('a block that is not an object: the root named as every body is (body), in the envelope and on stderr', () => {
    for (const [text, got] of [
      ['null', 'null'],
      ['[]', 'an array'],
      ['42', 'number 42'],
    ]) {
      const file = join(dir, 'root.json');
      writeFileSync(file, text!);
      const { code, stdout, stderr } = run(['verify', 'block', file]);
      expect(code).toBe(2);
      const expected = `${BLOCK_OBJECT}, got ${got}`;
      expect(JSON.parse(stdout).error.details.invalid_parameters).toEqual([
        { name: 'body', location: 'body', reason: 'invalid_format', expected },
      ]);
      expect(stderr).toBe(`evm-integrity: ${file}: Invalid parameter body: expected ${expected}.\n`);
    }
  });

  it.each([
    ['verify', 'block'],
    ['request', 'receipt-root'],
    ['prove', 'receipt', '--index', '0'],
    ['evidence', 'add', '--trusted-hash', `0x${'00'.repeat(32)}`, '--evidence-dir', join(dir, 'evidence')],
  ])(
    "%s %s: a JSON-RPC response saved to a file is named as one (with the node's error), with the block expected",
    (...command) => {
      const cases: Array<[object, string]> = [
        [
          { jsonrpc: '2.0', id: 1, error: { code: -32000, message: 'header not found' } },
          'a JSON-RPC error response (the node answered "header not found"), not an answer',
        ],
        [{ jsonrpc: '2.0', id: 1, result: { number: '0x1' } }, 'a JSON-RPC response (give its "result")'],
      ];
      for (const [response, got] of cases) {
        const file = join(dir, 'response.json');
        writeFileSync(file, JSON.stringify(response));
        const { code, stderr } = run([...command, file]);
        expect(code).toBe(2);
        expect(stderr.split('\n').filter(Boolean)).toHaveLength(1);
        expect(stderr).toContain(`body: expected ${BLOCK_OBJECT}, got ${got}`);
        expect(stderr).not.toMatch(/receipts: expected/);
      }
    },
  );

  it('a block with several faults: the first three named on stderr, each with what was expected', () => {
    const block = JSON.parse(readFileSync(GOOD[0]!, 'utf8'));
    const faulty = join(dir, 'faulty.json');
    const header = { ...block.header, receiptsRoot: '0x12', logsBloom: '0x12', gasUsed: 'lots', nonce: '0x1' };
    writeFileSync(faulty, JSON.stringify({ ...block, header }));
    const { code, stdout, stderr } = run(['verify', 'block', faulty]);
    expect(code).toBe(2);
    const listed = JSON.parse(stdout).error.details.invalid_parameters as Array<{ name: string; expected: string }>;
    expect(listed).toHaveLength(4);
    const named = listed.slice(0, 3).map((p) => `${p.name}: expected ${p.expected}`);
    expect(stderr).toBe(
      `evm-integrity: ${faulty}: 4 invalid parameters: ${named.join('; ')}; and 1 more on standard output\n`,
    );
    expect(stderr).toMatch(/header\.\w+: expected .+; header\.\w+: expected /);
  });

  it('a bound that is a power of two less one is written as one (2^256-1), not in its 78 digits', () => {
    const block = JSON.parse(readFileSync(GOOD[1]!, 'utf8'));
    const file = join(dir, 'base-fee.json');
    writeFileSync(file, JSON.stringify({ ...block, header: { ...block.header, baseFeePerGas: '0x' } }));
    const { code, stderr } = run(['verify', 'block', file]);
    expect(code).toBe(2);
    expect(stderr).toBe(
      `evm-integrity: ${file}: Invalid parameter header.baseFeePerGas: expected non-negative integer up to 2^256-1: a JSON integer, a decimal string or a 0x hex string, got "0x".\n`,
    );
  });

  it('a different block is exit 1 beside good ones, and beside a file that gave no verdict (was: 2, the finding hidden)', () => {
    const tampered = JSON.parse(readFileSync(GOOD[0]!, 'utf8'));
    const different = join(dir, 'different.json');
    writeFileSync(
      different,
      JSON.stringify({ ...tampered, header: { ...tampered.header, receiptsRoot: `0x${'ab'.repeat(32)}` } }),
    );
    expect(run(['verify', 'block', GOOD[1]!, different]).code).toBe(1);
    expect(run(['verify', 'block', GOOD[1]!, different, missing]).code).toBe(1);
    expect(run(['verify', 'block', GOOD[1]!, missing]).code).toBe(2);
  });
});

describe('standard input', () => {
  const block = readFileSync(GOOD[0]!, 'utf8');

  it.each([[[]], [['-']]])('verify block %j reads the block from standard input', (files) => {
    const { code, stdout, stderr } = run(['verify', 'block', ...files], block);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(stdout).toBe(alone(GOOD[0]!));
  });

  it('- among files is standard input, in its place', () => {
    const { code, stdout } = run(['verify', 'block', GOOD[1]!, '-'], block);
    expect(code).toBe(0);
    expect(stdout).toBe(alone(GOOD[1]!) + alone(GOOD[0]!));
  });

  it.each([['receipt-root'], ['logs-bloom'], ['block']])(
    'verify %s: text that is not JSON is one line naming standard input, exit 2, nothing on stdout',
    (what) => {
      expect(run(['verify', what, '-'], '{"a": 1\n,}')).toEqual({
        code: 2,
        stdout: '',
        stderr: 'evm-integrity: standard input: not JSON (Expected double-quoted property name at line 2 column 2)\n',
      });
      expect(run(['verify', what], '')).toEqual({
        code: 2,
        stdout: '',
        stderr: 'evm-integrity: standard input: not JSON (it is empty)\n',
      });
    },
  );

  it.each([['receipt-root'], ['logs-bloom'], ['block']])(
    'verify %s: bytes that are not UTF-8, or two byte order marks, are said as such in one line',
    (what) => {
      const notUtf8 = join(dir, 'latin1.json');
      writeFileSync(notUtf8, Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]));
      expect(run(['verify', what, notUtf8])).toEqual({
        code: 2,
        stdout: '',
        stderr: `evm-integrity: ${notUtf8}: not UTF-8 text (a JSON text is UTF-8): it has bytes that are not UTF-8\n`,
      });
      expect(run(['verify', what, '-'], '\uFEFF\uFEFF{}')).toEqual({
        code: 2,
        stdout: '',
        stderr:
          'evm-integrity: standard input: not JSON (it starts with two byte order marks, U+FEFF; one is allowed)\n',
      });
    },
  );

  it.each([['receipt-root'], ['logs-bloom']])(
    'verify %s FILE: a file that is not JSON or missing is named, without the usage',
    (what) => {
      expect(run(['verify', what, notJson])).toEqual({
        code: 2,
        stdout: '',
        stderr: `evm-integrity: ${notJson}: not JSON (Expected double-quoted property name at line 3 column 3)\n`,
      });
      expect(run(['verify', what, missing])).toEqual({
        code: 2,
        stdout: '',
        stderr: `evm-integrity: ${missing}: cannot read it: no such file\n`,
      });
    },
  );

  it('verify logs-bloom from standard input and from a file answer alike', () => {
    const body = readFileSync('test/data/empty-bloom.json', 'utf8');
    const piped = run(['verify', 'logs-bloom'], body);
    expect(piped.code).toBe(0);
    expect(piped.stdout).toBe(run(['verify', 'logs-bloom', 'test/data/empty-bloom.json']).stdout);
  });
});

describe('a reader that stops early', () => {
  it('verify block FILE… | head -1: status 141, nothing on stderr, no stack trace', async () => {
    const files = Array.from({ length: 40 }, () => GOOD[1]!);
    const result = await closeOutputEarly(BIN, ['verify', 'block', ...files], { cwd: ROOT });
    expect(result).toEqual({ status: 141, stderr: '' });
  });
});

/**
 * Runs the built CLI with its standard output in `out` and its standard error a pipe whose reader has gone (`2>&1
 * >out | true`): the exit status and what reached `out`.
 */
function runWithStderrClosed(args: string[], out: string): Promise<{ status: number | null; stdout: string }> {
  const fd = openSync(out, 'w');
  const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, stdio: ['ignore', fd, 'pipe'] });
  closeSync(fd);
  // Closed before the process has started (tens of milliseconds): its every write to stderr fails (EPIPE).
  child.stderr!.destroy();
  return new Promise((resolve) => {
    child.on('close', (status) => resolve({ status, stdout: readFileSync(out, 'utf8') }));
  });
}

describe('a standard error whose reader has gone', () => {
  const out = join(dir, 'stderr-closed.ndjson');

  it('verify block over identical blocks: exit 0 and every line on stdout, as with stderr read', async () => {
    expect(await runWithStderrClosed(['verify', 'block', GOOD[0]!, GOOD[1]!], out)).toEqual({
      status: 0,
      stdout: alone(GOOD[0]!) + alone(GOOD[1]!),
    });
  });

  it('verify block --verbose over one identical block: exit 0', async () => {
    expect(await runWithStderrClosed(['verify', 'block', GOOD[0]!, '--verbose'], out)).toEqual({
      status: 0,
      stdout: alone(GOOD[0]!),
    });
  });

  it('a refused block: exit 2, its verdict, never 1', async () => {
    const { status } = await runWithStderrClosed(['verify', 'block', notABlock], out);
    expect(status).toBe(2);
  });
});

/**
 * Runs the built CLI with its standard output a regular file that cannot grow (RLIMIT_FSIZE 0, SIGXFSZ ignored, so
 * that every write fails with EFBIG, as on a full disk): the exit status and what it said on standard error.
 */
function runWithStdoutTooLarge(args: string[], out: string) {
  const { status, stderr } = runWithoutFileSpace(args, { cwd: ROOT, stdoutFile: out });
  return { code: status, stderr };
}

describe('a standard output that cannot be written', () => {
  const out = join(dir, 'too-large.json');
  const body = join(dir, 'body.json');
  writeFileSync(body, run(['request', 'receipt-root', GOOD[0]!]).stdout);
  const TOO_LARGE = {
    code: 2,
    stderr:
      'evm-integrity: standard output: cannot write it: the file is larger than this process may write (ulimit -f)\n',
  };

  it.each([
    ['verify block FILE', ['verify', 'block', GOOD[0]!]],
    ['verify block FILE FILE', ['verify', 'block', GOOD[0]!, GOOD[1]!]],
    ['verify receipt-root', ['verify', 'receipt-root', body]],
    ['request receipt-root', ['request', 'receipt-root', GOOD[0]!]],
    ['prove receipt', ['prove', 'receipt', GOOD[0]!, '--index', '0']],
  ])('%s: one line naming standard output and why, exit 2, no stack trace', (_name, args) => {
    expect(runWithStdoutTooLarge(args, out)).toEqual(TOO_LARGE);
  });

  // A logs proof of mainnet 1,000,023: verify logs-proof writes its logs whole, then copies them to stdout (a stream).
  const { artifact, headHash } = buildArtifact(['mainnet-1000023'], { addresses: [], topics: [] });
  const proof = join(dir, 'logs.proof');
  writeFileSync(proof, artifact);

  it.runIf(existsSync('/dev/full')).each([
    ['verify block FILE FILE', ['verify', 'block', GOOD[0]!, GOOD[1]!]],
    [
      'verify logs-proof (copied from its temporary file)',
      ['verify', 'logs-proof', proof, '--head-hash', bytesToHex(headHash)],
    ],
  ])('%s onto /dev/full: no space left on the device, exit 2', (_name, args) => {
    const fd = openSync('/dev/full', 'w');
    try {
      const result = spawnSync(process.execPath, [BIN, ...args], {
        cwd: ROOT,
        encoding: 'utf8',
        stdio: ['ignore', fd, 'pipe'],
      });
      expect({ code: result.status, stderr: result.stderr }).toEqual({
        code: 2,
        stderr: 'evm-integrity: standard output: cannot write it: no space left on the device\n',
      });
    } finally {
      closeSync(fd);
    }
  });
});
