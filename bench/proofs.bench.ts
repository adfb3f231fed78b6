/**
 * Receipt inclusion proofs in a block of 1,000 real receipts: their size, and the time to
 * generate and to verify one, this project against @ethereumjs/mpt on the same encoded receipts
 * in the same run. The peer hashes with hash-wasm's Keccak (WebAssembly), the fastest it can be
 * given, not its default. Both sides must give byte-equal proofs that each verifies with the other,
 * or the bench throws before it times anything. One function per figure. Targets (issue 32):
 * verifying at least 2x the peer at every depth (3, 5 and 7 nodes), generating at least 6x.
 */
import { createMerkleProof, createMPT, verifyMerkleProof, type MerklePatriciaTrie } from '@ethereumjs/mpt';
import { decode, encode } from '@ethereumjs/rlp';
import { createKeccak } from 'hash-wasm';
import { bytesEqual, receiptsCommitment, RULE_SETS, type Receipt } from '../packages/core/src/index.js';
import { receiptProof, receiptProofs, verifyReceiptProof } from '../packages/core/src/proof/index.js';
import { indexKey } from '../packages/core/src/trie/ordered-trie.js';
import { walkTrieProof } from '../packages/core/src/trie/trie-proof.js';
import { fixtureBlock, median, timeMs, timeMsAsync, timeMsInterleaved } from './timing.js';

const SOURCES = ['mainnet-22869878', 'mainnet-15040641'];
const SIZE = 1000;
const INDICES = [0, 1, 127, 128, 500, 999];
/** The index the generation times are taken at: a key of the deepest kind (rlp of a 2-byte integer). */
const TIMED_INDEX = 500;
/** Calls per sample for the operations of a few microseconds, so that a sample is well above the clock's grain. */
const BATCH = 100;
const options = { rules: RULE_SETS.ethereum };
const VERIFY_TARGET = 2;
const GENERATE_TARGET = 6;

/** hash-wasm's Keccak-256 through its synchronous API, as @ethereumjs/mpt's hash function. */
const hasher = await createKeccak(256);
const keccak = (bytes: Uint8Array): Uint8Array => hasher.init().update(bytes).digest('binary');

/** The real receipts (types 0 to 4) of SOURCES, repeated to SIZE, their cumulative gas made to add up again. */
function thousandReceipts(): Receipt[] {
  const source = SOURCES.flatMap((name) => {
    const { receipts } = fixtureBlock(name);
    return receipts.map((receipt, i) => ({
      receipt,
      gas: receipt.cumulativeGasUsed - (receipts[i - 1]?.cumulativeGasUsed ?? 0n),
    }));
  });
  let cumulative = 0n;
  return Array.from({ length: SIZE }, (_, i) => {
    const { receipt, gas } = source[i % source.length]!;
    cumulative += gas;
    return { ...receipt, cumulativeGasUsed: cumulative };
  });
}

const receipts = thousandReceipts();
const { receiptsRoot, encodedReceipts } = receiptsCommitment(receipts, options);
const keys = encodedReceipts.map((_, i) => encode(i));

/** The usual approach: one `put` of rlp(i) -> encoded receipt i into an @ethereumjs/mpt trie. */
async function ethereumjsTrie(): Promise<MerklePatriciaTrie> {
  const trie = await createMPT({ useKeyHashingFunction: keccak });
  for (let i = 0; i < SIZE; i++) await trie.put(keys[i]!, encodedReceipts[i]!);
  return trie;
}

const us = (ms: number) => (ms < 0.1 ? (ms * 1000).toFixed(1) : Math.round(ms * 1000).toLocaleString('en'));
const count = SIZE.toLocaleString('en');
const ratio = (ours: number, theirs: number) => `**${(theirs / ours).toFixed(1)}x**`;

/** Throws unless both sides prove `index` with the same nodes under the same root, and each verifies the other's. */
async function checkAgreement(trie: MerklePatriciaTrie, index: number): Promise<void> {
  const fail = (what: string) => {
    throw new Error(`index ${index}: ${what}`);
  };
  const ours = receiptProof(receipts, index, options);
  const theirs = await createMerkleProof(trie, keys[index]!);
  if (!bytesEqual(ours.receiptsRoot, trie.root())) fail('the roots differ');
  if (ours.proof.length !== theirs.length || ours.proof.some((node, k) => !bytesEqual(node, theirs[k]!)))
    fail('the proofs differ');
  const byUs = verifyReceiptProof(trie.root(), index, theirs, options);
  if (!byUs.ok || !bytesEqual(byUs.value.encoded, encodedReceipts[index]!))
    fail("evm-integrity does not verify @ethereumjs/mpt's proof");
  const byThem = await verifyMerkleProof(keys[index]!, ours.proof, {
    root: ours.receiptsRoot,
    useKeyHashingFunction: keccak,
  });
  if (byThem === null || !bytesEqual(byThem, encodedReceipts[index]!))
    fail("@ethereumjs/mpt does not verify evm-integrity's proof");
}

/** Nodes and bytes of the proof of each of INDICES, and the smallest, median and largest. */
function proofSizes(): void {
  const sizes = INDICES.map((index) => {
    const { proof } = receiptProof(receipts, index, options);
    return { index, nodes: proof.length, bytes: proof.reduce((n, node) => n + node.length, 0) };
  });
  console.log('| index | nodes | bytes |');
  console.log('|--:|--:|--:|');
  for (const { index, nodes, bytes } of sizes) console.log(`| ${index} | ${nodes} | ${bytes.toLocaleString('en')} |`);
  const bytes = sizes.map((s) => s.bytes);
  console.log(
    `\nBytes: min ${Math.min(...bytes)}, median ${median(bytes)}, max ${Math.max(...bytes)}; the encoded receipts: ${encodedReceipts.reduce((n, r) => n + r.length, 0).toLocaleString('en')} bytes.\n`,
  );
}

/** The time to generate one proof: ours builds the whole trie each call; theirs from the receipts and from a built trie. */
async function generationTimes(trie: MerklePatriciaTrie): Promise<void> {
  const key = keys[TIMED_INDEX]!;
  // Taken in turn, so that a busy machine slows both alike: the verdict line rests on this ratio.
  const [ours, buildAndProve] = (await timeMsInterleaved(
    [() => receiptProof(receipts, TIMED_INDEX, options), async () => createMerkleProof(await ethereumjsTrie(), key)],
    15,
    5,
  )) as [number, number];
  const build = await timeMsAsync(() => ethereumjsTrie(), 15, 5);
  const batch = async () => {
    for (let k = 0; k < BATCH; k++) await createMerkleProof(trie, key);
  };
  const prove = (await timeMsAsync(batch, 20, 5)) / BATCH;
  console.log(`| generation (index ${TIMED_INDEX}), median us | evm-integrity | @ethereumjs/mpt | speed-up |`);
  console.log('|---|--:|--:|--:|');
  console.log(`| build the trie of ${count} encoded receipts | | ${us(build)} | |`);
  console.log(`| one proof, from the receipts | ${us(ours)} | ${us(buildAndProve)} | ${ratio(ours, buildAndProve)} |`);
  generated = buildAndProve / ours;
  console.log(`| one more proof, from the built trie | (no built trie) | ${us(prove)} | |`);
  const allOurs = timeMs(() => receiptProofs(receipts, undefined, options), 20, 5);
  const allTheirs = await timeMsAsync(
    async () => {
      const built = await ethereumjsTrie();
      for (const k of keys) await createMerkleProof(built, k);
    },
    5,
    2,
  );
  console.log(
    `| every proof of the block (receiptProofs; a build, then ${count} proofs) | ${us(allOurs)} | ${us(allTheirs)} | ${ratio(allOurs, allTheirs)} |\n`,
  );
}

/** The speed-up of generating one proof from the receipts, for the verdict line. */
let generated = 0;

/**
 * The peer's whole job of a receipt proof, as verifyReceiptProof does it: the proven bytes from
 * @ethereumjs/mpt, then the receipt decoded by @ethereumjs/rlp and its bloom computed from its logs
 * (hash-wasm) and compared with the one it carries. Throws where ours would refuse.
 */
async function peerVerify(index: number, proof: Uint8Array[]): Promise<unknown> {
  const value = await verifyMerkleProof(keys[index]!, proof, { root: receiptsRoot, useKeyHashingFunction: keccak });
  if (value === null) throw new Error('no receipt');
  const [, , bloom, logs] = decode(value[0]! < 0x80 ? value.subarray(1) : value) as [
    Uint8Array,
    Uint8Array,
    Uint8Array,
    [Uint8Array, Uint8Array[], Uint8Array][],
  ];
  const computed = new Uint8Array(256);
  for (const [address, topics] of logs) {
    for (const item of [address, ...topics]) {
      const digest = keccak(item);
      for (let j = 0; j < 6; j += 2) {
        const bit = ((digest[j]! << 8) | digest[j + 1]!) & 2047;
        computed[255 - (bit >> 3)]! |= 1 << (bit & 7);
      }
    }
  }
  if (!bytesEqual(computed, bloom)) throw new Error('the bloom is not its logs’');
  return logs;
}

/**
 * The time to verify the proof of each of INDICES against the root, two ways: the whole job (ours:
 * verifyReceiptProof; the peer: peerVerify), and the walk alone (ours: walkTrieProof; the peer:
 * verifyMerkleProof), where each side returns the proven bytes. Then the verdict at each depth,
 * on the whole job, at its slowest index.
 */
async function verificationTimes(): Promise<void> {
  console.log(
    '| verification, median us | nodes | logs | evm-integrity | @ethereumjs/mpt + rlp + bloom | speed-up | walk only: evm-integrity | @ethereumjs/mpt | speed-up |',
  );
  console.log('|---|--:|--:|--:|--:|--:|--:|--:|--:|');
  const worst = new Map<number, number>();
  for (const index of INDICES) {
    const { proof } = receiptProof(receipts, index, options);
    const key = indexKey(index);
    const [ours, theirs, oursWalk, theirsWalk] = (await timeMsInterleaved(
      [
        () => {
          for (let k = 0; k < BATCH; k++) verifyReceiptProof(receiptsRoot, index, proof, options);
        },
        async () => {
          for (let k = 0; k < BATCH; k++) await peerVerify(index, proof);
        },
        () => {
          for (let k = 0; k < BATCH; k++) walkTrieProof(receiptsRoot, key, proof);
        },
        async () => {
          for (let k = 0; k < BATCH; k++)
            await verifyMerkleProof(keys[index]!, proof, { root: receiptsRoot, useKeyHashingFunction: keccak });
        },
      ],
      30,
      10,
    )) as [number, number, number, number];
    worst.set(proof.length, Math.min(worst.get(proof.length) ?? Infinity, theirs / ours));
    console.log(
      `| index ${index} | ${proof.length} | ${receipts[index]!.logs.length} | ${us(ours / BATCH)} | ${us(theirs / BATCH)} | ${ratio(ours, theirs)} | ${us(oursWalk / BATCH)} | ${us(theirsWalk / BATCH)} | ${ratio(oursWalk, theirsWalk)} |`,
    );
  }
  console.log(
    "\nThe whole job: evm-integrity's verifyReceiptProof walks the proof, decodes the receipt and checks that it encodes back to the proven bytes (its bloom recomputed from its logs); the peer walks it with @ethereumjs/mpt, decodes the receipt with @ethereumjs/rlp and compares its bloom with one computed from its logs. The walk alone: each side returns the proven bytes. Both sides take the proof as bytes.\n",
  );
  for (const [nodes, speedUp] of worst)
    console.log(
      `Target: verifying a ${nodes}-node proof at least ${VERIFY_TARGET}x @ethereumjs/mpt (the whole job, slowest index): ${speedUp >= VERIFY_TARGET ? 'met' : 'NOT met'} (${speedUp.toFixed(1)}x).`,
    );
  console.log(
    `Target: generating one proof at least ${GENERATE_TARGET}x @ethereumjs/mpt: ${generated >= GENERATE_TARGET ? 'met' : 'NOT met'} (${generated.toFixed(1)}x).`,
  );
}

const trie = await ethereumjsTrie();
for (const index of INDICES) await checkAgreement(trie, index);
console.log(
  `Node ${process.version}; receipt inclusion proofs in a block of ${count} real receipts (${SOURCES.join(' and ')} repeated), Ethereum's rules; @ethereumjs/mpt hashes with hash-wasm's Keccak; the two sides' proofs are byte-equal and each verifies the other's\n`,
);
proofSizes();
await generationTimes(trie);
await verificationTimes();
