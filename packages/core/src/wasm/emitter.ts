/**
 * A minimal WebAssembly binary writer, written from the WebAssembly core
 * specification (binary format, chapter 5): LEB128 integers, the handful of
 * sections our modules need, and only the opcodes they use: the Keccak-256
 * (keccak/wasm-keccak.ts), its two-lane variant (keccak/keccak-module.ts) and the
 * JSON scanner (json/scan/scan-module.ts). It exists so that they are generated
 * from readable TypeScript: no assembler, no toolchain, no binary blob.
 */

/** Value types (spec 5.3.1). */
export const I32 = 0x7f;
export const I64 = 0x7e;
/** The 128-bit vector type of the fixed-width SIMD proposal (standard since WebAssembly 2.0). */
export const V128 = 0x7b;
export type ValType = typeof I32 | typeof I64 | typeof V128;

/** Unsigned LEB128 of a non-negative integer below 2^53. */
export function uleb(value: number): number[] {
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`uleb: ${value}`);
  const out: number[] = [];
  do {
    let byte = value % 128;
    value = Math.floor(value / 128);
    if (value !== 0) byte |= 0x80;
    out.push(byte);
  } while (value !== 0);
  return out;
}

/** Signed LEB128 of an integer (a bigint for i64 constants, a number for i32). */
export function sleb(value: number | bigint): number[] {
  let v = BigInt(value);
  const out: number[] = [];
  for (;;) {
    const byte = Number(v & 0x7fn);
    v >>= 7n; // arithmetic shift: keeps the sign
    const done = (v === 0n && (byte & 0x40) === 0) || (v === -1n && (byte & 0x40) !== 0);
    out.push(done ? byte : byte | 0x80);
    if (done) return out;
  }
}

/** A name (spec 5.2.4): length-prefixed UTF-8. */
function name(s: string): number[] {
  const bytes = [...new TextEncoder().encode(s)];
  return [...uleb(bytes.length), ...bytes];
}

/** A vector (spec 5.1.3): element count, then the already-encoded elements. */
function vec(items: number[][]): number[] {
  return [...uleb(items.length), ...items.flat()];
}

/** A section (spec 5.5.2): id, byte size, contents. */
function section(id: number, contents: number[]): number[] {
  return [id, ...uleb(contents.length), ...contents];
}

/**
 * Builder for one function body's instructions. Every method appends one
 * instruction and returns `this`, so code reads as a stack-machine listing.
 */
export class Code {
  readonly bytes: number[] = [];

  private op(...b: number[]): this {
    for (const x of b) this.bytes.push(x);
    return this;
  }
  /** memarg (spec 5.4.6): alignment exponent, then a constant offset. */
  private mem(opcode: number, offset: number, alignLog2: number): this {
    return this.op(opcode, ...uleb(alignLog2), ...uleb(offset));
  }

  /**
   * The labels of the open blocks, loops and ifs, innermost last: a branch names its target, and the relative depth the
   * binary wants is counted here, so that no depth is counted by hand (undefined: a construct opened without a name).
   */
  private readonly labels: Array<string | undefined> = [];

  /** The relative depth of `target`: a depth as given, or the innermost open construct of that name. */
  private depth(target: number | string): number {
    if (typeof target === 'number') return target;
    const index = this.labels.lastIndexOf(target);
    if (index === -1) throw new Error(`no open block, loop or if named ${target}`);
    return this.labels.length - 1 - index;
  }

  // Control (spec 5.4.1); the block type is always empty (0x40).
  block(label?: string): this {
    this.labels.push(label);
    return this.op(0x02, 0x40);
  }
  loop(label?: string): this {
    this.labels.push(label);
    return this.op(0x03, 0x40);
  }
  /** if, taking the i32 on the stack. */
  if(label?: string): this {
    this.labels.push(label);
    return this.op(0x04, 0x40);
  }
  else(): this {
    return this.op(0x05);
  }
  end(): this {
    this.labels.pop();
    return this.op(0x0b);
  }
  br(target: number | string): this {
    return this.op(0x0c, ...uleb(this.depth(target)));
  }
  brIf(target: number | string): this {
    return this.op(0x0d, ...uleb(this.depth(target)));
  }
  /** br_table: the i32 on the stack picks `targets[i]`, `fallback` where it is out of their range. */
  brTable(targets: ReadonlyArray<number | string>, fallback: number | string): this {
    return this.op(
      0x0e,
      ...uleb(targets.length),
      ...targets.flatMap((t) => uleb(this.depth(t))),
      ...uleb(this.depth(fallback)),
    );
  }
  return(): this {
    return this.op(0x0f);
  }

  // Variables (spec 5.4.4).
  get(local: number): this {
    return this.op(0x20, ...uleb(local));
  }
  set(local: number): this {
    return this.op(0x21, ...uleb(local));
  }
  tee(local: number): this {
    return this.op(0x22, ...uleb(local));
  }

  // Memory (spec 5.4.6).
  i64Load(offset = 0, alignLog2 = 3): this {
    return this.mem(0x29, offset, alignLog2);
  }
  i32Load(offset = 0, alignLog2 = 2): this {
    return this.mem(0x28, offset, alignLog2);
  }
  i32Load8U(offset = 0): this {
    return this.mem(0x2d, offset, 0);
  }
  i32Load16U(offset = 0): this {
    return this.mem(0x2f, offset, 0);
  }
  i32Store(offset = 0, alignLog2 = 2): this {
    return this.mem(0x36, offset, alignLog2);
  }
  i64Store(offset = 0, alignLog2 = 3): this {
    return this.mem(0x37, offset, alignLog2);
  }
  /** i64.store32: the low 32 bits of an i64. */
  i64Store32(offset = 0, alignLog2 = 2): this {
    return this.mem(0x3e, offset, alignLog2);
  }
  i32Store8(offset = 0): this {
    return this.mem(0x3a, offset, 0);
  }
  /**
   * memory.fill, from the bulk memory proposal (standard since 2.0, in all engines since 2021): [dest, byte, length] ->
   * [].
   */
  memoryFill(): this {
    return this.op(0xfc, ...uleb(11), 0x00);
  }

  // Numeric (spec 5.4.7).
  i32Const(v: number): this {
    return this.op(0x41, ...sleb(v | 0));
  }
  i64Const(v: bigint): this {
    return this.op(0x42, ...sleb(BigInt.asIntN(64, v)));
  }
  i32Eqz(): this {
    return this.op(0x45);
  }
  i32Eq(): this {
    return this.op(0x46);
  }
  i32Ne(): this {
    return this.op(0x47);
  }
  i32LtU(): this {
    return this.op(0x49);
  }
  i32GtU(): this {
    return this.op(0x4b);
  }
  i32GeU(): this {
    return this.op(0x4f);
  }
  i32Add(): this {
    return this.op(0x6a);
  }
  i32Sub(): this {
    return this.op(0x6b);
  }
  i32RemU(): this {
    return this.op(0x70);
  }
  i32And(): this {
    return this.op(0x71);
  }
  i32Or(): this {
    return this.op(0x72);
  }
  i32Shl(): this {
    return this.op(0x74);
  }
  i32ShrU(): this {
    return this.op(0x76);
  }
  i64Eq(): this {
    return this.op(0x51);
  }
  i64Add(): this {
    return this.op(0x7c);
  }
  i64Mul(): this {
    return this.op(0x7e);
  }
  i64And(): this {
    return this.op(0x83);
  }
  i64Or(): this {
    return this.op(0x84);
  }
  i64Xor(): this {
    return this.op(0x85);
  }
  i64Shl(): this {
    return this.op(0x86);
  }
  i64ShrU(): this {
    return this.op(0x88);
  }
  i64Rotl(): this {
    return this.op(0x89);
  }

  // Vector (spec 5.4.8): the 0xfd prefix, then the opcode as an unsigned LEB128.
  private simd(opcode: number, ...immediates: number[]): this {
    return this.op(0xfd, ...uleb(opcode), ...immediates);
  }
  /** v128.load64_zero: 8 bytes into lane 0 of an i64x2, lane 1 zero. */
  v128Load64Zero(offset = 0, alignLog2 = 3): this {
    return this.simd(0x5d, ...uleb(alignLog2), ...uleb(offset));
  }
  /** i64x2.splat: an i64 in both lanes. */
  i64x2Splat(): this {
    return this.simd(0x12);
  }
  i64x2ExtractLane(lane: 0 | 1): this {
    return this.simd(0x1d, lane);
  }
  i64x2ReplaceLane(lane: 0 | 1): this {
    return this.simd(0x1e, lane);
  }
  /** v128.andnot: a & ~b, of [a, b]. */
  v128Andnot(): this {
    return this.simd(0x4f);
  }
  v128Or(): this {
    return this.simd(0x50);
  }
  v128Xor(): this {
    return this.simd(0x51);
  }
  /** i64x2.shl: each lane shifted left by the i32 on the stack (mod 64). */
  i64x2Shl(): this {
    return this.simd(0xcb);
  }
  i64x2ShrU(): this {
    return this.simd(0xcd);
  }
}

export interface FuncDef {
  params: ValType[];
  results: ValType[];
  /** Declared locals beyond the parameters, in order. */
  locals: ValType[];
  code: Code;
  /** Export name, if exported. */
  export?: string;
}

export interface ModuleDef {
  funcs: FuncDef[];
  /** A memory defined by the module: minimum pages, and its export name. */
  memory: { minPages: number; export?: string };
}

/** Run-length groups of local types, as the code section wants them (spec 5.5.13). */
function localDecls(locals: ValType[]): number[][] {
  const groups: number[][] = [];
  let i = 0;
  while (i < locals.length) {
    let j = i;
    while (j < locals.length && locals[j] === locals[i]) j++;
    groups.push([...uleb(j - i), locals[i]!]);
    i = j;
  }
  return groups;
}

/** The bytes of a module: one type per function, a memory, exports, code. */
export function emitModule(def: ModuleDef): Uint8Array {
  const types = def.funcs.map((f) => [0x60, ...vec(f.params.map((t) => [t])), ...vec(f.results.map((t) => [t]))]);
  const exports: number[][] = [];
  def.funcs.forEach((f, i) => {
    if (f.export !== undefined) exports.push([...name(f.export), 0x00, ...uleb(i)]);
  });
  if (def.memory.export !== undefined) exports.push([...name(def.memory.export), 0x02, 0x00]);
  const bodies = def.funcs.map((f) => {
    const body = [...vec(localDecls(f.locals)), ...f.code.bytes, 0x0b];
    return [...uleb(body.length), ...body];
  });
  return Uint8Array.from([
    0x00,
    0x61,
    0x73,
    0x6d, // magic "\0asm"
    0x01,
    0x00,
    0x00,
    0x00, // version 1
    ...section(1, vec(types)),
    ...section(3, vec(def.funcs.map((_, i) => uleb(i)))),
    ...section(5, vec([[0x00, ...uleb(def.memory.minPages)]])), // limits: min only
    ...section(7, vec(exports)),
    ...section(10, vec(bodies)),
  ]);
}
