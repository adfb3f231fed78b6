/**
 * A light-client header's own rule (consensus-specs Capella and Deneb light-client `is_valid_light_client_header`):
 * its execution payload header, hashed as its slot's fork defines one (Capella's 15 fields before Deneb, 17
 * from it), reaches the beacon header's body root at `execution_payload`'s generalized index (25). Only
 * headers from Capella are accepted: an earlier one carries no execution header, which is what the anchor needs.
 */
import { err, ok, type Result } from '../../result.js';
import { isValidBranch } from '../merkle-branch.js';
import { forkAtSlot, isAtLeast, type BeaconNetwork, type Fork } from '../networks.js';
import type { LightClientHeader } from './containers.js';
import { EXECUTION_PAYLOAD_GINDEX } from './gindices.js';
import type { HeaderRole, LightClientRefusal } from './refusal.js';
import { executionPayloadHeaderRoot } from './roots.js';

/** `slot` as a number, or `undefined` when negative or past 2^53 (no real slot is). */
export function safeSlot(slot: bigint): number | undefined {
  return slot >= 0n && slot <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(slot) : undefined;
}

const UINT64_END = 1n << 64n;

/**
 * Why `header`'s beacon header cannot be hashed as one, or `undefined`: a slot past 2^53 (no real slot is, and
 * slots are compared as numbers), a proposer index outside uint64, a root not 32 bytes. The decoders never give
 * such a header; a caller building one by hand may.
 */
export function beaconHeaderProblem(header: LightClientHeader, role: HeaderRole): LightClientRefusal | undefined {
  const { slot, proposerIndex, parentRoot, stateRoot, bodyRoot } = header.beacon;
  if (safeSlot(slot) === undefined)
    return { kind: 'header', header: role, message: `the ${role} header's slot ${slot} is not a real slot` };
  if (proposerIndex < 0n || proposerIndex >= UINT64_END)
    return { kind: 'header', header: role, message: `the ${role} header's proposer index is not a uint64` };
  if ([parentRoot, stateRoot, bodyRoot].some((root) => root.length !== 32))
    return { kind: 'header', header: role, message: `the ${role} header's roots are not 32 bytes each` };
  return undefined;
}

/** The fork of `header` on `network` when the header is valid, or why not. */
export function checkHeader(
  network: BeaconNetwork,
  header: LightClientHeader,
  role: HeaderRole,
): Result<Fork, LightClientRefusal> {
  const problem = beaconHeaderProblem(header, role);
  if (problem !== undefined) return err(problem);
  const slot = Number(header.beacon.slot);
  const fork = forkAtSlot(network, slot);
  if (!isAtLeast(fork, 'capella'))
    return err({
      kind: 'unsupported-fork',
      header: role,
      fork,
      message: `the ${role} header is of ${fork} (slot ${slot}); light-client headers are read from Capella on`,
    });
  const deneb = isAtLeast(fork, 'deneb');
  if (!deneb && (header.execution.blobGasUsed !== 0n || header.execution.excessBlobGas !== 0n))
    return err({
      kind: 'header',
      header: role,
      message: `the ${role} header is of ${fork} but sets the blob gas fields`,
    });
  const root = executionPayloadHeaderRoot(header.execution, deneb);
  // An exact branch, not a normalized one: the body's execution payload kept its place in every fork.
  if (!isValidBranch(root, header.executionBranch, EXECUTION_PAYLOAD_GINDEX, header.beacon.bodyRoot))
    return err({
      kind: 'branch',
      branch: 'execution',
      header: role,
      gindex: EXECUTION_PAYLOAD_GINDEX,
      message: `the ${role} header's execution payload header does not reach its body root (generalized index ${EXECUTION_PAYLOAD_GINDEX}, ${fork})`,
    });
  return ok(fork);
}
