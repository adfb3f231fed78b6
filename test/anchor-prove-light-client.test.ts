/**
 * `evm-integrity anchor prove --light-client`: the built CLI run as a process against the loopback beacon node
 * (helpers/loopback-beacon.ts) serving the recorded bootstrap of 0xd9717ecc… and the updates of periods 1421 and
 * 1422 (colibri-stateless' Beacon API answers, fixtures/anchor/colibri/): the file it writes is the one the
 * library's records make of the same answers, and proves the finalized headers' execution blocks; a node without
 * the routes or with a tampered update is refused in one line, nothing written. The steps module is also run in
 * process on tampered answers: whatever byte is changed, it refuses or yields the very records of the true ones.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { verifyAnchorProof } from '../packages/core/src/anchor/index.js';
import { bytesToHex, hexToBytes } from '../packages/core/src/bytes/hex.js';
import { BeaconApi } from '../packages/service/src/cli/anchor/beacon-api.js';
import { lightClientSteps } from '../packages/service/src/cli/anchor/light-client-steps.js';
import { AnchorProveError } from '../packages/service/src/cli/anchor/prove-error.js';
import { electraAnchorFile, electraRecords } from './helpers/anchor-files.js';
import { runCliBytes, type Run } from './helpers/cli-process.js';
import { loadFixture } from './helpers/fixtures.js';
import { colibriUpdates } from './helpers/light-client-vectors.js';
import { LIGHT_CLIENT_CHECKPOINT, startLoopbackBeacon, type LoopbackBeacon } from './helpers/loopback-beacon.js';
import { fixtureBlocks, startLoopbackNode, type LoopbackNode } from './helpers/loopback-rpc.js';
import { runs } from './helpers/runs.js';

const ERA_DIR = new URL('../fixtures/anchor/portal/accumulator/', import.meta.url).pathname;
/** The execution blocks of the bootstrap's header and of the headers updates 1421 and 1422 finalize. */
const FINALIZED_BLOCKS = [22423006, 22423066, 22432991];

let beacon: LoopbackBeacon;
let rpc: LoopbackNode;
let dir: string;

beforeAll(async () => {
  rpc = await startLoopbackNode(1, fixtureBlocks(['mainnet-1000001']));
});
afterAll(() => rpc.close());
beforeEach(async () => {
  beacon = await startLoopbackBeacon();
  dir = mkdtempSync(join(tmpdir(), 'anchor-prove-lc-'));
});
afterEach(async () => {
  await beacon.close();
  rmSync(dir, { recursive: true, force: true });
});

const prove = (...args: string[]) =>
  runCliBytes(['anchor', 'prove', '--beacon', beacon.url, '--checkpoint', LIGHT_CLIENT_CHECKPOINT, ...args]);

/** The blocks a file proves from the light-client checkpoint: number, hash, how. */
function provenBy(text: string): [number, string, string][] {
  const verdict = verifyAnchorProof(text, hexToBytes(LIGHT_CLIENT_CHECKPOINT));
  if (!verdict.ok) throw new Error(`line ${verdict.error.line}: ${verdict.error.message}`);
  return verdict.value.blocks.map((block) => [Number(block.number), `0x${bytesToHex(block.hash)}`, block.via]);
}

/** Exit 2, one line on stderr saying `message`, nothing on stdout. */
function refused(run: Run, message: RegExp): void {
  expect(run.status).toBe(2);
  expect(run.stdout.length).toBe(0);
  expect(run.stderr).toMatch(/^evm-integrity: [^\n]+\n$/);
  expect(run.stderr).toMatch(message);
}

/** Period 1422's framed update with one byte of its sync aggregate's signature changed. */
function tampered(framed: Uint8Array): Uint8Array {
  const { signature } = colibriUpdates('updates-1422.ssz')[0]!.value.syncAggregate;
  const at = Buffer.from(framed).indexOf(signature);
  expect(at).toBeGreaterThan(0);
  const copy = Uint8Array.from(framed);
  copy[at + 40]! ^= 0x01;
  return copy;
}

describe('anchor prove --light-client', () => {
  it('alone: the bootstrap and the updates of periods 1421 and 1422, byte for byte the library’s file', async () => {
    const out = join(dir, 'proof.jsonl');
    const run = await prove('--light-client', '--out', out);
    expect(run.status).toBe(0);
    const text = readFileSync(out, 'utf8');
    expect(text).toBe(electraAnchorFile());
    expect(provenBy(text)).toEqual(provenBy(electraAnchorFile()));
    expect(provenBy(text).map(([number, , via]) => [number, via])).toEqual(
      FINALIZED_BLOCKS.map((number) => [number, 'light-client']),
    );
    expect(run.stderr).toMatch(/: 3 blocks proven from checkpoint 0xd9717ecc[0-9a-f]{56} \(mainnet\); /);
    // One bootstrap, one updates request from the checkpoint's period (the node answered fewer than asked).
    expect(beacon.paths).toEqual([
      `/eth/v1/beacon/light_client/bootstrap/${LIGHT_CLIENT_CHECKPOINT}`,
      '/eth/v1/beacon/light_client/updates?start_period=1421&count=128',
    ]);
  });

  it('--to-period 1421: the bootstrap and one update', async () => {
    const run = await prove('--light-client', '--to-period', '1421', '--out', '-');
    expect(run.status).toBe(0);
    const lines = run.stdout.toString().split('\n').slice(0, -1);
    expect(lines.map((line) => (JSON.parse(line) as { kind?: string }).kind)).toEqual([
      undefined,
      'bootstrap',
      'update',
    ]);
    expect(`${lines.join('\n')}\n`).toBe(electraAnchorFile(electraRecords().slice(0, 2)));
    expect(beacon.paths.at(-1)).toBe('/eth/v1/beacon/light_client/updates?start_period=1421&count=1');
  });

  it('beside a --block before the merge: the steps right after the head, then the block', async () => {
    // One period is enough to show where the steps go.
    const run = await prove(
      '--light-client',
      '--to-period',
      '1421',
      '--block',
      '1000001',
      '--era-dir',
      ERA_DIR,
      '--rpc',
      rpc.url,
      '--out',
      '-',
    );
    expect(run.status).toBe(0);
    expect(provenBy(run.stdout.toString())).toEqual([
      ...provenBy(electraAnchorFile(electraRecords().slice(0, 2))),
      [1000001, loadFixture('mainnet-1000001').header['hash'], 'pre-merge'],
    ]);
  });
});

describe('anchor prove --light-client: refusals, one line each, nothing written', () => {
  it('a node without the light-client routes', async () => {
    beacon.lightClient = false;
    const out = join(dir, 'proof.jsonl');
    const run = await prove('--light-client', '--out', out);
    refused(
      run,
      /^evm-integrity: not provable from this beacon API: http:\/\/127\.0\.0\.1:\d+ serves no light-client bootstrap for 0xd9717ecc[0-9a-f]{56} \(--checkpoint/,
    );
    expect(existsSync(out)).toBe(false);
  });

  it('a node with the bootstrap but no updates route', async () => {
    beacon.fault = (path) => (path.includes('/updates?') ? { status: 404 } : undefined);
    const run = await prove('--light-client', '--out', '-');
    refused(run, /serves no light-client updates \(GET \/eth\/v1\/beacon\/light_client\/updates\?start_period=1421/);
  });

  it('a tampered update of period 1422: refused at that step, nothing written', async () => {
    beacon.updates.set(1422, tampered(beacon.updates.get(1422)!));
    const out = join(dir, 'proof.jsonl');
    const run = await prove('--light-client', '--out', out);
    refused(
      run,
      /^evm-integrity: the beacon node at http:\/\/127\.0\.0\.1:\d+: the light-client update of period 1422: .*signature/,
    );
    expect(existsSync(out)).toBe(false);
  });

  it('a node whose updates stop before --to-period', async () => {
    const run = await prove('--light-client', '--to-period', '1430', '--out', '-');
    refused(run, /serves light-client updates up to period 1422, not the 1430 --to-period asks for/);
  });

  it('a --to-period before the checkpoint’s period', async () => {
    const run = await prove('--light-client', '--to-period', '1400', '--out', '-');
    refused(run, /--to-period 1400 is before the checkpoint's own period 1421/);
  });

  it.each([
    [
      ['--to-period', '1421', '--block', '1000001'],
      /--to-period bounds the light-client updates: give it with --light-client/,
    ],
    [['--light-client', '--to-period', 'soon'], /--to-period/],
  ])('a bad command line %j', async (args, message) => {
    const run = await prove(...args, '--out', '-');
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(message);
  });

  it('--light-client without --beacon', async () => {
    const run = await runCliBytes([
      'anchor',
      'prove',
      '--checkpoint',
      LIGHT_CLIENT_CHECKPOINT,
      '--light-client',
      '--out',
      '-',
    ]);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(
      /--light-client: give the beacon node to take the light-client steps from \(--beacon URL\)/,
    );
  });
});

describe('the light-client steps, in process', () => {
  it('any one byte of the updates answer changed: refused, or the very records of the true answer', async () => {
    const truth = electraRecords();
    const framed = beacon.updates.get(1422)!;
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: framed.length - 1 }), fc.integer({ min: 1, max: 255 }), async (at, mask) => {
        const changed = Uint8Array.from(framed);
        changed[at]! ^= mask;
        beacon.updates.set(1422, changed);
        let steps: Awaited<ReturnType<typeof lightClientSteps>>;
        try {
          steps = await lightClientSteps(
            new BeaconApi(beacon.url),
            hexToBytes(LIGHT_CLIENT_CHECKPOINT),
            undefined,
            () => {},
          );
        } catch (error) {
          expect(error).toBeInstanceOf(AnchorProveError);
          return;
        }
        // Only the fork digest of the framing is not part of a record: a change there changes nothing written.
        expect(steps.records).toEqual(truth);
      }),
      { numRuns: runs(20) },
    );
  });
});
