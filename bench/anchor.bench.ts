/**
 * The beacon-chain anchor on the real mainnet anchor proof file: each record's size (the line, and
 * the proof's own bytes the hex doubles), and the time to verify one block from the checkpoint,
 * against its floor: the SHA-256 compressions its branches need, plus the Keccak of its header.
 */
import { readFileSync } from 'node:fs';
import { sha256 } from '@noble/hashes/sha2.js';
import { AnchorProofVerifier, readAnchorRecord, type AnchorRecord } from '../packages/core/src/anchor/index.js';
import { decodeHeader, defaultKeccak256, hexToBytes } from '../packages/core/src/index.js';
import { timeMs } from './timing.js';

const TEXT = readFileSync('fixtures/anchor/mainnet-checkpoint-11635710.jsonl', 'utf8');
const CHECKPOINT = hexToBytes('0x5ab5b37414ebe99dc2c1e1e325bca79b8f659a4f0af21afdea4b38e646508e82');
const [HEAD, STATE, ...BLOCKS] = TEXT.trimEnd().split('\n') as [string, string, ...string[]];
/** Calls per sample: one block verifies in tens of microseconds. */
const BATCH = 200;

/** The bytes a record proves with (header, roots and branches): what a binary format would hold. */
function proofBytes(record: AnchorRecord): number {
  let total = 0;
  const walk = (value: unknown): void => {
    if (value instanceof Uint8Array) total += value.length;
    else if (typeof value === 'bigint' || typeof value === 'number') total += 8;
    else if (Array.isArray(value)) value.forEach(walk);
    else if (typeof value === 'object' && value !== null) Object.values(value).forEach(walk);
  };
  walk(record);
  return total;
}

/** SHA-256 calls of 64 bytes a block's proof needs: every branch node, plus a summary entry's own leaf. */
function hashCalls(record: AnchorRecord): number {
  if (record.kind !== 'block') return 0;
  const { proof } = record;
  switch (proof.era) {
    case 'pre-merge':
      return proof.branch.length + proof.epochBranch.length;
    case 'beacon-block':
      return proof.executionBranch.length;
    case 'historical-summaries':
      return proof.executionBranch.length + proof.blockRootsBranch.length + proof.summary.branch.length + 1;
    case 'historical-roots':
      return proof.executionBranch.length + proof.blockRootsBranch.length + proof.batch.branch.length;
  }
}

/** A verifier that has taken the head and the state line, ready for block lines. */
function readyVerifier(): AnchorProofVerifier {
  const started = AnchorProofVerifier.start(HEAD, CHECKPOINT);
  if (!started.ok) throw new Error(started.error.message);
  if (!started.value.push(STATE, 2).ok) throw new Error('the state line does not verify');
  return started.value;
}

const pair = new Uint8Array(64);
const sha256Us =
  (timeMs(
    () => {
      for (let i = 0; i < BATCH * 10; i++) sha256(pair);
    },
    15,
    3,
  ) *
    1000) /
  (BATCH * 10);

console.log('## The beacon-chain anchor (fixtures/anchor/mainnet-checkpoint-11635710.jsonl)\n');
console.log(`SHA-256 of 64 bytes (@noble/hashes): ${sha256Us.toFixed(2)} us.\n`);
console.log(
  '| record | via | line bytes | proof bytes | SHA-256 calls | verify, median us | floor us | verify / floor |',
);
console.log('|---|---|--:|--:|--:|--:|--:|--:|');
const state = readAnchorRecord(STATE, 2);
if (!state.ok) throw new Error(state.error.message);
const stateUs =
  (timeMs(
    () => {
      for (let i = 0; i < BATCH; i++) readyVerifier();
    },
    15,
    3,
  ) *
    1000) /
  BATCH;
console.log(
  `| beacon header + historical_summaries | state | ${STATE.length.toLocaleString('en')} | ${proofBytes(state.value).toLocaleString('en')} | 6 | ${stateUs.toFixed(1)} | ${(6 * sha256Us).toFixed(1)} | ${(stateUs / (6 * sha256Us)).toFixed(1)}x |`,
);
for (const [i, line] of BLOCKS.entries()) {
  const record = readAnchorRecord(line, i + 3);
  if (!record.ok || record.value.kind !== 'block') throw new Error(`line ${i + 3} is not a block`);
  const block = record.value;
  const keccakUs =
    (timeMs(
      () => {
        for (let j = 0; j < BATCH; j++) defaultKeccak256(block.header);
      },
      15,
      3,
    ) *
      1000) /
    BATCH;
  const verifier = readyVerifier();
  if (!verifier.push(line, i + 3).ok) throw new Error(`line ${i + 3} does not verify`);
  const verifyUs =
    (timeMs(
      () => {
        for (let j = 0; j < BATCH; j++) verifier.push(line, i + 3);
      },
      15,
      3,
    ) *
      1000) /
    BATCH;
  const floorUs = hashCalls(block) * sha256Us + keccakUs;
  const name = `block ${decodeHeader(block.header).number.toLocaleString('en')}`;
  console.log(
    `| ${name} | ${block.proof.era} | ${line.length.toLocaleString('en')} | ${proofBytes(block).toLocaleString('en')} | ${hashCalls(block)} | ${verifyUs.toFixed(1)} | ${floorUs.toFixed(1)} | ${(verifyUs / floorUs).toFixed(1)}x |`,
  );
}
console.log(
  "\nverify: the line read (JSON, hex) and every branch checked; floor: its SHA-256 calls and its header's Keccak alone.",
);
