/**
 * The generator of the WebAssembly Keccak-256 module (Ethereum's Keccak: padding 0x01..0x80, rate 136, 32-byte
 * digest). keccak-f[1600] works on 64-bit lanes. JavaScript has to split each lane into two 32-bit halves, so every
 * XOR, AND and rotation costs two or more operations; WebAssembly has native i64.xor / i64.and / i64.rotl, which
 * makes the permutation an order of magnitude cheaper (see bench/keccak.bench.ts).
 *
 * The module is not a binary asset: it is generated here, from the Keccak specification (FIPS 202), by our own small
 * emitter (../wasm/emitter.ts). Its bytes with the default options are kept in ./wasm-module.ts (written by
 * scripts/gen-keccak.ts, compared by a test), which is what the library loads (wasm-keccak.ts): neither this
 * generator nor the emitter is part of the library as it runs, or of any bundle of it.
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
import { Code, emitModule, I32, I64, type ValType } from '../wasm/emitter.js';

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

/** Variants of the module, for tests and measurements: the defaults are the fastest measured. */
export interface KeccakModuleOptions {
  /** Use the lane complementing transform (default true; false is for comparison). */
  complement?: boolean;
  /** Rounds unrolled in the round loop's body, a divisor of 24 (default 1, the fastest measured). */
  roundsPerIteration?: number;
}

/** The bytes of the Keccak-256 module. */
export function keccakModuleBytes(options: KeccakModuleOptions = {}): Uint8Array {
  const unroll = options.roundsPerIteration ?? 1;
  if (24 % unroll !== 0) throw new RangeError('roundsPerIteration must divide 24');
  const complemented = (options.complement ?? true) ? COMPLEMENTED : new Set<number>();
  const comp = (i: number): boolean => complemented.has(i);

  // Locals: params ptr, len; then i32 p, limit, r; then i64 A[25], B[25], C[5], D[5].
  const PTR = 0,
    LEN = 1,
    P = 2,
    LIMIT = 3,
    R = 4;
  const A = (i: number) => 5 + i;
  const B = (i: number) => 30 + i;
  const C = (x: number) => 55 + x;
  const D = (x: number) => 60 + x;
  const locals: ValType[] = [I32, I32, I32, ...new Array<ValType>(60).fill(I64)];

  const c = new Code();
  const not = () => c.i64Const(-1n).i64Xor();

  // Pad in place: zero [ptr+len, limit), then 0x01 at ptr+len and 0x80 at limit-1,
  // where limit is the end of the last (partial or empty) block.
  c.get(PTR).get(LEN).i32Add().get(LEN).i32Const(RATE).i32RemU().i32Sub().i32Const(RATE).i32Add().set(LIMIT);
  c.get(PTR).get(LEN).i32Add().tee(P).i32Const(0).get(LIMIT).get(P).i32Sub().memoryFill();
  c.get(P).i32Const(1).i32Store8();
  c.get(LIMIT).i32Const(1).i32Sub().tee(P).get(P).i32Load8U().i32Const(0x80).i32Or().i32Store8();

  // The state starts at zero: complemented lanes at all-ones.
  for (let i = 0; i < 25; i++) if (comp(i)) c.i64Const(-1n).set(A(i));

  const bComp = bComplements(complemented);

  // One absorb + permutation per block, from ptr up to limit.
  c.get(PTR).set(P);
  c.loop();
  for (let i = 0; i < RATE_LANES; i++)
    c.get(A(i))
      .get(P)
      .i64Load(8 * i)
      .i64Xor()
      .set(A(i));
  c.i32Const(0).set(R);
  c.loop();
  for (let k = 0; k < unroll; k++) {
    // theta: C[x] = xor of column x; D[x] = C[x-1] ^ rotl(C[x+1], 1)
    for (let x = 0; x < 5; x++) {
      c.get(A(x))
        .get(A(x + 5))
        .i64Xor()
        .get(A(x + 10))
        .i64Xor()
        .get(A(x + 15))
        .i64Xor()
        .get(A(x + 20))
        .i64Xor()
        .set(C(x));
    }
    for (let x = 0; x < 5; x++)
      c.get(C((x + 4) % 5))
        .get(C((x + 1) % 5))
        .i64Const(1n)
        .i64Rotl()
        .i64Xor()
        .set(D(x));
    // rho and pi (with theta's D applied): B[b] = rotl(A[a] ^ D[a.x], ROT[a])
    for (let b = 0; b < 25; b++) {
      const a = PI_SRC[b]!;
      c.get(A(a))
        .get(D(a % 5))
        .i64Xor();
      if (ROT[a] !== 0) c.i64Const(BigInt(ROT[a]!)).i64Rotl();
      c.set(B(b));
    }
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
  c.get(R)
    .i32Const(8 * unroll)
    .i32Add()
    .tee(R)
    .i32Const(8 * 24)
    .i32Ne()
    .brIf(0);
  c.end();
  c.get(P).i32Const(RATE).i32Add().tee(P).get(LIMIT).i32Ne().brIf(0);
  c.end();

  // Squeeze: the first four lanes, un-complemented.
  for (let i = 0; i < 4; i++) {
    c.i32Const(0).get(A(i));
    if (comp(i)) not();
    c.i64Store(OUT_OFF + 8 * i);
  }

  return emitModule({
    funcs: [{ params: [I32, I32], results: [], locals, code: c, export: 'hash' }],
    memory: { minPages: 1, export: 'memory' },
  });
}
