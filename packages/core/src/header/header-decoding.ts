import { decode, type NestedUint8Array } from '@ethereumjs/rlp';
import { readRlp, rlpItem } from '../bytes/rlp-reader.js';
import { InvalidHeaderError } from '../errors.js';
import { FIXED_SIZES, type BlockHeader } from './header-fields.js';
import { ETHEREUM_HEADER, type HeaderLayout } from './layouts.js';

function toQuantity(bytes: Uint8Array, name: string): bigint {
  if (bytes.length > 0 && bytes[0] === 0) {
    throw new InvalidHeaderError(`Header field ${name} has a leading zero byte.`, {
      field: name,
      expected: 'canonical integer',
    });
  }
  let value = 0n;
  for (const byte of bytes) value = (value << 8n) | BigInt(byte);
  return value;
}

/** A header's RLP decoded once, to read its number and then its fields in the layout the number picks. */
export type HeaderItems = Array<Uint8Array | NestedUint8Array>;

/**
 * The items of a header's RLP list.
 * @throws InvalidHeaderError when the bytes are not an RLP list.
 */
export function decodeHeaderItems(rlp: Uint8Array): HeaderItems {
  let decoded: Uint8Array | NestedUint8Array;
  try {
    // The in-place reader first: it bounds how deep lists nest, where decode recurses until the stack overflows.
    readRlp(rlp, rlpItem());
    decoded = decode(rlp);
  } catch (error) {
    throw new InvalidHeaderError(`Header RLP does not decode: ${(error as Error).message}`, {
      field: 'header',
      expected: 'RLP list',
    });
  }
  if (!Array.isArray(decoded))
    throw new InvalidHeaderError('Header RLP is a string, not a list.', { field: 'header', expected: 'RLP list' });
  return decoded;
}

/**
 * Decodes a header's RLP in its layout (Ethereum's by default: any fork, Frontier to Prague).
 * @throws InvalidHeaderError when the bytes are not a header.
 */
export function decodeHeader(rlp: Uint8Array, layout: HeaderLayout = ETHEREUM_HEADER): BlockHeader {
  return headerFromItems(decodeHeaderItems(rlp), layout);
}

/**
 * A header's fields from its decoded items, in its layout.
 * @throws InvalidHeaderError when the items are not a header of the layout.
 */
export function headerFromItems(decoded: HeaderItems, layout: HeaderLayout): BlockHeader {
  const { required, fields } = layout;
  if (decoded.length < required || decoded.length > fields.length) {
    throw new InvalidHeaderError(`A header has ${required} to ${fields.length} fields, got ${decoded.length}.`, {
      field: 'header',
      expected: `${required}-${fields.length} fields`,
    });
  }
  const header: Record<string, Uint8Array | bigint> = {};
  decoded.forEach((item, i) => {
    const field = fields[i]!;
    if (!(item instanceof Uint8Array)) {
      throw new InvalidHeaderError(`Header field ${field.name} is a list.`, {
        field: field.name,
        expected: field.kind,
      });
    }
    if (field.kind === 'quantity') {
      header[field.name] = toQuantity(item, field.name);
      return;
    }
    const size = field.kind === 'bytes' ? undefined : FIXED_SIZES[field.kind];
    if (size !== undefined && item.length !== size) {
      throw new InvalidHeaderError(`Header field ${field.name} must be ${size} bytes, got ${item.length}.`, {
        field: field.name,
        expected: `${size} bytes`,
      });
    }
    header[field.name] = item;
  });
  return header as unknown as BlockHeader;
}

/**
 * The block number of a header's RLP, at position 8 in every layout, to find the era whose layout
 * decodes the rest.
 * @throws InvalidHeaderError when the bytes are not a header.
 */
export function headerNumber(rlp: Uint8Array): bigint {
  return headerItemsNumber(decodeHeaderItems(rlp));
}

/**
 * The block number of a header's decoded items (position 8 in every layout).
 * @throws InvalidHeaderError when there is none.
 */
export function headerItemsNumber(decoded: HeaderItems): bigint {
  const item = decoded[8];
  if (!(item instanceof Uint8Array))
    throw new InvalidHeaderError('Header RLP has no block number at position 8.', {
      field: 'number',
      expected: 'quantity',
    });
  return toQuantity(item, 'number');
}

/**
 * The block number of a header's RLP, or undefined when the bytes are no header (decoding them
 * then says what is wrong): to find the era before the full check.
 */
export function headerNumberIfAny(rlp: Uint8Array): bigint | undefined {
  try {
    return headerNumber(rlp);
  } catch (error) {
    if (error instanceof InvalidHeaderError) return undefined;
    throw error;
  }
}
