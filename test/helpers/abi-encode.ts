/**
 * The ABI encoder of the functions whose results the lineage checks decode: test data only. It is
 * written apart from the decoder (src/lineage/abi.ts) so that round trips test one against the other.
 */
import { parseHex } from '../../packages/core/src/bytes/hex.js';
import { isKnownFunction, KNOWN_FUNCTIONS, type KnownFunction } from '../../packages/core/src/lineage/abi.js';
import { show } from '../../packages/core/src/json/show.js';

const WORD = 32;
const utf8 = new TextEncoder();

/** How each function's return data is laid out. */
const KIND: Record<KnownFunction, 'reserves' | 'address' | 'uint8' | 'uint256' | 'string'> = {
  getReserves: 'reserves',
  token0: 'address',
  token1: 'address',
  name: 'string',
  symbol: 'string',
  decimals: 'uint8',
  totalSupply: 'uint256',
  balanceOf: 'uint256',
};

type Uint = bigint | number | string;
/** What {@link encodeFunctionOutput} takes: the decoded form, a bare value, or bigints. */
export interface EncodeInputs {
  getReserves: { reserve0: Uint; reserve1: Uint; block_timestamp_last: Uint };
  token0: { address: string } | string;
  token1: { address: string } | string;
  name: { value: string } | string;
  symbol: { value: string } | string;
  decimals: { value: Uint } | Uint;
  totalSupply: { value: Uint } | Uint;
  balanceOf: { value: Uint } | Uint;
}

function toUint(v: unknown, bits: number, what: string): bigint {
  const n =
    typeof v === 'bigint'
      ? v
      : typeof v === 'number' && Number.isSafeInteger(v)
        ? BigInt(v)
        : typeof v === 'string' && /^[0-9]+$/.test(v)
          ? BigInt(v)
          : null;
  if (n === null || n < 0n || n >> BigInt(bits) !== 0n)
    throw new RangeError(`${what}: expected a uint${bits}, got ${show(v)}`);
  return n;
}
const uintBytes = (n: bigint): Uint8Array => parseHex(n.toString(16).padStart(64, '0'))!;

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((s, p) => s + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/**
 * ABI-encodes the return data of a known function (strings in the dynamic `string` form, or the
 * legacy `bytes32` form with `{ bytes32: true }`). Throws a RangeError for a value the type cannot
 * hold, including a string that is not well-formed Unicode or does not fit bytes32.
 * @example
 * bytesToHex(encodeFunctionOutput('symbol', 'MKR', { bytes32: true })) // '4d4b52' + '00'.repeat(29)
 * encodeFunctionOutput('getReserves', { reserve0: 1n, reserve1: 2n, block_timestamp_last: 3 }) // 96 bytes
 */
export function encodeFunctionOutput<N extends KnownFunction>(
  name: N,
  value: EncodeInputs[N],
  options?: { bytes32?: boolean },
): Uint8Array;
/** A name only known at run time (a fixture table): an unknown one throws a RangeError. */
export function encodeFunctionOutput(name: string, value: unknown, options?: { bytes32?: boolean }): Uint8Array;
export function encodeFunctionOutput(name: string, value: unknown, options: { bytes32?: boolean } = {}): Uint8Array {
  if (!isKnownFunction(name)) throw new RangeError(`unknown function ${JSON.stringify(name)}`);
  const kind = KIND[name];
  if (options.bytes32 && kind !== 'string')
    throw new RangeError(`bytes32 applies to string returns only, not ${KNOWN_FUNCTIONS[name].signature}`);
  const v: unknown = value;
  const member = (key: string): unknown =>
    typeof v === 'object' && v !== null && typeof v !== 'bigint' ? (v as Record<string, unknown>)[key] : v;
  switch (kind) {
    case 'reserves':
      return concat([
        uintBytes(toUint(member('reserve0'), 112, 'reserve0')),
        uintBytes(toUint(member('reserve1'), 112, 'reserve1')),
        uintBytes(toUint(member('block_timestamp_last'), 32, 'block_timestamp_last')),
      ]);
    case 'address': {
      const a = member('address');
      const bytes = typeof a === 'string' ? parseHex(a) : null;
      if (bytes === null || bytes.length !== 20) throw new RangeError(`address: expected 20-byte hex, got ${show(a)}`);
      return concat([new Uint8Array(12), bytes]);
    }
    case 'uint8':
      return uintBytes(toUint(member('value'), 8, 'value'));
    case 'uint256':
      return uintBytes(toUint(member('value'), 256, 'value'));
    case 'string': {
      const s = member('value');
      // TextEncoder would silently turn a lone surrogate into U+FFFD: refuse instead.
      if (typeof s !== 'string' || /\p{Cs}/u.test(s))
        throw new RangeError(`value: expected a well-formed string, got ${show(s)}`);
      const bytes = utf8.encode(s);
      if (options.bytes32) {
        if (bytes.length > WORD || bytes.includes(0))
          throw new RangeError(`value: ${show(s)} does not fit bytes32 (at most 32 UTF-8 bytes, no NUL)`);
        return concat([bytes, new Uint8Array(WORD - bytes.length)]);
      }
      const padded = Math.ceil(bytes.length / WORD) * WORD;
      return concat([uintBytes(32n), uintBytes(BigInt(bytes.length)), bytes, new Uint8Array(padded - bytes.length)]);
    }
  }
}
