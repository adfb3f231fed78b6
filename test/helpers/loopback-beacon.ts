/**
 * A beacon node's API on loopback (127.0.0.1, a free port) serving recorded real mainnet objects
 * (fixtures/anchor/colibri/, sources in fixtures/SOURCES.md), the routes `anchor prove` reads:
 * - `/eth/v2/beacon/blocks/{id}` as SSZ (only to `Accept: application/octet-stream`, as a node that also
 *   speaks JSON would): the checkpoint block 0x5ab5b374… (slot 11,635,710) and the block of slot 11,233,367
 *   (execution block 22,017,690), by root and by slot;
 * - `/eth/v1/beacon/blocks/{slot}/root`: the roots of period 1371 (slots 11,231,232 to 11,239,423) from its 8192
 *   recorded `block_roots`, 404 where a slot repeats the root before it (an empty slot), and the two blocks';
 * - `/eth/v1/beacon/headers/{id}`: the headers of the two blocks;
 * - Lodestar's `/eth/v1/lodestar/states/{state_id}/historical_summaries` for the checkpoint's state (its recorded
 *   answer), or, as a test sets `summariesRoute`, the older Lodestar or the Nimbus route, or none;
 * - the light-client routes (unless a test sets `lightClient` false), as SSZ only: the bootstrap of the finalized
 *   block 0xd9717ecc… (slot 11,640,864, Deneb, with `Eth-Consensus-Version: deneb`) and the updates of periods 1421
 *   and 1422 (the recorded answers' items, in the API's list framing; `updates` holds them by period for a test to
 *   tamper with), a range answered with those of its periods the node has.
 * Anything else is 404. Tests read every path asked and may answer a path with a status of their choosing.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  beaconBlockHeaderRoot,
  MAINNET,
  readSignedBeaconBlock,
  type BeaconBlockParts,
} from '../../packages/core/src/anchor/index.js';
import { bytes32Vector } from '../../packages/core/src/anchor/ssz.js';
import { bytesToHex } from '../../packages/core/src/bytes/hex.js';

const COLIBRI = new URL('../../fixtures/anchor/colibri/', import.meta.url);
const read = (path: string): Uint8Array => new Uint8Array(readFileSync(new URL(path, COLIBRI)));
const hex = (bytes: Uint8Array): string => `0x${bytesToHex(bytes)}`;

/** The recorded checkpoint: its root, and the block whose root it is. */
export const CHECKPOINT_ROOT = '0x5ab5b37414ebe99dc2c1e1e325bca79b8f659a4f0af21afdea4b38e646508e82';
/** The recorded light-client checkpoint: the root whose bootstrap the node serves. */
export const LIGHT_CLIENT_CHECKPOINT = '0xd9717ecc253684291f828688f311ba74d05af74c31654f6e14077669fca62f6a';
/** Period 1371's first slot. */
export const PERIOD_1371_START = 1371 * 8192;

/** Where a node serves `historical_summaries` with their proof, if anywhere. */
export type SummariesRoute = 'lodestar' | 'lodestar-before' | 'nimbus' | 'none';

export interface LoopbackBeacon {
  url: string;
  /** Every path asked, in order. */
  paths: string[];
  summariesRoute: SummariesRoute;
  /** Whether the light-client routes are served (true) or 404 (a node whose light-client server is off). */
  lightClient: boolean;
  /** Each period's update as the updates route frames it (8-byte length, fork digest, SSZ), by period. */
  updates: Map<number, Uint8Array>;
  /** An answer to give instead of the served one: a status (and body), or undefined to serve. */
  fault: ((path: string) => { status: number; body?: string } | undefined) | undefined;
  close(): Promise<void>;
}

/** An answer: its status, content type, body and, for light-client data, the fork it names. */
interface Answer {
  status: number;
  type: string;
  body: string | Uint8Array;
  version?: string;
}

interface ServedBlock {
  ssz: Uint8Array;
  parts: BeaconBlockParts;
  root: string;
}

function served(path: string): ServedBlock {
  const ssz = read(path);
  const parts = readSignedBeaconBlock(MAINNET, ssz);
  return { ssz, parts, root: hex(beaconBlockHeaderRoot(parts.header)) };
}

function summariesPath(route: SummariesRoute, stateRoot: string): string | undefined {
  switch (route) {
    case 'lodestar':
      return `/eth/v1/lodestar/states/${stateRoot}/historical_summaries`;
    case 'lodestar-before':
      return `/eth/v1/lodestar/historical_summaries/${stateRoot}`;
    case 'nimbus':
      return `/nimbus/v1/debug/beacon/states/${stateRoot}/historical_summaries`;
    case 'none':
      return undefined;
  }
}

/** Starts the node; `close()` it after the test. */
export async function startLoopbackBeacon(): Promise<LoopbackBeacon> {
  const blocks = [served('checkpoint-11635710/block_0x5ab5b374.ssz'), served('block-22017690/block_0xae5b4dfc.ssz')];
  const byId = new Map<string, ServedBlock>();
  for (const block of blocks) {
    byId.set(block.root, block);
    byId.set(String(block.parts.header.slot), block);
  }
  const roots = new Map<number, string>();
  const period = bytes32Vector(read('block-22017690/period_1371_block_roots.ssz')).map(hex);
  period.forEach((root, i) => {
    // A slot holding the root before it had no block of its own.
    if (i === 0 || root !== period[i - 1]) roots.set(PERIOD_1371_START + i, root);
  });
  for (const block of blocks) roots.set(Number(block.parts.header.slot), block.root);
  const summaries = readFileSync(
    new URL('checkpoint-11635710/historical_summaries_at_state_0x8cac7a92.json', COLIBRI),
    'utf8',
  );
  const checkpointState = hex(byId.get(CHECKPOINT_ROOT)!.parts.header.stateRoot);

  const node: LoopbackBeacon = {
    url: '',
    paths: [],
    summariesRoute: 'lodestar',
    lightClient: true,
    updates: new Map([
      [1421, read('updates-1421.ssz')],
      [1422, read('updates-1422.ssz')],
    ]),
    fault: undefined,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const json = (body: unknown) => ({ status: 200, type: 'application/json', body: JSON.stringify(body) });
  const notFound = { status: 404, type: 'application/json', body: '{"code":404,"message":"NOT_FOUND"}' };

  const bootstrap = read('bootstrap-0xd9717ecc.ssz');
  const ssz = (body: Uint8Array, version?: string) => ({
    status: 200,
    type: 'application/octet-stream',
    body,
    ...(version === undefined ? {} : { version }),
  });
  const sszOnly = { status: 406, type: 'application/json', body: '{"code":406,"message":"SSZ only here"}' };

  function lightClientAnswer(path: string, accept: string): Answer | undefined {
    if (!path.startsWith('/eth/v1/beacon/light_client/')) return undefined;
    if (!node.lightClient) return notFound;
    if (!accept.includes('application/octet-stream')) return sszOnly;
    if (path === `/eth/v1/beacon/light_client/bootstrap/${LIGHT_CLIENT_CHECKPOINT}`) return ssz(bootstrap, 'deneb');
    const match = /^\/eth\/v1\/beacon\/light_client\/updates\?start_period=(\d+)&count=(\d+)$/.exec(path);
    if (match === null) return notFound;
    const [start, count] = [Number(match[1]), Number(match[2])];
    const parts = [...node.updates].filter(([period]) => period >= start && period < start + count).map(([, b]) => b);
    return ssz(Buffer.concat(parts));
  }

  function answer(path: string, accept: string): Answer {
    const lightClient = lightClientAnswer(path, accept);
    if (lightClient !== undefined) return lightClient;
    let match = /^\/eth\/v2\/beacon\/blocks\/([^/]+)$/.exec(path);
    if (match !== null) {
      const block = byId.get(match[1]!);
      if (block === undefined) return notFound;
      if (!accept.includes('application/octet-stream')) return sszOnly;
      return { status: 200, type: 'application/octet-stream', body: block.ssz };
    }
    match = /^\/eth\/v1\/beacon\/blocks\/(\d+)\/root$/.exec(path);
    if (match !== null) {
      const root = roots.get(Number(match[1]));
      return root === undefined ? notFound : json({ execution_optimistic: false, finalized: true, data: { root } });
    }
    match = /^\/eth\/v1\/beacon\/headers\/([^/]+)$/.exec(path);
    if (match !== null) {
      const block = byId.get(match[1]!);
      if (block === undefined) return notFound;
      const { header } = block.parts;
      return json({
        execution_optimistic: false,
        finalized: true,
        data: {
          root: block.root,
          canonical: true,
          header: {
            message: {
              slot: String(header.slot),
              proposer_index: String(header.proposerIndex),
              parent_root: hex(header.parentRoot),
              state_root: hex(header.stateRoot),
              body_root: hex(header.bodyRoot),
            },
            signature: hex(block.ssz.subarray(4, 100)),
          },
        },
      });
    }
    if (path === summariesPath(node.summariesRoute, checkpointState))
      return { status: 200, type: 'application/json', body: summaries };
    return notFound;
  }

  const server: Server = createServer((req, res) => {
    const path = req.url ?? '/';
    node.paths.push(path);
    const fault = node.fault?.(path);
    const { status, type, body, version }: Answer =
      fault === undefined
        ? answer(path, req.headers.accept ?? '')
        : { status: fault.status, type: 'text/plain', body: fault.body ?? '' };
    res.writeHead(status, {
      'Content-Type': type,
      ...(version === undefined ? {} : { 'Eth-Consensus-Version': version }),
    });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  node.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return node;
}
