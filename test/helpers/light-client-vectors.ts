/**
 * The light-client vectors (fixtures/anchor/, sources in fixtures/SOURCES.md), read into the core's containers:
 * - colibri/: Beacon API SSZ answers recorded by corpus-core/colibri-stateless (real mainnet): bootstraps (bare
 *   SSZ) and updates (the API's list framing);
 * - portal/light_client/: ethereum/portal-spec-tests' beacon light-client content (real mainnet), values prefixed
 *   with the fork digest, keys naming the block root, period or slot;
 * - helios/: a16z/helios' Beacon API JSON (real mainnet, Capella).
 */
import { readFileSync } from 'node:fs';
import { decodeBootstrapJson, decodeUpdateJson } from '../../packages/core/src/anchor/light-client/decode-json.js';
import {
  decodeBootstrap,
  decodeUpdate,
  sszDataFork,
  type UpdateShape,
} from '../../packages/core/src/anchor/light-client/decode-ssz.js';
import {
  splitBeaconApiList,
  splitForkDigest,
  splitPortalUpdates,
  type ForkDigestedData,
} from '../../packages/core/src/anchor/light-client/framing.js';
import type {
  LightClientBootstrap,
  LightClientFork,
  LightClientUpdate,
} from '../../packages/core/src/anchor/light-client/containers.js';
import { MAINNET } from '../../packages/core/src/anchor/networks.js';
import { hexToBytes } from '../../packages/core/src/bytes/hex.js';
import type { Result } from '../../packages/core/src/result.js';

const ANCHOR = new URL('../../fixtures/anchor/', import.meta.url);
const file = (path: string): Uint8Array => new Uint8Array(readFileSync(new URL(path, ANCHOR)));

function value<T, E>(result: Result<T, E>, what: string): T {
  if (!result.ok) throw new Error(`${what}: ${JSON.stringify(result.error)}`);
  return result.value;
}

/** Decoded data with the fork its layout was read as, and the digest it came with. */
export interface Framed<T> {
  readonly fork: LightClientFork;
  readonly forkDigest?: Uint8Array;
  readonly value: T;
}

/** SSZ of a bootstrap, its fork read from its own header's slot on mainnet. */
export function bootstrapOf(ssz: Uint8Array, forkDigest?: Uint8Array): Framed<LightClientBootstrap> {
  const fork = value(sszDataFork(MAINNET, ssz), 'fork');
  return { fork, ...(forkDigest ? { forkDigest } : {}), value: value(decodeBootstrap(fork, ssz), 'bootstrap') };
}

/** SSZ of an update of `shape`, its fork read from its attested header's slot on mainnet. */
export function updateOf(
  item: ForkDigestedData | Uint8Array,
  shape: UpdateShape = 'update',
): Framed<LightClientUpdate> {
  const { ssz, forkDigest } = item instanceof Uint8Array ? { ssz: item, forkDigest: undefined } : item;
  const fork = value(sszDataFork(MAINNET, ssz), 'fork');
  return { fork, ...(forkDigest ? { forkDigest } : {}), value: value(decodeUpdate(fork, ssz, shape), shape) };
}

/** A colibri bootstrap file (`colibri/bootstrap-*.ssz`) and its raw bytes. */
export function colibriBootstrap(name: string): Framed<LightClientBootstrap> & { ssz: Uint8Array } {
  const ssz = file(`colibri/${name}`);
  return { ...bootstrapOf(ssz), ssz };
}

/** The updates of a colibri updates answer (`colibri/updates-*.ssz`), each with its SSZ. */
export function colibriUpdates(name: string): (Framed<LightClientUpdate> & { ssz: Uint8Array })[] {
  return value(splitBeaconApiList(file(`colibri/${name}`)), name).map((item) => ({ ...updateOf(item), ssz: item.ssz }));
}

/** A Portal YAML vector's `content_key` and `content_value` (the value may run over lines ending in a backslash). */
export function portalContent(path: string): { key: Uint8Array; value: Uint8Array } {
  const text = readFileSync(new URL(`portal/light_client/${path}`, ANCHOR), 'utf8');
  const member = (name: string) => {
    const match = new RegExp(`^${name}:\\s*"0x([0-9a-f\\\\\\s]+)"`, 'm').exec(text);
    if (match === null) throw new Error(`${path}: no ${name}`);
    return hexToBytes(match[1]!.replace(/[\\\s]/g, ''));
  };
  return { key: member('content_key'), value: member('content_value') };
}

/** The Portal bootstrap of `fork` and the block root its content key names. */
export function portalBootstrap(fork: 'capella' | 'deneb'): Framed<LightClientBootstrap> & { root: Uint8Array } {
  const { key, value: content } = portalContent(`${fork}/bootstrap.yaml`);
  const { forkDigest, ssz } = value(splitForkDigest(content), 'bootstrap');
  return { ...bootstrapOf(ssz, forkDigest), root: key.slice(1) };
}

/** The Portal updates of `fork` (a `LightClientUpdatesByRange` value). */
export function portalUpdates(fork: 'capella' | 'deneb'): Framed<LightClientUpdate>[] {
  return value(splitPortalUpdates(portalContent(`${fork}/updates.yaml`).value), 'updates').map((item) =>
    updateOf(item),
  );
}

/** The Portal finality or optimistic update of `fork`. */
export function portalSingleUpdate(
  fork: 'capella' | 'deneb',
  shape: 'finality-update' | 'optimistic-update',
): Framed<LightClientUpdate> {
  const name = shape === 'finality-update' ? 'finality_update' : 'optimistic_update';
  return updateOf(value(splitForkDigest(portalContent(`${fork}/${name}.yaml`).value), name), shape);
}

/** helios' JSON: its bootstrap, its updates, its finality and optimistic updates. */
export function heliosJson(name: 'bootstrap' | 'updates' | 'finality' | 'optimistic'): unknown {
  return JSON.parse(readFileSync(new URL(`helios/${name}.json`, ANCHOR), 'utf8'));
}

/** helios' bootstrap, decoded. */
export const heliosBootstrap = (): LightClientBootstrap =>
  value(decodeBootstrapJson(heliosJson('bootstrap')), 'bootstrap');

/** helios' updates (or its finality or optimistic update), decoded. */
export function heliosUpdates(name: 'updates' | 'finality' | 'optimistic'): LightClientUpdate[] {
  const json = heliosJson(name);
  return (Array.isArray(json) ? json : [json]).map((item) => value(decodeUpdateJson(item), name));
}
