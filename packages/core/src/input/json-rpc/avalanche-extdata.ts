/**
 * Avalanche's `blockExtraData`: the block's atomic transactions, which a C-Chain node gives beside its header's fields
 * and the block hash covers only through `extDataHash`. coreth (core/types, CalcExtDataHash) sets extDataHash to
 * EmptyExtDataHash for empty extra data, else to rlpHash(extdata), and EmptyExtDataHash is rlpHash([]byte(nil)): one
 * formula, the Keccak of the bytes' RLP (of 0x80 when empty). Before Apricot Phase 1 coreth leaves extDataHash zero,
 * and then no hash covers the extra data. So the member is checked against extDataHash, or refused where none covers
 * it: read unchecked, any bytes would pass beside a matching block hash.
 */
import { bytesEqual, prefixedHex } from '../../bytes/hex.js';
import { stringLength, writeString } from '../../bytes/rlp-writer.js';
import { aHeaderOf, type HeaderLayout } from '../../header/layouts.js';
import type { Keccak256 } from '../../keccak/keccak.js';
import { claims, join, readHex } from '../values/json-values.js';
import type { Problems } from '../values/problems.js';

/** The member a C-Chain node gives the extra data under. */
const MEMBER = 'blockExtraData';

/** coreth's CalcExtDataHash: the Keccak of `extra`'s RLP encoding, empty bytes (EmptyExtDataHash) included. */
function extDataHashOf(extra: Uint8Array, keccak: Keccak256): Uint8Array {
  const rlp = new Uint8Array(stringLength(extra));
  writeString(rlp, 0, extra);
  return keccak(rlp);
}

/**
 * Checks a header's `blockExtraData` (in `rpc`, its JSON read at `path`) on a layout that carries it (Avalanche's),
 * where given (null is absent): hex bytes whose RLP's Keccak is the header's extDataHash (`extDataHash`, as read); with
 * a zero extDataHash (before Apricot Phase 1), empty. Anything else is a problem at `path.blockExtraData`: no block
 * hash covers it. A malformed extDataHash has its own problem and is not compared with; an absent one is named, since
 * nothing else would cover the extra data.
 * @example
 * checkBlockExtraData({ ...fujiHeader, blockExtraData: '0x01' }, fields.extDataHash, 'header', AVALANCHE_HEADER, problems, keccak)
 * // header.blockExtraData: expected extra data the header's extDataHash commits to: the Keccak of its RLP is extDataHash 0x56e8…, got 1 bytes whose is 0x5fe7…
 */
export function checkBlockExtraData(
  rpc: Readonly<Record<string, unknown>>,
  extDataHash: Uint8Array | undefined,
  path: string,
  layout: HeaderLayout,
  problems: Problems,
  keccak: Keccak256,
): void {
  const raw = rpc[MEMBER];
  if (!layout.carried?.includes(MEMBER) || !claims(raw)) return;
  const memberPath = join(path, MEMBER);
  const extra = readHex(raw, memberPath, problems, undefined, 'even-length hex bytes, 0x when empty');
  if (extra === undefined) return;
  if (extDataHash === undefined) {
    if (!claims(rpc.extDataHash))
      problems.add(join(path, 'extDataHash'), 'missing', `present: it is what ${MEMBER} is checked against`);
    return;
  }
  if (extDataHash.every((byte) => byte === 0)) {
    if (extra.length > 0)
      problems.add(
        memberPath,
        'conflict',
        `absent or 0x: ${aHeaderOf(layout)} whose extDataHash is zero (before Apricot Phase 1) commits to no extra data: no block hash covers it, got ${extra.length} bytes`,
      );
    return;
  }
  const hash = extDataHashOf(extra, keccak);
  if (!bytesEqual(hash, extDataHash))
    problems.add(
      memberPath,
      'conflict',
      `extra data the header's extDataHash commits to: the Keccak of its RLP is extDataHash ${prefixedHex(extDataHash)} (coreth's CalcExtDataHash), got ${extra.length} bytes whose is ${prefixedHex(hash)}`,
    );
}
