/**
 * `sealFields`, which OpenEthereum and Nethermind add to a header's JSON: the header's seal fields
 * (Ethash's `mixHash` and `nonce`, AuRa's step and signature), each RLP-encoded, in the layout's
 * order. It repeats hashed fields without being hashed itself, so an item that says another value
 * than its field is refused as a conflict, as two names of one field are. Shown by mainnet blocks
 * 47,218, 47,219 and 483,920 (Ethash) and Gnosis block 10,226,218 (AuRa).
 */
import { encode } from '@ethereumjs/rlp';
import { bytesEqual, bytesToHex } from '../../bytes/hex.js';
import { quantityBytes } from '../../bytes/rlp-writer.js';
import type { BlockHeader } from '../../header/header-fields.js';
import type { HeaderLayout } from '../../header/layouts.js';
import { readArray, readHex } from '../values/json-values.js';
import type { Problems } from '../values/problems.js';

/**
 * Each item of the header's `sealFields` (`raw`, read at `path`), where present and not empty, must be the RLP of the
 * layout's seal field at its place; an item that is not is a `conflict` problem at its path.
 * @example
 * checkSealFields(['0x8412f799f2', signature], fields, AURA_HEADER, 'header.sealFields', problems)
 * // header.sealFields[0]: expected 0x8412f799f1, the RLP of auraStep, which it repeats, got 0x8412f799f2
 */
export function checkSealFields(
  raw: unknown,
  fields: Partial<BlockHeader>,
  layout: HeaderLayout,
  path: string,
  problems: Problems,
): void {
  if (raw === undefined || raw === null) return;
  const items = readArray(raw, path, problems, `the RLP of ${layout.seal.join(' and ')}, in that order`);
  // Clients that give the member on chains without such a seal (Nethermind-based and other nodes of chains after
  // their merge, or of L2s) give it empty: it restates nothing, so it is no conflict.
  if (items === undefined || items.length === 0) return;
  if (items.length !== layout.seal.length) {
    problems.add(path, 'conflict', `${layout.seal.length} items, the RLP of ${layout.seal.join(' and ')}`);
    return;
  }
  layout.seal.forEach((field, i) => {
    const value = fields[field];
    const item = readHex(items[i], `${path}[${i}]`, problems);
    if (value === undefined || item === undefined) return;
    const encoded = encode(typeof value === 'bigint' ? quantityBytes(value) : value);
    if (!bytesEqual(item, encoded))
      problems.add(
        `${path}[${i}]`,
        'conflict',
        `0x${bytesToHex(encoded)}, the RLP of ${field}, which it repeats, got 0x${bytesToHex(item)}`,
      );
  });
}
