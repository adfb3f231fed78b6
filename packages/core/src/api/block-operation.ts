import { err, type Result } from '../result.js';
import { tapeBlock } from '../input/json-rpc/tape-block.js';
import type { Problem } from '../input/values/problems.js';
import {
  verifyBlock,
  verifyBlockStreamed,
  type BlockRefusal,
  type BlockReport,
  type BlockVerifyContext,
} from '../verify/verify-block.js';
import { chainNotSupported } from './chain-not-supported.js';
import { badRequest, type OperationContext, type OperationResult } from './envelope.js';
import { scanJson } from '../json/scan/json-tape.js';
import { bomless, decodeBodyText, overBudget, parseJsonText } from './json-body.js';

/**
 * `verify block` as an operation: the core's report as the body of a 200, or its refusal as the
 * error envelope (400 for invalid input, 422 for a chain or era that cannot be verified).
 */
export function verifyBlockOperation(
  input: unknown,
  context: BlockVerifyContext & OperationContext = {},
): OperationResult {
  return blockAnswer(verifyBlock(input, context), context);
}

/** A block's verification as the operation answers it, wherever it was computed (inline or on a worker). */
export function blockAnswer(result: Result<BlockReport, BlockRefusal>, context: OperationContext): OperationResult {
  if (result.ok) return { status: 200, verdict: result.value.verdict, body: result.value };
  const refusal = result.error;
  if (refusal.kind === 'invalid')
    return { status: 400, verdict: 'invalid', body: badRequest(refusal.problems, refusal.count, context) };
  return chainNotSupported(refusal.subject, context, { unknownChainHint: refusal.hint });
}

/**
 * A block's JSON bytes verified: bytes that are not UTF-8 JSON are refused as invalid input, with
 * the body's one problem, as the endpoints refuse them (`decodeJsonBody`). For a block that arrives
 * as bytes (a file, a worker's job), parsed where it is verified.
 */
export function verifyBlockBytes(
  bytes: Uint8Array,
  context: BlockVerifyContext = {},
): Result<BlockReport, BlockRefusal> {
  const text = decodeBodyText(bytes);
  return text.ok ? verifyBlockText(text.value, context) : refused(text.error);
}

/**
 * A block's JSON text verified, as `verifyBlock(parseJsonBody(text))` would verify it, with the same refusals of text
 * that is not JSON (`parseJsonBody`). Faster on a large block: one the JSON scanner reads (json/scan/) is verified off
 * its tape, its logs' hex decoded there (input/json-rpc/tape-block.ts), and parsed only where that way cannot take it.
 * @example
 * const result = verifyBlockText(readFileSync('block.json', 'utf8'))
 * if (result.ok) result.value.verdict // 'identical' | 'different' | 'not_verifiable'
 */
export function verifyBlockText(text: string, context: BlockVerifyContext = {}): Result<BlockReport, BlockRefusal> {
  return verifyBlockTextFrom(text, context, TAPE_FROM);
}

/**
 * The text length from which {@link verifyBlockText} reads a block off the scanner's tape. Below it, JSON.parse is as
 * quick, and the scanner's first use in a process (compiling it, about a millisecond) would cost a command that
 * verifies one small block more than it saves.
 */
const TAPE_FROM = 64 * 1024;

/** {@link verifyBlockText}, a text read off the tape from `tapeFrom` characters (0 for every text: the tests). */
export function verifyBlockTextFrom(
  text: string,
  context: BlockVerifyContext,
  tapeFrom: number,
): Result<BlockReport, BlockRefusal> {
  const json = bomless(text);
  if (!json.ok) return refused(json.error);
  // Scanned before the body's budget is asked: the scanner counts its marks as it reads (json-body.ts' MarkCounts), and
  // reads any text in one linear pass, refusing nesting past its depth.
  const tape = json.value.length < tapeFrom ? undefined : scanJson(json.value);
  const over = overBudget(json.value, tape?.marks);
  if (over !== undefined) return refused(over);
  const block = tape === undefined ? undefined : tapeBlock(tape);
  const streamed = block === undefined ? undefined : verifyBlockStreamed(block, context);
  if (streamed !== undefined) return streamed;
  const parsed = parseJsonText(json.value);
  return parsed.ok ? verifyBlock(parsed.value, context) : refused(parsed.error);
}

/** The refusal of a body that is not a block's JSON, for its one problem. */
const refused = (problem: Problem): Result<BlockReport, BlockRefusal> =>
  err({ kind: 'invalid', problems: [problem], count: 1 });
