/**
 * The tables of Keccak-f[1600] and Keccak-256, derived here once from the
 * specification (FIPS 202, section 3.2) rather than copied as constants. The
 * WebAssembly module (./wasm-keccak.ts) and the generator of the JavaScript one
 * (scripts/gen-keccak.ts, which writes ./fast-keccak.ts) both build on them.
 * They are derived at every load, so written without bigints, destructuring or
 * spread: each allocates in V8's interpreter, where a process's first code runs
 * (docs/speed.md, "The chain table made one chain at a time").
 */

/** Rate of Keccak-256 in bytes: 1600 - 2 * 256 bits. */
export const RATE = 136;

/** Lane index of (x, y); coordinates are taken mod 5, so callers can write x + 1, x + 2. */
export const lane = (x: number, y: number): number => (x % 5) + 5 * (y % 5);

/** Rotation offsets of rho, per lane (FIPS 202 algorithm 2). */
export const ROT: readonly number[] = (() => {
  const rot = new Array<number>(25).fill(0);
  for (let t = 0, x = 1, y = 0; t < 24; t++) {
    rot[lane(x, y)] = (((t + 1) * (t + 2)) / 2) % 64;
    const nextY = (2 * x + 3 * y) % 5;
    x = y;
    y = nextY;
  }
  return rot;
})();

/**
 * The lane permutation of pi (FIPS 202 algorithm 3), as a gather: PI_SRC[b] is the
 * lane of A that lands in lane b of B, B[y, 2x + 3y] = rotl(A[x, y], ROT[x, y]).
 */
export const PI_SRC: readonly number[] = (() => {
  const src = new Array<number>(25).fill(0);
  for (let y = 0; y < 5; y++) for (let x = 0; x < 5; x++) src[lane(y, 2 * x + 3 * y)] = lane(x, y);
  return src;
})();

/**
 * Round constants of iota, from the rc(t) LFSR (FIPS 202 algorithms 5 and 6), each as its low and high 32 bits
 * (unsigned). A constant's bits sit at 2^j - 1: 0, 1, 3, 7, 15 and 31 in the low word, 63 in the high one.
 */
export const RC: readonly (readonly [low: number, high: number])[] = (() => {
  let r = 1;
  const bits: number[] = [];
  for (let t = 0; t < 7 * 24; t++) {
    bits.push(r & 1);
    r <<= 1;
    if (r & 0x100) r ^= 0x171;
  }
  const rc: [number, number][] = [];
  for (let i = 0; i < 24; i++) {
    let low = 0;
    for (let j = 0; j < 6; j++) if (bits[7 * i + j]) low |= 1 << ((1 << j) - 1);
    rc.push([low >>> 0, bits[7 * i + 6] ? 0x8000_0000 : 0]);
  }
  return rc;
})();

/**
 * A 64-bit value, as its low and high 32 bits, in the bit-interleaved form of 32-bit implementations (Keccak
 * implementation overview, section 2.1): [the even-numbered bits, the odd-numbered bits], each packed into an int32.
 * A 64-bit rotation then becomes two 32-bit ones.
 */
export function interleave(halves: readonly [low: number, high: number]): [even: number, odd: number] {
  const low = halves[0];
  const high = halves[1];
  return [
    everyOtherBit(low, 0) | (everyOtherBit(high, 0) << 16),
    everyOtherBit(low, 1) | (everyOtherBit(high, 1) << 16),
  ];
}

/** The 16 bits of a 32-bit word at `first`, `first` + 2, `first` + 4, …, packed. */
function everyOtherBit(word: number, first: 0 | 1): number {
  let packed = 0;
  for (let i = 0; i < 16; i++) packed |= ((word >> (2 * i + first)) & 1) << i;
  return packed;
}

/** The round constants bit-interleaved, [even, odd] word per round, for the JavaScript Keccak. */
export const RC_INTERLEAVED: Int32Array = (() => {
  const words = new Int32Array(2 * RC.length);
  RC.forEach((rc, i) => words.set(interleave(rc), 2 * i));
  return words;
})();

/**
 * Lanes stored complemented, the "lane complementing" transform (Keccak
 * implementation overview, section 2.2): chi's B[x] ^ (~B[x+1] & B[x+2]) then needs
 * one NOT per plane when the NOT is shared between the plane's lanes (the
 * JavaScript form), and 8 per round when it is not (the WebAssembly form; an
 * exhaustive search over all 2^25 sets found none better). Any set is correct:
 * both forms derive their chi expressions from it.
 */
export const COMPLEMENTED: ReadonlySet<number> = new Set([
  lane(1, 0),
  lane(2, 0),
  lane(3, 1),
  lane(2, 2),
  lane(2, 3),
  lane(0, 4),
]);

/**
 * Which lanes of B come out complemented after theta, rho and pi when the lanes
 * in `complemented` are stored complemented: B[b] = rotl(A[a] ^ D[a.x]), and
 * D[x] = C[x-1] ^ rotl(C[x+1], 1) is complemented when exactly one of the column
 * parities C[x-1], C[x+1] is, C[x] when its column holds an odd number of
 * complemented lanes. A rotation keeps a complemented lane complemented.
 */
export function bComplements(complemented: ReadonlySet<number>): boolean[] {
  const column = [0, 1, 2, 3, 4].map(
    (x) => [0, 1, 2, 3, 4].filter((y) => complemented.has(lane(x, y))).length % 2 === 1,
  );
  return PI_SRC.map((a) => (complemented.has(a) !== column[(a + 4) % 5]) !== column[(a + 1) % 5]);
}
