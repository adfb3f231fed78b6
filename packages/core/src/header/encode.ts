import { encode } from '@ethereumjs/rlp';
import { quantityBytes } from '../bytes/rlp-writer.js';
import { InvalidHeaderError } from '../errors.js';
import { defaultKeccak256, type HashOptions } from '../keccak/keccak.js';
import { FIXED_SIZES, HEADER_FIELDS, type BlockHeader } from './fields.js';

/**
 * RLP of a block header. Fork fields are taken while present; a fork field after
 * a missing one is an error, since no fork has such a header.
 *
 * @throws InvalidHeaderError for a gap in the fork fields or a wrong-size field.
 */
export function encodeHeader(header: BlockHeader): Uint8Array {
  const items: Uint8Array[] = [];
  let gapAt: string | undefined;
  for (const field of HEADER_FIELDS) {
    const value = header[field.name];
    if (value === undefined) {
      if (field.fork === undefined) {
        throw new InvalidHeaderError(`Header field ${field.name} is missing.`, { field: field.name, expected: field.kind });
      }
      gapAt ??= field.name;
      continue;
    }
    if (gapAt !== undefined) {
      throw new InvalidHeaderError(`Header field ${field.name} (${field.fork}) is present but ${gapAt} is not.`, {
        field: gapAt,
        expected: `present, since ${field.name} is`,
      });
    }
    if (typeof value === 'bigint') {
      items.push(quantityBytes(value));
    } else {
      const size = field.kind === 'quantity' || field.kind === 'bytes' ? undefined : FIXED_SIZES[field.kind];
      if (size !== undefined && value.length !== size) {
        throw new InvalidHeaderError(`Header field ${field.name} must be ${size} bytes, got ${value.length}.`, {
          field: field.name,
          expected: `${size} bytes`,
        });
      }
      items.push(value);
    }
  }
  return encode(items);
}

/**
 * Block hash: keccak of the header's RLP.
 * @example bytesToHex(headerHash(genesisHeader)) // 'd4e56740f876aef8c010b86a40d5f56745a118d0906a34e69aec8c0db1cb8fa3'
 */
export function headerHash(header: BlockHeader, options: HashOptions = {}): Uint8Array {
  return (options.keccak ?? defaultKeccak256)(encodeHeader(header));
}
