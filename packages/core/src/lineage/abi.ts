/**
 * A small, strict ABI codec for the return data of the few functions whose results the data
 * service publishes as genesis artifacts (spec "Genesis artifacts": `function_results[]`), and
 * the check that each result is self-consistent: its selector is its function's and its
 * `decoded_output` is what its `output` decodes to.
 *
 * Strict on purpose: an auditor's decoder must never guess. Anything a Solidity or Vyper
 * contract would not have returned (dirty high bits, a wrong length, an offset other than the
 * canonical one, nonzero padding, invalid UTF-8) is a decode failure with a reason.
 */
import { bytesToHex, parseHex } from '../bytes/hex.js';
import { defaultKeccak256 } from '../keccak/keccak.js';
import type { CheckStatus } from './lineage-report.js';
import { isObject } from '../input/values/json-values.js';
import { exactInteger } from './sources/integers.js';
import { err, ok, type Result } from '../result.js';
import { show } from '../json/show.js';

// One definition of the status for the whole lineage report (report.ts); re-exported for callers of this module.
export type { CheckStatus } from './lineage-report.js';

/** What each known function's output decodes to (the service's `decoded_output` members). */
export interface DecodedOutputs {
  getReserves: { reserve0: string; reserve1: string; block_timestamp_last: number };
  token0: { address: string };
  token1: { address: string };
  name: { value: string };
  symbol: { value: string };
  decimals: { value: number };
  totalSupply: { value: string };
  balanceOf: { value: string };
}
export type KnownFunction = keyof DecodedOutputs;
export type DecodedOutput = DecodedOutputs[KnownFunction];
/** A decoded output, or the reason the bytes are not one. */
export type DecodeResult = Result<DecodedOutput, string>;

type Kind = 'reserves' | 'address' | 'string' | 'uint8' | 'uint256';
const TABLE: Record<KnownFunction, { signature: string; returns: string; kind: Kind }> = {
  getReserves: { signature: 'getReserves()', returns: '(uint112,uint112,uint32)', kind: 'reserves' },
  token0: { signature: 'token0()', returns: 'address', kind: 'address' },
  token1: { signature: 'token1()', returns: 'address', kind: 'address' },
  name: { signature: 'name()', returns: 'string', kind: 'string' },
  symbol: { signature: 'symbol()', returns: 'string', kind: 'string' },
  decimals: { signature: 'decimals()', returns: 'uint8', kind: 'uint8' },
  totalSupply: { signature: 'totalSupply()', returns: 'uint256', kind: 'uint256' },
  balanceOf: { signature: 'balanceOf(address)', returns: 'uint256', kind: 'uint256' },
};

const utf8 = new TextEncoder();
/**
 * The known functions: signature, return type and selector (lowercase hex, no `0x`). Selectors
 * are computed from the signatures at load, so a typo in a signature cannot hide behind a
 * hard-coded constant (the tests pin the well-known values).
 */
export const KNOWN_FUNCTIONS: Readonly<
  Record<KnownFunction, { signature: string; returns: string; selector: string }>
> = Object.freeze(
  Object.fromEntries(
    Object.entries(TABLE).map(([name, { signature, returns }]) => [
      name,
      Object.freeze({
        signature,
        returns,
        selector: bytesToHex(defaultKeccak256(utf8.encode(signature)).subarray(0, 4)),
      }),
    ]),
  ) as Record<KnownFunction, { signature: string; returns: string; selector: string }>,
);

/** Whether `name` is one we decode (own keys only: `constructor` or `__proto__` are not functions of ours). */
export function isKnownFunction(name: string): name is KnownFunction {
  return Object.hasOwn(TABLE, name);
}

// ---------------------------------------------------------------------------------------------
// Decoding

const WORD = 32;
const wordHex = (out: Uint8Array, i: number): string => bytesToHex(out.subarray(i * WORD, (i + 1) * WORD));
const wordValue = (out: Uint8Array, i: number): bigint => BigInt(`0x${wordHex(out, i)}`);

/** The output must be exactly `words` words: static return types have exactly one encoding length. */
function exactWords(out: Uint8Array, words: number, name: KnownFunction): string | null {
  const { signature, returns } = TABLE[name];
  return out.length === words * WORD
    ? null
    : `${signature} returns ${returns}: expected ${words * WORD} bytes, got ${out.length}`;
}

/** Word `i` as a uintN; high bits set means it is not a uintN (ABI coder v2 reverts on it too). */
function uintWord(out: Uint8Array, i: number, bits: number, what: string): Result<bigint, string> {
  const value = wordValue(out, i);
  return value >> BigInt(bits) === 0n
    ? ok(value)
    : err(`${what} (word ${i}) does not fit uint${bits}: 0x${wordHex(out, i)}`);
}

// `ignoreBOM` keeps a leading U+FEFF as part of the value instead of silently dropping it.
const utf8Strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
function decodeUtf8(bytes: Uint8Array, what: string): Result<string, string> {
  try {
    return ok(utf8Strict.decode(bytes));
  } catch {
    return err(`${what} is not valid UTF-8: 0x${bytesToHex(bytes.subarray(0, 64))}${bytes.length > 64 ? '…' : ''}`);
  }
}

/**
 * A returned string in either form tokens use: 32 bytes is the legacy `bytes32` (MKR, SAI:
 * zero-padded UTF-8), anything else must be the canonical dynamic `string` encoding
 * (offset 32, length, bytes, zero padding to a word, nothing after).
 */
function decodeString(out: Uint8Array): Result<string, string> {
  if (out.length === WORD) {
    const end = out.indexOf(0);
    const n = end === -1 ? WORD : end;
    if (out.subarray(n).some((b) => b !== 0))
      return err(`bytes32 string has nonzero bytes after its terminating zero (byte ${n}): 0x${bytesToHex(out)}`);
    return decodeUtf8(out.subarray(0, n), 'bytes32 string');
  }
  if (out.length < 2 * WORD)
    return err(`string: expected 32 bytes (legacy bytes32) or at least 64 (offset, length), got ${out.length}`);
  const offset = wordValue(out, 0);
  if (offset !== 32n) {
    return err(
      offset > BigInt(out.length - WORD)
        ? `string offset ${offset} points outside the ${out.length}-byte output`
        : `string offset ${offset} is not 32, the offset of a single returned string`,
    );
  }
  const length = wordValue(out, 1);
  const room = out.length - 2 * WORD;
  if (length > BigInt(room))
    return err(`string length ${length} runs past the end of the output (${room} bytes after the length word)`);
  const n = Number(length);
  const padded = Math.ceil(n / WORD) * WORD;
  if (room !== padded)
    return err(
      `string of ${n} bytes: expected ${2 * WORD + padded} bytes of output, got ${out.length} (${room - padded} trailing bytes)`,
    );
  if (out.subarray(2 * WORD + n).some((b) => b !== 0)) return err(`string of ${n} bytes has nonzero padding`);
  return decodeUtf8(out.subarray(2 * WORD, 2 * WORD + n), 'string');
}

/**
 * Decodes the return data of a known function, strictly.
 * @returns `{ ok: true, value }` with the value in the service's `decoded_output` form, or
 *   `{ ok: false, error }` with the reason; never a best guess.
 * @example
 * decodeFunctionOutput('decimals', parseHex('00'.repeat(31) + '12')!) // { ok: true, value: { value: 18 } }
 */
export function decodeFunctionOutput(name: string, output: Uint8Array): DecodeResult {
  if (!isKnownFunction(name)) return err(`unknown function ${JSON.stringify(name)}`);
  const kind = TABLE[name].kind;
  const length = exactWords(output, kind === 'reserves' ? 3 : 1, name);
  switch (kind) {
    case 'reserves': {
      if (length !== null) return err(length);
      const r0 = uintWord(output, 0, 112, 'reserve0');
      if (!r0.ok) return r0;
      const r1 = uintWord(output, 1, 112, 'reserve1');
      if (!r1.ok) return r1;
      const ts = uintWord(output, 2, 32, 'blockTimestampLast');
      if (!ts.ok) return ts;
      return ok({
        reserve0: r0.value.toString(),
        reserve1: r1.value.toString(),
        block_timestamp_last: Number(ts.value),
      });
    }
    case 'address': {
      if (length !== null) return err(length);
      if (output.subarray(0, 12).some((b) => b !== 0))
        return err(`address word has nonzero high 12 bytes: 0x${wordHex(output, 0)}`);
      return ok({ address: bytesToHex(output.subarray(12)) });
    }
    case 'uint8': {
      if (length !== null) return err(length);
      const v = uintWord(output, 0, 8, 'value');
      return v.ok ? ok({ value: Number(v.value) }) : v;
    }
    case 'uint256':
      return length !== null ? err(length) : ok({ value: wordValue(output, 0).toString() });
    case 'string': {
      const s = decodeString(output);
      return s.ok ? ok({ value: s.value }) : s;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The check

export interface FunctionResultCheck {
  check: string;
  status: CheckStatus;
  reason: string;
  path: string;
}

const typeName = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v);

/** Null when `claimed` denotes `actual` exactly; else a reason naming `label` and both values. */
function compareInteger(label: string, claimed: unknown, actual: bigint, form: 'string' | 'number'): string | null {
  const shown = form === 'string' ? JSON.stringify(actual.toString()) : actual.toString();
  if (claimed === undefined) return `${label} is missing (output decodes to ${shown})`;
  const n = exactInteger(claimed);
  if (n === null) return `${label} is ${show(claimed)}, not an exact non-negative integer (output decodes to ${shown})`;
  return n === actual ? null : `${label} is ${show(claimed)} but output decodes to ${shown}`;
}

/** The members of getReserves()'s decoded output, as the service names them. */
const RESERVES_MEMBERS: readonly string[] = ['reserve0', 'reserve1', 'block_timestamp_last'];

/** First difference between the service's `decoded_output` and our decoding, or null. */
function compareDecoded(name: KnownFunction, claimed: unknown, actual: DecodedOutput): string | null {
  const kind = TABLE[name].kind;
  if (kind === 'reserves') {
    if (!isObject(claimed))
      return `decoded_output is ${typeName(claimed)}, expected an object with reserve0, reserve1, block_timestamp_last`;
    // A member beside the three would be a value the output does not hold: `equals` means nothing more, nothing less.
    const extra = Object.keys(claimed).find((member) => !RESERVES_MEMBERS.includes(member));
    if (extra !== undefined)
      return `decoded_output has a member ${show(extra)}, which getReserves() does not return (it returns ${RESERVES_MEMBERS.join(', ')})`;
    const a = actual as DecodedOutputs['getReserves'];
    return (
      compareInteger('decoded_output.reserve0', claimed.reserve0, BigInt(a.reserve0), 'string') ??
      compareInteger('decoded_output.reserve1', claimed.reserve1, BigInt(a.reserve1), 'string') ??
      compareInteger(
        'decoded_output.block_timestamp_last',
        claimed.block_timestamp_last,
        BigInt(a.block_timestamp_last),
        'number',
      )
    );
  }
  const one = oneValue(claimed);
  if (!one.ok) return one.error;
  const { label, value: c } = one.value;
  const expected =
    kind === 'address' ? (actual as { address: string }).address : (actual as { value: string | number }).value;
  if (kind === 'uint8') return compareInteger(label, c, BigInt(expected), 'number');
  if (kind === 'uint256') return compareInteger(label, c, BigInt(expected), 'string');
  if (c === undefined) return `${label} is missing (output decodes to ${show(expected)})`;
  if (kind === 'address') {
    const bytes = typeof c === 'string' ? parseHex(c) : null;
    if (bytes === null || bytes.length !== 20)
      return `${label} is ${show(c)}, not a 20-byte hex address (output decodes to ${show(expected)})`;
    return bytesToHex(bytes) === expected ? null : `${label} is ${show(c)} but output decodes to ${show(expected)}`;
  }
  return c === expected ? null : `${label} is ${show(c)} but output decodes to ${show(expected)}`;
}

/**
 * The value a one-value function's `decoded_output` holds, and how to name it in a reason. The
 * spec leaves the member's name open (seen: the function's name, `value`, the ABI's return
 * name such as `_name`), so an object must have exactly one member, whatever its name; some
 * producers write the bare value, which is taken as is.
 * @example
 * oneValue({ name: 'Wrapped Ether' }) // { ok: true, value: { value: 'Wrapped Ether', label: 'decoded_output.name' } }
 * oneValue({}) // { ok: false, error: 'decoded_output has no member, expected exactly one: the function returns one value' }
 */
export function oneValue(decoded: unknown): Result<{ value: unknown; label: string }, string> {
  if (!isObject(decoded)) return ok({ value: decoded, label: 'decoded_output' });
  const names = Object.keys(decoded);
  if (names.length === 1) return ok({ value: decoded[names[0]!], label: `decoded_output.${names[0]}` });
  const count =
    names.length === 0
      ? 'no member'
      : `${names.length} members (${names.slice(0, 4).join(', ')}${names.length > 4 ? ', …' : ''})`;
  return err(`decoded_output has ${count}, expected exactly one: the function returns one value`);
}

/** Reason the member is absent or of the wrong type, or null. */
function stringMember(entry: Record<string, unknown>, key: string): string | null {
  const v = entry[key];
  return v === undefined
    ? `${key} is missing`
    : typeof v === 'string'
      ? null
      : `${key} is ${typeName(v)}, expected a string`;
}

/** The member that keeps `value` from having a function result's shape (`contract`, `selector`, `decoded_name`, `output`, strings), or null. */
export function functionResultShapeProblem(value: unknown): string | null {
  if (!isObject(value)) return `it is ${typeName(value)}, expected an object`;
  for (const key of ['contract', 'selector', 'decoded_name', 'output']) {
    const problem = stringMember(value, key);
    if (problem !== null) return problem;
  }
  return null;
}

/**
 * The call a function result was read as: its `contract` (20-byte address) and `selector` (4 bytes), as hex in lower
 * case without `0x`; null when either cannot be read so (`function_result.selector` fails it). The known functions take
 * no arguments, and a result names no block: two results of one call are one artifact (`genesis.complete`).
 */
export function functionCallOf(value: unknown): { contract: string; selector: string } | null {
  if (!isObject(value) || typeof value.contract !== 'string' || typeof value.selector !== 'string') return null;
  const contract = parseHex(value.contract);
  const selector = parseHex(value.selector);
  if (contract?.length !== 20 || selector?.length !== 4) return null;
  return { contract: bytesToHex(contract), selector: bytesToHex(selector) };
}

/**
 * Checks one genesis function result (spec "Genesis artifacts") for self-consistency.
 * Two checks, always in this order:
 * - `function_result.selector`: `contract` is an address and `selector` is `decoded_name`'s.
 * - `function_result.decoded_output`: `decoded_output` equals `output` decoded by `decoded_name`'s
 *   return type (integers compared exactly, as bigints).
 * A function we do not know is `skipped` on both, never passed; a malformed entry fails, naming the member.
 * @example
 * checkFunctionResult({ contract: 'c02a…6cc2', selector: '313ce567', decoded_name: 'decimals',
 *   output: '00…12', decoded_output: { value: 18 } }, 'genesis.function_results[0]')
 * // [{ check: 'function_result.selector', status: 'pass', … }, { check: 'function_result.decoded_output', status: 'pass', … }]
 */
export function checkFunctionResult(result: unknown, path: string): FunctionResultCheck[] {
  const make =
    (check: string) =>
    (status: CheckStatus, reason: string): FunctionResultCheck => ({ check, status, reason, path });
  const selectorCheck = make('function_result.selector');
  const outputCheck = make('function_result.decoded_output');
  if (!isObject(result)) {
    const reason = `function result is ${typeName(result)}, expected an object`;
    return [selectorCheck('fail', reason), outputCheck('fail', reason)];
  }
  return [checkSelector(result, selectorCheck), checkOutput(result, outputCheck)];
}

type Make = (status: CheckStatus, reason: string) => FunctionResultCheck;

function checkSelector(entry: Record<string, unknown>, make: Make): FunctionResultCheck {
  const shape =
    stringMember(entry, 'contract') ?? stringMember(entry, 'selector') ?? stringMember(entry, 'decoded_name');
  if (shape !== null) return make('fail', shape);
  const contract = parseHex(entry.contract as string);
  if (contract === null || contract.length !== 20)
    return make('fail', `contract is ${show(entry.contract)}, expected a 20-byte hex address`);
  const selectorBytes = parseHex(entry.selector as string);
  if (selectorBytes === null || selectorBytes.length !== 4)
    return make('fail', `selector is ${show(entry.selector)}, expected 4-byte hex`);
  const name = entry.decoded_name as string;
  if (!isKnownFunction(name)) return make('skipped', `unknown function ${show(name)}: not decoded`);
  const selector = bytesToHex(selectorBytes);
  const { signature, selector: expected } = KNOWN_FUNCTIONS[name];
  if (selector === expected) return make('pass', `selector ${selector} is ${signature}`);
  const other = Object.values(KNOWN_FUNCTIONS).find((f) => f.selector === selector);
  return make(
    'fail',
    `selector ${selector} is not ${signature} (${expected})${other ? `: it is ${other.signature}` : ''}`,
  );
}

function checkOutput(entry: Record<string, unknown>, make: Make): FunctionResultCheck {
  const shape = stringMember(entry, 'decoded_name') ?? stringMember(entry, 'output');
  if (shape !== null) return make('fail', shape);
  const output = parseHex(entry.output as string);
  if (output === null)
    return make('fail', `output is ${show(entry.output)}, expected hex (an even number of hex digits)`);
  if (!('decoded_output' in entry) || entry.decoded_output === undefined)
    return make('fail', 'decoded_output is missing');
  const name = entry.decoded_name as string;
  if (!isKnownFunction(name)) return make('skipped', `unknown function ${show(name)}: not decoded`);
  const decoded = decodeFunctionOutput(name, output);
  if (!decoded.ok)
    return make(
      'fail',
      `output does not decode as ${TABLE[name].signature} returns ${TABLE[name].returns}: ${decoded.error}`,
    );
  const difference = compareDecoded(name, entry.decoded_output, decoded.value);
  if (difference !== null) return make('fail', difference);
  return make(
    'pass',
    `decoded_output equals output decoded as ${TABLE[name].signature} returns ${TABLE[name].returns}`,
  );
}
