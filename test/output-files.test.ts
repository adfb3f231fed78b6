/**
 * Every command that writes an output file, run as a real process onto a FIFO, a character device and a directory:
 * a regular file or a new path is replaced whole (written beside it, renamed), a FIFO or a device is written into and
 * stays what it was (a rename onto /dev/null made it a regular file), a directory is refused before any work. The
 * library's `writeBundle` (`audit --record`, `lineage --record`) follows the same rule.
 */
import { lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { writeBundle } from '../packages/core/src/bundle/write-bundle.js';
import { runCliBytes } from './helpers/cli-process.js';
import { FIXTURES_DIR, loadFixture } from './helpers/fixtures.js';
import { buildArtifact, toFilter, THIRTY, BUSY_2016 } from './helpers/logs-proofs.js';
import { fixtureBlocks, fixtureChain, startLoopbackNode, type LoopbackNode } from './helpers/loopback-rpc.js';
import { kindOf, makeDevice, makeFifo, readFifoDuring, specialDir } from './helpers/special-files.js';

const dir = specialDir('output-files-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let node: LoopbackNode | undefined;
afterEach(async () => {
  await node?.close();
  node = undefined;
});

const run = (args: string[], input?: Uint8Array) => runCliBytes(args, { input });

/** A directory of its own for one case. */
let cases = 0;
const caseDir = () => {
  const path = join(dir, String(cases++));
  mkdirSync(path);
  return path;
};

const RECEIPT = join(FIXTURES_DIR, 'mainnet-47218.json');
const proveReceipt = (out?: string) =>
  run(['prove', 'receipt', RECEIPT, '--index', '0', ...(out === undefined ? [] : ['--out', out])]);

const FILTER = { address: [BUSY_2016] };
const HEAD = loadFixture(THIRTY[29]!).header['hash']!;
const rangeFlags = () => [
  '--chain',
  '1',
  '--rpc',
  node!.url,
  '--from',
  '1000001',
  '--to',
  '1000030',
  '--address',
  BUSY_2016,
];

/** The commands that write their output whole, each with what it writes to stdout without --out. */
const WRITERS: Array<{
  name: string;
  setup?: () => Promise<void>;
  args: (out: string) => string[];
  input?: Uint8Array;
}> = [
  { name: 'prove receipt --out', args: (out) => ['prove', 'receipt', RECEIPT, '--index', '0', '--out', out] },
  {
    name: 'verify logs-proof --out',
    args: (out) => ['verify', 'logs-proof', '-', '--head-hash', HEAD, '--out', out],
    input: buildArtifact(THIRTY, toFilter(FILTER)).artifact,
  },
  {
    name: 'prove logs --out',
    setup: async () => void (node = await startLoopbackNode(1, fixtureBlocks(THIRTY))),
    args: (out) => ['prove', 'logs', ...rangeFlags(), '--out', out],
  },
  {
    name: 'audit-logs --save-proof',
    setup: async () => void (node = await startLoopbackNode(1, fixtureBlocks(THIRTY))),
    args: (out) => ['audit-logs', ...rangeFlags(), '--save-proof', out],
  },
];

/** What the command writes into a regular file: the expectation for a FIFO or a device. */
async function expectedBytes(writer: (typeof WRITERS)[number]): Promise<Buffer> {
  const file = join(caseDir(), 'regular');
  await writer.setup?.();
  const result = await run(writer.args(file), writer.input);
  await node?.close();
  node = undefined;
  expect(result.status, result.stderr).toBe(0);
  return readFileSync(file);
}

describe.each(WRITERS)('$name', (writer) => {
  it('onto a FIFO: written into it, whole, and the FIFO is left a FIFO', async () => {
    const expected = await expectedBytes(writer);
    expect(expected.length).toBeGreaterThan(0);
    const where = caseDir();
    const fifo = makeFifo(where);
    await writer.setup?.();
    const { result, bytes } = await readFifoDuring(fifo, () => run(writer.args(fifo), writer.input));
    expect(result.status, result.stderr).toBe(0);
    expect(bytes.equals(expected)).toBe(true);
    expect(kindOf(fifo)).toBe('fifo');
    // Nothing left beside it: the temporary file was made elsewhere and removed.
    expect(readdirSync(where)).toEqual(['out.fifo']);
  });

  it('onto a character device (a copy of /dev/null, or /dev/null itself where none may be made): it stays one', async () => {
    const device = makeDevice(caseDir());
    await writer.setup?.();
    const result = await run(writer.args(device), writer.input);
    expect(result.status, result.stderr).toBe(0);
    expect(kindOf(device)).toBe('character device');
    expect(kindOf('/dev/null')).toBe('character device');
  });

  it('onto a directory: exit 2, one line naming it, before any work, and the directory untouched', async () => {
    const flag = writer.name.split(' ').at(-1)!;
    const where = caseDir();
    const target = join(where, 'a-directory');
    mkdirSync(target);
    writeFileSync(join(target, 'kept'), 'kept');
    await writer.setup?.();
    const result = await run(writer.args(target), writer.input);
    expect(result.status).toBe(2);
    expect(result.stderr).toBe(`evm-integrity: ${flag} ${target}: cannot write it: it is a directory\n`);
    expect(readdirSync(where)).toEqual(['a-directory']);
    expect(readdirSync(target)).toEqual(['kept']);
    if (node !== undefined) expect(node.calls).toEqual([]);
  });
});

describe.each(WRITERS.filter((writer) => writer.name.endsWith('--out')))('$name -', (writer) => {
  it('writes to standard output what a file gets, and makes no file named -', async () => {
    const expected = await expectedBytes(writer);
    const where = caseDir();
    await writer.setup?.();
    const result = await runCliBytes(writer.args('-'), { input: writer.input, cwd: where });
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout.equals(expected)).toBe(true);
    expect(readdirSync(where)).toEqual([]);
  });
});

describe('prove receipt --out', () => {
  it('onto a regular file: replaced whole by the proof stdout shows', async () => {
    const file = join(caseDir(), 'proof.json');
    writeFileSync(file, 'an older proof');
    const [toFile, toStdout] = await Promise.all([proveReceipt(file), proveReceipt()]);
    expect(toFile.status, toFile.stderr).toBe(0);
    expect(readFileSync(file)).toEqual(toStdout.stdout);
    expect(kindOf(file)).toBe('file');
  });
});

describe('--out naming a symbolic link: written through it, the link kept', () => {
  it('a link to a regular file: the file replaced whole, the link still a link to it', async () => {
    const where = caseDir();
    const file = join(where, 'proof.json');
    writeFileSync(file, 'an older proof');
    const link = join(where, 'latest.json');
    symlinkSync('proof.json', link);
    const [toLink, toStdout] = await Promise.all([proveReceipt(link), proveReceipt()]);
    expect(toLink.status, toLink.stderr).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(file)).toEqual(toStdout.stdout);
    expect(readdirSync(where).sort()).toEqual(['latest.json', 'proof.json']);
  });

  it('a dangling link (through another link): its target made, both links kept', async () => {
    const where = caseDir();
    symlinkSync('second', join(where, 'first'));
    symlinkSync('proof.json', join(where, 'second'));
    const [result, toStdout] = await Promise.all([proveReceipt(join(where, 'first')), proveReceipt()]);
    expect(result.status, result.stderr).toBe(0);
    expect(lstatSync(join(where, 'first')).isSymbolicLink()).toBe(true);
    expect(lstatSync(join(where, 'second')).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(where, 'proof.json'))).toEqual(toStdout.stdout);
  });

  it('writeBundle through a link: the target replaced, the link kept', async () => {
    const where = caseDir();
    writeFileSync(join(where, 'bundle.json'), 'older');
    symlinkSync('bundle.json', join(where, 'link.json'));
    const bundle = { base_url: 'https://service.example/v1', exchanges: [], blocks: [] };
    await writeBundle(join(where, 'link.json'), bundle);
    expect(lstatSync(join(where, 'link.json')).isSymbolicLink()).toBe(true);
    expect(JSON.parse(readFileSync(join(where, 'bundle.json'), 'utf8'))).toEqual(bundle);
  });
});

describe('audit --record (writeBundle)', () => {
  it('onto a character device: the audit passes and the device stays one', async () => {
    node = await startLoopbackNode(1, fixtureChain(1_000_001, 1_000_005));
    const device = makeDevice(caseDir());
    const result = await run([
      'audit',
      '--chain',
      '1',
      '--from',
      '1000001',
      '--to',
      '1000005',
      '--rpc',
      node.url,
      '--record',
      device,
    ]);
    expect(result.status, result.stderr).toBe(0);
    expect(kindOf(device)).toBe('character device');
  });
});

describe('writeBundle', () => {
  const bundle = { base_url: 'https://service.example/v1', exchanges: [], blocks: [] };

  it('into a FIFO: the bundle, gzip-compressed for .gz, and the FIFO left a FIFO', async () => {
    const where = caseDir();
    const fifo = makeFifo(where, 'bundle.json.gz');
    const { bytes } = await readFifoDuring(fifo, () => writeBundle(fifo, bundle));
    expect(JSON.parse(gunzipSync(bytes).toString('utf8'))).toEqual(bundle);
    expect(kindOf(fifo)).toBe('fifo');
    expect(readdirSync(where)).toEqual(['bundle.json.gz']);
  });

  it('onto a character device: it stays one', async () => {
    const device = makeDevice(caseDir());
    await writeBundle(device, bundle);
    expect(kindOf(device)).toBe('character device');
  });

  it('onto a directory: refused (EISDIR), the directory untouched', async () => {
    const where = caseDir();
    await expect(writeBundle(where, bundle)).rejects.toMatchObject({ code: 'EISDIR' });
    expect(readdirSync(where)).toEqual([]);
    expect(readdirSync(join(where, '..'))).toContain(where.split('/').at(-1));
  });
});
