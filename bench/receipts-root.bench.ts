/**
 * Receipts root + block bloom of three real blocks: this project against the usual
 * JavaScript approach, measured in the same run from the same decoded receipts.
 * Run with `npm run bench`; exits 1 when the target speed-up is not met.
 */
import { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { encode, utils } from '@ethereumjs/rlp';
import { keccak_256 } from '@noble/hashes/sha3.js';
import {
  bytesToHex,
  fastKeccak256,
  nobleKeccak256,
  receiptsCommitment,
  type Keccak256,
  type Receipt,
} from '../packages/core/src/index.js';
import { fixtureBlock, timeMsAsync } from './timing.js';

const BLOCKS = ['mainnet-15040641', 'mainnet-22869878', 'mainnet-15537394'];
const TARGET_RATIO = 10;

/**
 * The usual approach, written the way @ethereumjs/vm's block builder does it:
 * a bloom per receipt (keccak of each address and topic), the receipt RLP-encoded
 * with @ethereumjs/rlp, and one `put` per receipt into an @ethereumjs/mpt trie.
 */
async function baseline(receipts: readonly Receipt[]): Promise<{ root: Uint8Array; bloom: Uint8Array }> {
  const trie = new MerklePatriciaTrie();
  const blockBloom = new Uint8Array(256);
  for (let i = 0; i < receipts.length; i++) {
    const r = receipts[i]!;
    const bloom = new Uint8Array(256);
    for (const log of r.logs) {
      for (const item of [log.address, ...log.topics]) {
        const h = keccak_256(item);
        for (let j = 0; j < 6; j += 2) {
          const bit = ((h[j]! << 8) | h[j + 1]!) & 2047;
          bloom[255 - (bit >> 3)]! |= 1 << (bit & 7);
        }
      }
    }
    for (let j = 0; j < 256; j++) blockBloom[j]! |= bloom[j]!;
    const outcome = r.root ?? (r.status === 1 ? Uint8Array.of(1) : new Uint8Array());
    const body = encode([outcome, r.cumulativeGasUsed, bloom, r.logs.map((l) => [l.address, l.topics, l.data])]);
    await trie.put(encode(i), r.type === 0 ? body : utils.concatBytes(Uint8Array.of(r.type), body));
  }
  return { root: trie.root(), bloom: blockBloom };
}

const ours = (receipts: readonly Receipt[], keccak?: Keccak256) =>
  receiptsCommitment(receipts, keccak === undefined ? {} : { keccak });

const rows: string[] = [];
let allMet = true;
for (const name of BLOCKS) {
  // Both start from the same decoded receipts (bytes and bigints), as a block builder holds them.
  const { block, receipts } = fixtureBlock(name);
  const logCount = receipts.reduce((n, r) => n + r.logs.length, 0);
  const expected = block.header.receiptsRoot.slice(2);
  const bloom = block.header.logsBloom.slice(2);
  const check = (result: { root: Uint8Array; bloom: Uint8Array }, who: string) => {
    if (bytesToHex(result.root) !== expected || bytesToHex(result.bloom) !== bloom)
      throw new Error(`${name}: ${who} computed a wrong root or bloom`);
  };
  check(await baseline(receipts), 'baseline');
  const mine = ours(receipts);
  check({ root: mine.receiptsRoot, bloom: mine.logsBloom }, 'evm-integrity');

  const runs = logCount > 5000 ? 15 : 30;
  const tBase = await timeMsAsync(() => baseline(receipts), runs, 5);
  const tOurs = await timeMsAsync(() => ours(receipts), runs * 4, 20);
  const tJs = await timeMsAsync(() => ours(receipts, fastKeccak256), runs * 2, 10);
  const tNoble = await timeMsAsync(() => ours(receipts, nobleKeccak256), runs, 5);
  const ratio = tBase / tOurs;
  allMet &&= ratio >= TARGET_RATIO;
  rows.push(
    `| ${name} | ${receipts.length} | ${logCount} | ${tBase.toFixed(2)} | ${tOurs.toFixed(2)} | **${ratio.toFixed(1)}x** | ${tJs.toFixed(2)} (${(tBase / tJs).toFixed(1)}x) | ${tNoble.toFixed(2)} (${(tBase / tNoble).toFixed(1)}x) |`,
  );
}

console.log(`Node ${process.version}; median ms per block for receipts root + block bloom, from decoded receipts\n`);
console.log(
  '| block | receipts | logs | ethereumjs rlp + mpt | evm-integrity | speed-up | with JS keccak | with noble keccak |',
);
console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
for (const row of rows) console.log(row);
console.log(`\nTarget: at least ${TARGET_RATIO}x on each block: ${allMet ? 'met' : 'NOT met'}.`);
process.exitCode = allMet ? 0 : 1;
