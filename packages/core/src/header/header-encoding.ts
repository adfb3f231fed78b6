import { encode } from '@ethereumjs/rlp';
import { quantityBytes } from '../bytes/rlp-writer.js';
import { InvalidHeaderError } from '../errors.js';
import { defaultKeccak256, type HashOptions } from '../keccak/keccak.js';
import { FIXED_SIZES, type BlockHeader } from './header-fields.js';
import { ETHEREUM_HEADER, headerShape, type HeaderLayout } from './layouts.js';

/**
 * RLP of a block header in its layout (Ethereum's by default). Fork fields are taken while
 * present; a fork field after a missing one is an error, since no fork has such a header, and so is one of Ethereum's
 * that the layout does not hash (an AuRa header's `withdrawalsRoot`), which the hash would leave uncovered.
 *
 * @throws InvalidHeaderError for a missing field, a field the layout does not hash, a gap in the fork fields or a
 * wrong-size field.
 */
export function encodeHeader(header: BlockHeader, layout: HeaderLayout = ETHEREUM_HEADER): Uint8Array {
  const shape = headerShape(header as unknown as Record<string, unknown>, layout);
  if (shape.missing.length > 0) {
    const field = shape.missing[0]!;
    throw new InvalidHeaderError(`Header field ${field} is missing.`, {
      field,
      expected: layout.fields.find((f) => f.name === field)!.kind,
    });
  }
  const [unhashed] = shape.unhashed;
  if (unhashed !== undefined)
    throw new InvalidHeaderError(`Header field ${unhashed.field} is present, but ${unhashed.why}.`, {
      field: unhashed.field,
      expected: 'absent',
    });
  if (shape.gap !== undefined) {
    const { field, presentAfter } = shape.gap;
    throw new InvalidHeaderError(`Header field ${presentAfter} is present but ${field} is not.`, {
      field,
      expected: `present, since ${presentAfter} is`,
    });
  }
  const items: Uint8Array[] = [];
  for (const field of layout.fields) {
    const value = header[field.name];
    if (value === undefined) break;
    if (typeof value === 'bigint') {
      items.push(quantityBytes(value));
      continue;
    }
    const size = field.kind === 'quantity' || field.kind === 'bytes' ? undefined : FIXED_SIZES[field.kind];
    if (size !== undefined && value.length !== size) {
      throw new InvalidHeaderError(`Header field ${field.name} must be ${size} bytes, got ${value.length}.`, {
        field: field.name,
        expected: `${size} bytes`,
      });
    }
    items.push(value);
  }
  return encode(items);
}

/**
 * Block hash: keccak of the header's RLP in its layout.
 * @example bytesToHex(headerHash(genesisHeader)) // 'd4e56740f876aef8c010b86a40d5f56745a118d0906a34e69aec8c0db1cb8fa3'
 */
export function headerHash(header: BlockHeader, options: HashOptions & { layout?: HeaderLayout } = {}): Uint8Array {
  return (options.keccak ?? defaultKeccak256)(encodeHeader(header, options.layout));
}
