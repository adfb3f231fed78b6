/**
 * The envelopes light-client data arrives in, taken off before decoding (decode-ssz.ts):
 * - the Beacon API's `application/octet-stream` list answers (`/eth/v1/beacon/light_client/updates`): each
 *   item an 8-byte little-endian length, then that many bytes, a 4-byte fork digest and the SSZ (the length
 *   counts the digest: colibri-stateless' recorded mainnet answers, fixtures/anchor/colibri/, show it);
 * - the Portal network's beacon content (ethereum/portal-network-specs `beacon-chain/light-client-network.md`):
 *   a value is a 4-byte fork digest and the SSZ, and the updates-by-range value an SSZ list of such values.
 * The fork digest says which fork's layout follows; signing.ts `forkDigest` gives a network's.
 */
import { err, ok, type Result } from '../../result.js';
import type { LightClientDecodeProblem } from './containers.js';

/** One item of light-client data: the fork digest it came with and its SSZ. */
export interface ForkDigestedData {
  readonly forkDigest: Uint8Array;
  readonly ssz: Uint8Array;
}

/** The digest and SSZ of one digest-prefixed value (a Portal content value). */
export function splitForkDigest(bytes: Uint8Array): Result<ForkDigestedData, LightClientDecodeProblem> {
  if (bytes.length < 4) return err({ field: 'fork digest', expected: '4 bytes before the data' });
  return ok({ forkDigest: bytes.slice(0, 4), ssz: bytes.subarray(4) });
}

/** The items of a Beacon API SSZ list answer, in order. */
export function splitBeaconApiList(bytes: Uint8Array): Result<ForkDigestedData[], LightClientDecodeProblem> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const items: ForkDigestedData[] = [];
  for (let at = 0; at < bytes.length;) {
    if (at + 8 > bytes.length)
      return err({ field: `item ${items.length}`, expected: 'an 8-byte length before its data' });
    const length = view.getBigUint64(at, true);
    if (length < 4n || length > BigInt(bytes.length - at - 8))
      return err({
        field: `item ${items.length}`,
        expected: `a length of 4 to ${bytes.length - at - 8} bytes, not ${length}`,
      });
    const item = splitForkDigest(bytes.subarray(at + 8, at + 8 + Number(length)));
    if (!item.ok) return item;
    items.push(item.value);
    at += 8 + Number(length);
  }
  return ok(items);
}

/** The items of a Portal `LightClientUpdatesByRange` value: an SSZ list of digest-prefixed updates. */
export function splitPortalUpdates(bytes: Uint8Array): Result<ForkDigestedData[], LightClientDecodeProblem> {
  if (bytes.length === 0) return ok([]);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length < 4) return err({ field: 'updates', expected: 'a list of offsets' });
  const first = view.getUint32(0, true);
  if (first % 4 !== 0 || first === 0 || first > bytes.length)
    return err({ field: 'updates', expected: `a first offset that counts 4-byte offsets, not ${first}` });
  const offsets = Array.from({ length: first / 4 }, (_, i) => view.getUint32(4 * i, true));
  const items: ForkDigestedData[] = [];
  for (let i = 0; i < offsets.length; i++) {
    const start = offsets[i]!;
    const end = i + 1 < offsets.length ? offsets[i + 1]! : bytes.length;
    if (end < start || end > bytes.length) return err({ field: `updates[${i}]`, expected: 'offsets in order' });
    const item = splitForkDigest(bytes.subarray(start, end));
    if (!item.ok) return err({ field: `updates[${i}]`, expected: item.error.expected });
    items.push(item.value);
  }
  return ok(items);
}
