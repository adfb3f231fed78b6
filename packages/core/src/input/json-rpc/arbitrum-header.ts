/**
 * The members an Arbitrum Nitro node adds to a header's JSON: values its hashed fields carry
 * (OffchainLabs/go-ethereum, core/types/arb_types.go, DeserializeHeaderExtraInformation):
 * `sendRoot` is `extraData`, `sendCount` the first 8 bytes of `mixHash` and `l1BlockNumber` the
 * next 8, big-endian. They are not hashed, so nothing else checks them: a member that says another
 * value than the field it repeats gives two versions of one fact, refused as a conflict, as two
 * names of one header field are (json-rpc.ts). Shown by Arbitrum One block 150,000,000.
 */
import { bytesToHex } from '../../bytes/hex.js';
import { withArticle } from '../../header/layouts.js';
import type { RuleSetName } from '../../receipts/rules.js';
import type { BlockHeader } from '../../header/header-fields.js';
import { isObject, join } from '../values/json-values.js';
import { compareHash, compareQuantity, quantity } from './repeated-values.js';
import type { Problems } from '../values/problems.js';

/** The 8-byte big-endian integer at `offset` of `bytes`. */
const uint64At = (bytes: Uint8Array, offset: number) =>
  new DataView(bytes.buffer, bytes.byteOffset + offset, 8).getBigUint64(0);

/**
 * Whether Nitro encodes its header information in the header: a base fee, a 32-byte extraData and
 * difficulty 1 (the condition of DeserializeHeaderExtraInformation; the genesis and blocks
 * imported from the classic chain have none, and their members are zeros no real block here shows).
 */
function carriesHeaderInfo(fields: Partial<BlockHeader>): boolean {
  return (
    fields.baseFeePerGas !== undefined &&
    fields.baseFeePerGas > 0n &&
    fields.extraData?.length === 32 &&
    fields.difficulty === 1n &&
    fields.mixHash !== undefined
  );
}

/**
 * The L1 block number a Nitro header carries (bytes 8 to 16 of mixHash), which its receipts' `l1BlockNumber` repeat;
 * undefined for a header that carries no header information.
 */
export function nitroL1BlockNumber(fields: Partial<BlockHeader>): bigint | undefined {
  return carriesHeaderInfo(fields) ? uint64At(fields.mixHash!, 8) : undefined;
}

/**
 * Each of `sendRoot`, `sendCount` and `l1BlockNumber` in the header's JSON (`json`, read at `path`) that is present
 * must say what its hashed field says; a different one is a `conflict` problem at its path.
 * @example
 * checkArbitrumHeaderInfo({ ...header, sendCount: '0x1' }, fields, 'header', problems)
 * // header.sendCount: expected 96807, the first 8 bytes of mixHash, which it repeats, got 1
 */
export function checkArbitrumHeaderInfo(
  json: unknown,
  fields: Partial<BlockHeader>,
  path: string,
  problems: Problems,
): void {
  if (!isObject(json) || !carriesHeaderInfo(fields)) return;
  const extraData = `0x${bytesToHex(fields.extraData!)}`;
  compareHash(json.sendRoot, join(path, 'sendRoot'), { of: extraData, what: "the header's extraData" }, problems);
  const counts = [
    ['sendCount', 0, 'the first 8 bytes of mixHash'],
    ['l1BlockNumber', 8, 'bytes 8 to 16 of mixHash'],
  ] as const;
  for (const [name, offset, what] of counts)
    compareQuantity(json[name], join(path, name), { of: quantity(uint64At(fields.mixHash!, offset))!, what }, problems);
}

/** The members a Nitro node adds to a header's JSON, each repeating a hashed field. */
const NITRO_MEMBERS = ['sendRoot', 'sendCount', 'l1BlockNumber'] as const;

/**
 * Each of Nitro's members (`sendRoot`, `sendCount`, `l1BlockNumber`) in the JSON of a header of a chain whose rules
 * (`rules`) are not Arbitrum's: no node of such a chain gives one (no fixture does), and no block hash covers what it
 * would claim, so a present one is a `conflict` problem at its path.
 * @example
 * refuseNitroMembers({ ...mainnetHeader, sendRoot: '0x11…' }, 'ethereum', 'header', problems)
 * // header.sendRoot: expected absent: an ethereum chain's header does not carry sendRoot (…): no block hash covers it
 */
export function refuseNitroMembers(json: unknown, rules: RuleSetName, path: string, problems: Problems): void {
  if (!isObject(json)) return;
  for (const member of NITRO_MEMBERS)
    if (json[member] !== undefined && json[member] !== null)
      problems.add(
        join(path, member),
        'conflict',
        `absent: ${withArticle(rules)} chain's header does not carry ${member} (Arbitrum Nitro's does, repeating a field it hashes): no block hash covers it`,
      );
}
