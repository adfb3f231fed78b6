/**
 * The evidence file: one block an operator vouched for, versioned, with who vouched and when, what it showed when it was
 * admitted, and the block itself, so that every load admits it again. What the file says it shows is never taken on
 * its word: a file whose block no longer reproduces, or shows other than it says, is refused.
 */
import type { ReceiptKind, Vouch } from '../chains/chain-info.js';
import type { OperatorEvidence } from '../chains/registry.js';
import { err, ok, type Result } from '../result.js';
import { admitEvidence, type EvidenceRefusal } from './admit-evidence.js';
import type { BlockVerifyContext } from './verify-block.js';

/** The format an evidence file declares; a later format gets a new number and this reader refuses it. */
export const EVIDENCE_FORMAT = 'evm-integrity/evidence@1';

/** An evidence file's content. */
export interface EvidenceRecord {
  format: typeof EVIDENCE_FORMAT;
  chain_id: number;
  block_number: number;
  block_hash: string;
  vouched_by: string;
  vouched_at: string;
  /** Where the block came from: the file or node it was read from. */
  source: string;
  /** What the block showed when admitted. */
  shows: { receipts: ReceiptKind[]; logs: boolean };
  /** The block, in the JSON-RPC form `verify block` reads. */
  block: unknown;
}

/** The file name an evidence record is kept under in an evidence directory. */
export const evidenceFileName = (chainId: number, blockNumber: number): string => `${chainId}-${blockNumber}.json`;

/** The record of an admitted block. */
export function evidenceRecord(evidence: OperatorEvidence, block: unknown, source: string): EvidenceRecord {
  return {
    format: EVIDENCE_FORMAT,
    chain_id: evidence.chainId,
    block_number: evidence.block,
    block_hash: evidence.vouch.blockHash,
    vouched_by: evidence.vouch.vouchedBy,
    vouched_at: evidence.vouch.vouchedAt,
    source,
    shows: { receipts: [...evidence.receipts], logs: evidence.logs },
    block,
  };
}

/** The members of an evidence record; any other is refused, so that a misspelt one is named as such. */
const MEMBERS: ReadonlySet<string> = new Set([
  'format',
  'chain_id',
  'block_number',
  'block_hash',
  'vouched_by',
  'vouched_at',
  'source',
  'shows',
  'block',
]);

/** An instant as `toISOString` writes it (seconds and a zone at least). */
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const sameKinds = (a: readonly ReceiptKind[], b: readonly ReceiptKind[]) =>
  a.length === b.length && a.every((kind) => b.includes(kind));

/**
 * The evidence of a parsed evidence file named `file`, admitted again; or why it is refused, naming the member or what
 * changed.
 */
export function readEvidenceRecord(
  value: unknown,
  file: string,
  context: Pick<BlockVerifyContext, 'registry' | 'keccak'> = {},
): Result<OperatorEvidence, EvidenceRefusal> {
  const refuse = (reason: string, kind: EvidenceRefusal['kind'] = 'invalid') =>
    err({ kind, reason: `${file}: ${reason}` });
  if (!isObject(value)) return refuse('expected a JSON object (an evidence record)');
  const unknown = Object.keys(value).find((member) => !MEMBERS.has(member));
  if (unknown !== undefined)
    return refuse(`${unknown}: not a member of an evidence record (${[...MEMBERS].join(', ')})`);
  if (value.format !== EVIDENCE_FORMAT)
    return refuse(`format: expected "${EVIDENCE_FORMAT}", got ${JSON.stringify(value.format) ?? 'nothing'}`);
  for (const member of ['block_hash', 'vouched_by', 'source'] as const)
    if (typeof value[member] !== 'string' || value[member] === '')
      return refuse(`${member}: expected a non-empty string`);
  if (
    typeof value.vouched_at !== 'string' ||
    !INSTANT.test(value.vouched_at) ||
    Number.isNaN(Date.parse(value.vouched_at))
  )
    return refuse(
      `vouched_at: expected an instant such as 2026-11-29T12:00:00.000Z, got ${JSON.stringify(value.vouched_at)}`,
    );
  for (const member of ['chain_id', 'block_number'] as const)
    if (!Number.isSafeInteger(value[member]) || (value[member] as number) < 0)
      return refuse(`${member}: expected a non-negative integer`);
  const shows = value.shows;
  if (!isObject(shows) || !Array.isArray(shows.receipts) || typeof shows.logs !== 'boolean')
    return refuse('shows: expected {receipts: [kinds], logs: boolean}');
  const vouch: Vouch = {
    blockHash: value.block_hash as string,
    vouchedBy: value.vouched_by as string,
    vouchedAt: value.vouched_at,
    file,
  };
  const admitted = admitEvidence(value.block, vouch, context);
  if (!admitted.ok) return refuse(`block: ${admitted.error.reason}`, admitted.error.kind);
  const evidence = admitted.value;
  if (evidence.chainId !== value.chain_id || evidence.block !== value.block_number)
    return refuse(
      `the block is block ${evidence.block} of chain ${evidence.chainId}, not what chain_id and block_number say`,
    );
  if (!sameKinds(evidence.receipts, shows.receipts as ReceiptKind[]) || evidence.logs !== shows.logs)
    return refuse(
      `shows: the block shows ${JSON.stringify({ receipts: evidence.receipts, logs: evidence.logs })}, not what the file says`,
    );
  return ok(evidence);
}
