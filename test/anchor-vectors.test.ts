/**
 * The anchor's real vectors (fixtures/anchor/, sources in fixtures/SOURCES.md) are what they say: each
 * Portal header-with-proof holds the header of the mainnet block it is named for.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { bytesToHex } from '../packages/core/src/bytes/hex.js';
import { defaultKeccak256 } from '../packages/core/src/keccak/keccak.js';
import { contentValueOf, headerWithProof } from './helpers/portal-vectors.js';

const FIXTURES = new URL('../fixtures/', import.meta.url);

describe('Portal header-with-proof vectors', () => {
  it.each([1000010])('block %i: the header hashes to the block hash of the mainnet fixture', (number) => {
    const { header } = headerWithProof(
      contentValueOf(new URL(`anchor/portal/headers_with_proof/${number}.yaml`, FIXTURES).pathname),
    );
    const block = JSON.parse(readFileSync(new URL(`blocks/mainnet-${number}.json`, FIXTURES), 'utf8')) as {
      header: { hash: string };
    };
    expect(bytesToHex(defaultKeccak256(header))).toBe(block.header.hash.replace(/^0x/, ''));
  });
});
