/**
 * `evm-integrity anchor prove`, the built CLI run as a process against a beacon node on loopback serving recorded
 * real mainnet objects (helpers/loopback-beacon.ts) and, for blocks before the merge, a JSON-RPC node serving the
 * fixture blocks (helpers/loopback-rpc.ts) with the Portal Network's epoch record 122: the files it writes verify
 * against the checkpoint and prove the hashes nodes serve; every refusal is one line, exit 2, and nothing written.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  checkpointRecord,
  formatAnchorHead,
  formatAnchorRecord,
  MAINNET,
  readSignedBeaconBlock,
  summariesBlockRecord,
  verifyAnchorProof,
} from '../packages/core/src/anchor/index.js';
import { bytes32Vector } from '../packages/core/src/anchor/ssz.js';
import { bytesToHex, hexToBytes } from '../packages/core/src/bytes/hex.js';
import { checkpointSummaries, MAINNET_CHECKPOINT } from './helpers/anchor-files.js';
import { ACCUMULATOR_FILE } from '../packages/service/src/cli/accumulator-file.js';
import { shippedAccumulator } from '../packages/service/src/cli/anchor/pre-merge.js';
import { AnchorProveError } from '../packages/service/src/cli/anchor/prove-error.js';
import { runCliBytes } from './helpers/cli-process.js';
import { loadFixture } from './helpers/fixtures.js';
import {
  CHECKPOINT_ROOT,
  PERIOD_1371_START,
  startLoopbackBeacon,
  type LoopbackBeacon,
} from './helpers/loopback-beacon.js';
import { fixtureBlocks, startLoopbackNode, type LoopbackNode } from './helpers/loopback-rpc.js';

const ROOT = new URL('..', import.meta.url).pathname;
const ERA_DIR = new URL('../fixtures/anchor/portal/accumulator/', import.meta.url).pathname;
const BLOCK_HASH_22017690 = '0x32e6892ef9fb67f8a3be3ff95795a458e71d42b50af7015b975f3b032581b686';
const PRE_MERGE = ['mainnet-1000001', 'mainnet-1000010', 'mainnet-1000050'];

let beacon: LoopbackBeacon;
let rpc: LoopbackNode;
let dir: string;

beforeAll(async () => {
  rpc = await startLoopbackNode(1, fixtureBlocks(PRE_MERGE));
});
afterAll(() => rpc.close());
beforeEach(async () => {
  beacon = await startLoopbackBeacon();
  dir = mkdtempSync(join(tmpdir(), 'anchor-prove-'));
});
afterEach(async () => {
  await beacon.close();
  rmSync(dir, { recursive: true, force: true });
});

const prove = (...args: string[]) => runCliBytes(['anchor', 'prove', ...args]);
const post = (...args: string[]) => prove('--beacon', beacon.url, '--checkpoint', CHECKPOINT_ROOT, ...args);

/** The file the library's builders make for block 22,017,690 from the recorded objects, read from the fixtures. */
function libraryFile(): string {
  const read = (path: string) =>
    new Uint8Array(readFileSync(new URL(`../fixtures/anchor/colibri/${path}`, import.meta.url)));
  const checkpoint = readSignedBeaconBlock(MAINNET, read('checkpoint-11635710/block_0x5ab5b374.ssz'));
  const block = readSignedBeaconBlock(MAINNET, read('block-22017690/block_0xae5b4dfc.ssz'));
  const { summaries, branch } = checkpointSummaries();
  const header = checkpointRecord(MAINNET, MAINNET_CHECKPOINT, checkpoint.header, summaries, branch);
  const roots = bytes32Vector(read('block-22017690/period_1371_block_roots.ssz'));
  const record = summariesBlockRecord(MAINNET, block, roots, summaries);
  if (!header.ok || !record.ok) throw new Error('the recorded objects make no records');
  const lines = [
    formatAnchorHead({ network: 'mainnet', checkpoint: MAINNET_CHECKPOINT }),
    formatAnchorRecord(header.value),
    formatAnchorRecord(record.value),
  ];
  return `${lines.join('\n')}\n`;
}

/** The blocks a file proves: number, hash, how, slot. */
function provenBy(text: string): [number, string, string, number | undefined][] {
  const verdict = verifyAnchorProof(text, hexToBytes(CHECKPOINT_ROOT));
  if (!verdict.ok) throw new Error(`line ${verdict.error.line}: ${verdict.error.message}`);
  return verdict.value.blocks.map((block) => [
    Number(block.number),
    `0x${bytesToHex(block.hash)}`,
    block.via,
    block.slot,
  ]);
}

/** A loopback port nothing listens on: one a server had, closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Exit 2, one line on stderr saying `message` (no stack trace), nothing on stdout. */
function refused(run: { status: number | null; stdout: Buffer; stderr: string }, message: RegExp): void {
  expect(run.status).toBe(2);
  expect(run.stdout.length).toBe(0);
  expect(run.stderr).toMatch(/^evm-integrity: [^\n]+\n$/);
  expect(run.stderr).toMatch(message);
}

describe('anchor prove: blocks from Capella on, from a beacon node', () => {
  it('block 22,017,690 from checkpoint 0x5ab5b374…: a file that verifies and proves its hash, no execution node asked', async () => {
    const out = join(dir, 'proof.jsonl');
    const run = await post('--block', '22017690', '--slot', '11233367', '--out', out);
    expect(run.stderr).toBe(
      `evm-integrity: block 22017690 ${BLOCK_HASH_22017690} (historical-summaries, slot 11233367)\n` +
        `evm-integrity: 1 block proven from checkpoint ${CHECKPOINT_ROOT} (mainnet); ${readFileSync(out).length.toLocaleString('en-US')} bytes to ${out}\n`,
    );
    expect(run.status).toBe(0);
    const text = readFileSync(out, 'utf8');
    expect(provenBy(text)).toEqual([[22017690, BLOCK_HASH_22017690, 'historical-summaries', 11233367]]);
    // Byte for byte what the library builds from the recorded objects themselves.
    expect(text).toBe(libraryFile());
    // The hash block 22,017,691 names as its parent (colibri's eth_getBlockByNumber answer).
    const next = JSON.parse(
      readFileSync(
        new URL('../fixtures/anchor/colibri/block-22017690/eth_getBlockByNumber_0x14ff69b_false.json', import.meta.url),
        'utf8',
      ),
    ) as { result: { parentHash: string } };
    expect(next.result.parentHash).toBe(BLOCK_HASH_22017690);
    // Every slot of period 1371 was asked for its root; the checkpoint's state for its summaries.
    const rootPaths = beacon.paths.filter((path) => /^\/eth\/v1\/beacon\/blocks\/\d+\/root$/.test(path));
    expect(new Set(rootPaths).size).toBe(8192);
    expect(rootPaths.every((path) => Number(path.split('/')[5]) - PERIOD_1371_START < 8192)).toBe(true);
    expect(beacon.paths.filter((path) => path.includes('historical_summaries'))).toHaveLength(1);
    expect(rpc.calls).toEqual([]);
  });

  it('--out - writes to stdout: the checkpoint’s own block, by its execution branch alone (no block roots fetched)', async () => {
    const run = await post('--block', '22417908', '--out', '-');
    expect(run.status).toBe(0);
    expect(provenBy(run.stdout.toString())).toEqual([
      [22417908, '0xd945aa9b871f4f12cd4f918bba701fd5c51b31be4d701b99d1e7575e4dfd3976', 'beacon-block', 11635710],
    ]);
    expect(beacon.paths.filter((path) => path.endsWith('/root'))).toEqual([]);
  });

  it.each([
    ['lodestar-before', '/eth/v1/lodestar/historical_summaries/'],
    ['nimbus', '/nimbus/v1/debug/beacon/states/'],
  ] as const)('a node serving the summaries on %s’s route is asked there after the others', async (route, prefix) => {
    beacon.summariesRoute = route;
    const run = await post('--block', '22417908', '--out', '-');
    expect(run.status).toBe(0);
    expect(provenBy(run.stdout.toString())).toHaveLength(1);
    const asked = beacon.paths.filter((path) => path.includes('historical_summaries'));
    expect(asked.at(-1)!.startsWith(prefix)).toBe(true);
  });
});

describe('anchor prove: blocks before the merge, from their epoch record', () => {
  it('blocks 1,000,010, 1,000,001 and 1,000,050: headers from the node, each proven to the hash the fixture holds', async () => {
    const run = await prove(
      '--checkpoint',
      CHECKPOINT_ROOT,
      '--block',
      '1000010',
      '--block',
      '1000001',
      '--block',
      '1000050',
      '--era-dir',
      ERA_DIR,
      '--rpc',
      rpc.url,
      '--out',
      '-',
    );
    // What proves each block, counted as anchor verify counts it: the accumulator, not the checkpoint.
    expect(run.stderr.split('\n').at(-2)).toMatch(
      new RegExp(
        `^evm-integrity: 3 blocks proven \\(mainnet\\): none from checkpoint ${CHECKPOINT_ROOT}, 3 from the pre-merge accumulator \\(EIP-7643, built in\\); [\\d,]+ bytes$`,
      ),
    );
    expect(run.status).toBe(0);
    const hashOf = (number: number) => loadFixture(`mainnet-${number}`).header['hash'];
    expect(provenBy(run.stdout.toString())).toEqual(
      [1000010, 1000001, 1000050].map((number) => [number, hashOf(number), 'pre-merge', undefined]),
    );
  });

  it('with a block after the merge in the same file, in the order given', async () => {
    const run = await post(
      '--block',
      '1000001',
      '--block',
      '22417908',
      '--era-dir',
      ERA_DIR,
      '--rpc',
      rpc.url,
      '--out',
      '-',
    );
    expect(run.status).toBe(0);
    expect(provenBy(run.stdout.toString()).map(([number, , via]) => [number, via])).toEqual([
      [1000001, 'pre-merge'],
      [22417908, 'beacon-block'],
    ]);
  });

  it('an era directory without the epoch record is one line naming the file and its blocks', async () => {
    const run = await prove(
      '--checkpoint',
      CHECKPOINT_ROOT,
      '--block',
      '1000001',
      '--era-dir',
      dir,
      '--rpc',
      rpc.url,
      '--out',
      '-',
    );
    refused(
      run,
      /--era-dir: .*epoch-record-00122\.ssz: no such file \(the epoch record of blocks 999,424 to 1,007,615\)/,
    );
  });

  it('without --era-dir or an execution node: a usage error before anything is asked', async () => {
    const noDir = await prove('--checkpoint', CHECKPOINT_ROOT, '--block', '1000001', '--rpc', rpc.url, '--out', '-');
    expect(noDir.status).toBe(2);
    expect(noDir.stderr).toMatch(
      /^evm-integrity: block 1000001 is before the merge: give --era-dir DIR holding its epoch record \(epoch-record-00122\.ssz\)\ntry 'evm-integrity anchor --help'\n$/,
    );
    const noRpc = await prove(
      '--checkpoint',
      CHECKPOINT_ROOT,
      '--block',
      '1000001',
      '--era-dir',
      ERA_DIR,
      '--out',
      '-',
    );
    expect(noRpc.stderr).toMatch(/its header comes from an execution node \(--rpc URL, or ETH_RPC_URL\)/);
  });
});

describe('the accumulator the service package ships', () => {
  it('is the Portal Network’s byte for byte, npm packs it, and it hashes to the EIP-7643 root', () => {
    const shipped = readFileSync(ACCUMULATOR_FILE);
    expect(shipped.equals(readFileSync(join(ERA_DIR, 'historical_hashes_accumulator.ssz')))).toBe(true);
    expect(shippedAccumulator().epochs).toHaveLength(1897);
    const packed = JSON.parse(
      execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts', '-w', '@evm-integrity/service'], {
        cwd: ROOT,
        encoding: 'utf8',
      }),
    ) as { files: { path: string }[] }[];
    expect(packed[0]!.files.map((file) => file.path)).toContain('assets/historical_hashes_accumulator.ssz');
  });

  it('one changed byte and it is refused: it no longer hashes to the EIP-7643 root', () => {
    const changed = Uint8Array.from(readFileSync(ACCUMULATOR_FILE));
    changed[100]! ^= 1;
    const file = join(dir, 'accumulator.ssz');
    writeFileSync(file, changed);
    expect(() => shippedAccumulator(file)).toThrow(
      new AnchorProveError(
        'refused',
        `the package's accumulator ${file}: the accumulator does not hash to the trusted root`,
      ),
    );
  });
});

describe('anchor prove: refusals, one line each, nothing written', () => {
  it('a beacon node that cannot be reached', async () => {
    const out = join(dir, 'proof.jsonl');
    const port = await closedPort();
    const run = await prove(
      '--beacon',
      `http://127.0.0.1:${port}`,
      '--checkpoint',
      CHECKPOINT_ROOT,
      '--block',
      '22017690',
      '--out',
      out,
    );
    refused(
      run,
      /^evm-integrity: the beacon node at http:\/\/127\.0\.0\.1:\d+ \(GET \/eth\/v2\/beacon\/blocks\/0x5ab5b374[0-9a-f]{56}\): cannot be reached \(ECONNREFUSED\)\n$/,
    );
    expect(existsSync(out)).toBe(false);
  });

  it('a checkpoint the node does not have (404)', async () => {
    const other = `0x${'ab'.repeat(32)}`;
    const run = await prove('--beacon', beacon.url, '--checkpoint', other, '--block', '22017690', '--out', '-');
    refused(run, new RegExp(`has no block ${other} \\(--checkpoint\\): give the root of a finalized block it holds`));
  });

  it('a block after the checkpoint', async () => {
    const run = await post('--block', '22417909', '--out', '-');
    refused(
      run,
      /^evm-integrity: block 22417909 is after the checkpoint \(slot 11635710, execution block 22417908\): a checkpoint proves only the blocks before it\n$/,
    );
  });

  it('a block between the merge and Capella, before any node is asked', async () => {
    const run = await post('--block', '16000000', '--out', '-');
    refused(
      run,
      /^evm-integrity: not provable from this beacon API: block 16000000 is between the merge and Capella \(15537394 to 17034869\)/,
    );
    expect(beacon.paths).toEqual([]);
  });

  it('a node without a historical_summaries route', async () => {
    beacon.summariesRoute = 'none';
    const run = await post('--block', '22017690', '--slot', '11233367', '--out', '-');
    refused(
      run,
      /^evm-integrity: not provable from this beacon API: http:\/\/127\.0\.0\.1:\d+ serves no historical_summaries with their proof for the checkpoint's state 0x8cac7a92/,
    );
  });

  it('a slot the search cannot reach in its probes (the node holds no block around it): asks for --slot', async () => {
    const run = await post('--block', '22017690', '--out', '-');
    refused(
      run,
      /^evm-integrity: block 22017690: its slot is still unknown after 64 probes \(between slots \d+ and \d+\); give it with --slot\n$/,
    );
  });

  it('a --slot holding another block than those asked for', async () => {
    const run = await post('--block', '22017689', '--slot', '11233367', '--out', '-');
    refused(run, /^evm-integrity: --slot 11233367 holds execution block 22017690, which no --block names\n$/);
  });

  it('a node serving one wrong block root: the roots do not hash to the summary', async () => {
    const out = join(dir, 'proof.jsonl');
    const wrong = `/eth/v1/beacon/blocks/${PERIOD_1371_START + 100}/root`;
    beacon.fault = (path) =>
      path === wrong ? { status: 200, body: JSON.stringify({ data: { root: `0x${'00'.repeat(32)}` } }) } : undefined;
    const run = await post('--block', '22017690', '--slot', '11233367', '--out', out);
    refused(
      run,
      /^evm-integrity: block 22017690: the block roots of period 1371 do not hash to historical_summaries\[613\]\.block_summary_root 0x85f73a53/,
    );
    expect(existsSync(out)).toBe(false);
  });

  it('a node serving summaries the proof does not hold', async () => {
    beacon.fault = (path) => {
      if (!path.includes('historical_summaries')) return undefined;
      const json = JSON.parse(
        readFileSync(
          new URL(
            '../fixtures/anchor/colibri/checkpoint-11635710/historical_summaries_at_state_0x8cac7a92.json',
            import.meta.url,
          ),
          'utf8',
        ),
      ) as { data: { historical_summaries: { state_summary_root: string }[] } };
      json.data.historical_summaries[0]!.state_summary_root = `0x${'11'.repeat(32)}`;
      return { status: 200, body: JSON.stringify(json) };
    };
    const run = await post('--block', '22017690', '--slot', '11233367', '--out', '-');
    refused(
      run,
      /the checkpoint's state \(slot 11635710\): the historical_summaries do not reach the state root through the proof/,
    );
  });

  it.each([
    [['--block', '22017690', '--out', '-'], /^evm-integrity: --checkpoint is required/],
    [
      ['--checkpoint', '0x1234', '--block', '22017690', '--out', '-'],
      /--checkpoint: "0x1234" is not a beacon block root/,
    ],
    [
      ['--checkpoint', CHECKPOINT_ROOT, '--block', 'latest', '--out', '-'],
      /--block: "latest" is a tag; anchor prove takes block numbers/,
    ],
    [['--checkpoint', CHECKPOINT_ROOT, '--block', 'yesterday', '--out', '-'], /--block: "yesterday" is not a block/],
    [['--checkpoint', CHECKPOINT_ROOT, '--block', '22017690', '--bogus'], /--bogus/],
    [['--checkpoint', CHECKPOINT_ROOT, '--block', '22017690'], /--out is required/],
    [
      ['--checkpoint', CHECKPOINT_ROOT, '--block', '22017690', '--beacon', 'http://', '--out', '-'],
      /--beacon: "http:\/\/" is not a beacon node's URL/,
    ],
    [
      ['--checkpoint', CHECKPOINT_ROOT, '--block', '22017690', '--out', '-'],
      /block 22017690 is after the merge: give the beacon node to prove it from \(--beacon URL\)/,
    ],
  ])('a bad command line %j: one line and where the help is', async (args, message) => {
    const run = await prove(...args);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stderr).toMatch(/\ntry 'evm-integrity anchor --help'\n$/);
  });

  it('anchor without a command, or with another, says what it takes; help anchor prints the usage', async () => {
    expect((await runCliBytes(['anchor'])).stderr).toMatch(/^evm-integrity: anchor needs a command: verify or prove\n/);
    expect((await runCliBytes(['anchor', 'nosuch'])).stderr).toMatch(
      /^evm-integrity: no anchor command "nosuch": expected verify or prove\n/,
    );
    const help = await runCliBytes(['help', 'anchor']);
    expect(help.status).toBe(0);
    expect(help.stdout.toString()).toMatch(/evm-integrity anchor prove --checkpoint ROOT --block N/);
  });
});
