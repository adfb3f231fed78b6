import { decode, type NestedUint8Array } from '@ethereumjs/rlp';
import { InvalidHeaderError } from '../errors.js';
import { FIXED_SIZES, FRONTIER_FIELD_COUNT, HEADER_FIELDS, type BlockHeader } from './fields.js';

function toQuantity(bytes: Uint8Array, name: string): bigint {
  if (bytes.length > 0 && bytes[0] === 0) {
    throw new InvalidHeaderError(`Header field ${name} has a leading zero byte.`, { field: name, expected: 'canonical integer' });
  }
  let value = 0n;
  for (const byte of bytes) value = (value << 8n) | BigInt(byte);
  return value;
}

/**
 * Decodes a header's RLP (any fork, Frontier to Prague).
 * @throws InvalidHeaderError when the bytes are not a header.
 */
export function decodeHeader(rlp: Uint8Array): BlockHeader {
  let decoded: Uint8Array | NestedUint8Array;
  try {
    decoded = decode(rlp);
  } catch (error) {
    throw new InvalidHeaderError(`Header RLP does not decode: ${(error as Error).message}`, { field: 'header', expected: 'RLP list' });
  }
  if (!Array.isArray(decoded)) {
    throw new InvalidHeaderError('Header RLP is a string, not a list.', { field: 'header', expected: 'RLP list' });
  }
  if (decoded.length < FRONTIER_FIELD_COUNT || decoded.length > HEADER_FIELDS.length) {
    throw new InvalidHeaderError(`A header has ${FRONTIER_FIELD_COUNT} to ${HEADER_FIELDS.length} fields, got ${decoded.length}.`, {
      field: 'header',
      expected: `${FRONTIER_FIELD_COUNT}-${HEADER_FIELDS.length} fields`,
    });
  }
  const header: Record<string, Uint8Array | bigint> = {};
  decoded.forEach((item, i) => {
    const field = HEADER_FIELDS[i]!;
    if (!(item instanceof Uint8Array)) {
      throw new InvalidHeaderError(`Header field ${field.name} is a list.`, { field: field.name, expected: field.kind });
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
