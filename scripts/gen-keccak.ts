/**
 * Generator of packages/core/src/keccak/fast-keccak.ts, the unrolled JavaScript Keccak-256 used
 * where WebAssembly is unavailable. Run `npm run gen:keccak` after changing this
 * file or src/keccak/keccak-tables.ts; test/keccak-generated.test.ts fails while
 * the committed file differs from what this emits.
 *
 * Why generate: the fast form of Keccak-f[1600] in JavaScript is some 400 lines
 * of straight-line code (no loops over lanes, no table lookups for rotation
 * offsets), too long to review by eye. Here every line of it comes from the
 * FIPS 202 tables (rho offsets, pi, round constants) of keccak-tables.ts and
 * from two transforms, each derived below rather than written out:
 * - bit interleaving (Keccak implementation overview, section 2.1): a 64-bit
 *   lane is held as two int32 words, its even and its odd bits, so a 64-bit
 *   rotation is two 32-bit rotations (see `rotation`);
 * - lane complementing (same overview, section 2.2): the lanes in COMPLEMENTED
 *   are stored inverted, which lets chi share one NOT per plane (see `chiPlane`).
 */
import { writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { bComplements, COMPLEMENTED, lane, PI_SRC, RATE, ROT } from '../packages/core/src/keccak/keccak-tables.js';
import { keccakModuleBytes, keccakPairModuleBytes } from '../packages/core/src/keccak/keccak-module.js';

type Parity = 0 | 1;
const PARITIES: readonly Parity[] = [0, 1];
/** Name suffix of a word: e(ven bits) or o(dd bits). */
const SUFFIX = ['e', 'o'] as const;
const PARITY_NAME = ['even', 'odd'] as const;
const word = (laneIndex: number, parity: Parity): number => 2 * laneIndex + parity;
const RATE_LANES = RATE / 8;
/** Keccak-256 squeezes 32 bytes: the first four lanes. */
const DIGEST_LANES = 4;
const B_COMPLEMENTED = bComplements(COMPLEMENTED);

/**
 * A 64-bit left rotation by `r` of an interleaved lane, seen from one output word:
 * the input word it reads and the 32-bit rotation applied. An even r moves every
 * bit by r/2 within its word; an odd r moves even bits to odd positions (rotated
 * by (r - 1) / 2) and odd bits to even positions (by (r + 1) / 2).
 */
function rotation(r: number, parity: Parity): { from: Parity; by: number } {
  if (r % 2 === 0) return { from: parity, by: r / 2 };
  return parity === 0 ? { from: 1, by: ((r + 1) / 2) % 32 } : { from: 0, by: (r - 1) / 2 };
}

/** JavaScript for `name` rotated left by `by` bits (0 < by < 32), as an int32: V8 emits a single ror. */
const rotl32 = (name: string, by: number): string => `(${name} << ${by}) | (${name} >>> ${32 - by})`;

/** One chi operand: the stored B[x] of the plane, or its complement (the shared NOT). */
interface Operand {
  x: number;
  negated: boolean;
}
/** Stored A[x, y] = base ^ (p op q). */
interface ChiTerm {
  base: Operand;
  p: Operand;
  q: Operand;
  op: '&' | '|';
}

/**
 * Chi of plane y on the stored values, with as few NOTs as possible and none on
 * the results: the true function is t = T0 ^ (~T1 & T2) for the true lanes
 * T0, T1, T2 of B[x], B[x+1], B[x+2], and the output must come out complemented
 * exactly when A[x, y] is stored complemented. With operands p = T1 ^ e1 and
 * q = T2 ^ e2 (each either a stored value or its NOT), ~T1 & T2 is
 *   p & q       when e1 = 1 and e2 = 0, or
 *   ~(p | q)    when e1 = 0 and e2 = 1 (De Morgan);
 * so the AND form needs a base complemented like the output, and the OR form,
 * whose inverted result flips the output, a base complemented the other way.
 * Tries every set of NOTs, smallest first, and takes the first that leaves each
 * output a form; the AND form is preferred when both are possible.
 */
function chiPlane(y: number): { negated: number[]; terms: ChiTerm[] } {
  const stored = (x: number): boolean => B_COMPLEMENTED[lane(x, y)]!;
  const subsets = Array.from({ length: 32 }, (_, mask) => [0, 1, 2, 3, 4].filter((x) => mask & (1 << x)));
  subsets.sort((a, b) => a.length - b.length);
  for (const negated of subsets) {
    // The operand for B[x] with complement e (T ^ e), if available: stored, or NOT-ed when in the set.
    const operand = (x: number, e: boolean): Operand | undefined => {
      const xm = x % 5;
      if (e === stored(xm)) return { x: xm, negated: false };
      return negated.includes(xm) ? { x: xm, negated: true } : undefined;
    };
    const terms: ChiTerm[] = [];
    for (let x = 0; x < 5; x++) {
      const outComplemented = COMPLEMENTED.has(lane(x, y));
      const forms = (['&', '|'] as const).map((op) => {
        const e1 = op === '&';
        const base = operand(x, op === '&' ? outComplemented : !outComplemented);
        const p = operand(x + 1, e1);
        const q = operand(x + 2, !e1);
        return base && p && q ? { base, p, q, op } : undefined;
      });
      const form = forms[0] ?? forms[1];
      if (form === undefined) break;
      terms.push(form);
    }
    if (terms.length === 5) return { negated, terms };
  }
  throw new Error('unreachable: with all five NOTs every form is available');
}

const CHI = [0, 1, 2, 3, 4].map(chiPlane);
const NOTS_PER_ROUND = CHI.reduce((n, plane) => n + plane.negated.length, 0);

const coords = (laneIndex: number): string => `A[${laneIndex % 5},${Math.floor(laneIndex / 5)}]`;
const operandName = (o: Operand): string => `${o.negated ? 'n' : 'b'}${o.x}`;

/**
 * One round from array `src` into array `dst`, both 50 interleaved words. This
 * round's constant is at RC_INTERLEAVED[r + rcOffset] (even word) and the next index (odd).
 */
function round(src: string, dst: string, rcOffset: number): string[] {
  const out: string[] = [];
  out.push('// theta: column parities C[x] (stored, to keep their inputs short-lived)');
  for (let x = 0; x < 5; x++) {
    for (const p of PARITIES) {
      const w = word(x, p);
      out.push(`cc[${w}] = ${[0, 1, 2, 3, 4].map((y) => `${src}[${word(lane(x, y), p)}]!`).join(' ^ ')};`);
    }
  }
  out.push('// theta: D[x] = C[x-1] ^ ROT(C[x+1], 1)');
  for (let x = 0; x < 5; x++) {
    const right = (x + 1) % 5;
    const left = (x + 4) % 5;
    const halves = PARITIES.map((p) => {
      const { from, by } = rotation(1, p);
      // A rotated word is read once into a local, as the rotation uses it twice.
      const name = by === 0 ? `cc[${word(right, from)}]!` : `c${right}${SUFFIX[from]}${x}`;
      if (by !== 0) out.push(`const ${name} = cc[${word(right, from)}]!;`);
      return `d${x}${SUFFIX[p]} = cc[${word(left, p)}]! ^ ${by === 0 ? name : `(${rotl32(name, by)})`}`;
    });
    out.push(`const ${halves.join(', ')};`);
  }
  for (let y = 0; y < 5; y++) {
    const sources = [0, 1, 2, 3, 4].map((x) => coords(PI_SRC[lane(x, y)]!)).join(' ');
    const { negated, terms } = CHI[y]!;
    for (const p of PARITIES) {
      out.push(
        `{ // plane y=${y}, ${PARITY_NAME[p]} words: rho+pi gather B[x,${y}] from ${sources}; chi${y === 0 ? ' + iota' : ''}`,
      );
      for (let x = 0; x < 5; x++) {
        const a = PI_SRC[lane(x, y)]!;
        const { from, by } = rotation(ROT[a]!, p);
        const input = `${src}[${word(a, from)}]! ^ d${a % 5}${SUFFIX[from]}`;
        if (by === 0) {
          out.push(`  const b${x} = ${input};`);
        } else {
          out.push(`  const u${x} = ${input};`);
          out.push(`  const b${x} = ${rotl32(`u${x}`, by)};`);
        }
      }
      for (const x of negated) out.push(`  const n${x} = ~b${x};`);
      terms.forEach((term, x) => {
        const rc = rcOffset + p === 0 ? 'r' : `r + ${rcOffset + p}`;
        const iota = x === 0 && y === 0 ? ` ^ RC_INTERLEAVED[${rc}]!` : '';
        const value = `${operandName(term.base)} ^ (${operandName(term.p)} ${term.op} ${operandName(term.q)})`;
        out.push(`  ${dst}[${word(lane(x, y), p)}] = ${value}${iota};`);
      });
      out.push('}');
    }
  }
  return out;
}

/** Lines indented by `depth` levels of two spaces. */
const indent = (lines: string[], depth: number): string[] => lines.map((l) => ' '.repeat(2 * depth) + l);

function permutation(): string[] {
  return [
    '/** Keccak-f[1600] on `state` (interleaved, lane-complemented representation). */',
    'function keccakF1600(): void {',
    '  const s = state;',
    '  const t = tmp;',
    '  const cc = colC;',
    '  // r indexes RC_INTERLEAVED (two words per round); two rounds per iteration.',
    '  for (let r = 0; r < 48; r += 4) {',
    '    // round 2k: state -> tmp',
    '    {',
    ...indent(round('s', 't', 0), 3),
    '    }',
    '    // round 2k+1: tmp -> state',
    '    {',
    ...indent(round('t', 's', 2), 3),
    '    }',
    '  }',
    '}',
  ];
}

const complementedLanes = [...COMPLEMENTED].sort((a, b) => a - b);
const complementedWords = complementedLanes.flatMap((l) => [word(l, 0), word(l, 1)]);
const complementedDigestLanes = complementedLanes.filter((l) => l < DIGEST_LANES);
const lastLane = RATE_LANES - 1;

/** The whole of packages/core/src/keccak/fast-keccak.ts. */
export function generateFastKeccak(): string {
  return `// GENERATED by scripts/gen-keccak.ts (\`npm run gen:keccak\`): do not edit by hand.
// Change the generator or src/keccak/keccak-tables.ts and regenerate;
// test/keccak-generated.test.ts fails while this file differs from the generator's output.

/**
 * Fast Keccak-256, Ethereum flavour: original Keccak padding (0x01 ... 0x80),
 * rate ${RATE} bytes, 32-byte digest. This is NOT NIST SHA3-256 (which pads 0x06).
 *
 * Why this file exists: it is the Keccak-256 used where WebAssembly is
 * unavailable (e.g. a Content-Security-Policy without 'wasm-unsafe-eval'), and
 * the generic implementation in @noble/hashes is several times slower on our
 * workload (32-byte keys, 100-600 byte trie nodes, occasionally multi-MB
 * payloads). \`fastKeccak256(data)\` is a drop-in for \`keccak_256(data)\` from
 * \`@noble/hashes/sha3.js\`; test/keccak.test.ts verifies it against
 * @noble/hashes (every length 0..600, random inputs up to 5000 bytes, 1 MiB).
 *
 * Keccak-f[1600] (FIPS 202: theta, rho, pi, chi, iota; 24 rounds), with the
 * techniques of the Keccak implementation overview for 32-bit platforms:
 * - Bit interleaving: each 64-bit lane is held as two int32 words, one with
 *   the even-numbered bits (index 2i) and one with the odd-numbered bits
 *   (2i+1). A 64-bit rotation then becomes two independent 32-bit rotations,
 *   which V8 compiles to single \`ror\` instructions.
 * - Lane complementing: the lanes ${complementedLanes.map(coords).join(', ')}
 *   are stored bitwise-inverted. The inversion pattern survives theta, rho and
 *   pi, and lets chi (B[x] ^ (~B[x+1] & B[x+2])) run on AND/OR with one NOT
 *   shared per plane: ${NOTS_PER_ROUND} lane NOTs per round instead of 25. It is undone on output.
 * - The permutation is unrolled over lanes; the loop runs over rounds two at
 *   a time, ping-ponging between two state arrays. Keeping the state in
 *   (off-heap, module-level) typed arrays rather than 50 locals measured
 *   faster in V8: 50 live locals force heavy register spilling.
 * - Input bytes are read individually (endianness-independent) and split
 *   into even/odd bits through a 256-entry table; no copy of the input is
 *   made, and nothing is allocated except the 32-byte result.
 *
 * State layout: lane (x, y) lives at index 2 * (x + 5 * y) (even bits) and
 * 2 * (x + 5 * y) + 1 (odd bits). The module-level buffers are safe to share:
 * a call runs to completion synchronously and never calls out to user code.
 */
import { RATE, RC_INTERLEAVED } from './keccak-tables.js';

// Sized above 64 bytes so V8 keeps the backing stores off-heap, which lets
// optimised code address them as constants.
const state = new Int32Array(50);
const tmp = new Int32Array(50);
const colC = new Int32Array(32);

/** Indices of the words that start as all-ones (the complemented lanes). */
const COMPLEMENTED_WORDS = [${complementedWords.join(', ')}] as const;

/**
 * SPREAD[b] holds the even bits of byte b in bits 0..3 and its odd bits in
 * bits 16..19, so that OR-ing SPREAD[byte k] << 4k for the four bytes of a
 * little-endian word yields (even bits) | (odd bits) << 16. Filled in a function by one loop without
 * calls: a loop in the top-level code, a loop within the loop or a call for each byte had V8 compile
 * the code on the spot (Sparkplug, Maglev), up to 1 ms of a CLI process's start (see PAIR in
 * ../bytes/hex.ts).
 */
const SPREAD = (() => {
  const spread = new Int32Array(256);
  for (let v = 0; v < 256; v++) {
    // Each half's bits 0, 2, 4, 6 brought together in two steps: to bits 0, 1, 4, 5, then to 0..3.
    let even = v & 0x55;
    let odd = (v >> 1) & 0x55;
    even = (even | (even >> 1)) & 0x33;
    odd = (odd | (odd >> 1)) & 0x33;
    spread[v] = ((even | (even >> 2)) & 0x0f) | (((odd | (odd >> 2)) & 0x0f) << 16);
  }
  return spread;
})();

${permutation().join('\n')}

/** Split word at d[o..o+3] (little-endian) into even bits (low 16) and odd bits (high 16). */
function splitWord(d: Uint8Array, o: number): number {
  return (
    SPREAD[d[o]!]! |
    (SPREAD[d[o + 1]!]! << 4) |
    (SPREAD[d[o + 2]!]! << 8) |
    (SPREAD[d[o + 3]!]! << 12)
  );
}

/** XOR a lane into the state, given both of its halves already split by splitWord. */
function absorbLane(s: Int32Array, lane: number, lo: number, hi: number): void {
  s[2 * lane]! ^= (lo & 0xffff) | (hi << 16);
  s[2 * lane + 1]! ^= (lo >>> 16) | (hi & 0xffff0000);
}

/** Inverse of the even/odd split: bits 0..15 -> even positions, 16..31 -> odd positions. */
function mergeWord(w: number): number {
  let x = w;
  let u = (x ^ (x >>> 8)) & 0x0000ff00;
  x ^= u ^ (u << 8);
  u = (x ^ (x >>> 4)) & 0x00f000f0;
  x ^= u ^ (u << 4);
  u = (x ^ (x >>> 2)) & 0x0c0c0c0c;
  x ^= u ^ (u << 2);
  u = (x ^ (x >>> 1)) & 0x22222222;
  x ^= u ^ (u << 1);
  return x;
}

/**
 * Absorb the full blocks data[0..end) (end is a multiple of RATE); returns end.
 * Kept out of fastKeccak256 on purpose: when that function is optimised while
 * it mostly sees short inputs (the common case), an inlined block loop ends up
 * with noticeably slower code (~15% on 600-byte and 1 MiB inputs).
 */
function absorbFullBlocks(data: Uint8Array, end: number): number {
  const s = state;
  let off = 0;
  while (off < end) {
    for (let lane = 0; lane < ${RATE_LANES}; lane++, off += 8) {
      absorbLane(s, lane, splitWord(data, off), splitWord(data, off + 4));
    }
    keccakF1600();
  }
  return off;
}

/** Same acceptance rule as @noble/hashes (also admits Uint8Arrays from other realms). */
function isBytes(a: unknown): a is Uint8Array {
  return a instanceof Uint8Array || (ArrayBuffer.isView(a) && a.constructor.name === 'Uint8Array');
}

/**
 * Keccak-256 (Ethereum) of \`data\`. Returns a new 32-byte array; same result as
 * \`keccak_256(data)\` from \`@noble/hashes/sha3.js\`.
 */
export function fastKeccak256(data: Uint8Array): Uint8Array {
  if (!isBytes(data)) throw new TypeError('fastKeccak256: expected Uint8Array');
  const s = state;
  s.fill(0);
  for (const i of COMPLEMENTED_WORDS) s[i] = -1;

  const len = data.length;
  const fullEnd = len - (len % RATE);
  let off = fullEnd > 0 ? absorbFullBlocks(data, fullEnd) : 0;
  // Final block: whole lanes first...
  let lane = 0;
  for (; off + 8 <= len; lane++, off += 8) {
    absorbLane(s, lane, splitWord(data, off), splitWord(data, off + 4));
  }
  // ...then the last 0..7 bytes plus the 0x01 padding byte (SPREAD[0x01] === 1).
  let lo = 0;
  let hi = 0;
  let p = 0;
  for (; off < len; off++, p++) {
    if (p < 4) lo |= SPREAD[data[off]!]! << (4 * p);
    else hi |= SPREAD[data[off]!]! << (4 * (p - 4));
  }
  if (p < 4) lo |= 1 << (4 * p);
  else hi |= 1 << (4 * (p - 4));
  // Final 0x80 padding byte = bit 63 of lane ${lastLane} = bit 31 of its odd word.
  if (lane === ${lastLane}) hi |= 0x80000000;
  absorbLane(s, lane, lo, hi);
  if (lane !== ${lastLane}) s[${word(lastLane, 1)}]! ^= 0x80000000;
  keccakF1600();

  // Squeeze lanes 0..${DIGEST_LANES - 1}, undoing the complement of those stored complemented.
  const out = new Uint8Array(32);
  for (let j = 0; j < ${DIGEST_LANES}; j++) {
    let e = s[2 * j]!;
    let o = s[2 * j + 1]!;
${squeezeUncomplement()}    const w0 = mergeWord((e & 0xffff) | (o << 16));
    const w1 = mergeWord((e >>> 16) | (o & 0xffff0000));
    const k = 8 * j;
    out[k] = w0;
    out[k + 1] = w0 >>> 8;
    out[k + 2] = w0 >>> 16;
    out[k + 3] = w0 >>> 24;
    out[k + 4] = w1;
    out[k + 5] = w1 >>> 8;
    out[k + 6] = w1 >>> 16;
    out[k + 7] = w1 >>> 24;
  }
  return out;
}
`;
}

function squeezeUncomplement(): string {
  if (complementedDigestLanes.length === 0) return '';
  return [
    `    if (${complementedDigestLanes.map((l) => `j === ${l}`).join(' || ')}) {`,
    '      e = ~e;',
    '      o = ~o;',
    '    }',
    '',
  ].join('\n');
}

/**
 * The text of packages/core/src/keccak/wasm-module.ts: the bytes of the WebAssembly Keccak-256 module that
 * keccakModuleBytes() emits with its default options, and of the two-lane one keccakPairModuleBytes() emits, so that a
 * process compiles them without running the emitter (about 2 ms of a CLI process's start).
 */
export function generateWasmModule(): string {
  return [
    '// GENERATED by scripts/gen-keccak.ts (`npm run gen:keccak`): do not edit by hand.',
    '/**',
    ' * The WebAssembly Keccak-256 module that keccakModuleBytes() (keccak-module.ts) emits with its default options:',
    ' * compiled at load time without running the emitter at every start. A literal, not hex: measured, decoding the hex',
    ' * at load took back most of what skipping the emitter saved. test/keccak-generated.test.ts fails while it differs',
    ' * from what the emitter writes.',
    ' */',
    `export const KECCAK_MODULE = Uint8Array.of(${keccakModuleBytes().join(', ')});`,
    '',
    '/** The two-lane module that keccakPairModuleBytes() (keccak-module.ts) emits: two inputs hashed at once. */',
    `export const KECCAK_PAIR_MODULE = Uint8Array.of(${keccakPairModuleBytes().join(', ')});`,
    '',
  ].join('\n');
}

/**
 * `node dist-scripts/scripts/gen-keccak.js <path of fast-keccak.ts>` writes that file and wasm-module.ts beside it
 * (see `npm run gen:keccak`).
 */
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const target = process.argv[2];
  if (target === undefined) {
    console.error('usage: node dist-scripts/scripts/gen-keccak.js <path of fast-keccak.ts>');
    process.exit(2);
  }
  writeFileSync(target, generateFastKeccak());
  console.log(`wrote ${target}`);
  const wasmModule = new URL('wasm-module.ts', pathToFileURL(target));
  writeFileSync(wasmModule, generateWasmModule());
  console.log(`wrote ${wasmModule.pathname}`);
}
