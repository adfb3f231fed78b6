/**
 * `anchor prove --light-client`: the light-client steps from the checkpoint, from a beacon node's standard
 * light-client routes, each verified with the core before it becomes a record. The bootstrap of the checkpoint
 * (`/eth/v1/beacon/light_client/bootstrap/{root}`, SSZ) must hash to it and hand over the sync committee; then
 * the updates of each sync-committee period from the checkpoint's (`/eth/v1/beacon/light_client/updates`, SSZ
 * list framing), asked for up to 128 periods at a time (the spec's `MAX_REQUEST_LIGHT_CLIENT_UPDATES`) until
 * the node answers fewer than asked (its latest) or `--to-period` is reached. The first step that fails stops
 * everything: no record is kept after it, and no file is written.
 */
import { prefixedHex } from 'evm-integrity';
import {
  applyUpdate,
  decodeBootstrap,
  decodeUpdate,
  MAINNET,
  splitBeaconApiList,
  sszDataFork,
  verifyBootstrap,
  type LightClientDecodeProblem,
  type LightClientFork,
  type LightClientRecord,
  type LightClientState,
  type Node,
} from 'evm-integrity/anchor';
import type { BeaconApi } from './beacon-api.js';
import { AnchorProveError } from './prove-error.js';

/** Slots in a sync-committee period: 256 epochs of 32 slots (`EPOCHS_PER_SYNC_COMMITTEE_PERIOD`). */
const SLOTS_PER_PERIOD = 256 * 32;

/** The most periods one updates request asks for (`MAX_REQUEST_LIGHT_CLIENT_UPDATES`). */
export const MAX_UPDATES_A_REQUEST = 128;

/** The sync-committee period of `slot`. */
const periodOf = (slot: bigint): number => Math.floor(Number(slot) / SLOTS_PER_PERIOD);

/** The records of the steps and where they led. */
export interface LightClientSteps {
  /** The bootstrap, then one update a period, in order: each verified. */
  readonly records: LightClientRecord[];
  /** The checkpoint's period and the last period an update was verified for (the checkpoint's without one). */
  readonly fromPeriod: number;
  readonly toPeriod: number;
}

/**
 * The verified light-client records from `checkpoint` on the node `api`, up to period `toPeriod` (inclusive) or,
 * without it, to the node's latest; `progress` hears one line a step. A node without the routes, data that is
 * not what was asked, or a step the core refuses is an {@link AnchorProveError}.
 */
export async function lightClientSteps(
  api: BeaconApi,
  checkpoint: Node,
  toPeriod: number | undefined,
  progress: (line: string) => void,
): Promise<LightClientSteps> {
  const root = prefixedHex(checkpoint);
  const served = await api.lightClientBootstrap(root);
  if (served === null)
    throw new AnchorProveError(
      'not-provable',
      `not provable from this beacon API: ${api.where} serves no light-client bootstrap for ${root} (--checkpoint; GET /eth/v1/beacon/light_client/bootstrap/{root}): its light-client server may be off, or the checkpoint is not a finalized epoch-boundary block it keeps a bootstrap for`,
    );
  const where = `the beacon node at ${api.where}: the light-client bootstrap of ${root}`;
  const fork = forkOf(served.ssz, where);
  if (served.version !== '' && served.version !== fork)
    throw new AnchorProveError(
      'source',
      `${where}: its Eth-Consensus-Version header says ${served.version}, its header's slot is in ${fork}`,
    );
  const bootstrap = decodeBootstrap(fork, served.ssz);
  if (!bootstrap.ok) throw undecodable(where, bootstrap.error);
  let state: LightClientState = stepped(where, verifyBootstrap(MAINNET, checkpoint, bootstrap.value));
  const fromPeriod = state.period;
  if (toPeriod !== undefined && toPeriod < fromPeriod)
    throw new AnchorProveError(
      'not-provable',
      `--to-period ${toPeriod} is before the checkpoint's own period ${fromPeriod} (slot ${state.finalizedHeader.beacon.slot})`,
    );
  const records: LightClientRecord[] = [{ kind: 'bootstrap', fork, ssz: served.ssz }];
  progress(`bootstrap of ${root} verified: period ${fromPeriod}, slot ${state.finalizedHeader.beacon.slot}`);
  let period = fromPeriod;
  for (;;) {
    const count =
      toPeriod === undefined ? MAX_UPDATES_A_REQUEST : Math.min(MAX_UPDATES_A_REQUEST, toPeriod - period + 1);
    if (count <= 0) break;
    const framed = await api.lightClientUpdates(period, count);
    if (framed === null)
      throw new AnchorProveError(
        'not-provable',
        `not provable from this beacon API: ${api.where} serves no light-client updates (GET /eth/v1/beacon/light_client/updates?start_period=${period}&count=${count})`,
      );
    const items = splitBeaconApiList(framed);
    if (!items.ok)
      throw undecodable(`the beacon node at ${api.where}: the light-client updates from period ${period}`, items.error);
    for (const item of items.value) {
      const step = `the beacon node at ${api.where}: the light-client update of period ${period}`;
      const updateFork = forkOf(item.ssz, step);
      const update = decodeUpdate(updateFork, item.ssz);
      if (!update.ok) throw undecodable(step, update.error);
      const attested = periodOf(update.value.attestedHeader.beacon.slot);
      if (attested !== period)
        throw new AnchorProveError(
          'source',
          `${step}: it attests slot ${update.value.attestedHeader.beacon.slot}, in period ${attested}`,
        );
      state = stepped(step, applyUpdate(MAINNET, state, update.value));
      records.push({ kind: 'update', fork: updateFork, ssz: item.ssz });
      progress(`update of period ${period} verified: finalized slot ${state.finalizedHeader.beacon.slot}`);
      period++;
    }
    if (items.value.length < count) break;
  }
  if (toPeriod !== undefined && period <= toPeriod)
    throw new AnchorProveError(
      'not-provable',
      `the beacon node at ${api.where} serves light-client updates up to period ${period - 1}, not the ${toPeriod} --to-period asks for`,
    );
  return { records, fromPeriod, toPeriod: period - 1 };
}

/** The fork of light-client data, from its header's slot (the verifier reads it the same way). */
function forkOf(ssz: Uint8Array, where: string): LightClientFork {
  const fork = sszDataFork(MAINNET, ssz);
  if (!fork.ok) throw undecodable(where, fork.error);
  return fork.value;
}

/** Bytes that are not the light-client data asked for: the node's fault. */
function undecodable(where: string, problem: LightClientDecodeProblem): AnchorProveError {
  return new AnchorProveError('source', `${where}: ${problem.field}: expected ${problem.expected}`);
}

/** The state a step leads to, or the refusal naming the step: it is never written. */
function stepped(
  where: string,
  result: { ok: true; value: LightClientState } | { ok: false; error: { message: string } },
): LightClientState {
  if (!result.ok) throw new AnchorProveError('refused', `${where}: ${result.error.message}`);
  return result.value;
}
