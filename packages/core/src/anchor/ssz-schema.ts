/**
 * SSZ types described as data, and the hash_tree_root of a value straight from its serialized bytes.
 * The anchor needs the roots of whole beacon blocks (to find a block's body root and the branch from it
 * to `execution_payload.block_hash`), whose bodies hold lists of lists; describing each container by
 * its fields and walking the bytes once is smaller and faster than decoding into objects first.
 * Only what beacon blocks use is here: unsigned integers, byte vectors and lists, bit lists and
 * vectors, vectors, lists and containers (consensus-specs `ssz/simple-serialize.md`).
 */
import { SszShapeError } from '../errors.js';
import { err, ok, type Result } from '../result.js';
import { parentOf, type Node } from './merkle-branch.js';
import { merkleize, mixInLength } from './ssz.js';

/** An SSZ type, as data. */
export type SszType =
  | { readonly kind: 'uint'; readonly bytes: 1 | 2 | 4 | 8 | 16 | 32 }
  | { readonly kind: 'bytes'; readonly length: number }
  | { readonly kind: 'byte-list'; readonly limit: number }
  | { readonly kind: 'bit-vector'; readonly length: number }
  | { readonly kind: 'bit-list'; readonly limit: number }
  | { readonly kind: 'vector'; readonly element: SszType; readonly length: number }
  | { readonly kind: 'list'; readonly element: SszType; readonly limit: number }
  | { readonly kind: 'container'; readonly fields: readonly (readonly [string, SszType])[] };

/** A container type from its fields in order. */
export const container = (...fields: (readonly [string, SszType])[]): SszType => ({ kind: 'container', fields });
/** `uintN`, N = 8 × `bytes`. */
export const uint = (bytes: 1 | 2 | 4 | 8 | 16 | 32): SszType => ({ kind: 'uint', bytes });
/** `ByteVector[length]` (`Bytes32`, `BLSSignature`, …). */
export const bytes = (length: number): SszType => ({ kind: 'bytes', length });
/** `ByteList[limit]`. */
export const byteList = (limit: number): SszType => ({ kind: 'byte-list', limit });
/** `Bitvector[length]`. */
export const bitVector = (length: number): SszType => ({ kind: 'bit-vector', length });
/** `Bitlist[limit]`. */
export const bitList = (limit: number): SszType => ({ kind: 'bit-list', limit });
/** `Vector[element, length]`. */
export const vector = (element: SszType, length: number): SszType => ({ kind: 'vector', element, length });
/** `List[element, limit]`. */
export const list = (element: SszType, limit: number): SszType => ({ kind: 'list', element, limit });

/** The serialized size of a fixed-size type, or `undefined` for a variable-size one. */
export function fixedSize(type: SszType): number | undefined {
  switch (type.kind) {
    case 'uint':
      return type.bytes;
    case 'bytes':
      return type.length;
    case 'bit-vector':
      return Math.ceil(type.length / 8);
    case 'vector': {
      const element = fixedSize(type.element);
      return element === undefined ? undefined : element * type.length;
    }
    case 'container': {
      let total = 0;
      for (const [, field] of type.fields) {
        const size = fixedSize(field);
        if (size === undefined) return undefined;
        total += size;
      }
      return total;
    }
    default:
      return undefined;
  }
}

const OFFSET_BYTES = 4;

function offsetAt(data: Uint8Array, at: number): number {
  return new DataView(data.buffer, data.byteOffset + at, OFFSET_BYTES).getUint32(0, true);
}

/** A field's size in a container's fixed part, or `'variable'` for one stored after it behind an offset. */
export type FieldSize = number | 'variable';

/**
 * The bytes of each field of a container laid out as `sizes`, or what was expected: fixed fields in place,
 * variable ones where their offsets say. Strict: the first offset is the end of the fixed part, each offset
 * rises and stays inside the bytes, and nothing follows a container without variable fields.
 */
export function splitContainer(bytes: Uint8Array, sizes: readonly FieldSize[]): Result<Uint8Array[], string> {
  const fixedSize = sizes.reduce<number>((sum, size) => sum + (size === 'variable' ? OFFSET_BYTES : size), 0);
  if (bytes.length < fixedSize) return err(`at least ${fixedSize} bytes, got ${bytes.length}`);
  const parts: Uint8Array[] = [];
  const variables: number[] = [];
  const offsets: number[] = [];
  let at = 0;
  for (const size of sizes) {
    if (size === 'variable') {
      variables.push(parts.length);
      offsets.push(offsetAt(bytes, at));
      parts.push(new Uint8Array(0));
      at += OFFSET_BYTES;
    } else {
      parts.push(bytes.subarray(at, at + size));
      at += size;
    }
  }
  if (offsets.length === 0)
    return bytes.length === fixedSize ? ok(parts) : err(`${fixedSize} bytes, got ${bytes.length}`);
  if (offsets[0] !== fixedSize)
    return err(`its first offset at ${fixedSize}, the end of its fixed part, not ${offsets[0]}`);
  for (let i = 0; i < offsets.length; i++) {
    const start = offsets[i]!;
    const end = i + 1 < offsets.length ? offsets[i + 1]! : bytes.length;
    if (end < start || end > bytes.length) return err(`offsets in order within its ${bytes.length} bytes`);
    parts[variables[i]!] = bytes.subarray(start, end);
  }
  return ok(parts);
}

/** The serialized parts of a container's fields ({@link splitContainer} by the fields' types). */
export function containerParts(type: SszType & { kind: 'container' }, data: Uint8Array): Uint8Array[] {
  const parts = splitContainer(
    data,
    type.fields.map(([, field]) => fixedSize(field) ?? 'variable'),
  );
  if (!parts.ok) throw new SszShapeError(`a container of ${type.fields.length} fields: expected ${parts.error}`);
  return parts.value;
}

/**
 * The serialized elements of a list or vector value of `type` (a payload's transactions, its withdrawals), each
 * checked to lie inside the bytes; a list longer than its limit is refused.
 */
export function listParts(type: SszType & { kind: 'list' | 'vector' }, data: Uint8Array): Uint8Array[] {
  const parts = elementParts(type.element, data, type.kind);
  if (type.kind === 'list' && parts.length > type.limit)
    throw new SszShapeError(`${parts.length} elements past the limit ${type.limit}`);
  return parts;
}

/** The serialized elements of a list or vector of `element`. */

/** The serialized elements of a list or vector of `element`. */
function elementParts(element: SszType, data: Uint8Array, what: string): Uint8Array[] {
  const size = fixedSize(element);
  if (size !== undefined) {
    if (data.length % size !== 0) throw new SszShapeError(`${what}: ${data.length} bytes are not whole elements`);
    return Array.from({ length: data.length / size }, (_, i) => data.subarray(i * size, (i + 1) * size));
  }
  if (data.length === 0) return [];
  const first = offsetAt(data, 0);
  if (first % OFFSET_BYTES !== 0 || first > data.length || first === 0)
    throw new SszShapeError(`${what}: a bad first offset`);
  const count = first / OFFSET_BYTES;
  const parts: Uint8Array[] = [];
  for (let i = 0; i < count; i++) {
    const start = offsetAt(data, i * OFFSET_BYTES);
    const end = i + 1 < count ? offsetAt(data, (i + 1) * OFFSET_BYTES) : data.length;
    if (end < start || end > data.length) throw new SszShapeError(`${what}: offset ${start} is out of order`);
    parts.push(data.subarray(start, end));
  }
  return parts;
}

/** Bytes cut into 32-byte chunks, the last padded with zeros. */
function chunksOf(data: Uint8Array): Node[] {
  const chunks: Node[] = [];
  for (let at = 0; at < data.length; at += 32) {
    const chunk = new Uint8Array(32);
    chunk.set(data.subarray(at, at + 32));
    chunks.push(chunk);
  }
  return chunks;
}

/** The depth of a tree holding `count` leaves (0 for one). */
function depthFor(count: number): number {
  return count <= 1 ? 0 : Math.ceil(Math.log2(count));
}

/** Whether the type packs several values in a chunk (basic types and their vectors and lists). */
function isBasic(type: SszType): boolean {
  return type.kind === 'uint';
}

/** The hash_tree_root of the value of `type` serialized as `data`. */
export function rootOf(type: SszType, data: Uint8Array): Node {
  switch (type.kind) {
    case 'uint':
    case 'bytes':
    case 'bit-vector': {
      const size = fixedSize(type)!;
      if (data.length !== size) throw new SszShapeError(`${data.length} bytes where ${size} were expected`);
      const chunks = chunksOf(data);
      return merkleize(chunks, depthFor(chunks.length));
    }
    case 'byte-list': {
      if (data.length > type.limit) throw new SszShapeError(`${data.length} bytes past the limit ${type.limit}`);
      return mixInLength(merkleize(chunksOf(data), depthFor(Math.ceil(type.limit / 32))), data.length);
    }
    case 'bit-list': {
      const last = data[data.length - 1];
      if (last === undefined || last === 0) throw new SszShapeError('a bit list without its end bit');
      const length = (data.length - 1) * 8 + (31 - Math.clz32(last));
      if (length > type.limit) throw new SszShapeError(`${length} bits past the limit ${type.limit}`);
      // A copy: a Node Buffer's slice() is a view, and clearing the end bit there would change the caller's bytes.
      const packed = new Uint8Array(data.subarray(0, Math.ceil(length / 8)));
      if (packed.length === data.length) packed[packed.length - 1] = last ^ (1 << (31 - Math.clz32(last)));
      return mixInLength(merkleize(chunksOf(packed), depthFor(Math.ceil(type.limit / 256))), length);
    }
    case 'vector': {
      const parts = elementParts(type.element, data, 'vector');
      if (parts.length !== type.length)
        throw new SszShapeError(`${parts.length} elements where ${type.length} were expected`);
      if (isBasic(type.element)) {
        const chunks = chunksOf(data);
        return merkleize(chunks, depthFor(chunks.length));
      }
      return merkleize(
        parts.map((part) => rootOf(type.element, part)),
        depthFor(type.length),
      );
    }
    case 'list': {
      const parts = elementParts(type.element, data, 'list');
      if (parts.length > type.limit) throw new SszShapeError(`${parts.length} elements past the limit ${type.limit}`);
      if (isBasic(type.element)) {
        const perChunk = 32 / fixedSize(type.element)!;
        return mixInLength(merkleize(chunksOf(data), depthFor(Math.ceil(type.limit / perChunk))), parts.length);
      }
      return mixInLength(
        merkleize(
          parts.map((part) => rootOf(type.element, part)),
          depthFor(type.limit),
        ),
        parts.length,
      );
    }
    case 'container': {
      const parts = containerParts(type, data);
      return merkleize(
        type.fields.map(([, field], i) => rootOf(field, parts[i]!)),
        depthFor(type.fields.length),
      );
    }
  }
}

/** A container's field roots, in order: the leaves its root is merkleized from. */
export function fieldRoots(type: SszType & { kind: 'container' }, data: Uint8Array): Node[] {
  const parts = containerParts(type, data);
  return type.fields.map(([, field], i) => rootOf(field, parts[i]!));
}

/**
 * The branch of leaf `index` in a tree of `leaves` padded to `2^depth`: its sibling at each level
 * from the leaf up, as `isValidBranch` takes it.
 */
export function branchOf(leaves: readonly Node[], index: number, depth: number): Node[] {
  const branch: Node[] = [];
  let zero: Node = new Uint8Array(32);
  let level = [...leaves];
  let at = index;
  for (let height = 0; height < depth; height++) {
    branch.push(level[at ^ 1] ?? zero);
    const next: Node[] = [];
    for (let i = 0; i < level.length; i += 2) next.push(parentOf(level[i]!, level[i + 1] ?? zero));
    level = next;
    zero = parentOf(zero, zero);
    at = Math.floor(at / 2);
  }
  return branch;
}

/**
 * The branch of entry `index` in a list whose limit is `2^depth` and whose entries' roots are `leaves`: `depth`
 * levels of the data tree, then the length chunk the list's root mixes in (`depth + 1` nodes).
 */
export function listEntryBranch(leaves: readonly Node[], index: number, depth: number): Node[] {
  if (!Number.isSafeInteger(index) || index < 0 || index >= leaves.length)
    throw new RangeError(`the list has ${leaves.length} entries, none at ${index}`);
  const length = new Uint8Array(32);
  new DataView(length.buffer).setUint32(0, leaves.length, true);
  return [...branchOf(leaves, index, depth), length];
}

/** The index of field `name` in a container type, or a thrown error naming it. */
export function fieldIndex(type: SszType & { kind: 'container' }, name: string): number {
  const index = type.fields.findIndex(([field]) => field === name);
  if (index < 0) throw new RangeError(`the container has no field ${name}`);
  return index;
}

/** The depth of a container's field tree: its leaves padded to a power of two. */
export function containerDepth(type: SszType & { kind: 'container' }): number {
  return depthFor(type.fields.length);
}
