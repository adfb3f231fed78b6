/**
 * `verify receipt-root|logs-bloom|receipt-proof FILE`: one claim of a body checked, the answer the
 * endpoint would give printed. Apart from verify.ts so that `verify block` does not load the
 * request schemas and the proof code these need.
 */
import {
  isObject,
  type OperationContext,
  type OperationResult,
  receiptProofGives,
  type ReceiptProofResult,
  verifyLogsBloomOperation,
  verifyReceiptProofOperation,
  verifyReceiptRootOperation,
} from 'evm-integrity/api';
import type { ChainRegistry, Problem } from 'evm-integrity';
import { inputName } from '../io/read-input.js';
import { InputError } from '../io/usage-error.js';
import type { CliIo } from '../io/streams.js';
import { notALine } from '../io/json-input.js';
import { VERDICT_EXIT as EXIT } from '../exit.js';
import { withAddChainHint } from '../chain-flag.js';
import { authenticLine } from '../anchor/anchor-proof.js';

/** An anchor proof given with `--anchor-proof FILE --checkpoint ROOT`: the body's `anchor` member, and its file. */
export interface AnchorInput {
  file: string;
  checkpoint: string;
  proof: string;
}

/** What `verify receipt-proof` binds the proof to: a hash the user trusts, or an anchor proof; and how it prints. */
export interface ClaimOptions {
  blockHash: string | undefined;
  anchor?: AnchorInput | undefined;
  pretty: boolean;
}

/** Why a proof does not hold, naming the proof node at fault when one is (the library's message mostly does). */
function doesNotHold({ reason, node, message }: ReceiptProofResult): string {
  const named = node === null || message!.includes(`node ${node}`) ? '' : `, proof node ${node}`;
  return `the proof does not hold (${reason}${named}): ${message}`;
}

/**
 * The body with what binds it: `expected_block_hash` (--block-hash) or `anchor` (--anchor-proof, --checkpoint); a
 * document's own expected_block_hash is the same hash by then (refuseSecondTrust).
 */
function bind(body: unknown, options: ClaimOptions): unknown {
  if (!isObject(body)) return body;
  if (options.blockHash !== undefined) return { ...body, expected_block_hash: options.blockHash };
  if (options.anchor !== undefined)
    return { ...body, anchor: { checkpoint: options.anchor.checkpoint, proof: options.anchor.proof } };
  return body;
}

/**
 * A document's own `expected_block_hash` beside a flag that says which block hash to trust: never dropped. The same
 * --block-hash drops nothing; another, or --anchor-proof (which proves the block it proves, not that hash), would
 * replace it, so the pair is refused naming both.
 */
function refuseSecondTrust(body: unknown, file: string | undefined, options: ClaimOptions): void {
  if (!isObject(body) || !receiptProofGives(body, 'expected_block_hash')) return;
  const own = body['expected_block_hash'];
  const flag =
    options.blockHash !== undefined
      ? `--block-hash ${options.blockHash}`
      : options.anchor !== undefined
        ? '--anchor-proof'
        : undefined;
  if (flag === undefined) return;
  if (typeof own === 'string' && `0x${own.replace(/^0[xX]/, '').toLowerCase()}` === options.blockHash) return;
  throw new InputError(
    `${inputName(file)}: the document's expected_block_hash (${typeof own === 'string' ? own : JSON.stringify(own)}) and ${flag} both say which block hash to trust: give one (remove expected_block_hash from the document, or the flag)`,
  );
}

/** The line of a refused body: the anchor proof's file when the problem is the anchor's, else the proof's file. */
function refusalLine(
  file: string | undefined,
  status: number,
  error: { message: string; details: unknown },
  anchor?: AnchorInput,
): string {
  const invalid = (error.details as { invalid_parameters?: Problem[] } | null)?.invalid_parameters;
  const anchorProblem = invalid?.find((problem) => problem.name.startsWith('anchor.'));
  if (anchor !== undefined && anchorProblem !== undefined)
    return `${inputName(anchor.file)}: not an anchor proof: ${anchorProblem.expected.replace(/^an anchor proof file \((.*)\)$/s, '$1')}`;
  if (status === 400 && invalid !== undefined)
    return notALine(file, 'a receipt proof', { kind: 'invalid', problems: invalid, count: invalid.length });
  return `${inputName(anchor !== undefined && /anchor proof/.test(error.message) ? anchor.file : file)}: ${withAddChainHint(error.message)}`;
}

/**
 * `verify receipt-proof P [--block-hash H | --anchor-proof F --checkpoint R]`: the receipt a proof holds on stdout
 * (JSON-RPC's conventions), or one line on stderr saying why the proof does not hold (naming the node), is not a
 * proof (naming the member) or cannot be verified. --block-hash binds the proof to a hash the user trusts, as the
 * endpoint's expected_block_hash does; --anchor-proof to the hashes an anchor proof proves from a checkpoint, as its
 * `anchor` does, and stderr then says the block is authentic, naming the checkpoint.
 */
function runVerifyReceiptProof(
  body: unknown,
  file: string | undefined,
  context: OperationContext & { registry: ChainRegistry },
  options: ClaimOptions,
  io: CliIo,
): number {
  // What to trust comes from whoever checks, never from the proof: a document that names its own anchor could make
  // any forged block authentic. The endpoint's reading decides what names one ("anchor": null does not).
  if (receiptProofGives(body, 'anchor'))
    throw new InputError(
      `${inputName(file)}: the receipt proof carries an anchor member: the checkpoint and its anchor proof must be yours (--anchor-proof FILE --checkpoint ROOT), not the proof's`,
    );
  refuseSecondTrust(body, file, options);
  const result = verifyReceiptProofOperation(bind(body, options), context);
  if (result.status !== 200) {
    const { error } = result.body as { error: { message: string; details: unknown } };
    io.stderr(`evm-integrity: ${refusalLine(file, result.status, error, options.anchor)}\n`);
    return EXIT[result.verdict];
  }
  const proven = (result.body as { data: [ReceiptProofResult] }).data[0];
  if (proven.receipt !== null) io.stdout(`${JSON.stringify(proven.receipt, null, options.pretty ? 2 : undefined)}\n`);
  else io.stderr(`evm-integrity: ${inputName(file)}: ${doesNotHold(proven)}\n`);
  if (proven.anchoring !== null) io.stderr(`evm-integrity: ${authenticLine(proven.anchoring, proven.block_hash)}\n`);
  else if (proven.receipt !== null && proven.block_hash_held_to === null)
    io.stderr(`evm-integrity: ${unboundLine(proven)}\n`);
  return EXIT[result.verdict];
}

/**
 * What a proof that holds bound to no hash shows, as audit-logs says of headers that are a node's word: the receipt is
 * in the block whose hash the proof states, which may be anyone's block.
 */
function unboundLine({ block_hash: hash, block_number: number }: ReceiptProofResult): string {
  return `consistent: the proof holds under the block hash it states (0x${hash}, block ${number}), with no --block-hash or --anchor-proof: this shows the receipt is in that block, not that the block is the chain's; give --block-hash, the hash of block ${number} from a source you trust, or --anchor-proof`;
}

/**
 * Verifies the claim `what` of the body `body()` reads (FILE, or standard input) and prints the
 * answer; returns the exit status.
 * @example runVerifyClaim('receipt-root', body, 'body.json', context, { blockHash: undefined, pretty: false }, io) // 0
 */
export function runVerifyClaim(
  what: 'receipt-root' | 'logs-bloom' | 'receipt-proof',
  body: () => unknown,
  file: string | undefined,
  context: OperationContext & { registry: ChainRegistry },
  options: ClaimOptions,
  io: CliIo,
): number {
  if (what === 'receipt-proof') return runVerifyReceiptProof(body(), file, context, options, io);
  const result: OperationResult =
    what === 'receipt-root' ? verifyReceiptRootOperation(body(), context) : verifyLogsBloomOperation(body(), context);
  io.stdout(`${JSON.stringify(result.body, null, options.pretty ? 2 : undefined)}\n`);
  return EXIT[result.verdict];
}
