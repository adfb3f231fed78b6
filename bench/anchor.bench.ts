/**
 * The beacon-chain anchor on the real mainnet anchor proof file: each record's size (the line, and
 * the proof's own bytes the hex doubles), and the time to verify one block from the checkpoint,
 * against its floor: the SHA-256 compressions its branches need, plus the Keccak of its header.
 */
import { readFileSync } from 'node:fs';
import { sha256 } from '@noble/hashes/sha2.js';
import { bls12_381 } from '@noble/curves/bls12-381.js';
import {
  AnchorProofVerifier,
  applyUpdate,
  decodeBootstrap,
  decodeUpdate,
  MAINNET,
  readAnchorRecord,
  verifyBootstrap,
  verifyUpdate,
  MIN_FINALITY_PARTICIPANTS,
  type AnchorRecord,
  type LightClientState,
  type LightClientUpdate,
} from '../packages/core/src/anchor/index.js';
import { decodeHeader, defaultKeccak256, hexToBytes } from '../packages/core/src/index.js';
import { median, timeMs } from './timing.js';

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

// Light-client steps: the real updates of periods 1421 (Deneb) and 1422 (Electra) from checkpoint 0xd9717ecc….
const LC_TEXT = readFileSync('fixtures/anchor/mainnet-light-client-1421-1422.jsonl', 'utf8');
const LC_CHECKPOINT = hexToBytes('0xd9717ecc253684291f828688f311ba74d05af74c31654f6e14077669fca62f6a');
const [, BOOTSTRAP_LINE, UPDATE_LINE] = LC_TEXT.trimEnd().split('\n') as [string, string, string, string];
const lcRecord = (line: string) => {
  const record = readAnchorRecord(line, 2);
  if (!record.ok || (record.value.kind !== 'bootstrap' && record.value.kind !== 'update'))
    throw new Error('not a light-client line');
  return record.value;
};
const bootstrap = decodeBootstrap('deneb', lcRecord(BOOTSTRAP_LINE).ssz);
const update = decodeUpdate('deneb', lcRecord(UPDATE_LINE).ssz);
if (!bootstrap.ok || !update.ok) throw new Error('the light-client fixtures do not decode');
const BOOTSTRAP = bootstrap.value;

/** A fresh light-client state from the bootstrap: its committee's keys not decoded yet. */
function freshState() {
  const state = verifyBootstrap(MAINNET, LC_CHECKPOINT, BOOTSTRAP);
  if (!state.ok) throw new Error(state.error.message);
  return state.value;
}

/** Whether member `i`'s participation bit is set. */
const signed = (bits: Uint8Array, i: number) => ((bits[i >> 3]! >> (i & 7)) & 1) === 1;
const REAL = update.value;
const absent = [...Array(512).keys()].filter((i) => !signed(REAL.syncAggregate.bits, i));

/** Update 1421 with only its first 342 signers' bits left: the most non-signers (170) a quorum allows. */
const fewest: LightClientUpdate = (() => {
  const bits = REAL.syncAggregate.bits.slice();
  let kept = 0;
  for (let i = 0; i < 512; i++)
    if (signed(bits, i) && ++kept > MIN_FINALITY_PARTICIPANTS) bits[i >> 3]! &= ~(1 << (i & 7));
  return { ...REAL, syncAggregate: { ...REAL.syncAggregate, bits } };
})();
const fewestAbsent = [...Array(512).keys()].filter((i) => !signed(fewest.syncAggregate.bits, i));

/** Median milliseconds of `runs` calls of `fn` on a fresh state each (made untimed), after one call. */
function onFreshStateMs(fn: (state: LightClientState) => unknown, runs: number): number {
  fn(freshState());
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const state = freshState();
    const start = performance.now();
    fn(state);
    samples.push(performance.now() - start);
  }
  return median(samples);
}

const bootstrapMs = timeMs(freshState, 5, 1);
const coldMs = onFreshStateMs((state) => applyUpdate(MAINNET, state, REAL), 7);
const warmState = freshState();
if (!applyUpdate(MAINNET, warmState, REAL).ok) throw new Error('update 1421 does not verify');
const warmMs = timeMs(() => verifyUpdate(MAINNET, warmState, REAL), 5, 1);
// Refused at the signature (its bits changed), after all the work a valid one of 342 signers costs.
if (verifyUpdate(MAINNET, freshState(), fewest).ok) throw new Error('changed bits verified');
const worstMs = onFreshStateMs((state) => verifyUpdate(MAINNET, state, fewest), 3);

// The floor: @noble/curves alone, doing what each row's BLS needs: the keys it decodes (the committee's aggregate
// and the non-signers'), decoding the signature, hashing the signing root to G2, and one pairing check of the
// participants' sum.
const committee = BOOTSTRAP.currentSyncCommittee;
const decodeMs = (indexes: readonly number[]) =>
  timeMs(
    () => [
      bls12_381.G1.Point.fromBytes(committee.aggregatePubkey),
      ...indexes.map((i) => bls12_381.G1.Point.fromBytes(committee.pubkeys[i]!)),
    ],
    3,
    1,
  );
const allKeysMs = timeMs(() => committee.pubkeys.map((key) => bls12_381.G1.Point.fromBytes(key)), 3, 1);
const participants = absent.reduce(
  (sum, i) => sum.subtract(bls12_381.G1.Point.fromBytes(committee.pubkeys[i]!)),
  bls12_381.G1.Point.fromBytes(committee.aggregatePubkey),
);
const signature = bls12_381.longSignatures.Signature.fromBytes(REAL.syncAggregate.signature);
const message = bls12_381.longSignatures.hash(new Uint8Array(32), 'BLS_SIG_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_');
const pairingMs = timeMs(() => bls12_381.longSignatures.verify(signature, message, participants), 5, 1);
const hashToCurveMs = timeMs(
  () => bls12_381.longSignatures.hash(new Uint8Array(32), 'BLS_SIG_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_'),
  5,
  1,
);
const signatureDecodeMs = timeMs(
  () => bls12_381.longSignatures.Signature.fromBytes(REAL.syncAggregate.signature),
  5,
  1,
);
const coldDecodeMs = decodeMs(absent);
const worstDecodeMs = decodeMs(fewestAbsent);
const signatureMs = signatureDecodeMs + hashToCurveMs + pairingMs;

console.log('\n### Light-client steps (mainnet, update of period 1421 from the bootstrap of 0xd9717ecc…)\n');
console.log(
  `Bootstrap + update 1421 as file lines: ${(BOOTSTRAP_LINE.length + UPDATE_LINE.length).toLocaleString('en')} bytes; as SSZ: ${(lcRecord(BOOTSTRAP_LINE).ssz.length + lcRecord(UPDATE_LINE).ssz.length).toLocaleString('en')} bytes (a period crossed: ${lcRecord(UPDATE_LINE).ssz.length.toLocaleString('en')} bytes of update).\n`,
);
console.log('| step | keys decoded | median ms | floor (@noble/curves alone) ms | ratio |');
console.log('|---|--:|--:|--:|--:|');
console.log(`| verify the bootstrap (branches, no BLS) | 0 | ${bootstrapMs.toFixed(1)} | | |`);
const row = (step: string, keys: number, ms: number, floorMs: number) =>
  console.log(`| ${step} | ${keys} | ${ms.toFixed(0)} | ${floorMs.toFixed(0)} | ${(ms / floorMs).toFixed(2)}x |`);
row(
  `an update, its committee new (${512 - absent.length} signers)`,
  1 + absent.length,
  coldMs,
  coldDecodeMs + signatureMs,
);
row('the next update of the committee (its keys kept)', 0, warmMs, signatureMs);
row(
  `an update of ${MIN_FINALITY_PARTICIPANTS} signers, its committee new (the most keys a quorum leaves to decode)`,
  1 + fewestAbsent.length,
  worstMs,
  worstDecodeMs + signatureMs,
);
console.log(
  `\nAn update's participants' key sum is the committee's aggregate key less the non-signers' keys: the keys decoded are those (each kept for the committee's next updates). floor: decoding them (${coldDecodeMs.toFixed(1)} ms for update 1421, ${worstDecodeMs.toFixed(0)} ms for 171), decoding the signature (${signatureDecodeMs.toFixed(0)} ms), hashing the signing root to G2 (${hashToCurveMs.toFixed(0)} ms), one pairing check (${pairingMs.toFixed(0)} ms). Decoding all 512 keys, as summing the participants one by one would need, takes ${allKeysMs.toFixed(0)} ms.`,
);
