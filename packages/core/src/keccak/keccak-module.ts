/**
 * The generator of the WebAssembly Keccak-256 module (Ethereum's Keccak: padding 0x01..0x80, rate 136, 32-byte
 * digest). keccak-f[1600] works on 64-bit lanes. JavaScript has to split each lane into two 32-bit halves, so every
 * XOR, AND and rotation costs two or more operations; WebAssembly has native i64.xor / i64.and / i64.rotl, which
 * makes the permutation an order of magnitude cheaper (see bench/keccak.bench.ts).
 *
 * The module is not a binary asset: it is generated here, from the Keccak specification (FIPS 202), by our own small
 * emitter (../wasm/emitter.ts). Its bytes with the default options, and those of the two-lane module
 * ({@link keccakPairModuleBytes}), are kept in ./wasm-module.ts (written by scripts/gen-keccak.ts, compared by a test),
 * which is what the library loads (wasm-keccak.ts): neither this generator nor the emitter is part of the library as
 * it runs, or of any bundle of it.
 *
 * The module exports its memory and one function, `hash(ptr, len)`: it pads the input in place (the caller leaves 136
 * writable bytes after it), absorbs each 136-byte block with little-endian i64 loads into 25 lane locals, runs a loop
 * of 24 rounds whose body is one fully unrolled round (round constants read from memory), and writes the 32-byte
 * digest at OUT_OFF (keccak-layout.ts). It uses the "lane complementing" transform of the Keccak implementation
 * overview (section 2.2), which turns most of chi's NOTs into ORs: six lanes are kept complemented. The padding uses
 * memory.fill (bulk memory, in every engine since 2021). Measured on V8 (Node 20), this shape beat the variants
 * tried: 2, 3, 4 or 24 rounds per loop iteration, plane-by-plane rounds between two states (with or without theta's
 * column sums accumulated in chi), the state kept in linear memory, and NOTs shared between chi lanes.
 */
import { bComplements, COMPLEMENTED, lane, PI_SRC, RATE, ROT } from './keccak-tables.js';
import { OUT_OFF, RC_OFF } from './keccak-layout.js';
import { Code, emitModule, I32, I64, V128, type ValType } from '../wasm/emitter.js';

const RATE_LANES = RATE / 8;

/**
 * How chi computes an output lane from the stored (possibly complemented)
 * values s0, s1, s2 of B[x], B[x+1], B[x+2], whose complement flags are c0, c1, c2,
 * when the output must be stored complemented iff `cOut`. The true function is
 * t0 ^ (~t1 & t2) with ti = si ^ ci, which is either
 *   s0 ^ ((s1 ^ !c1) AND (s2 ^ c2)) ^ c0, or, by De Morgan,
 *   s0 ^ ((s1 ^ c1) OR (s2 ^ !c2)) ^ c0 ^ 1;
 * we take the form needing fewer NOTs (a NOT being an i64.xor with -1).
 * NOTs of the result are preferred to NOTs of operands (which V8 must first copy),
 * and NOTs are not shared between lanes: measured, keeping the complemented copies
 * alive costs more registers than it saves instructions.
 */
function chiForm(c0: boolean, c1: boolean, c2: boolean, cOut: boolean) {
  const and = { or: false, not1: !c1, not2: c2, notOut: c0 !== cOut };
  const or = { or: true, not1: c1, not2: !c2, notOut: c0 === cOut };
  const cost = (f: typeof and) => Number(f.not1) + Number(f.not2) + Number(f.notOut);
  return cost(or) < cost(and) ? or : and;
}

/**
 * Pads the input of `len` bytes at `ptr` in place (locals of `c`'s function): zeroes [ptr+len, limit), then ORs 0x01 at
 * ptr+len and 0x80 at limit-1, where `limit` (set here) is the end of the last (partial or empty) block; `p` is scratch.
 */
function pad(c: Code, ptr: number, len: number, p: number, limit: number): void {
  c.get(ptr).get(len).i32Add().get(len).i32Const(RATE).i32RemU().i32Sub().i32Const(RATE).i32Add().set(limit);
  c.get(ptr).get(len).i32Add().tee(p).i32Const(0).get(limit).get(p).i32Sub().memoryFill();
  c.get(p).i32Const(1).i32Store8();
  c.get(limit).i32Const(1).i32Sub().tee(p).get(p).i32Load8U().i32Const(0x80).i32Or().i32Store8();
}

/** Variants of the module, for tests and measurements: the defaults are the fastest measured. */
export interface KeccakModuleOptions {
  /** Use the lane complementing transform (default true; false is for comparison). */
  complement?: boolean;
  /** Rounds unrolled in the round loop's body, a divisor of 24 (default 1, the fastest measured). */
  roundsPerIteration?: number;
}

/** Where a function keeps a permutation's state: its locals A[25], B[25], C[5], D[5] and the round offset R. */
interface StateLocals {
  A: (i: number) => number;
  B: (i: number) => number;
  C: (x: number) => number;
  D: (x: number) => number;
  R: number;
}

/** The two operations theta, rho and pi need, on the lane (or lanes) on the stack: an i64's, or an i64x2 vector's. */
interface LaneOps {
  xor: () => void;
  /** Rotates left by `n` bits (0 < n < 64). */
  rotl: (n: number) => void;
}

/**
 * Emits theta, rho and pi of one round: from the state's locals A into B (rho and pi, with theta's D applied),
 * C and D holding theta's column parities and their mix.
 */
function emitThetaRhoPi(c: Code, { A, B, C, D }: Omit<StateLocals, 'R'>, ops: LaneOps): void {
  // theta: C[x] = xor of column x; D[x] = C[x-1] ^ rotl(C[x+1], 1)
  for (let x = 0; x < 5; x++) {
    c.get(A(x)).get(A(x + 5));
    ops.xor();
    c.get(A(x + 10));
    ops.xor();
    c.get(A(x + 15));
    ops.xor();
    c.get(A(x + 20));
    ops.xor();
    c.set(C(x));
  }
  for (let x = 0; x < 5; x++) {
    c.get(C((x + 4) % 5)).get(C((x + 1) % 5));
    ops.rotl(1);
    ops.xor();
    c.set(D(x));
  }
  // rho and pi (with theta's D applied): B[b] = rotl(A[a] ^ D[a.x], ROT[a])
  for (let b = 0; b < 25; b++) {
    const a = PI_SRC[b]!;
    c.get(A(a)).get(D(a % 5));
    ops.xor();
    if (ROT[a] !== 0) ops.rotl(ROT[a]!);
    c.set(B(b));
  }
}

/** Ends the loop of rounds: `R` (the offset of the next round constant) moves on by `rounds`, until all 24 are done. */
function endRoundLoop(c: Code, R: number, rounds: number): void {
  c.get(R)
    .i32Const(8 * rounds)
    .i32Add()
    .tee(R)
    .i32Const(8 * 24)
    .i32Ne()
    .brIf(0);
  c.end();
}

/**
 * Emits the scalar absorb-and-permute loop: from local `p` to local `limit` (padded), each 136-byte block XORed into A
 * with little-endian i64 loads, then 24 rounds, `unroll` to a loop iteration, on lanes stored complemented where
 * `complemented` holds them.
 */
function emitScalarBlocks(
  c: Code,
  { A, B, C, D, R }: StateLocals,
  p: number,
  limit: number,
  complemented: ReadonlySet<number>,
  unroll: number,
): void {
  const comp = (i: number): boolean => complemented.has(i);
  const bComp = bComplements(complemented);
  const not = () => c.i64Const(-1n).i64Xor();
  c.loop();
  for (let i = 0; i < RATE_LANES; i++)
    c.get(A(i))
      .get(p)
      .i64Load(8 * i)
      .i64Xor()
      .set(A(i));
  c.i32Const(0).set(R);
  c.loop();
  const ops: LaneOps = { xor: () => c.i64Xor(), rotl: (n) => c.i64Const(BigInt(n)).i64Rotl() };
  for (let k = 0; k < unroll; k++) {
    emitThetaRhoPi(c, { A, B, C, D }, ops);
    // chi: A[x, y] = B[x, y] ^ (~B[x+1, y] & B[x+2, y]), on stored values
    for (let y = 0; y < 5; y++) {
      for (let x = 0; x < 5; x++) {
        const b0 = lane(x, y),
          b1 = lane(x + 1, y),
          b2 = lane(x + 2, y);
        const f = chiForm(bComp[b0]!, bComp[b1]!, bComp[b2]!, comp(b0));
        c.get(B(b0)).get(B(b1));
        if (f.not1) not();
        c.get(B(b2));
        if (f.not2) not();
        if (f.or) c.i64Or();
        else c.i64And();
        c.i64Xor();
        if (f.notOut) not();
        c.set(A(b0));
      }
    }
    // iota
    c.get(A(0))
      .get(R)
      .i64Load(RC_OFF + 8 * k)
      .i64Xor()
      .set(A(0));
  }
  endRoundLoop(c, R, unroll);
  c.get(p).i32Const(RATE).i32Add().tee(p).get(limit).i32Ne().brIf(0);
  c.end();
}

/** Emits the squeeze: the first four lanes of A, un-complemented, stored at OUT_OFF plus the address `address` pushes. */
function emitScalarDigest(
  c: Code,
  A: (i: number) => number,
  address: () => void,
  complemented: ReadonlySet<number>,
): void {
  for (let i = 0; i < 4; i++) {
    address();
    c.get(A(i));
    if (complemented.has(i)) c.i64Const(-1n).i64Xor();
    c.i64Store(OUT_OFF + 8 * i);
  }
}

/** The bytes of the Keccak-256 module. */
export function keccakModuleBytes(options: KeccakModuleOptions = {}): Uint8Array {
  const unroll = options.roundsPerIteration ?? 1;
  if (24 % unroll !== 0) throw new RangeError('roundsPerIteration must divide 24');
  const complemented = (options.complement ?? true) ? COMPLEMENTED : new Set<number>();

  // Locals: params ptr, len; then i32 p, limit, r; then i64 A[25], B[25], C[5], D[5].
  const PTR = 0,
    LEN = 1,
    P = 2,
    LIMIT = 3,
    R = 4;
  const lanes: StateLocals = { A: (i) => 5 + i, B: (i) => 30 + i, C: (x) => 55 + x, D: (x) => 60 + x, R };
  const locals: ValType[] = [I32, I32, I32, ...new Array<ValType>(60).fill(I64)];

  const c = new Code();
  pad(c, PTR, LEN, P, LIMIT);
  // The state starts at zero: complemented lanes at all-ones.
  for (let i = 0; i < 25; i++) if (complemented.has(i)) c.i64Const(-1n).set(lanes.A(i));
  c.get(PTR).set(P);
  emitScalarBlocks(c, lanes, P, LIMIT, complemented, unroll);
  emitScalarDigest(c, lanes.A, () => c.i32Const(0), complemented);

  return emitModule({
    funcs: [{ params: [I32, I32], results: [], locals, code: c, export: 'hash' }],
    memory: { minPages: 1, export: 'memory' },
  });
}

/**
 * The bytes of the two-lane Keccak-256 module: two inputs hashed at once, lane i of both states in one 128-bit vector
 * (the SIMD proposal's i64x2), so that each XOR, AND-NOT and shift of a permutation serves both. A vector has no
 * rotation, so each costs two shifts and an OR, and chi takes v128.andnot rather than lane complementing: measured on
 * V8 (Node 24), a permutation of both costs 1.25 to 1.55 times one scalar permutation (docs/speed.md). It exports its memory and
 * `hash2(ptrA, lenA, ptrB, lenB)`: each input padded in place (the caller leaves 136 writable bytes after each), their
 * digests written at OUT_OFF and OUT_OFF + 32. The blocks both inputs have are permuted together; the longer input's
 * others go on alone, its lanes taken out of the vectors into the scalar permutation (without lane complementing).
 */
export function keccakPairModuleBytes(): Uint8Array {
  // Params ptrA, lenA, ptrB, lenB; i32 pA, pB, limitA, limitB, end (of the blocks both have, in A), r, p, limit, out;
  // v128 A[25], B[25], C[5], D[5], T; i64 the scalar permutation's lanes for the tail.
  const PTR_A = 0,
    LEN_A = 1,
    PTR_B = 2,
    LEN_B = 3,
    PA = 4,
    PB = 5,
    LIMIT_A = 6,
    LIMIT_B = 7,
    END = 8,
    R = 9,
    P = 10,
    LIMIT = 11,
    OUT = 12;
  const A = (i: number) => 13 + i;
  const B = (i: number) => 38 + i;
  const C = (x: number) => 63 + x;
  const D = (x: number) => 68 + x;
  const T = 73;
  const tail: StateLocals = { A: (i) => 74 + i, B: (i) => 99 + i, C: (x) => 124 + x, D: (x) => 129 + x, R };
  const locals: ValType[] = [
    ...new Array<ValType>(9).fill(I32),
    ...new Array<ValType>(61).fill(V128),
    ...new Array<ValType>(60).fill(I64),
  ];
  const uncomplemented = new Set<number>();

  const c = new Code();
  const vectorOps: LaneOps = {
    xor: () => c.v128Xor(),
    // No vector rotation: two shifts and an OR, the operand kept in T.
    rotl: (n) =>
      c
        .tee(T)
        .i32Const(n)
        .i64x2Shl()
        .get(T)
        .i32Const(64 - n)
        .i64x2ShrU()
        .v128Or(),
  };

  pad(c, PTR_B, LEN_B, P, LIMIT_B);
  pad(c, PTR_A, LEN_A, P, LIMIT_A);
  // end = ptrA + the bytes of the blocks both have.
  c.get(LIMIT_B).get(PTR_B).i32Sub().set(R);
  c.get(LIMIT_A).get(PTR_A).i32Sub().set(END);
  c.get(R).get(END).i32LtU().if().get(R).set(END).end();
  c.get(END).get(PTR_A).i32Add().set(END);

  c.get(PTR_A).set(PA);
  c.get(PTR_B).set(PB);
  c.loop();
  for (let i = 0; i < RATE_LANES; i++)
    c.get(A(i))
      .get(PA)
      .v128Load64Zero(8 * i)
      .get(PB)
      .i64Load(8 * i)
      .i64x2ReplaceLane(1)
      .v128Xor()
      .set(A(i));
  c.i32Const(0).set(R);
  c.loop();
  emitThetaRhoPi(c, { A, B, C, D }, vectorOps);
  // chi: A[x, y] = B[x, y] ^ (B[x+2, y] & ~B[x+1, y])
  for (let y = 0; y < 5; y++)
    for (let x = 0; x < 5; x++)
      c.get(B(lane(x, y)))
        .get(B(lane(x + 2, y)))
        .get(B(lane(x + 1, y)))
        .v128Andnot()
        .v128Xor()
        .set(A(lane(x, y)));
  c.get(A(0)).get(R).i64Load(RC_OFF).i64x2Splat().v128Xor().set(A(0));
  endRoundLoop(c, R, 1);
  c.get(PB).i32Const(RATE).i32Add().set(PB);
  c.get(PA).i32Const(RATE).i32Add().tee(PA).get(END).i32Ne().brIf(0);
  c.end();

  // The digest of each input whose blocks are all absorbed.
  const digestOfLane = (laneOf: 0 | 1) => {
    for (let i = 0; i < 4; i++)
      c.i32Const(0)
        .get(A(i))
        .i64x2ExtractLane(laneOf)
        .i64Store(OUT_OFF + 32 * laneOf + 8 * i);
  };
  c.get(PA).get(LIMIT_A).i32Eq().if();
  digestOfLane(0);
  c.end();
  c.get(PB).get(LIMIT_B).i32Eq().if();
  digestOfLane(1);
  c.end();

  // The longer input's other blocks, on its lanes alone.
  const takeLane = (laneOf: 0 | 1, from: number, limit: number) => {
    for (let i = 0; i < 25; i++) c.get(A(i)).i64x2ExtractLane(laneOf).set(tail.A(i));
    c.get(from).set(P);
    c.get(limit).set(LIMIT);
    c.i32Const(32 * laneOf).set(OUT);
  };
  c.block('done');
  c.block('tail');
  c.get(PA).get(LIMIT_A).i32Ne().if();
  takeLane(0, PA, LIMIT_A);
  c.br('tail');
  c.end();
  c.get(PB).get(LIMIT_B).i32Eq().brIf('done');
  takeLane(1, PB, LIMIT_B);
  c.end();
  emitScalarBlocks(c, tail, P, LIMIT, uncomplemented, 1);
  emitScalarDigest(c, tail.A, () => c.get(OUT), uncomplemented);
  c.end();

  return emitModule({
    funcs: [{ params: [I32, I32, I32, I32], results: [], locals, code: c, export: 'hash2' }],
    memory: { minPages: 1, export: 'memory' },
  });
}
