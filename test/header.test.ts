import { decode, encode } from '@ethereumjs/rlp';
import { describe, expect, it } from 'vitest';
import {
  bytesToHex,
  decodeHeader,
  encodeHeader,
  headerHash,
  InvalidHeaderError,
  Problems,
  readRpcHeader,
  type BlockHeader,
} from '../packages/core/src/index.js';
import { loadFixture } from './helpers/fixtures.js';

function header(name: string): BlockHeader {
  const problems = new Problems();
  const rpc = readRpcHeader(loadFixture(name).header, 'header', problems);
  expect(problems.list).toEqual([]);
  return rpc!.complete!;
}

describe('block header hash, every fork', () => {
  it('mainnet genesis hashes to d4e567…8fa3', () => {
    expect(bytesToHex(headerHash(header('mainnet-0')))).toBe(
      'd4e56740f876aef8c010b86a40d5f56745a118d0906a34e69aec8c0db1cb8fa3',
    );
  });

  it.each([
    ['mainnet-1', 'Frontier', 15],
    ['mainnet-7000000', 'Byzantium', 15],
    ['mainnet-14764013', 'London', 16],
    ['mainnet-17034870', 'Shanghai', 17],
    ['mainnet-19426587', 'Cancun', 20],
    ['mainnet-22431084', 'Prague', 21],
  ])('%s (%s) has %i fields, hashes to its hash and decodes back', (name, _fork, fields) => {
    const fixture = loadFixture(name);
    const h = header(name);
    const rlp = encodeHeader(h);
    expect(Object.keys(h)).toHaveLength(fields);
    expect(bytesToHex(headerHash(h))).toBe(fixture.header.hash!.slice(2));
    const decoded = decodeHeader(rlp);
    expect(decoded).toEqual(h);
    expect(decoded.number).toBe(BigInt(fixture.header.number!));
    expect(bytesToHex(decoded.receiptsRoot)).toBe(fixture.header.receiptsRoot!.slice(2));
    expect(decoded.timestamp).toBe(BigInt(fixture.header.timestamp!));
  });
});

describe('headers that are not headers', () => {
  const prague = () => header('mainnet-22431084');

  it('a fork field after a missing one is an error (no fork has such a header)', () => {
    const { baseFeePerGas: _fee, ...gap } = prague();
    expect(() => encodeHeader(gap)).toThrow(InvalidHeaderError);
    expect(() => encodeHeader(gap)).toThrow(/baseFeePerGas/);
  });

  it('a wrong-size fixed field is an error naming it', () => {
    expect(() => encodeHeader({ ...prague(), parentHash: new Uint8Array(31) })).toThrow(/parentHash must be 32 bytes/);
  });

  it('decoding rejects non-lists, wrong field counts, leading zeros and garbage', () => {
    expect(() => decodeHeader(Uint8Array.of(0x83, 1, 2, 3))).toThrow(/not a list/);
    expect(() => decodeHeader(Uint8Array.of(0xc1, 0x80))).toThrow(/15 to 21 fields/);
    expect(() => decodeHeader(Uint8Array.of(0xff, 0x00))).toThrow(InvalidHeaderError);
    const fields = decode(encodeHeader(prague())) as Uint8Array[];
    fields[10] = Uint8Array.of(0, 1); // gasUsed with a leading zero byte
    expect(() => decodeHeader(encode(fields))).toThrow(/gasUsed has a leading zero/);
  });
});
