/**
 * `verify receipt-root|logs-bloom|receipt-proof FILE`: one claim of a body checked, the answer the
 * endpoint would give printed. Apart from verify.ts so that `verify block` does not load the
 * request schemas and the proof code these need.
 */
import {
  isObject,
  type OperationContext,
  type OperationResult,
  type ReceiptProofResult,
  verifyLogsBloomOperation,
  verifyReceiptProofOperation,
  verifyReceiptRootOperation,
} from 'evm-integrity/api';
import type { ChainRegistry, Problem } from 'evm-integrity';
import { inputName } from '../io/read-input.js';
import type { CliIo } from '../io/streams.js';
import { notALine } from '../io/json-input.js';
import { VERDICT_EXIT as EXIT } from '../exit.js';
import { withAddChainHint } from '../chain-flag.js';

/** Why a proof does not hold, naming the proof node at fault when one is (the library's message mostly does). */
function doesNotHold({ reason, node, message }: ReceiptProofResult): string {
  const named = node === null || message!.includes(`node ${node}`) ? '' : `, proof node ${node}`;
  return `the proof does not hold (${reason}${named}): ${message}`;
}

/**
 * `verify receipt-proof P [--block-hash H]`: the receipt a proof holds on stdout (JSON-RPC's
 * conventions), or one line on stderr saying why the proof does not hold (naming the node), is not
 * a proof (naming the member) or cannot be verified. --block-hash binds the proof to a hash the
 * user trusts, as the endpoint's expected_block_hash does.
 */
function runVerifyReceiptProof(
  body: unknown,
  file: string | undefined,
  context: OperationContext & { registry: ChainRegistry },
  options: { blockHash: string | undefined; pretty: boolean },
  io: CliIo,
): number {
  const bound =
    options.blockHash !== undefined && isObject(body) ? { ...body, expected_block_hash: options.blockHash } : body;
  const result = verifyReceiptProofOperation(bound, context);
  if (result.status !== 200) {
    const { error } = result.body as { error: { message: string; details: unknown } };
    const invalid = (error.details as { invalid_parameters?: Problem[] } | null)?.invalid_parameters;
    const line =
      result.status === 400 && invalid !== undefined
        ? notALine(file, 'a receipt proof', { kind: 'invalid', problems: invalid, count: invalid.length })
        : `${inputName(file)}: ${withAddChainHint(error.message)}`;
    io.stderr(`evm-integrity: ${line}\n`);
    return EXIT[result.verdict];
  }
  const proven = (result.body as { data: [ReceiptProofResult] }).data[0];
  if (proven.receipt !== null) io.stdout(`${JSON.stringify(proven.receipt, null, options.pretty ? 2 : undefined)}\n`);
  else io.stderr(`evm-integrity: ${inputName(file)}: ${doesNotHold(proven)}\n`);
  return EXIT[result.verdict];
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
  options: { blockHash: string | undefined; pretty: boolean },
  io: CliIo,
): number {
  if (what === 'receipt-proof') return runVerifyReceiptProof(body(), file, context, options, io);
  const result: OperationResult =
    what === 'receipt-root' ? verifyReceiptRootOperation(body(), context) : verifyLogsBloomOperation(body(), context);
  io.stdout(`${JSON.stringify(result.body, null, options.pretty ? 2 : undefined)}\n`);
  return EXIT[result.verdict];
}
