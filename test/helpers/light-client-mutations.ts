/**
 * Changed copies of light-client data for the refusal tests: a copy of an update or bootstrap with one byte
 * of one part changed, the rest shared.
 */
import type {
  LightClientBootstrap,
  LightClientHeader,
  LightClientUpdate,
} from '../../packages/core/src/anchor/light-client/containers.js';

/** A copy of `bytes` with byte `at` (modulo its length) xored with `mask` (1-255). */
export function flipped(bytes: Uint8Array, at: number, mask = 1): Uint8Array {
  const copy = bytes.slice();
  copy[at % copy.length]! ^= mask;
  return copy;
}

/** A copy of `branch` with byte `at` of node `node` (each modulo) changed. */
export function flippedBranch(branch: readonly Uint8Array[], node: number, at: number, mask = 1): Uint8Array[] {
  return branch.map((n, i) => (i === node % branch.length ? flipped(n, at, mask) : n));
}

/** `header` with byte `at` of node `node` of its execution branch changed. */
export function withExecutionBranchChanged(
  header: LightClientHeader,
  node: number,
  at: number,
  mask = 1,
): LightClientHeader {
  return { ...header, executionBranch: flippedBranch(header.executionBranch, node, at, mask) };
}

/** The parts of an update a single changed byte can be put in. */
export type UpdatePart =
  | 'finality-branch'
  | 'next-committee-branch'
  | 'attested-execution-branch'
  | 'finalized-execution-branch'
  | 'signature';

/** `update` with byte `at` of node `node` (for a branch) of `part` xored with `mask`. */
export function withUpdateChanged(
  update: LightClientUpdate,
  part: UpdatePart,
  node: number,
  at: number,
  mask = 1,
): LightClientUpdate {
  switch (part) {
    case 'finality-branch':
      return {
        ...update,
        finality: { ...update.finality!, branch: flippedBranch(update.finality!.branch, node, at, mask) },
      };
    case 'next-committee-branch':
      return {
        ...update,
        nextSyncCommittee: {
          ...update.nextSyncCommittee!,
          branch: flippedBranch(update.nextSyncCommittee!.branch, node, at, mask),
        },
      };
    case 'attested-execution-branch':
      return { ...update, attestedHeader: withExecutionBranchChanged(update.attestedHeader, node, at, mask) };
    case 'finalized-execution-branch':
      return {
        ...update,
        finality: { ...update.finality!, header: withExecutionBranchChanged(update.finality!.header, node, at, mask) },
      };
    case 'signature':
      return {
        ...update,
        syncAggregate: { ...update.syncAggregate, signature: flipped(update.syncAggregate.signature, at, mask) },
      };
  }
}

/** `update` with member `index`'s participation bit flipped. */
export function withBitFlipped(update: LightClientUpdate, index: number): LightClientUpdate {
  const bits = update.syncAggregate.bits.slice();
  bits[index >> 3]! ^= 1 << (index & 7);
  return { ...update, syncAggregate: { ...update.syncAggregate, bits } };
}

/** `update` with only its first `count` participants' bits left set. */
export function withParticipants(update: LightClientUpdate, count: number): LightClientUpdate {
  const bits = update.syncAggregate.bits.slice();
  let kept = 0;
  for (let i = 0; i < bits.length * 8; i++) {
    if (((bits[i >> 3]! >> (i & 7)) & 1) === 0) continue;
    if (kept < count) kept++;
    else bits[i >> 3]! &= ~(1 << (i & 7));
  }
  return { ...update, syncAggregate: { ...update.syncAggregate, bits } };
}

/** `bootstrap` with byte `at` of node `node` of its current-committee branch changed. */
export function withCommitteeBranchChanged(
  bootstrap: LightClientBootstrap,
  node: number,
  at: number,
): LightClientBootstrap {
  return { ...bootstrap, currentSyncCommitteeBranch: flippedBranch(bootstrap.currentSyncCommitteeBranch, node, at) };
}
