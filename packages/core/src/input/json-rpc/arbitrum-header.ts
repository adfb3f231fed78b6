/**
 * The members an Arbitrum Nitro node adds to a header's JSON: values its hashed fields carry
 * (OffchainLabs/go-ethereum, core/types/arb_types.go, DeserializeHeaderExtraInformation):
 * `sendRoot` is `extraData`, `sendCount` the first 8 bytes of `mixHash` and `l1BlockNumber` the
 * next 8, big-endian; zeros for a header that does not carry that information. They are not hashed,
 * so nothing else checks them: a member that says another value than the node would gives two
 * versions of one fact, refused as a conflict, as two names of one header field are (json-rpc.ts).
 * Shown by Arbitrum One block 150,000,000.
 */
import { bytesToHex } from '../../bytes/hex.js';
import { withArticle } from '../../header/layouts.js';
import type { RuleSetName } from '../../receipts/rules.js';
import type { BlockHeader } from '../../header/header-fields.js';
import { claims, isObject, join, type JsonObject } from '../values/json-values.js';
import { compareHash, compareQuantity, quantity, repeated, type Quantity, type Repeated } from './repeated-values.js';
import type { Problems } from '../values/problems.js';

/** The 8-byte big-endian integer at `offset` of `bytes`. */
const uint64At = (bytes: Uint8Array, offset: number) =>
  new DataView(bytes.buffer, bytes.byteOffset + offset, 8).getBigUint64(0);

/** The members a Nitro node adds to a header's JSON, each repeating a hashed field. */
export const NITRO_MEMBERS = ['sendRoot', 'sendCount', 'l1BlockNumber'] as const;

/** What a Nitro node reports as a header's members; `none` says why they are zeros, absent where the header has them. */
interface NitroReport {
  sendRoot: Uint8Array;
  sendCount: bigint;
  l1BlockNumber: bigint;
  none?: string;
}

/**
 * Why the header carries no Nitro header information, by the condition of DeserializeHeaderExtraInformation (a base
 * fee, a 32-byte extraData and difficulty 1); undefined when it carries it, or when a field that decides is not given
 * and none given decides.
 */
function whyNoHeaderInfo(fields: Partial<BlockHeader>): string | undefined {
  if (fields.extraData !== undefined && fields.extraData.length !== 32)
    return `its extraData is ${fields.extraData.length} bytes, not 32`;
  if (fields.difficulty !== undefined && fields.difficulty !== 1n)
    return `its difficulty is ${fields.difficulty}, not 1`;
  // A fork field absent is absent (the header is hashed without it): Nitro's BaseFee nil.
  if (fields.baseFeePerGas === undefined) return 'it has no baseFeePerGas';
  return undefined;
}

/**
 * What a Nitro node reports as the header's `sendRoot`, `sendCount` and `l1BlockNumber`, and as each receipt's
 * `l1BlockNumber`. OffchainLabs/go-ethereum internal/ethapi/api.go (fillArbitrumNitroHeaderInfo; the receipt's fields
 * in its marshalling) writes them from core/types/arb_types.go's DeserializeHeaderExtraInformation: `extraData`, the
 * first 8 bytes of `mixHash` and the next 8, big-endian, for a header that carries Nitro's header information; an empty
 * HeaderInfo, zeros, for one that does not (the genesis, blocks imported from the classic chain, any other header).
 * A base fee of 0 is read both ways, as nodes differ (before OffchainLabs/go-ethereum 61ab3402, June 2025, such a header
 * carried no information; since, it does): zeros where the header's JSON (`json`) gives each of its members as zero or
 * not at all, else the decoded values, so that either node's answer holds and no other does. Undefined where the fields
 * cannot tell: a decisive field not given, or a header that carries it without mixHash.
 */
function nitroReport(fields: Partial<BlockHeader>, json: JsonObject): NitroReport | undefined {
  const none = whyNoHeaderInfo(fields) ?? (fields.baseFeePerGas === 0n && allZero(json) ? BASE_FEE_ZERO : undefined);
  if (none !== undefined) return { sendRoot: new Uint8Array(32), sendCount: 0n, l1BlockNumber: 0n, none };
  const { extraData, difficulty, mixHash } = fields;
  if (extraData === undefined || difficulty === undefined || mixHash === undefined) return undefined;
  return { sendRoot: extraData, sendCount: uint64At(mixHash, 0), l1BlockNumber: uint64At(mixHash, 8) };
}

/** Why a header whose base fee is 0 may carry no Nitro header information: the nodes before 61ab3402 read it so. */
const BASE_FEE_ZERO = 'its base fee is 0, which nodes before OffchainLabs/go-ethereum 61ab3402 read as none';

/** Whether each of Nitro's members in a header's JSON is zero (in a node's spelling or a number) or absent. */
const allZero = (json: JsonObject) =>
  NITRO_MEMBERS.every((member) => {
    const value = json[member];
    return !claims(value) || value === 0 || (typeof value === 'string' && /^0x0+$/.test(value));
  });

/**
 * Whether a header that Nitro would read but for its missing base fee (a 32-byte extraData, difficulty 1) gives members
 * that are not zero: the base fee is then what the JSON lost (every Nitro header has one), named as such rather than
 * each member as differing from the zeros such a header would carry.
 */
const lostBaseFee = (fields: Partial<BlockHeader>, json: JsonObject) =>
  fields.baseFeePerGas === undefined && fields.extraData?.length === 32 && fields.difficulty === 1n && !allZero(json);

/** How a message names the zeros a node reports for a header without Nitro's header information, and why. */
const zeros = (none: string) =>
  `what a Nitro node reports for a header that carries no Nitro header information (${none})`;

/**
 * What each receipt's `l1BlockNumber` repeats: what a Nitro node reports as the header's (nitroReport); undefined
 * where that cannot be told.
 */
export function nitroL1BlockNumber(fields: Partial<BlockHeader>, json: JsonObject): Repeated<Quantity> | undefined {
  const report = nitroReport(fields, json);
  if (report === undefined) return undefined;
  const what =
    report.none === undefined
      ? "the header's l1BlockNumber (bytes 8 to 16 of mixHash)"
      : `the header's l1BlockNumber, ${zeros(report.none)}`;
  return repeated(quantity(report.l1BlockNumber), what);
}

/**
 * Each of `sendRoot`, `sendCount` and `l1BlockNumber` in the header's JSON (`json`, read at `path`) that is present
 * must say what a Nitro node reports of the header (nitroReport); a different one is a `conflict` problem at its path.
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
  if (!isObject(json)) return;
  if (lostBaseFee(fields, json)) {
    problems.add(
      join(path, 'baseFeePerGas'),
      'missing',
      'present: a Nitro header has a base fee, and its sendRoot, sendCount and l1BlockNumber, not zero here, are information only a header with one carries',
    );
    return;
  }
  const report = nitroReport(fields, json);
  if (report === undefined) return;
  const named = (what: string) => (report.none === undefined ? what : zeros(report.none));
  const sendRoot = { of: `0x${bytesToHex(report.sendRoot)}`, what: named("the header's extraData") };
  compareHash(json.sendRoot, join(path, 'sendRoot'), sendRoot, problems);
  const counts = [
    ['sendCount', report.sendCount, 'the first 8 bytes of mixHash'],
    ['l1BlockNumber', report.l1BlockNumber, 'bytes 8 to 16 of mixHash'],
  ] as const;
  for (const [name, value, what] of counts)
    compareQuantity(json[name], join(path, name), { of: quantity(value)!, what: named(what) }, problems);
}

/**
 * Each of Nitro's members (`sendRoot`, `sendCount`, `l1BlockNumber`) in the JSON of a header of a chain whose rules
 * (`rules`) are not Arbitrum's: no node of such a chain gives one (no fixture does), and no block hash covers what it
 * would claim, so a present one is a `conflict` problem at its path.
 * @example
 * refuseNitroMembers({ ...mainnetHeader, sendRoot: '0x11…' }, 'ethereum', 'header', problems)
 * // header.sendRoot: expected absent: an ethereum chain's header does not carry sendRoot (…): no block hash covers it
 */
export function refuseNitroMembers(json: unknown, rules: RuleSetName, path: string, problems: Problems): void {
  refuseGiven(
    json,
    NITRO_MEMBERS,
    path,
    (member) =>
      `absent: ${withArticle(rules)} chain's header does not carry ${member} (Arbitrum Nitro's does, repeating a field it hashes): no block hash covers it`,
    problems,
  );
}

/**
 * Nitro's members of a block whose chain's rules are unknown (outside the registry, none named: `chainId`), the
 * header's and each receipt's `l1BlockNumber`: only Arbitrum's rules can check them (and others refuse them), so a
 * present one is a `conflict` problem at its path that says how to name the rules. For a reader that makes something
 * of the block other than its verification, which refuses such a chain before any member counts (request's bodies).
 * @example
 * refuseUncheckedNitroMembers({ chain_id: 424242, header: { ...header, sendRoot: '0x11…' }, receipts }, 424242, problems)
 * // header.sendRoot: expected absent: chain 424242's rules are unknown, so what sendRoot claims cannot be checked (…)
 */
export function refuseUncheckedNitroMembers(block: JsonObject, chainId: number | null, problems: Problems): void {
  const chain = chainId === null ? "the block's chain" : `chain ${chainId}`;
  const why = (member: string) =>
    `absent: ${chain}'s rules are unknown, so what ${member} claims cannot be checked (name them: --add-chain ${chainId ?? 'ID'}:arbitrum)`;
  refuseGiven(block.header, NITRO_MEMBERS, 'header', why, problems);
  if (Array.isArray(block.receipts))
    block.receipts.forEach((receipt: unknown, i) =>
      refuseGiven(receipt, ['l1BlockNumber'], `receipts[${i}]`, why, problems),
    );
}

/** Each of `members` that `json` (read at `path`) gives, null being absent, as a `conflict` problem saying `why`. */
function refuseGiven(
  json: unknown,
  members: readonly string[],
  path: string,
  why: (member: string) => string,
  problems: Problems,
): void {
  if (!isObject(json)) return;
  for (const member of members) if (claims(json[member])) problems.add(join(path, member), 'conflict', why(member));
}
