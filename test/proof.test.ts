/**
 * Receipt and log inclusion proofs (evm-integrity/proof) on every real fixture block, against the
 * independent oracle @ethereumjs/mpt: our proofs verify with its verifyMerkleProof, and its
 * createMerkleProof's proofs verify with ours, for every index (a spread sample of a large block's, every one under
 * FULL=1), every receipt type and rule set.
 */
import { createMerkleProof, createMPT, MerklePatriciaTrie, verifyMerkleProof } from '@ethereumjs/mpt';
import { decode, encode, type NestedUint8Array } from '@ethereumjs/rlp';
import { describe, expect, it } from 'vitest';
import {
  bytesEqual,
  bytesToHex,
  defaultKeccak256 as keccak,
  defaultRegistry,
  encodeReceipt,
  Problems,
  readRpcBlock,
  receiptsCommitment,
  RULE_SET_NAMES,
  RULE_SETS,
  type Receipt,
  type RpcBlock,
  type RuleSet,
} from '../packages/core/src/index.js';
import {
  logProof,
  receiptProof,
  receiptProofs,
  verifyLogProof,
  verifyReceiptProof,
  decodeReceipt,
} from '../packages/core/src/proof/index.js';
import { orderedTrieProofs } from '../packages/core/src/trie/ordered-trie.js';
import { walkTrieProof } from '../packages/core/src/trie/trie-proof.js';
import { fixtureNames, loadFixture } from './helpers/fixtures.js';
import { sampledIndexes } from './helpers/runs.js';

function readBlock(name: string): RpcBlock {
  const problems = new Problems();
  const block = readRpcBlock(loadFixture(name), problems);
  expect(problems.list).toEqual([]);
  return block!;
}

/** The fixture's rule set, as test/fixtures.test.ts chooses it: its era's, Ethereum's for t8n outputs. */
function rulesOf(block: RpcBlock) {
  const era =
    block.chainId === null ? undefined : defaultRegistry.verifiability(block.chainId, block.header.fields.number);
  return era?.status === 'verifiable' ? era.rules : RULE_SETS.ethereum;
}

const seenTypes = new Set<string>();
/** The fixtures whose logs were proven. */
const logProofBlocks = new Set<string>();

/**
 * For each index of `indexes` (all of them by default): our proof is @ethereumjs/mpt's node for node, ours verifies with
 * its verifyMerkleProof, its createMerkleProof's verifies with ours and gives the receipt back.
 */
async function againstOracle(
  receipts: Receipt[],
  rules: RuleSet,
  encodedReceipts: Uint8Array[],
  receiptsRoot: Uint8Array,
  indexes: readonly number[] = [...receipts.keys()],
): Promise<void> {
  const trie = new MerklePatriciaTrie();
  for (let i = 0; i < encodedReceipts.length; i++) await trie.put(encode(i), encodedReceipts[i]!);
  expect(bytesToHex(trie.root())).toBe(bytesToHex(receiptsRoot));
  // Every proof from one build; receiptProof, one at a time, must give the same at the ends and middle.
  const all = receiptProofs(receipts, undefined, { rules });
  expect(all).toHaveLength(receipts.length);
  for (const i of new Set([0, receipts.length >> 1, receipts.length - 1]))
    if (i >= 0 && i < receipts.length) expect(receiptProof(receipts, i, { rules })).toEqual(all[i]);
  for (const i of indexes) {
    const ours = all[i]!;
    expect(ours.index).toBe(i);
    expect(ours.receiptsRoot).toEqual(receiptsRoot);
    const theirs = await createMerkleProof(trie, encode(i));
    expect(ours.proof.map(bytesToHex)).toEqual(theirs.map(bytesToHex));
    expect(await verifyMerkleProof(encode(i), ours.proof, { root: receiptsRoot })).toEqual(encodedReceipts[i]);
    const proven = verifyReceiptProof(receiptsRoot, i, theirs, { rules });
    if (!proven.ok) throw new Error(proven.error.message);
    expect(proven.value.encoded).toEqual(encodedReceipts[i]);
    expect(encodeReceipt(proven.value.receipt, { rules })).toEqual(encodedReceipts[i]);
    // Arbitrum's 0x78 is hashed untyped: it reads back as type 0, every other type as itself.
    const { type } = receipts[i]!;
    expect(proven.value.receipt).toEqual({ ...receipts[i], type: rules.layouts.get(type) === 'untyped' ? 0 : type });
    seenTypes.add(`${rules.name}:${type}`);
  }
}

describe.each(fixtureNames)('%s', (name) => {
  const block = readBlock(name);
  const rules = rulesOf(block);
  const { receiptsRoot, encodedReceipts } = receiptsCommitment(block.receipts, { rules });
  // A large block's indexes are sampled (every one under FULL=1), the first of each type among them.
  const firstOfType = new Map(block.receipts.map((r, i) => [r.type, i] as const).reverse());
  const indexes = sampledIndexes(block.receipts.length, firstOfType.values());
  const which =
    indexes.length === block.receipts.length ? 'every index' : `${indexes.length} of ${block.receipts.length} indexes`;

  it(`${which}: our proof equals @ethereumjs/mpt’s, each verifies with the other, and gives the receipt back`, async () => {
    await againstOracle(block.receipts, rules, encodedReceipts, receiptsRoot, indexes);
  }, 60_000);

  /** The block's first, middle and last logs, as (transaction, position) pairs: a log proof costs a whole commitment. */
  const logs = block.receipts.flatMap((r, tx) => r.logs.map((_, position) => [tx, position] as const));
  const sample = [...new Set([0, Math.floor(logs.length / 2), logs.length - 1])]
    .map((i) => logs[i])
    .filter((pair) => pair !== undefined);

  // A log proof needs the block hash (the t8n outputs have none) and a log.
  if (block.header.complete !== undefined && loadFixture(name).header_hash_recomputable && sample.length > 0)
    it('its first, middle and last logs: each log proof verifies against the block hash, and not against another', () => {
      const header = block.header.complete!;
      const options = { rules, layout: block.header.layout };
      const blockHash = block.header.hash!;
      logProofBlocks.add(name);
      for (const [tx, position] of sample) {
        const proof = logProof(header, block.receipts, tx, position, options);
        const proven = verifyLogProof(blockHash, proof, options);
        if (!proven.ok) throw new Error(proven.error.message);
        expect(proven.value).toMatchObject({
          log: block.receipts[tx]!.logs[position],
          transactionIndex: tx,
          logIndex: position,
        });
        expect(proven.value.header.receiptsRoot).toEqual(receiptsRoot);
        const otherHash = blockHash.slice();
        otherHash[0]! ^= 1;
        expect(verifyLogProof(otherHash, proof, options)).toMatchObject({
          ok: false,
          error: { reason: 'block-hash-mismatch' },
        });
      }
    });
});

describe('every rule set, every type it knows', () => {
  const log = {
    address: new Uint8Array(20).fill(0x11),
    topics: [new Uint8Array(32).fill(0x22)],
    data: Uint8Array.of(1, 2),
  };
  it.each(RULE_SET_NAMES)('%s: a block with a receipt of each type, against @ethereumjs/mpt', async (name) => {
    const rules = RULE_SETS[name];
    const receipts: Receipt[] = [...rules.layouts].map(([type, layout], i) => ({
      type,
      status: 1,
      cumulativeGasUsed: BigInt(21_000 * (i + 1)),
      logs: i % 2 === 0 ? [log] : [],
      ...(layout === 'op-deposit' && { depositNonce: 7n, depositReceiptVersion: 1n }),
    }));
    const { receiptsRoot, encodedReceipts } = receiptsCommitment(receipts, { rules });
    await againstOracle(receipts, rules, encodedReceipts, receiptsRoot);
  });
});

describe('the real fixtures cover', () => {
  it('the rule sets whose real blocks hold receipts, and their types (scroll’s only fixture, its genesis, has none); log proofs on 35 blocks', () => {
    const real = [...seenTypes].filter((t) => !t.startsWith('scroll'));
    for (const type of [
      'ethereum:0',
      'ethereum:1',
      'ethereum:2',
      'ethereum:3',
      'ethereum:4',
      'optimism:126',
      'optimism:2',
      'arbitrum:106',
      'polygon:0',
    ])
      expect(real, type).toContain(type);
  });
});

/**
 * `nodes` (a proof, root first) with node `at` replaced by `node`, or, when `embed`, dropped and
 * held inline by its parent instead of its hash; every parent's reference is rehashed up to a new
 * root, so the proof is consistent and only the changed shape can be refused.
 */
function rechain(nodes: readonly Uint8Array[], at: number, node: Uint8Array, embed = false) {
  const proof = nodes.slice();
  let old = keccak(nodes[at]!);
  let reference: Uint8Array | NestedUint8Array = embed ? decode(node) : keccak(node);
  if (embed) proof.splice(at, 1);
  else proof[at] = node;
  for (let j = at - 1; j >= 0; j--) {
    const items = decode(proof[j]) as (Uint8Array | NestedUint8Array)[];
    const k = items.findIndex((item) => item instanceof Uint8Array && bytesEqual(item, old));
    expect(k).toBeGreaterThanOrEqual(0);
    items[k] = reference;
    old = keccak(proof[j]!);
    proof[j] = encode(items);
    reference = keccak(proof[j]!);
  }
  return { root: keccak(proof[0]!), proof };
}

/** An empty list inside `depth` lists, built without recursion (the RLP encoder recurses). */
function nestedList(depth: number): Uint8Array {
  const headers: number[][] = [];
  let length = 1;
  for (let level = 1; level < depth; level++) {
    const header =
      length < 56 ? [0xc0 + length] : [0xf7 + Math.ceil(length.toString(16).length / 2), ...bigEndian(length)];
    headers.push(header);
    length += header.length;
  }
  return Uint8Array.from([...headers.reverse().flat(), 0xc0]);
}
const bigEndian = (n: number) => {
  const hex = n.toString(16);
  return Uint8Array.from(Buffer.from(hex.length % 2 ? '0' + hex : hex, 'hex'));
};

describe('refusals', () => {
  const block = readBlock('mainnet-15040641');
  const header = block.header.complete!;
  const blockHash = block.header.hash!;
  const tx = block.receipts.findIndex((r) => r.logs.length > 0);
  const proof = logProof(header, block.receipts, tx, 0);
  const nodes = proof.receiptProof.proof;

  it('a proof cut short names the missing node; one with a node too many names it', () => {
    const short = verifyReceiptProof(header.receiptsRoot, tx, nodes.slice(0, -1));
    expect(short).toMatchObject({ ok: false, error: { reason: 'missing-node', node: nodes.length - 1 } });
    const long = verifyReceiptProof(header.receiptsRoot, tx, [...nodes, nodes[0]!]);
    expect(long).toMatchObject({ ok: false, error: { reason: 'extra-node', node: nodes.length } });
  });

  it('a node replaced by one that hashes right but is not RLP, or no trie node, is named', () => {
    // Under a made-up root, node 0 is checked for its hash first, then for what it is.
    const keccak = (bytes: Uint8Array) => bytes.slice(0, 32);
    const notRlp = new Uint8Array(40).fill(0xff);
    expect(verifyReceiptProof(notRlp.slice(0, 32), tx, [notRlp], { keccak })).toMatchObject({
      ok: false,
      error: { reason: 'bad-rlp', node: 0 },
    });
    const threeItems = encode([new Uint8Array(32), new Uint8Array(32), new Uint8Array(32)]);
    expect(verifyReceiptProof(threeItems.slice(0, 32), tx, [threeItems], { keccak })).toMatchObject({
      ok: false,
      error: { reason: 'bad-node', node: 0 },
    });
  });

  it('a leaf path whose hex-prefix padding nibble is not 0 is refused as no trie node, named', () => {
    // Find a receipt whose leaf path has an even nibble count (first byte 0x20), then pad it with 1.
    const all = receiptProofs(block.receipts);
    const even = all.find((p) => (decode(p.proof.at(-1)) as Uint8Array[])[0]![0] === 0x20)!;
    const [path, value] = decode(even.proof.at(-1)) as Uint8Array[];
    const padded = path!.slice();
    padded[0] = 0x21;
    const last = even.proof.length - 1;
    const { root, proof: altered } = rechain(even.proof, last, encode([padded, value!]));
    const verdict = verifyReceiptProof(root, even.index, altered);
    expect(verdict).toMatchObject({ ok: false, error: { reason: 'bad-node', node: last } });
    if (!verdict.ok) expect(verdict.error.message).toMatch(/padding nibble 1, not 0/);
  });

  it('an extension path whose padding nibble is not 0 is refused; the genuine one passes (@ethereumjs/mpt)', async () => {
    const trie = await createMPT();
    const keys = [Uint8Array.of(0x12, 0x34, 0xaa), Uint8Array.of(0x12, 0x34, 0xbb)];
    for (const key of keys) await trie.put(key, new Uint8Array(40).fill(key[2]!));
    const nodes = await createMerkleProof(trie, keys[0]!);
    const [path, child] = decode(nodes[0]) as Uint8Array[];
    expect(path).toEqual(Uint8Array.of(0x00, 0x12, 0x34)); // an extension of 4 nibbles
    expect(walkTrieProof(trie.root(), keys[0]!, nodes).ok).toBe(true);
    for (const low of [0x01, 0x0f]) {
      const changed = encode([Uint8Array.of(low, 0x12, 0x34), child!]);
      expect(walkTrieProof(keccak(changed), keys[0]!, [changed, ...nodes.slice(1)])).toMatchObject({
        ok: false,
        error: { reason: 'bad-node', node: 0 },
      });
    }
  });

  it('a leaf of 32 bytes or more embedded in its parent instead of its hash is refused, naming the parent', () => {
    const last = nodes.length - 1;
    const { root, proof: altered } = rechain(nodes, last, nodes[last]!, true);
    const verdict = verifyReceiptProof(root, tx, altered);
    expect(verdict).toMatchObject({ ok: false, error: { reason: 'bad-node', node: last - 1 } });
    if (!verdict.ok) expect(verdict.error.message).toMatch(/embeds a node of \d+ bytes, not under 32/);
  });

  it('a node nested 20,000 lists deep, or a receipt whose logs nest 100,000 deep, is refused by name', () => {
    const deep = nestedList(20_000);
    const verdict = verifyReceiptProof(keccak(deep), tx, [deep]);
    expect(verdict).toMatchObject({ ok: false, error: { reason: 'bad-rlp', node: 0 } });
    if (!verdict.ok) expect(verdict.error.message).toMatch(/nests deeper than 32 levels/);
    const bloom = [0xb9, 0x01, 0x00, ...new Array<number>(256).fill(0)];
    const body = [0x01, 0x01, ...bloom, ...nestedList(100_000)];
    const receipt = Uint8Array.from([0xfa, ...bigEndian(body.length), ...body]);
    const { root, proofs } = orderedTrieProofs([receipt], [0]);
    const read = verifyReceiptProof(root, 0, proofs[0]!);
    expect(read).toMatchObject({ ok: false, error: { reason: 'receipt-invalid', node: 0 } });
    if (!read.ok) expect(read.error.message).toMatch(/nests deeper than 32 levels/);
    // A header nested so deep, hashed as the block hash, is no header: named, no stack overflow.
    const header = nestedList(20_000);
    const bound = verifyLogProof(keccak(header), { ...proof, headerRlp: header });
    expect(bound).toMatchObject({ ok: false, error: { reason: 'header-invalid' } });
    if (!bound.ok) expect(bound.error.message).toMatch(/nests deeper than 32 levels/);
  });

  it('the proof of another index is refused saying which index its nodes prove (was: only a node whose hash did not match: a user check)', () => {
    const count = block.receipts.length; // 307
    const all = receiptProofs(block.receipts, [0, 1, 127, 128, 129, count - 1]);
    for (const proven of all)
      for (const asked of [0, 1, 127, 128, 129, count - 1, count + 5]) {
        const verdict = verifyReceiptProof(header.receiptsRoot, asked, proven.proof);
        if (asked === proven.index) {
          expect(verdict.ok).toBe(true);
          continue;
        }
        expect(verdict.ok, `${proven.index} as ${asked}`).toBe(false);
        if (!verdict.ok)
          expect(verdict.error.message, `${proven.index} as ${asked}`).toContain(
            ` Its nodes link as the proof of index ${proven.index}, not of index ${asked} (index).`,
          );
      }
    // Another block's proof of index 3, asked for 5 under this root: its nodes prove index 3 of that block only, so
    // nothing is said of an index (was: "… as the proof of index 3", which then failed as 3: a user re-check).
    const other = readBlock('mainnet-15573637');
    const foreign = receiptProof(other.receipts, 3).proof;
    const misled = verifyReceiptProof(header.receiptsRoot, 5, foreign);
    expect(misled).toMatchObject({ ok: false, error: { reason: 'hash-mismatch', node: 0 } });
    expect(misled.ok ? '' : misled.error.message).toBe('Proof node 0: its hash is not the root.');
    // A node altered: the nodes link as no proof, and the refusal says nothing of another index.
    const altered = nodes.map((node, i) =>
      i === nodes.length - 1 ? Uint8Array.from(node, (b, j) => (j === 40 ? b ^ 1 : b)) : node,
    );
    const refused = verifyReceiptProof(header.receiptsRoot, tx, altered);
    expect(refused.ok ? '' : refused.error.message).not.toContain('Its nodes link');
  });

  it('an index absent from the block is refused: on the path where its slot is empty, else at the node it needs', () => {
    // Three receipts: keys 0x80, 0x01, 0x02, so the root branch's slot 2 (key 0x20, index 32) is empty.
    const small = receiptProof(block.receipts.slice(0, 3), 1);
    expect(verifyReceiptProof(small.receiptsRoot, 32, small.proof.slice(0, 1))).toMatchObject({
      ok: false,
      error: { reason: 'path-mismatch', node: 0 },
    });
    const absent = verifyReceiptProof(header.receiptsRoot, block.receipts.length + 5, nodes);
    expect(absent.ok).toBe(false);
  });

  it('a receipt read under rules that do not know its type is refused as no receipt of them', () => {
    const op = readBlock('op-mainnet-154497277');
    const deposit = op.receipts.findIndex((r) => r.type === 0x7e);
    const { receiptsRoot, proof: opNodes } = receiptProof(op.receipts, deposit, { rules: RULE_SETS.optimism });
    const verdict = verifyReceiptProof(receiptsRoot, deposit, opNodes, { rules: RULE_SETS.ethereum });
    expect(verdict).toMatchObject({ ok: false, error: { reason: 'receipt-invalid', node: opNodes.length - 1 } });
    if (!verdict.ok) expect(verdict.error.message).toMatch(/type 126 is not known to the ethereum rule set/);
  });

  it('a log position past the receipt’s logs, a header not the block’s, a root not the header’s are refused', () => {
    const count = block.receipts[tx]!.logs.length;
    expect(verifyLogProof(blockHash, { ...proof, logIndex: count })).toMatchObject({
      ok: false,
      error: { reason: 'log-absent' },
    });
    const changedHeader = proof.headerRlp.slice();
    changedHeader[changedHeader.length - 1]! ^= 1;
    expect(verifyLogProof(blockHash, { ...proof, headerRlp: changedHeader })).toMatchObject({
      ok: false,
      error: { reason: 'block-hash-mismatch' },
    });
    const otherRoot = { ...proof.receiptProof, receiptsRoot: new Uint8Array(32) };
    expect(verifyLogProof(blockHash, { ...proof, receiptProof: otherRoot })).toMatchObject({
      ok: false,
      error: { reason: 'root-mismatch' },
    });
  });

  it('verifyLogProof: a logIndex that is no position (-1, 0.5, NaN) is a RangeError naming it, as verifyReceiptProof’s index', () => {
    for (const logIndex of [-1, 0.5, Number.NaN])
      expect(() => verifyLogProof(blockHash, { ...proof, logIndex })).toThrow(
        new RangeError(`logIndex must be a non-negative integer, got ${logIndex}.`),
      );
    expect(() => verifyReceiptProof(header.receiptsRoot, -1, proof.receiptProof.proof)).toThrow(
      new RangeError('index must be a non-negative integer, got -1.'),
    );
  });

  it('a position of another type is named by its type, and one beyond 2^53 - 1 as not safe (both read "got 4": a user re-check)', () => {
    const cases: Array<[unknown, string]> = [
      ['4', 'must be a non-negative integer (a number), got the string "4".'],
      [4n, 'must be a non-negative integer (a number), got the bigint 4n.'],
      [null, 'must be a non-negative integer (a number), got null.'],
      [2 ** 53, 'must be a non-negative safe integer (at most 2^53 - 1), got 9007199254740992.'],
    ];
    for (const [logIndex, says] of cases) {
      expect(() => verifyLogProof(blockHash, { ...proof, logIndex: logIndex as number })).toThrow(
        new RangeError(`logIndex ${says}`),
      );
      expect(() => verifyReceiptProof(header.receiptsRoot, logIndex as number, proof.receiptProof.proof)).toThrow(
        new RangeError(`index ${says}`),
      );
    }
  });

  it('logProof refuses receipts that are not the header’s, and positions that are not there', () => {
    expect(() => logProof(header, block.receipts.slice(1), tx, 0)).toThrow(/not the header's receiptsRoot/);
    expect(() => logProof(header, block.receipts, block.receipts.length, 0)).toThrow(RangeError);
    expect(() => logProof(header, block.receipts, tx, block.receipts[tx]!.logs.length)).toThrow(RangeError);
    expect(() => receiptProof(block.receipts, -1)).toThrow(RangeError);
    expect(() => receiptProof(block.receipts, block.receipts.length)).toThrow(
      new RangeError(
        `index must be a position of the ${block.receipts.length} values (0 to ${block.receipts.length - 1}), got ${block.receipts.length}.`,
      ),
    );
    // Was "(0 to -1)": a user check.
    expect(() => receiptProof([], 0)).toThrow(
      new RangeError('index must be a position of the values, and there are none: no proof of an empty trie, got 0.'),
    );
  });

  it('decodeReceipt refuses bytes that are no canonical receipt', () => {
    const encoded = encodeReceipt(block.receipts[tx]!);
    expect(decodeReceipt(encoded)).toEqual(block.receipts[tx]);
    const badBloom = encoded.slice();
    badBloom[20]! ^= 1; // inside the 256-byte bloom of a legacy or typed receipt
    expect(() => decodeReceipt(badBloom)).toThrow(/canonical encoding/);
    expect(() => decodeReceipt(new Uint8Array(0))).toThrow(/no bytes/);
  });
});
