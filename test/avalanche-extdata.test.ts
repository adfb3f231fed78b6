/**
 * Avalanche's `blockExtraData` (the block's atomic transactions) is covered by the block hash only through
 * `extDataHash`, which coreth computes as the Keccak of its RLP (core/types CalcExtDataHash; EmptyExtDataHash for empty
 * bytes, the same formula) and leaves zero before Apricot Phase 1. A header whose extra data does not hash to its
 * extDataHash, or that gives extra data beside a zero one, or that is no hex, is refused naming the member, never a
 * block that passes with it (was: read, never checked).
 */
import { encode } from '@ethereumjs/rlp';
import { keccak_256 } from '@noble/hashes/sha3.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { verifyBlockBytes } from '../packages/core/src/api/index.js';
import { AVALANCHE_HEADER, Problems, readRpcHeader, verifyBlock } from '../packages/core/src/index.js';
import { runCliBytes } from './helpers/cli-process.js';
import { asBlock, loadFixture } from './helpers/fixtures.js';
import { runs } from './helpers/runs.js';

const hex = (bytes: Uint8Array) => `0x${Buffer.from(bytes).toString('hex')}`;
/** The oracle: coreth's extDataHash of `bytes`, by @ethereumjs/rlp and @noble/hashes. */
const oracleExtDataHash = (bytes: Uint8Array) => hex(keccak_256(encode(bytes)));

const ZERO_HASH = `0x${'00'.repeat(32)}`;
const ALTERED = '0x00000000000100000000';
const fuji = asBlock(loadFixture('avalanche-fuji-58119344'));
const withHeader = (over: Record<string, unknown>) => ({ ...fuji, header: { ...fuji.header, ...over } });
/** Whether the block hash matches where the block is read (Helicon's receipts root is not verified), else the problems. */
const problemsOf = (input: unknown) => {
  const result = verifyBlock(input);
  if (result.ok) return result.value.block_hash.matches;
  return 'problems' in result.error ? result.error.problems.map((p) => [p.name, p.reason, p.expected]) : result.error;
};
const mismatch = (bytes: string) =>
  `extra data the header's extDataHash commits to: the Keccak of its RLP is extDataHash ${fuji.header['extDataHash']} (coreth's CalcExtDataHash), got ${(bytes.length - 2) / 2} bytes whose is ${oracleExtDataHash(Buffer.from(bytes.slice(2), 'hex'))}`;

describe("Avalanche's blockExtraData: checked against extDataHash", () => {
  it('the real Fuji header, whose extra data is empty, hashes to its extDataHash (keccak of 0x80) and passes', () => {
    expect(fuji.header['blockExtraData']).toBe('0x');
    expect(fuji.header['extDataHash']).toBe(oracleExtDataHash(new Uint8Array()));
    expect(problemsOf(fuji)).toBe(true);
  });

  it('altered extra data is refused naming header.blockExtraData (was: read, the block hash matching)', () => {
    expect(problemsOf(withHeader({ blockExtraData: ALTERED }))).toEqual([
      ['header.blockExtraData', 'conflict', mismatch(ALTERED)],
    ]);
  });

  it('extra data that is no hex is refused as such (was: read, the block hash matching)', () => {
    for (const value of ['atomic transactions', '0x123', 42])
      expect(problemsOf(withHeader({ blockExtraData: value }))).toEqual([
        [
          'header.blockExtraData',
          'invalid_format',
          expect.stringMatching(/^even-length hex bytes, 0x when empty, got /),
        ],
      ]);
  });

  it('absent, as JSON-RPC says it (null or no member), claims nothing: the block passes', () => {
    const { blockExtraData: _, ...without } = fuji.header;
    expect(problemsOf({ ...fuji, header: without })).toBe(true);
    expect(problemsOf(withHeader({ blockExtraData: null }))).toBe(true);
  });

  it('a zero extDataHash (before Apricot Phase 1) covers no extra data: empty passes the read, any other is refused', () => {
    // The header altered no longer hashes to its block hash: a mismatch, never invalid input, where nothing else is.
    expect(problemsOf(withHeader({ extDataHash: ZERO_HASH, blockExtraData: '0x' }))).toBe(false);
    expect(problemsOf(withHeader({ extDataHash: ZERO_HASH, blockExtraData: ALTERED }))).toEqual([
      [
        'header.blockExtraData',
        'conflict',
        'absent or 0x: an avalanche header whose extDataHash is zero (before Apricot Phase 1) commits to no extra data: no block hash covers it, got 10 bytes',
      ],
    ]);
  });

  it('without extDataHash nothing covers the extra data: the header is refused naming it', () => {
    const { extDataHash: _, ...without } = fuji.header;
    expect(problemsOf({ ...fuji, header: without })).toEqual([
      ['header.extDataHash', 'missing', 'present: it is what blockExtraData is checked against'],
    ]);
  });

  it('accepts exactly the extra data whose RLP hashes to extDataHash (oracle: @ethereumjs/rlp, @noble/hashes)', () => {
    const accepted = (bytes: Uint8Array, extDataHash: string) => {
      const problems = new Problems();
      const header = { ...fuji.header, blockExtraData: hex(bytes), extDataHash };
      const read = readRpcHeader(header, 'header', problems, AVALANCHE_HEADER);
      return read !== undefined && problems.empty;
    };
    // Lengths across RLP's one-byte, short (< 56) and long string forms.
    const extra = fc.uint8Array({ maxLength: 300 });
    fc.assert(
      fc.property(extra, extra, fc.uint8Array({ minLength: 32, maxLength: 32 }), (bytes, other, random) => {
        expect(accepted(bytes, oracleExtDataHash(bytes))).toBe(true);
        const claimed = [oracleExtDataHash(other), hex(random), ZERO_HASH];
        for (const hash of claimed)
          expect(accepted(bytes, hash)).toBe(
            hash === oracleExtDataHash(bytes) || (hash === ZERO_HASH && bytes.length === 0),
          );
      }),
      { numRuns: runs(200) },
    );
  });

  it('as bytes (the path of the command line and the service) and on the command line: refused, exit 2', async () => {
    const altered = withHeader({ blockExtraData: ALTERED });
    const input = Buffer.from(JSON.stringify(altered));
    const answered = verifyBlockBytes(input);
    expect(!answered.ok && answered.error.kind === 'invalid' && answered.error.problems.map((p) => p.name)).toEqual([
      'header.blockExtraData',
    ]);
    for (const args of [
      ['verify', 'block', '-'],
      ['request', 'receipt-root', '-'],
    ]) {
      const run = await runCliBytes(args, { input });
      expect(run.status, args.join(' ')).toBe(2);
      expect(`${run.stdout.toString()}${run.stderr}`).toContain(`header.blockExtraData: expected ${mismatch(ALTERED)}`);
    }
  });
});
