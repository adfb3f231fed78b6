/**
 * Fast Keccak-256, Ethereum flavour: original Keccak padding (0x01 ... 0x80),
 * rate 136 bytes, 32-byte digest. This is NOT NIST SHA3-256 (which pads 0x06).
 *
 * Why this file exists: keccak256 sits on our hot path (20/32-byte addresses and
 * topics, 100-600 byte trie nodes, occasionally multi-MB payloads), and the
 * generic implementation in @noble/hashes is several times slower on that
 * workload. `fastKeccak256(data)` is a drop-in for `keccak_256(data)` from
 * `@noble/hashes/sha3.js`; test/keccak.test.ts verifies it against
 * @noble/hashes (every length 0..600, random inputs up to 5000 bytes, 1 MiB).
 *
 * Written from FIPS 202 / the Keccak reference (theta, rho, pi, chi, iota;
 * 24 rounds). Techniques, all standard for 32-bit Keccak implementations:
 * - Bit interleaving: each 64-bit lane is held as two int32 words, one with
 *   the even-numbered bits (index 2i) and one with the odd-numbered bits
 *   (2i+1). A 64-bit rotation then becomes two independent 32-bit rotations,
 *   which V8 compiles to single `ror` instructions.
 * - Lane complementing: the lanes A[1,0], A[2,0], A[3,1], A[2,2], A[2,3],
 *   A[0,4] are stored bitwise-inverted between rounds. That pattern survives
 *   theta/rho/pi and lets chi (B[x] ^ (~B[x+1] & B[x+2])) be computed with
 *   one NOT per plane instead of five. It is undone on output.
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

/** Round constants RC[i], bit-interleaved: [even word, odd word] per round. */
const RC = Int32Array.from([
  0x00000001, 0x00000000, 0x00000000, 0x00000089, 0x00000000, 0x8000008b, 0x00000000, 0x80008080,
  0x00000001, 0x0000008b, 0x00000001, 0x00008000, 0x00000001, 0x80008088, 0x00000001, 0x80000082,
  0x00000000, 0x0000000b, 0x00000000, 0x0000000a, 0x00000001, 0x00008082, 0x00000000, 0x00008003,
  0x00000001, 0x0000808b, 0x00000001, 0x8000000b, 0x00000001, 0x8000008a, 0x00000001, 0x80000081,
  0x00000000, 0x80000081, 0x00000000, 0x80000008, 0x00000000, 0x00000083, 0x00000000, 0x80008003,
  0x00000001, 0x80008088, 0x00000000, 0x80000088, 0x00000001, 0x00008000, 0x00000000, 0x80008082,
]);

/** Rate of Keccak-256 in bytes (1600 - 2 * 256 bits). */
const RATE = 136;

// Sized above 64 bytes so V8 keeps the backing stores off-heap, which lets
// optimised code address them as constants.
const state = new Int32Array(50);
const tmp = new Int32Array(50);
const colC = new Int32Array(32);

/** Indices of the words that start as all-ones (the complemented lanes). */
const COMPLEMENTED = [2, 3, 4, 5, 16, 17, 24, 25, 34, 35, 40, 41] as const;

/**
 * SPREAD[b] holds the even bits of byte b in bits 0..3 and its odd bits in
 * bits 16..19, so that OR-ing SPREAD[byte k] << 4k for the four bytes of a
 * little-endian word yields (even bits) | (odd bits) << 16.
 */
const SPREAD = new Int32Array(256);
for (let v = 0; v < 256; v++) {
  let w = 0;
  for (let j = 0; j < 4; j++) w |= (((v >>> (2 * j)) & 1) << j) | (((v >>> (2 * j + 1)) & 1) << (16 + j));
  SPREAD[v] = w;
}

/** Keccak-f[1600] on `state` (interleaved, lane-complemented representation). */
function keccakF1600(): void {
  const s = state;
  const t = tmp;
  const cc = colC;
  // r indexes RC (two words per round); two rounds per iteration.
  for (let r = 0; r < 48; r += 4) {
    // round 2k: state -> tmp
    {
      // theta: column parities C[x] (stored, to keep their inputs short-lived)
      cc[0] = s[0]! ^ s[10]! ^ s[20]! ^ s[30]! ^ s[40]!;
      cc[1] = s[1]! ^ s[11]! ^ s[21]! ^ s[31]! ^ s[41]!;
      cc[2] = s[2]! ^ s[12]! ^ s[22]! ^ s[32]! ^ s[42]!;
      cc[3] = s[3]! ^ s[13]! ^ s[23]! ^ s[33]! ^ s[43]!;
      cc[4] = s[4]! ^ s[14]! ^ s[24]! ^ s[34]! ^ s[44]!;
      cc[5] = s[5]! ^ s[15]! ^ s[25]! ^ s[35]! ^ s[45]!;
      cc[6] = s[6]! ^ s[16]! ^ s[26]! ^ s[36]! ^ s[46]!;
      cc[7] = s[7]! ^ s[17]! ^ s[27]! ^ s[37]! ^ s[47]!;
      cc[8] = s[8]! ^ s[18]! ^ s[28]! ^ s[38]! ^ s[48]!;
      cc[9] = s[9]! ^ s[19]! ^ s[29]! ^ s[39]! ^ s[49]!;
      // theta: D[x] = C[x-1] ^ ROT(C[x+1], 1)
      const c1o0 = cc[3]!;
      const d0e = cc[8]! ^ ((c1o0 << 1) | (c1o0 >>> 31)), d0o = cc[9]! ^ cc[2]!;
      const c2o1 = cc[5]!;
      const d1e = cc[0]! ^ ((c2o1 << 1) | (c2o1 >>> 31)), d1o = cc[1]! ^ cc[4]!;
      const c3o2 = cc[7]!;
      const d2e = cc[2]! ^ ((c3o2 << 1) | (c3o2 >>> 31)), d2o = cc[3]! ^ cc[6]!;
      const c4o3 = cc[9]!;
      const d3e = cc[4]! ^ ((c4o3 << 1) | (c4o3 >>> 31)), d3o = cc[5]! ^ cc[8]!;
      const c0o4 = cc[1]!;
      const d4e = cc[6]! ^ ((c0o4 << 1) | (c0o4 >>> 31)), d4o = cc[7]! ^ cc[0]!;
      { // plane y=0, even words: rho+pi gather B[x,0] from A[0,0] A[1,1] A[2,2] A[3,3] A[4,4]; chi + iota
        const b0 = s[0]! ^ d0e;
        const u1 = s[12]! ^ d1e;
        const b1 = (u1 << 22) | (u1 >>> 10);
        const u2 = s[25]! ^ d2o;
        const b2 = (u2 << 22) | (u2 >>> 10);
        const u3 = s[37]! ^ d3o;
        const b3 = (u3 << 11) | (u3 >>> 21);
        const u4 = s[48]! ^ d4e;
        const b4 = (u4 << 7) | (u4 >>> 25);
        const n2 = ~b2;
        t[0] = b0 ^ (b1 | b2) ^ RC[r]!;
        t[2] = b1 ^ (n2 | b3);
        t[4] = b2 ^ (b3 & b4);
        t[6] = b3 ^ (b4 | b0);
        t[8] = b4 ^ (b0 & b1);
      }
      { // plane y=0, odd words: rho+pi gather B[x,0] from A[0,0] A[1,1] A[2,2] A[3,3] A[4,4]; chi + iota
        const b0 = s[1]! ^ d0o;
        const u1 = s[13]! ^ d1o;
        const b1 = (u1 << 22) | (u1 >>> 10);
        const u2 = s[24]! ^ d2e;
        const b2 = (u2 << 21) | (u2 >>> 11);
        const u3 = s[36]! ^ d3e;
        const b3 = (u3 << 10) | (u3 >>> 22);
        const u4 = s[49]! ^ d4o;
        const b4 = (u4 << 7) | (u4 >>> 25);
        const n2 = ~b2;
        t[1] = b0 ^ (b1 | b2) ^ RC[r + 1]!;
        t[3] = b1 ^ (n2 | b3);
        t[5] = b2 ^ (b3 & b4);
        t[7] = b3 ^ (b4 | b0);
        t[9] = b4 ^ (b0 & b1);
      }
      { // plane y=1, even words: rho+pi gather B[x,1] from A[3,0] A[4,1] A[0,2] A[1,3] A[2,4]; chi
        const u0 = s[6]! ^ d3e;
        const b0 = (u0 << 14) | (u0 >>> 18);
        const u1 = s[18]! ^ d4e;
        const b1 = (u1 << 10) | (u1 >>> 22);
        const u2 = s[21]! ^ d0o;
        const b2 = (u2 << 2) | (u2 >>> 30);
        const u3 = s[33]! ^ d1o;
        const b3 = (u3 << 23) | (u3 >>> 9);
        const u4 = s[45]! ^ d2o;
        const b4 = (u4 << 31) | (u4 >>> 1);
        const n4 = ~b4;
        t[10] = b0 ^ (b1 | b2);
        t[12] = b1 ^ (b2 & b3);
        t[14] = b2 ^ (b3 | n4);
        t[16] = b3 ^ (b4 | b0);
        t[18] = b4 ^ (b0 & b1);
      }
      { // plane y=1, odd words: rho+pi gather B[x,1] from A[3,0] A[4,1] A[0,2] A[1,3] A[2,4]; chi
        const u0 = s[7]! ^ d3o;
        const b0 = (u0 << 14) | (u0 >>> 18);
        const u1 = s[19]! ^ d4o;
        const b1 = (u1 << 10) | (u1 >>> 22);
        const u2 = s[20]! ^ d0e;
        const b2 = (u2 << 1) | (u2 >>> 31);
        const u3 = s[32]! ^ d1e;
        const b3 = (u3 << 22) | (u3 >>> 10);
        const u4 = s[44]! ^ d2e;
        const b4 = (u4 << 30) | (u4 >>> 2);
        const n4 = ~b4;
        t[11] = b0 ^ (b1 | b2);
        t[13] = b1 ^ (b2 & b3);
        t[15] = b2 ^ (b3 | n4);
        t[17] = b3 ^ (b4 | b0);
        t[19] = b4 ^ (b0 & b1);
      }
      { // plane y=2, even words: rho+pi gather B[x,2] from A[1,0] A[2,1] A[3,2] A[4,3] A[0,4]; chi
        const u0 = s[3]! ^ d1o;
        const b0 = (u0 << 1) | (u0 >>> 31);
        const u1 = s[14]! ^ d2e;
        const b1 = (u1 << 3) | (u1 >>> 29);
        const u2 = s[27]! ^ d3o;
        const b2 = (u2 << 13) | (u2 >>> 19);
        const u3 = s[38]! ^ d4e;
        const b3 = (u3 << 4) | (u3 >>> 28);
        const u4 = s[40]! ^ d0e;
        const b4 = (u4 << 9) | (u4 >>> 23);
        const n3 = ~b3;
        t[20] = b0 ^ (b1 | b2);
        t[22] = b1 ^ (b2 & b3);
        t[24] = b2 ^ (n3 & b4);
        t[26] = n3 ^ (b4 | b0);
        t[28] = b4 ^ (b0 & b1);
      }
      { // plane y=2, odd words: rho+pi gather B[x,2] from A[1,0] A[2,1] A[3,2] A[4,3] A[0,4]; chi
        const b0 = s[2]! ^ d1e;
        const u1 = s[15]! ^ d2o;
        const b1 = (u1 << 3) | (u1 >>> 29);
        const u2 = s[26]! ^ d3e;
        const b2 = (u2 << 12) | (u2 >>> 20);
        const u3 = s[39]! ^ d4o;
        const b3 = (u3 << 4) | (u3 >>> 28);
        const u4 = s[41]! ^ d0o;
        const b4 = (u4 << 9) | (u4 >>> 23);
        const n3 = ~b3;
        t[21] = b0 ^ (b1 | b2);
        t[23] = b1 ^ (b2 & b3);
        t[25] = b2 ^ (n3 & b4);
        t[27] = n3 ^ (b4 | b0);
        t[29] = b4 ^ (b0 & b1);
      }
      { // plane y=3, even words: rho+pi gather B[x,3] from A[4,0] A[0,1] A[1,2] A[2,3] A[3,4]; chi
        const u0 = s[9]! ^ d4o;
        const b0 = (u0 << 14) | (u0 >>> 18);
        const u1 = s[10]! ^ d0e;
        const b1 = (u1 << 18) | (u1 >>> 14);
        const u2 = s[22]! ^ d1e;
        const b2 = (u2 << 5) | (u2 >>> 27);
        const u3 = s[35]! ^ d2o;
        const b3 = (u3 << 8) | (u3 >>> 24);
        const u4 = s[46]! ^ d3e;
        const b4 = (u4 << 28) | (u4 >>> 4);
        const n3 = ~b3;
        t[30] = b0 ^ (b1 & b2);
        t[32] = b1 ^ (b2 | b3);
        t[34] = b2 ^ (n3 | b4);
        t[36] = n3 ^ (b4 & b0);
        t[38] = b4 ^ (b0 | b1);
      }
      { // plane y=3, odd words: rho+pi gather B[x,3] from A[4,0] A[0,1] A[1,2] A[2,3] A[3,4]; chi
        const u0 = s[8]! ^ d4e;
        const b0 = (u0 << 13) | (u0 >>> 19);
        const u1 = s[11]! ^ d0o;
        const b1 = (u1 << 18) | (u1 >>> 14);
        const u2 = s[23]! ^ d1o;
        const b2 = (u2 << 5) | (u2 >>> 27);
        const u3 = s[34]! ^ d2e;
        const b3 = (u3 << 7) | (u3 >>> 25);
        const u4 = s[47]! ^ d3o;
        const b4 = (u4 << 28) | (u4 >>> 4);
        const n3 = ~b3;
        t[31] = b0 ^ (b1 & b2);
        t[33] = b1 ^ (b2 | b3);
        t[35] = b2 ^ (n3 | b4);
        t[37] = n3 ^ (b4 & b0);
        t[39] = b4 ^ (b0 | b1);
      }
      { // plane y=4, even words: rho+pi gather B[x,4] from A[2,0] A[3,1] A[4,2] A[0,3] A[1,4]; chi
        const u0 = s[4]! ^ d2e;
        const b0 = (u0 << 31) | (u0 >>> 1);
        const u1 = s[17]! ^ d3o;
        const b1 = (u1 << 28) | (u1 >>> 4);
        const u2 = s[29]! ^ d4o;
        const b2 = (u2 << 20) | (u2 >>> 12);
        const u3 = s[31]! ^ d0o;
        const b3 = (u3 << 21) | (u3 >>> 11);
        const u4 = s[42]! ^ d1e;
        const b4 = (u4 << 1) | (u4 >>> 31);
        const n1 = ~b1;
        t[40] = b0 ^ (n1 & b2);
        t[42] = n1 ^ (b2 | b3);
        t[44] = b2 ^ (b3 & b4);
        t[46] = b3 ^ (b4 | b0);
        t[48] = b4 ^ (b0 & b1);
      }
      { // plane y=4, odd words: rho+pi gather B[x,4] from A[2,0] A[3,1] A[4,2] A[0,3] A[1,4]; chi
        const u0 = s[5]! ^ d2o;
        const b0 = (u0 << 31) | (u0 >>> 1);
        const u1 = s[16]! ^ d3e;
        const b1 = (u1 << 27) | (u1 >>> 5);
        const u2 = s[28]! ^ d4e;
        const b2 = (u2 << 19) | (u2 >>> 13);
        const u3 = s[30]! ^ d0e;
        const b3 = (u3 << 20) | (u3 >>> 12);
        const u4 = s[43]! ^ d1o;
        const b4 = (u4 << 1) | (u4 >>> 31);
        const n1 = ~b1;
        t[41] = b0 ^ (n1 & b2);
        t[43] = n1 ^ (b2 | b3);
        t[45] = b2 ^ (b3 & b4);
        t[47] = b3 ^ (b4 | b0);
        t[49] = b4 ^ (b0 & b1);
      }
    }
    // round 2k+1: tmp -> state
    {
      // theta: column parities C[x] (stored, to keep their inputs short-lived)
      cc[0] = t[0]! ^ t[10]! ^ t[20]! ^ t[30]! ^ t[40]!;
      cc[1] = t[1]! ^ t[11]! ^ t[21]! ^ t[31]! ^ t[41]!;
      cc[2] = t[2]! ^ t[12]! ^ t[22]! ^ t[32]! ^ t[42]!;
      cc[3] = t[3]! ^ t[13]! ^ t[23]! ^ t[33]! ^ t[43]!;
      cc[4] = t[4]! ^ t[14]! ^ t[24]! ^ t[34]! ^ t[44]!;
      cc[5] = t[5]! ^ t[15]! ^ t[25]! ^ t[35]! ^ t[45]!;
      cc[6] = t[6]! ^ t[16]! ^ t[26]! ^ t[36]! ^ t[46]!;
      cc[7] = t[7]! ^ t[17]! ^ t[27]! ^ t[37]! ^ t[47]!;
      cc[8] = t[8]! ^ t[18]! ^ t[28]! ^ t[38]! ^ t[48]!;
      cc[9] = t[9]! ^ t[19]! ^ t[29]! ^ t[39]! ^ t[49]!;
      // theta: D[x] = C[x-1] ^ ROT(C[x+1], 1)
      const c1o0 = cc[3]!;
      const d0e = cc[8]! ^ ((c1o0 << 1) | (c1o0 >>> 31)), d0o = cc[9]! ^ cc[2]!;
      const c2o1 = cc[5]!;
      const d1e = cc[0]! ^ ((c2o1 << 1) | (c2o1 >>> 31)), d1o = cc[1]! ^ cc[4]!;
      const c3o2 = cc[7]!;
      const d2e = cc[2]! ^ ((c3o2 << 1) | (c3o2 >>> 31)), d2o = cc[3]! ^ cc[6]!;
      const c4o3 = cc[9]!;
      const d3e = cc[4]! ^ ((c4o3 << 1) | (c4o3 >>> 31)), d3o = cc[5]! ^ cc[8]!;
      const c0o4 = cc[1]!;
      const d4e = cc[6]! ^ ((c0o4 << 1) | (c0o4 >>> 31)), d4o = cc[7]! ^ cc[0]!;
      { // plane y=0, even words: rho+pi gather B[x,0] from A[0,0] A[1,1] A[2,2] A[3,3] A[4,4]; chi + iota
        const b0 = t[0]! ^ d0e;
        const u1 = t[12]! ^ d1e;
        const b1 = (u1 << 22) | (u1 >>> 10);
        const u2 = t[25]! ^ d2o;
        const b2 = (u2 << 22) | (u2 >>> 10);
        const u3 = t[37]! ^ d3o;
        const b3 = (u3 << 11) | (u3 >>> 21);
        const u4 = t[48]! ^ d4e;
        const b4 = (u4 << 7) | (u4 >>> 25);
        const n2 = ~b2;
        s[0] = b0 ^ (b1 | b2) ^ RC[r + 2]!;
        s[2] = b1 ^ (n2 | b3);
        s[4] = b2 ^ (b3 & b4);
        s[6] = b3 ^ (b4 | b0);
        s[8] = b4 ^ (b0 & b1);
      }
      { // plane y=0, odd words: rho+pi gather B[x,0] from A[0,0] A[1,1] A[2,2] A[3,3] A[4,4]; chi + iota
        const b0 = t[1]! ^ d0o;
        const u1 = t[13]! ^ d1o;
        const b1 = (u1 << 22) | (u1 >>> 10);
        const u2 = t[24]! ^ d2e;
        const b2 = (u2 << 21) | (u2 >>> 11);
        const u3 = t[36]! ^ d3e;
        const b3 = (u3 << 10) | (u3 >>> 22);
        const u4 = t[49]! ^ d4o;
        const b4 = (u4 << 7) | (u4 >>> 25);
        const n2 = ~b2;
        s[1] = b0 ^ (b1 | b2) ^ RC[r + 3]!;
        s[3] = b1 ^ (n2 | b3);
        s[5] = b2 ^ (b3 & b4);
        s[7] = b3 ^ (b4 | b0);
        s[9] = b4 ^ (b0 & b1);
      }
      { // plane y=1, even words: rho+pi gather B[x,1] from A[3,0] A[4,1] A[0,2] A[1,3] A[2,4]; chi
        const u0 = t[6]! ^ d3e;
        const b0 = (u0 << 14) | (u0 >>> 18);
        const u1 = t[18]! ^ d4e;
        const b1 = (u1 << 10) | (u1 >>> 22);
        const u2 = t[21]! ^ d0o;
        const b2 = (u2 << 2) | (u2 >>> 30);
        const u3 = t[33]! ^ d1o;
        const b3 = (u3 << 23) | (u3 >>> 9);
        const u4 = t[45]! ^ d2o;
        const b4 = (u4 << 31) | (u4 >>> 1);
        const n4 = ~b4;
        s[10] = b0 ^ (b1 | b2);
        s[12] = b1 ^ (b2 & b3);
        s[14] = b2 ^ (b3 | n4);
        s[16] = b3 ^ (b4 | b0);
        s[18] = b4 ^ (b0 & b1);
      }
      { // plane y=1, odd words: rho+pi gather B[x,1] from A[3,0] A[4,1] A[0,2] A[1,3] A[2,4]; chi
        const u0 = t[7]! ^ d3o;
        const b0 = (u0 << 14) | (u0 >>> 18);
        const u1 = t[19]! ^ d4o;
        const b1 = (u1 << 10) | (u1 >>> 22);
        const u2 = t[20]! ^ d0e;
        const b2 = (u2 << 1) | (u2 >>> 31);
        const u3 = t[32]! ^ d1e;
        const b3 = (u3 << 22) | (u3 >>> 10);
        const u4 = t[44]! ^ d2e;
        const b4 = (u4 << 30) | (u4 >>> 2);
        const n4 = ~b4;
        s[11] = b0 ^ (b1 | b2);
        s[13] = b1 ^ (b2 & b3);
        s[15] = b2 ^ (b3 | n4);
        s[17] = b3 ^ (b4 | b0);
        s[19] = b4 ^ (b0 & b1);
      }
      { // plane y=2, even words: rho+pi gather B[x,2] from A[1,0] A[2,1] A[3,2] A[4,3] A[0,4]; chi
        const u0 = t[3]! ^ d1o;
        const b0 = (u0 << 1) | (u0 >>> 31);
        const u1 = t[14]! ^ d2e;
        const b1 = (u1 << 3) | (u1 >>> 29);
        const u2 = t[27]! ^ d3o;
        const b2 = (u2 << 13) | (u2 >>> 19);
        const u3 = t[38]! ^ d4e;
        const b3 = (u3 << 4) | (u3 >>> 28);
        const u4 = t[40]! ^ d0e;
        const b4 = (u4 << 9) | (u4 >>> 23);
        const n3 = ~b3;
        s[20] = b0 ^ (b1 | b2);
        s[22] = b1 ^ (b2 & b3);
        s[24] = b2 ^ (n3 & b4);
        s[26] = n3 ^ (b4 | b0);
        s[28] = b4 ^ (b0 & b1);
      }
      { // plane y=2, odd words: rho+pi gather B[x,2] from A[1,0] A[2,1] A[3,2] A[4,3] A[0,4]; chi
        const b0 = t[2]! ^ d1e;
        const u1 = t[15]! ^ d2o;
        const b1 = (u1 << 3) | (u1 >>> 29);
        const u2 = t[26]! ^ d3e;
        const b2 = (u2 << 12) | (u2 >>> 20);
        const u3 = t[39]! ^ d4o;
        const b3 = (u3 << 4) | (u3 >>> 28);
        const u4 = t[41]! ^ d0o;
        const b4 = (u4 << 9) | (u4 >>> 23);
        const n3 = ~b3;
        s[21] = b0 ^ (b1 | b2);
        s[23] = b1 ^ (b2 & b3);
        s[25] = b2 ^ (n3 & b4);
        s[27] = n3 ^ (b4 | b0);
        s[29] = b4 ^ (b0 & b1);
      }
      { // plane y=3, even words: rho+pi gather B[x,3] from A[4,0] A[0,1] A[1,2] A[2,3] A[3,4]; chi
        const u0 = t[9]! ^ d4o;
        const b0 = (u0 << 14) | (u0 >>> 18);
        const u1 = t[10]! ^ d0e;
        const b1 = (u1 << 18) | (u1 >>> 14);
        const u2 = t[22]! ^ d1e;
        const b2 = (u2 << 5) | (u2 >>> 27);
        const u3 = t[35]! ^ d2o;
        const b3 = (u3 << 8) | (u3 >>> 24);
        const u4 = t[46]! ^ d3e;
        const b4 = (u4 << 28) | (u4 >>> 4);
        const n3 = ~b3;
        s[30] = b0 ^ (b1 & b2);
        s[32] = b1 ^ (b2 | b3);
        s[34] = b2 ^ (n3 | b4);
        s[36] = n3 ^ (b4 & b0);
        s[38] = b4 ^ (b0 | b1);
      }
      { // plane y=3, odd words: rho+pi gather B[x,3] from A[4,0] A[0,1] A[1,2] A[2,3] A[3,4]; chi
        const u0 = t[8]! ^ d4e;
        const b0 = (u0 << 13) | (u0 >>> 19);
        const u1 = t[11]! ^ d0o;
        const b1 = (u1 << 18) | (u1 >>> 14);
        const u2 = t[23]! ^ d1o;
        const b2 = (u2 << 5) | (u2 >>> 27);
        const u3 = t[34]! ^ d2e;
        const b3 = (u3 << 7) | (u3 >>> 25);
        const u4 = t[47]! ^ d3o;
        const b4 = (u4 << 28) | (u4 >>> 4);
        const n3 = ~b3;
        s[31] = b0 ^ (b1 & b2);
        s[33] = b1 ^ (b2 | b3);
        s[35] = b2 ^ (n3 | b4);
        s[37] = n3 ^ (b4 & b0);
        s[39] = b4 ^ (b0 | b1);
      }
      { // plane y=4, even words: rho+pi gather B[x,4] from A[2,0] A[3,1] A[4,2] A[0,3] A[1,4]; chi
        const u0 = t[4]! ^ d2e;
        const b0 = (u0 << 31) | (u0 >>> 1);
        const u1 = t[17]! ^ d3o;
        const b1 = (u1 << 28) | (u1 >>> 4);
        const u2 = t[29]! ^ d4o;
        const b2 = (u2 << 20) | (u2 >>> 12);
        const u3 = t[31]! ^ d0o;
        const b3 = (u3 << 21) | (u3 >>> 11);
        const u4 = t[42]! ^ d1e;
        const b4 = (u4 << 1) | (u4 >>> 31);
        const n1 = ~b1;
        s[40] = b0 ^ (n1 & b2);
        s[42] = n1 ^ (b2 | b3);
        s[44] = b2 ^ (b3 & b4);
        s[46] = b3 ^ (b4 | b0);
        s[48] = b4 ^ (b0 & b1);
      }
      { // plane y=4, odd words: rho+pi gather B[x,4] from A[2,0] A[3,1] A[4,2] A[0,3] A[1,4]; chi
        const u0 = t[5]! ^ d2o;
        const b0 = (u0 << 31) | (u0 >>> 1);
        const u1 = t[16]! ^ d3e;
        const b1 = (u1 << 27) | (u1 >>> 5);
        const u2 = t[28]! ^ d4e;
        const b2 = (u2 << 19) | (u2 >>> 13);
        const u3 = t[30]! ^ d0e;
        const b3 = (u3 << 20) | (u3 >>> 12);
        const u4 = t[43]! ^ d1o;
        const b4 = (u4 << 1) | (u4 >>> 31);
        const n1 = ~b1;
        s[41] = b0 ^ (n1 & b2);
        s[43] = n1 ^ (b2 | b3);
        s[45] = b2 ^ (b3 & b4);
        s[47] = b3 ^ (b4 | b0);
        s[49] = b4 ^ (b0 & b1);
      }
    }
  }
}

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
    for (let lane = 0; lane < 17; lane++, off += 8) {
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
 * Keccak-256 (Ethereum) of `data`. Returns a new 32-byte array; same result as
 * `keccak_256(data)` from `@noble/hashes/sha3.js`.
 */
export function fastKeccak256(data: Uint8Array): Uint8Array {
  if (!isBytes(data)) throw new TypeError('fastKeccak256: expected Uint8Array');
  const s = state;
  s.fill(0);
  for (const i of COMPLEMENTED) s[i] = -1;

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
  // Final 0x80 padding byte = bit 63 of lane 16 = bit 31 of its odd word.
  if (lane === 16) hi |= 0x80000000;
  absorbLane(s, lane, lo, hi);
  if (lane !== 16) s[33]! ^= 0x80000000;
  keccakF1600();

  // Squeeze lanes 0..3 (lanes 1 and 2 are stored complemented).
  const out = new Uint8Array(32);
  for (let j = 0; j < 4; j++) {
    let e = s[2 * j]!;
    let o = s[2 * j + 1]!;
    if (j === 1 || j === 2) {
      e = ~e;
      o = ~o;
    }
    const w0 = mergeWord((e & 0xffff) | (o << 16));
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
