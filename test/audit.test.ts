/**
 * The range-audit engine over a loopback JSON-RPC node serving the consecutive mainnet fixture
 * blocks, with one fault injected at a time: each is found, and reported as the check that catches
 * it and no other.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import {
  auditRange,
  AuditTally,
  isReorg,
  linkParent,
  type AuditEvent,
  type AuditRangeOptions,
  type BlockAudit,
  type CrossCheck,
} from '../packages/core/src/audit/index.js';
import { ChainMismatchError, SourceError } from '../packages/core/src/errors.js';
import { type BlockJson, type BlockSource } from '../packages/core/src/sources/block-source.js';
import { RpcBlockSource } from '../packages/core/src/live/rpc-block-source.js';
import { borStateSyncTxHash } from '../packages/core/src/chains/state-sync.js';
import { bytesToHex, hexToBytes, Problems, readRpcBlock, verifyBlock } from '../packages/core/src/index.js';
import { inlineBlockVerifier } from '../packages/core/src/verify/block-verifier.js';
import { loadFixture } from './helpers/fixtures.js';
import { TEST_CHAINS, testRegistry } from './helpers/test-chains.js';
import {
  fixtureChain,
  forkOf,
  rehash,
  startLoopbackNode,
  type LoopbackNode,
  type NodeBlock,
} from './helpers/loopback-rpc.js';
import { syntheticTxHash } from './helpers/synthetic-tx-hash.js';

const FROM = 1_000_001;
const TO = 1_000_030;
let node: LoopbackNode | undefined;
afterEach(async () => {
  await node?.close();
  node = undefined;
});

const instant = async () => undefined;
async function start(blocks = fixtureChain(FROM, TO)): Promise<LoopbackNode> {
  node = await startLoopbackNode(1, blocks);
  return node;
}
const rpc = (n: LoopbackNode, options: { timeoutMs?: number; maxRetries?: number } = {}) =>
  new RpcBlockSource({ url: n.url, keepMiscountedReceipts: true, sleep: instant, ...options });

async function collect(audit: AsyncIterable<AuditEvent>): Promise<AuditEvent[]> {
  const events: AuditEvent[] = [];
  for await (const event of audit) events.push(event);
  return events;
}
const blocksOf = (events: AuditEvent[]) => events.filter((e): e is BlockAudit => !isReorg(e));
/** Every block's number with the checks it failed, for the blocks that did not pass. */
/** An argument given as another type than its signature's, as JavaScript callers and `as any` give it. */
const as = <T>(value: unknown) => value as T;
const notPassing = (events: AuditEvent[]) =>
  blocksOf(events)
    .filter((e) => e.verdict !== 'pass')
    .map((e) => ({ block: e.block_number, verdict: e.verdict, checks: e.failures.map((f) => f.check) }));

describe('auditRange over a JSON-RPC node', () => {
  it('passes every block of a real chain, in block order, and sums it up', async () => {
    const n = await start();
    const audit = auditRange({ source: rpc(n), chainId: 1, from: FROM, to: TO, concurrency: 4 });
    const events = await collect(audit);
    expect(blocksOf(events).map((e) => e.block_number)).toEqual(Array.from({ length: 30 }, (_, i) => FROM + i));
    expect(notPassing(events)).toEqual([]);
    const summary = audit.summary();
    expect(summary).toMatchObject({
      blocks: 30,
      verdicts: { pass: 30, fail: 0, not_verifiable: 0, unreachable: 0 },
      failed_checks: {},
      reorgs: 0,
      complete: true,
      next_block: null,
    });
    expect(summary.time_share.fetching + summary.time_share.verifying).toBeLessThanOrEqual(1);
  });

  it('links the first block to the anchor: the right hash passes, another fails parent_link on that block only', async () => {
    const n = await start();
    const parentOfFirst = String(n.blocks.get(FROM)!.header.parentHash);
    const right = await collect(
      auditRange({ source: rpc(n), chainId: 1, from: FROM, to: FROM + 4, anchor: parentOfFirst }),
    );
    expect(notPassing(right)).toEqual([]);
    const wrong = await collect(
      auditRange({ source: rpc(n), chainId: 1, from: FROM, to: FROM + 4, anchor: `0x${'11'.repeat(32)}` }),
    );
    expect(notPassing(wrong)).toEqual([{ block: FROM, verdict: 'fail', checks: ['parent_link'] }]);
    expect(blocksOf(wrong)[0]!.failures[0]!.evidence).toEqual({
      expected: `0x${'11'.repeat(32)}`,
      found: parentOfFirst.toLowerCase(),
    });
  });

  it('hashes in any case, with or without 0x, hold blocks as the CLI does; one of another type, or an anchor of no block of the range, is named (was: the right hash without 0x failed the block, anchor or parent_link; a key "1000030" was dropped: a user check)', async () => {
    const n = await start();
    const parentOfFirst = String(n.blocks.get(FROM)!.header.parentHash);
    const tail = String(n.blocks.get(FROM + 4)!.header.hash);
    const bare = (hash: string) => hash.slice(2).toUpperCase();
    const audit = auditRange({
      source: rpc(n),
      chainId: 1,
      from: FROM,
      to: FROM + 4,
      anchor: bare(parentOfFirst),
      anchors: new Map([[FROM + 4, bare(tail)]]),
    });
    expect(notPassing(await collect(audit))).toEqual([]);
    expect(audit.summary().anchoring).toMatchObject({ authenticated: [[FROM, FROM + 4]], assurance: 'authentic' });
    const range = { source: rpc(n), chainId: 1, from: FROM, to: FROM + 4 };
    const refused: Array<[Partial<AuditRangeOptions>, Error]> = [
      [
        { anchor: as(hexToBytes(parentOfFirst)) },
        new TypeError('anchor must be a block hash as hex text (64 hex digits, with or without 0x), got a Uint8Array'),
      ],
      [
        { anchor: '0x1234' },
        new RangeError('anchor must be a block hash (64 hex digits, with or without 0x), got "0x1234"'),
      ],
      [
        { anchors: as({ [FROM + 4]: tail }) },
        new TypeError('anchors must be a Map of block numbers to their hashes, got an object'),
      ],
      [
        { anchors: as(new Map([[String(FROM + 4), tail]])) },
        new TypeError(`anchors must be keyed by block numbers (numbers), got the key "${FROM + 4}" (a string)`),
      ],
      [
        { anchors: new Map([[FROM + 5, tail]]) },
        new RangeError(`anchors: block ${FROM + 5} is no block of the range ${FROM} to ${FROM + 4}`),
      ],
      [
        { anchors: new Map([[FROM + 4, 'junk']]) },
        new RangeError(`anchors[${FROM + 4}] must be a block hash (64 hex digits, with or without 0x), got "junk"`),
      ],
    ];
    for (const [options, error] of refused) expect(() => auditRange({ ...range, ...options })).toThrow(error);
    await n.close();
  });

  it("a line judged without the block before it, linked later (linkParent, as the queue links a reorg's first block), is the line judged with it", async () => {
    const blocks = fixtureChain(FROM, TO);
    const first = blocks.get(FROM)!;
    const parent = String(first.header.parentHash).toLowerCase();
    const other = `0x${'11'.repeat(32)}`;
    const failedChecks: string[][] = [];
    // The block as it is, and with a logs bloom its receipts do not give (failures of its own besides the link).
    for (const header of [first.header, { ...first.header, logsBloom: `0x${'ff'.repeat(256)}` }]) {
      const n = await start(new Map(blocks).set(FROM, { ...first, header }));
      const judged = async (anchor: string | null) =>
        blocksOf(await collect(auditRange({ source: rpc(n), chainId: 1, from: FROM, to: FROM, anchor })))[0]!;
      const unlinked = await judged(null);
      expect(linkParent(unlinked, parent, null)).toEqual(unlinked);
      expect(linkParent(unlinked, parent, parent)).toEqual(await judged(parent));
      const broken = await judged(other);
      expect(linkParent(unlinked, parent, other)).toEqual(broken);
      failedChecks.push(broken.failures.map((f) => f.check));
      await n.close();
    }
    expect(failedChecks).toEqual([['parent_link'], ['parent_link', 'header_hash', 'logs_bloom']]);
  });

  it('a broken parent link (a self-consistent header whose parent is not the block before) fails parent_link only', async () => {
    const blocks = fixtureChain(FROM, FROM + 9);
    const last = blocks.get(FROM + 9)!;
    blocks.set(FROM + 9, { ...last, header: rehash({ ...last.header, parentHash: `0x${'22'.repeat(32)}` }) });
    const n = await start(blocks);
    const events = await collect(auditRange({ source: rpc(n), chainId: 1, from: FROM, to: FROM + 9 }));
    expect(notPassing(events)).toEqual([{ block: FROM + 9, verdict: 'fail', checks: ['parent_link'] }]);
    expect(events.some(isReorg)).toBe(false);
  });

  it('a reorg mid-audit is reported with the blocks replaced, which are audited again on the new chain, never mixed', async () => {
    const blocks = fixtureChain(FROM, FROM + 11);
    // Chain B forks at FROM+4: another FROM+4 (other extraData) and every block after it re-linked and re-hashed.
    const fork = forkOf(blocks, FROM + 4);
    const oldHashes = new Map([...blocks].map(([b, block]) => [b, String(block.header.hash).toLowerCase()]));
    const n = await start(blocks);
    // The node switches to chain B when the audit asks for FROM+6: FROM+4 and FROM+5 were audited on chain A.
    n.fault = (call) => {
      if (call.method === 'eth_getBlockByNumber' && Number(call.params[0]) === FROM + 6)
        for (const [b, block] of fork) n.blocks.set(b, block);
      return undefined;
    };
    const audit = auditRange({ source: rpc(n), chainId: 1, from: FROM, to: FROM + 11, concurrency: 1 });
    const events = await collect(audit);
    const oldHash = (b: number) => oldHashes.get(b)!;
    const newHash = (b: number) => String(fork.get(b)!.header.hash).toLowerCase();
    const reorgs = events.filter(isReorg);
    expect(reorgs).toEqual([
      {
        reorg: {
          detected_at: FROM + 6,
          depth: 2,
          replaced: [
            { block_number: FROM + 4, old_hash: oldHash(FROM + 4), new_hash: newHash(FROM + 4) },
            { block_number: FROM + 5, old_hash: oldHash(FROM + 5), new_hash: newHash(FROM + 5) },
          ],
        },
      },
    ]);
    // After the reorg line: the replaced blocks again, then the rest, all on chain B.
    const after = blocksOf(events.slice(events.indexOf(reorgs[0]!) + 1));
    expect(after.map((e) => [e.block_number, e.block_hash])).toEqual(
      Array.from({ length: 8 }, (_, i) => [FROM + 4 + i, newHash(FROM + 4 + i)]),
    );
    expect(notPassing(events)).toEqual([]);
    expect(audit.summary()).toMatchObject({ blocks: 12, verdicts: { pass: 12 }, reorgs: 1, complete: true });
  });

  it("a reorg met at a resumed run's first block is followed back into the earlier run's blocks (was: parent_link), and a block asked again with the hash audited ends the walk unlisted", async () => {
    const blocks = fixtureChain(FROM, FROM + 11);
    /** Chain B from FROM+4 on; its FROM+4 links to `root`. */
    const chainB = (root: string) => forkOf(blocks, FROM + 4, root);
    const hashOfA = (b: number) => String(blocks.get(b)!.header.hash).toLowerCase();
    const earlierRun = {
      from: FROM,
      anchor: undefined,
      hashes: new Map(Array.from({ length: 6 }, (_, i) => [FROM + i, hashOfA(FROM + i)] as [number, string])),
    };
    const resume = async (fork: Map<number, NodeBlock>, earlier: typeof earlierRun | undefined) => {
      const n = await start(new Map([...blocks, ...fork]));
      const events = await collect(
        auditRange({
          source: rpc(n),
          chainId: 1,
          from: FROM + 6,
          to: FROM + 11,
          anchor: hashOfA(FROM + 5),
          anchorName: "the hash of the checkpoint's last block (--resume)",
          ...(earlier && { earlier }),
        }),
      );
      await n.close();
      node = undefined;
      return { events, fork };
    };
    const replacedOf = (events: AuditEvent[]) => events.filter(isReorg).map((e) => e.reorg.replaced);
    const newHash = (fork: Map<number, NodeBlock>, b: number) => String(fork.get(b)!.header.hash).toLowerCase();

    const linked = await resume(chainB(String(blocks.get(FROM + 3)!.header.hash)), earlierRun);
    expect(replacedOf(linked.events)).toEqual([
      [FROM + 4, FROM + 5].map((b) => ({ block_number: b, old_hash: hashOfA(b), new_hash: newHash(linked.fork, b) })),
    ]);
    expect(blocksOf(linked.events).map((e) => [e.block_number, e.verdict])).toEqual(
      Array.from({ length: 8 }, (_, i) => [FROM + 4 + i, 'pass']),
    );
    // Without the earlier run's blocks, the reorg cannot be told from a broken link there.
    const alone = await resume(chainB(String(blocks.get(FROM + 3)!.header.hash)), undefined);
    expect(notPassing(alone.events)).toEqual([{ block: FROM + 6, verdict: 'fail', checks: ['parent_link'] }]);

    // Chain B's FROM+4 links to no block: FROM+3, asked again, is unchanged and is not listed; FROM+4 fails parent_link.
    const broken = await resume(chainB(`0x${'11'.repeat(32)}`), earlierRun);
    expect(replacedOf(broken.events)).toEqual([
      [FROM + 4, FROM + 5].map((b) => ({ block_number: b, old_hash: hashOfA(b), new_hash: newHash(broken.fork, b) })),
    ]);
    expect(notPassing(broken.events)).toEqual([{ block: FROM + 4, verdict: 'fail', checks: ['parent_link'] }]);
  });

  it("after a reorg that replaced the earlier run's last block, a resumed run's first block that still does not link names the block audited before it, not the checkpoint (a user re-check)", async () => {
    const blocks = fixtureChain(FROM, FROM + 9);
    const hashOfA = (b: number) => String(blocks.get(b)!.header.hash).toLowerCase();
    const old = blocks.get(FROM + 5)!;
    const next = blocks.get(FROM + 6)!;
    const n = await start(
      new Map([
        ...blocks,
        [FROM + 5, { ...old, header: rehash({ ...old.header, extraData: '0xabcdef' }) }],
        [FROM + 6, { ...next, header: rehash({ ...next.header, parentHash: `0x${'44'.repeat(32)}` }) }],
      ]),
    );
    const events = await collect(
      auditRange({
        source: rpc(n),
        chainId: 1,
        from: FROM + 6,
        to: FROM + 9,
        anchor: hashOfA(FROM + 5),
        anchorName: "the hash of the checkpoint's last block (--resume)",
        earlier: {
          from: FROM,
          anchor: undefined,
          hashes: new Map(Array.from({ length: 6 }, (_, i) => [FROM + i, hashOfA(FROM + i)] as [number, string])),
        },
      }),
    );
    expect(events.filter(isReorg).map((e) => e.reorg.replaced.map((r) => r.block_number))).toEqual([[FROM + 5]]);
    const failing = blocksOf(events).filter((e) => e.verdict === 'fail');
    expect(failing.map((e) => [e.block_number, e.failures.map((f) => f.message)])).toEqual([
      [FROM + 6, ['the parentHash is not the hash of the block audited before it']],
      [FROM + 7, ['the parentHash is not the hash of the block audited before it']],
    ]);
  });

  it('a block whose hash its header refutes is no chain a reorg replaced: a node that forged it once and answers rightly after has the block fail, and the next its link (was: a reorg, both passing: a user re-check)', async () => {
    const blocks = fixtureChain(FROM, FROM + 9);
    const honest = blocks.get(FROM + 5)!;
    blocks.set(FROM + 5, { ...honest, header: { ...honest.header, hash: `0x${'ab'.repeat(32)}` } });
    const n = await start(blocks);
    // The node answers rightly from the time the audit asks for FROM+6.
    n.fault = (call) => {
      if (call.method === 'eth_getBlockByNumber' && Number(call.params[0]) === FROM + 6) n.blocks.set(FROM + 5, honest);
      return undefined;
    };
    const events = await collect(
      auditRange({
        source: new RpcBlockSource({ url: n.url, keepMiscountedReceipts: true, sleep: instant, batch: 1 }),
        chainId: 1,
        from: FROM,
        to: FROM + 9,
        concurrency: 1,
      }),
    );
    expect(events.some(isReorg)).toBe(false);
    expect(notPassing(events)).toEqual([
      { block: FROM + 5, verdict: 'fail', checks: ['header_hash'] },
      { block: FROM + 6, verdict: 'fail', checks: ['parent_link'] },
    ]);
  });

  it('a reorg walk that stops at a block whose line refutes its hash (block_input): the block after it, audited again, is not_verifiable, never a pass (as docs/audit.md says)', async () => {
    const blocks = fixtureChain(FROM, FROM + 9);
    // FROM+4 fails block_input (a header without logsBloom): its hash is given but never checked.
    const { logsBloom: _, ...unread } = blocks.get(FROM + 4)!.header;
    blocks.set(FROM + 4, { ...blocks.get(FROM + 4)!, header: unread });
    const fork = forkOf(blocks, FROM + 5);
    const source = memorySource(blocks);
    const asked = source.block.bind(source);
    // The chain reorganises from FROM+5 on once FROM+6 is first asked for (FROM+5 was asked before it, on the old one).
    source.block = async (chainId, n) => {
      if (n === FROM + 6 && blocks.get(n) !== fork.get(n)) for (const [b, block] of fork) blocks.set(b, block);
      return asked(chainId, n);
    };
    const events = await collect(auditRange({ source, chainId: 1, from: FROM, to: FROM + 9, concurrency: 1 }));
    const reorg = events.find(isReorg)!;
    expect(reorg.reorg).toMatchObject({ detected_at: FROM + 6, depth: 1 });
    // The walk does not go into FROM+4: FROM+5's new line cannot have its link checked.
    expect(notPassing(events)).toEqual([
      { block: FROM + 4, verdict: 'fail', checks: ['block_input'] },
      { block: FROM + 5, verdict: 'not_verifiable', checks: [] },
    ]);
    const again = blocksOf(events).filter((e) => e.block_number === FROM + 5);
    expect(again.map((e) => e.verdict)).toEqual(['pass', 'not_verifiable']);
    expect(again[1]!.reason).toBe(
      'parent_link: the block before it gave no hash, so its parent link cannot be checked',
    );
  });

  it('a block fetched ahead from a chain the node then left (or a side block it gave once) is asked again, not failed parent_link, where the block before it is unchanged (was: parent_link, exit 1, on an honest node: a user check)', async () => {
    const blocks = fixtureChain(FROM, FROM + 9);
    const fork = forkOf(blocks, FROM + 5);
    // The node is on `now` for every answer but the first of FROM+6, which is of `once`: fetched ahead before a reorg
    // (the old chain's, the node now on the new one), or a side block given once (the node back on its chain).
    for (const [now, once] of [
      [new Map([...blocks, ...fork]), blocks],
      [blocks, fork],
    ] as const) {
      const source = memorySource(now);
      const asked = source.block.bind(source);
      let first = true;
      source.block = async (chainId, n) => {
        if (n !== FROM + 6 || !first) return asked(chainId, n);
        first = false;
        return memorySource(once).block(chainId, n);
      };
      const audit = auditRange({ source, chainId: 1, from: FROM, to: FROM + 9 });
      const events = await collect(audit);
      expect(notPassing(events)).toEqual([]);
      expect(events.some(isReorg)).toBe(false);
      expect(blocksOf(events).map((e) => [e.block_number, e.block_hash])).toEqual(
        [...now].map(([b, block]) => [b, String(block.header.hash).toLowerCase()]),
      );
      expect(audit.summary()).toMatchObject({ blocks: 10, verdicts: { pass: 10 }, reorgs: 0, complete: true });
    }
  });

  it('a block asked again with the same hash still does not link: parent_link, the block asked for twice', async () => {
    const blocks = fixtureChain(FROM, FROM + 5);
    blocks.set(FROM + 3, {
      ...blocks.get(FROM + 3)!,
      header: rehash({ ...blocks.get(FROM + 3)!.header, parentHash: `0x${'ab'.repeat(32)}` }),
    });
    const asks = new Map<number, number>();
    const source = memorySource(blocks);
    const asked = source.block.bind(source);
    source.block = async (chainId, n) => (asks.set(n, (asks.get(n) ?? 0) + 1), asked(chainId, n));
    const events = await collect(auditRange({ source, chainId: 1, from: FROM, to: FROM + 2 + 1 }));
    expect(notPassing(events)).toEqual([{ block: FROM + 3, verdict: 'fail', checks: ['parent_link'] }]);
    // The block before it asked twice again (the node may have moved between), the block itself once.
    expect([asks.get(FROM + 2), asks.get(FROM + 3)]).toEqual([3, 2]);
  });

  it('a node back from a side chain between the questions: the block before is asked once more, and the side blocks audited are a reorg (was: parent_link, exit 1, on an honest node: a user re-check)', async () => {
    const blocks = fixtureChain(FROM, FROM + 9);
    // On the side chain for the first question of FROM+5 and the first two of FROM+6, back on its chain after.
    const { source } = twoChains(
      blocks,
      forkOf(blocks, FROM + 5),
      (n, ask) => (n === FROM + 5 && ask === 1) || (n === FROM + 6 && ask <= 2),
    );
    const audit = auditRange({ source, chainId: 1, from: FROM, to: FROM + 9, concurrency: 1 });
    const events = await collect(audit);
    expect(events.filter(isReorg).map((e) => e.reorg.replaced.map((r) => r.block_number))).toEqual([
      [FROM + 5, FROM + 6],
    ]);
    expect(notPassing(events)).toEqual([]);
    expect(audit.summary()).toMatchObject({ blocks: 10, verdicts: { pass: 10 }, reorgs: 1, complete: true });
  });

  it('a source that fails while a reorg is followed back: the audit stops with the block that did not link unreachable, and unsettledFrom names the first block the reorg may have replaced (maxReorgDepth back); null on a run that did not stop so', async () => {
    const blocks = fixtureChain(FROM, FROM + 11);
    const fork = forkOf(blocks, FROM + 7);
    // Chain B from the first question of FROM+9 on; FROM+8, asked again by the walk, cannot be given.
    const { source, asks } = twoChains(blocks, fork, (n, ask, asked) => {
      if (n === FROM + 8 && ask > 1) throw new SourceError('the node is down');
      return n >= FROM + 9 || (n >= FROM + 7 && (asked.get(FROM + 9) ?? 0) > 0);
    });
    const audit = auditRange({ source, chainId: 1, from: FROM, to: FROM + 11, concurrency: 1, maxReorgDepth: 3 });
    const events = await collect(audit);
    expect(events.at(-1)).toMatchObject({ block_number: FROM + 9, verdict: 'unreachable', reason: 'the node is down' });
    expect(audit.unsettledFrom()).toBe(FROM + 6);
    // Linked to the block before it, which no reorg this deep replaced, a run from there passes on chain B.
    const again = auditRange({
      source: memorySource(new Map([...blocks, ...fork])),
      chainId: 1,
      from: FROM + 6,
      to: FROM + 11,
      anchor: String(blocks.get(FROM + 5)!.header.hash),
    });
    expect(notPassing(await collect(again))).toEqual([]);
    expect(again.unsettledFrom()).toBeNull();
    // Never before the range's first block.
    asks.clear();
    const short = auditRange({ source, chainId: 1, from: FROM + 8, to: FROM + 11, concurrency: 1, maxReorgDepth: 3 });
    expect((await collect(short)).at(-1)).toMatchObject({ block_number: FROM + 9, verdict: 'unreachable' });
    expect(short.unsettledFrom()).toBe(FROM + 8);
  });

  it('a block served once with a forged parentHash under its own hash, and rightly when asked again, fails: the answer judged is the first, never healed by the second', async () => {
    const blocks = fixtureChain(FROM, FROM + 5);
    const honest = blocks.get(FROM + 3)!;
    const forged = { ...honest, header: { ...honest.header, parentHash: `0x${'ab'.repeat(32)}` } };
    let first = true;
    const source = memorySource(blocks);
    const asked = source.block.bind(source);
    source.block = async (chainId, n) => {
      if (n !== FROM + 3 || !first) return asked(chainId, n);
      first = false;
      return memorySource(new Map([[n, forged]])).block(chainId, n);
    };
    const events = await collect(auditRange({ source, chainId: 1, from: FROM, to: FROM + 5 }));
    expect(notPassing(events)).toEqual([{ block: FROM + 3, verdict: 'fail', checks: ['parent_link', 'header_hash'] }]);
  });

  it('a block source that leaves out chain_id, or gives null, answers for the chain asked: its blocks are verified as that chain\'s (was: not_verifiable, "not in the registry": a user re-check)', async () => {
    for (const chainId of [undefined, null]) {
      const source = {
        block: async (_chain: number, n: number) => {
          const { header, receipts, transactions } = loadFixture(`mainnet-${n}`) as unknown as BlockJson;
          return { chain_id: chainId, header, receipts, ...(transactions !== undefined && { transactions }) } as never;
        },
      };
      const events = await collect(auditRange({ source, chainId: 1, from: FROM, to: FROM + 2 }));
      expect(blocksOf(events).map((e) => e.verdict)).toEqual(['pass', 'pass', 'pass']);
    }
  });

  it("an altered receipt (a log of another address) fails receipts_root, logs_bloom and the receipt's own bloom, nothing else", async () => {
    const blocks = fixtureChain(1_000_021, 1_000_025);
    const block = blocks.get(1_000_023)!;
    const receipts = structuredClone(block.receipts) as Array<{ logs: Array<Record<string, unknown>> }>;
    receipts[1]!.logs[0]!.address = `0x${'33'.repeat(20)}`;
    blocks.set(1_000_023, { ...block, receipts: receipts });
    const n = await start(blocks);
    const events = await collect(auditRange({ source: rpc(n), chainId: 1, from: 1_000_021, to: 1_000_025 }));
    expect(notPassing(events)).toEqual([
      { block: 1_000_023, verdict: 'fail', checks: ['receipts_root', 'logs_bloom', 'receipt_blooms'] },
    ]);
  });

  it("a receipt's own logsBloom altered, its logs not, fails receipt_blooms, nothing else", async () => {
    const blocks = fixtureChain(1_000_021, 1_000_025);
    const block = blocks.get(1_000_023)!;
    const receipts = structuredClone(block.receipts) as Array<{ logsBloom: string }>;
    const bloom = receipts[1]!.logsBloom;
    receipts[1]!.logsBloom = `${bloom.slice(0, 40)}${bloom[40] === '0' ? '1' : '0'}${bloom.slice(41)}`;
    blocks.set(1_000_023, { ...block, receipts: receipts });
    const n = await start(blocks);
    const events = await collect(auditRange({ source: rpc(n), chainId: 1, from: 1_000_021, to: 1_000_025 }));
    expect(notPassing(events)).toEqual([{ block: 1_000_023, verdict: 'fail', checks: ['receipt_blooms'] }]);
    expect(blocksOf(events)[2]!.failures[0]!.evidence).toEqual({ count: 7, matches: false, first_mismatch: 1 });
  });

  /**
   * Blocks `from`..`to` with each receipt and log carrying the members a node adds that repeat the block, as
   * `logMembers` makes them from the true ones (the log's `logIndex` counted across the block).
   */
  function withNodeMembers(from: number, to: number, logMembers = (log: Record<string, unknown>) => log) {
    const blocks = fixtureChain(from, to);
    for (const [n, block] of blocks) {
      let logIndex = 0;
      const at = { blockHash: block.header.hash, blockNumber: block.header.number };
      const receipts = block.receipts.map((receipt, i) => {
        const transaction = { transactionHash: syntheticTxHash(1, n, i), transactionIndex: `0x${i.toString(16)}` };
        const logs = (receipt.logs as Array<Record<string, unknown>>).map((log) =>
          logMembers({ ...log, ...at, ...transaction, logIndex: `0x${(logIndex++).toString(16)}`, removed: false }),
        );
        return { ...receipt, ...at, ...transaction, logs };
      });
      blocks.set(n, { ...block, receipts });
    }
    return blocks;
  }

  it('logs that repeat their block as a node gives them pass; logs said removed, of another block or at another index fail block_input', async () => {
    const n = await start(withNodeMembers(1_000_021, 1_000_026));
    const audit = () => collect(auditRange({ source: rpc(n), chainId: 1, from: 1_000_021, to: 1_000_026 }));
    expect(notPassing(await audit())).toEqual([]);
    n.blocks = withNodeMembers(1_000_021, 1_000_026, (log) => ({
      ...log,
      blockHash: `0x${'11'.repeat(32)}`,
      blockNumber: '0x1',
      removed: true,
      logIndex: `0x${(900 + Number(log.logIndex)).toString(16)}`,
    }));
    const events = await audit();
    // The blocks with logs (1,000,023: 12; 1,000,026: 1) fail; the others pass.
    expect(notPassing(events)).toEqual([
      { block: 1_000_023, verdict: 'fail', checks: ['block_input'] },
      { block: 1_000_026, verdict: 'fail', checks: ['block_input'] },
    ]);
    const message = blocksOf(events).find((e) => e.block_number === 1_000_026)!.failures[0]!.message;
    for (const member of ['blockHash', 'blockNumber', 'logIndex', 'removed'])
      expect(message).toContain(`receipts[1].logs[0].${member}: expected `);
    // Block 1,000,023's 12 logs, 4 members each: five named, the rest counted (it named all 48 in one line).
    const busy = blocksOf(events).find((e) => e.block_number === 1_000_023)!.failures[0]!.message;
    expect(busy.match(/: expected /g)).toHaveLength(5);
    expect(busy).toMatch(/ \(and 43 more\)$/);
  });

  it('a header without its hash fails block_input, naming it, where its receipts name their block (was: unreachable, "the chain reorganised")', async () => {
    const blocks = fixtureChain(FROM, FROM + 9);
    const block = blocks.get(FROM + 6)!;
    const { hash, ...header } = block.header;
    blocks.set(FROM + 6, { ...block, header, receipts: block.receipts.map((r) => ({ ...r, blockHash: hash })) });
    const n = await start(blocks);
    const events = await collect(auditRange({ source: rpc(n), chainId: 1, from: FROM, to: FROM + 9 }));
    // The block after it cannot have its parent link checked: not verifiable, never a pass.
    expect(notPassing(events)).toEqual([
      { block: FROM + 6, verdict: 'fail', checks: ['block_input'] },
      { block: FROM + 7, verdict: 'not_verifiable', checks: [] },
    ]);
    expect(blocksOf(events).find((e) => e.block_number === FROM + 6)!.failures[0]!.message).toContain('header.hash');
    expect(blocksOf(events).find((e) => e.block_number === FROM + 7)!.reason).toMatch(/^parent_link: .* gave no hash/);
  });

  /** The chain FROM..to with each receipt's blockHash and blockNumber, as every client sends them. */
  function chainNamingBlocks(to: number): Map<number, NodeBlock> {
    const blocks = fixtureChain(FROM, to);
    for (const [b, block] of blocks) {
      const { hash, number } = block.header;
      blocks.set(b, {
        ...block,
        receipts: block.receipts.map((r) => ({ ...r, blockHash: hash, blockNumber: number })),
      });
    }
    return blocks;
  }
  const asksOf = (n: LoopbackNode, method: string, b: number) =>
    n.calls.filter((c) => c.method === method && Number(c.params[0]) === b).length;

  it('receipts that name another block than the header fail, asked again first, never unreachable (was: "the chain reorganised, try again")', async () => {
    const corruptions: Array<[string, (block: NodeBlock, next: NodeBlock) => NodeBlock]> = [
      ["the next block's receipts", (block, next) => ({ ...block, receipts: next.receipts })],
      ['a forged header hash', (block) => ({ ...block, header: { ...block.header, hash: `0x${'ab'.repeat(32)}` } })],
      [
        'a forged header, re-hashed',
        (block) => ({
          ...block,
          header: rehash({ ...block.header, gasLimit: `0x${(Number(block.header.gasLimit) + 1).toString(16)}` }),
        }),
      ],
    ];
    for (const [name, corrupt] of corruptions) {
      const blocks = chainNamingBlocks(FROM + 9);
      blocks.set(FROM + 6, corrupt(blocks.get(FROM + 6)!, blocks.get(FROM + 7)!));
      const n = await start(blocks);
      const audit = auditRange({ source: rpc(n), chainId: 1, from: FROM, to: FROM + 9 });
      const events = await collect(audit);
      // A forged hash also breaks the next block's link to it.
      const next =
        name === "the next block's receipts" ? [] : [{ block: FROM + 7, verdict: 'fail', checks: ['parent_link'] }];
      expect(notPassing(events), name).toEqual([
        { block: FROM + 6, verdict: 'fail', checks: ['block_input'] },
        ...next,
      ]);
      const message = blocksOf(events).find((e) => e.block_number === FROM + 6)!.failures[0]!.message;
      expect(message, name).toMatch(
        /receipts\[0\]\.blockHash: expected 0x[0-9a-f…]+, the header's hash, which it repeats, got 0x/,
      );
      expect(audit.summary(), name).toMatchObject({ complete: true, verdicts: { unreachable: 0 } });
      // The block was asked three times (the first ask and two more), header and receipts each time.
      if (name === "the next block's receipts")
        expect([asksOf(n, 'eth_getBlockByNumber', FROM + 6), asksOf(n, 'eth_getBlockReceipts', FROM + 6)]).toEqual([
          3, 3,
        ]);
      await n.close();
      node = undefined;
    }
  });

  it("receipts whose transactionHash names another transaction than the block's at its place fail block_input, naming the member, asked again first, never unreachable (was: unreachable, the audit stopped there: a user check)", async () => {
    const corruptions: Array<[string, (receipts: Array<Record<string, unknown>>) => Array<Record<string, unknown>>]> = [
      [
        'another hash',
        (receipts) => receipts.map((r, i) => (i === 0 ? { ...r, transactionHash: `0x${'33'.repeat(32)}` } : r)),
      ],
      [
        'two hashes swapped',
        (receipts) => receipts.map((r, i) => (i < 2 ? { ...r, transactionHash: receipts[1 - i]!.transactionHash } : r)),
      ],
    ];
    for (const [name, corrupt] of corruptions) {
      const blocks = chainNamingBlocks(FROM + 9);
      const block = blocks.get(FROM + 6)!; // 5 transactions
      const receipts = block.receipts.map((r, i) => ({ ...r, transactionHash: syntheticTxHash(1, FROM + 6, i) }));
      blocks.set(FROM + 6, {
        ...block,
        receipts: corrupt(receipts),
        transactionHashes: receipts.map((r) => r.transactionHash),
      });
      const n = await start(blocks);
      const audit = auditRange({ source: rpc(n), chainId: 1, from: FROM, to: FROM + 9 });
      const events = await collect(audit);
      expect(notPassing(events), name).toEqual([{ block: FROM + 6, verdict: 'fail', checks: ['block_input'] }]);
      const message = blocksOf(events).find((e) => e.block_number === FROM + 6)!.failures[0]!.message;
      expect(message, name).toMatch(
        /receipts\[0\]\.transactionHash: expected 0x[0-9a-f…]+, the block's transactions\[0\], which it repeats, got 0x/,
      );
      expect(audit.summary(), name).toMatchObject({ complete: true, verdicts: { pass: 9, fail: 1, unreachable: 0 } });
      // Asked three times (a race with a reorg, where receipts give no blockHash, is told only by their hashes).
      expect([asksOf(n, 'eth_getBlockByNumber', FROM + 6), asksOf(n, 'eth_getBlockReceipts', FROM + 6)]).toEqual([
        3, 3,
      ]);
      await n.close();
      node = undefined;
    }
  });

  it('a reorg between the header and the receipts calls: the block is asked again and passes on the new branch (was: unreachable)', async () => {
    const blocks = chainNamingBlocks(FROM + 9);
    // The new branch replaces FROM+6 (its parent FROM+5) and relinks the blocks after it, as a reorg of depth 1 does.
    const branch = forkOf(blocks, FROM + 6);
    const n = await start(blocks);
    // The node switches to the new branch between answering FROM+6's header and its receipts.
    n.fault = (call) => {
      if (call.method === 'eth_getBlockReceipts' && Number(call.params[0]) === FROM + 6)
        for (const [b, block] of branch) n.blocks.set(b, block);
      return undefined;
    };
    const audit = auditRange({ source: rpc(n), chainId: 1, from: FROM, to: FROM + 9, concurrency: 1 });
    const events = await collect(audit);
    expect(notPassing(events)).toEqual([]);
    expect(events.some(isReorg)).toBe(false);
    expect(blocksOf(events).find((e) => e.block_number === FROM + 6)!.block_hash).toBe(
      String(branch.get(FROM + 6)!.header.hash),
    );
    // One fetch more: the header and the receipts asked once again.
    expect([asksOf(n, 'eth_getBlockByNumber', FROM + 6), asksOf(n, 'eth_getBlockReceipts', FROM + 6)]).toEqual([2, 2]);
    expect(audit.summary().verdicts).toMatchObject({ pass: 10, unreachable: 0 });
  });

  it('a header without its number fails block_input, naming it (was: unreachable, stopping the audit)', async () => {
    const blocks = fixtureChain(FROM, FROM + 9);
    const { number: _, ...header } = blocks.get(FROM + 6)!.header;
    blocks.set(FROM + 6, { ...blocks.get(FROM + 6)!, header });
    const n = await start(blocks);
    const events = await collect(auditRange({ source: rpc(n), chainId: 1, from: FROM, to: FROM + 9 }));
    expect(notPassing(events)).toEqual([{ block: FROM + 6, verdict: 'fail', checks: ['block_input'] }]);
    expect(blocksOf(events).find((e) => e.block_number === FROM + 6)!.failures[0]!.message).toContain('header.number');
  });

  it('a missing receipt fails transaction_count only (incomplete receipts are not judged against the roots)', async () => {
    const blocks = fixtureChain(FROM, FROM + 9);
    const block = blocks.get(FROM + 6)!; // 5 transactions
    blocks.set(FROM + 6, { ...block, receipts: block.receipts.slice(0, 4), transactions: 5 });
    const n = await start(blocks);
    const events = await collect(auditRange({ source: rpc(n), chainId: 1, from: FROM, to: FROM + 9 }));
    expect(notPassing(events)).toEqual([{ block: FROM + 6, verdict: 'fail', checks: ['transaction_count'] }]);
    expect(blocksOf(events)[6]!.failures[0]!.evidence).toEqual({ transactions: 5, receipts: 4 });
  });

  it('waits out 429s with Retry-After and gives the same lines as without them', async () => {
    const n = await start();
    const clean = await collect(auditRange({ source: rpc(n), chainId: 1, from: FROM, to: FROM + 9 }));
    let limited = 0;
    n.fault = (call) =>
      call.method === 'eth_getBlockReceipts' && limited++ < 3
        ? { status: 429, headers: { 'Retry-After': '0' }, body: { error: 'slow down' } }
        : undefined;
    const events = await collect(auditRange({ source: rpc(n), chainId: 1, from: FROM, to: FROM + 9 }));
    expect(limited).toBeGreaterThan(3);
    expect(events).toEqual(clean);
  });

  it('retries a call that times out, and gives the same lines', async () => {
    const n = await start();
    const clean = await collect(auditRange({ source: rpc(n), chainId: 1, from: FROM, to: FROM + 5 }));
    let hung = 0;
    n.fault = (call) =>
      call.method === 'eth_getBlockByNumber' && Number(call.params[0]) === FROM + 2 && hung++ === 0
        ? { hang: true }
        : undefined;
    const events = await collect(
      auditRange({ source: rpc(n, { timeoutMs: 200 }), chainId: 1, from: FROM, to: FROM + 5 }),
    );
    expect(hung).toBe(2);
    expect(events).toEqual(clean);
  });

  it('a block still unreachable after the retries is unreachable, and the audit stops there', async () => {
    const n = await start();
    n.fault = (call) =>
      call.method === 'eth_getBlockByNumber' && Number(call.params[0]) === FROM + 3 ? { hang: true } : undefined;
    const audit = auditRange({
      source: rpc(n, { timeoutMs: 150, maxRetries: 1 }),
      chainId: 1,
      from: FROM,
      to: FROM + 9,
      concurrency: 1,
    });
    const events = await collect(audit);
    expect(blocksOf(events).map((e) => [e.block_number, e.verdict])).toEqual([
      [FROM, 'pass'],
      [FROM + 1, 'pass'],
      [FROM + 2, 'pass'],
      [FROM + 3, 'unreachable'],
    ]);
    expect((events[3] as BlockAudit).reason).toMatch(/eth_getBlockByNumber.*no answer in time.*after 1 retry/);
    expect(audit.summary()).toMatchObject({
      complete: false,
      next_block: FROM + 3,
      verdicts: { pass: 3, unreachable: 1 },
    });
  });
});

/** Blocks from memory, counting the fetches started. */
/**
 * A source of `blocks` that answers from `fork` where `onFork` says so, given the block, how many times it was asked (this
 * time included) and the questions of every block so far (`asks`, which it returns).
 */
function twoChains(
  blocks: Map<number, NodeBlock>,
  fork: Map<number, NodeBlock>,
  onFork: (n: number, ask: number, asks: ReadonlyMap<number, number>) => boolean,
): { source: BlockSource; asks: Map<number, number> } {
  const asks = new Map<number, number>();
  const [main, other] = [memorySource(blocks), memorySource(fork)];
  const source: BlockSource = {
    block: async (chainId, n) => {
      const ask = (asks.get(n) ?? 0) + 1;
      asks.set(n, ask);
      return (onFork(n, ask, asks) ? other : main).block(chainId, n);
    },
  };
  return { source, asks };
}

function memorySource(blocks: Map<number, NodeBlock>): BlockSource & { started: number } {
  const source = {
    started: 0,
    async block(chainId: number, number: number): Promise<BlockJson | null> {
      source.started++;
      const b = blocks.get(number);
      return b === undefined ? null : { chain_id: chainId, header: b.header, receipts: b.receipts };
    },
  };
  return source;
}

describe('auditRange: concurrency, chunks, the verifier, stopping', () => {
  it('never fetches more than `concurrency` blocks ahead of the consumer, and does fetch ahead', async () => {
    const source = memorySource(fixtureChain(FROM, TO));
    let consumed = 0;
    let mostAhead = 0;
    for await (const event of auditRange({ source, chainId: 1, from: FROM, to: TO, concurrency: 3 })) {
      expect(event).toBeDefined();
      mostAhead = Math.max(mostAhead, source.started - consumed);
      consumed++;
      await new Promise((resolve) => setTimeout(resolve, 2)); // a slow consumer
    }
    expect(mostAhead).toBe(3);
    expect(source.started).toBe(30);
  });

  it('a window given as a function is asked at each block: it grows and shrinks as it says, never past it', async () => {
    const source = memorySource(fixtureChain(FROM, TO));
    let consumed = 0;
    const window = () => (consumed < 10 ? 2 : consumed < 20 ? 8 : 1);
    const ahead: number[] = [];
    for await (const event of auditRange({ source, chainId: 1, from: FROM, to: TO, concurrency: window })) {
      expect(event).toBeDefined();
      ahead.push(source.started - consumed);
      consumed++;
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    // Blocks started and not yet consumed, at each line: at most the window asked when the block was taken; a window
    // that shrank leaves the fetches already started, which drain one by one down to the one block it asks for.
    expect(ahead.slice(0, 10).every((a) => a <= 2)).toBe(true);
    expect(Math.max(...ahead.slice(10, 20))).toBe(8);
    const after = ahead.slice(20);
    expect(after[0]).toBeGreaterThan(4);
    expect(after).toEqual([...after].sort((a, b) => b - a));
    expect(after.slice(-2)).toEqual([1, 1]);
    expect(source.started).toBe(30);
  });

  it('calls the cross-check once per chunk (aligned to the chunk size), in order, and adds its failures to the block', async () => {
    const seen: number[][] = [];
    const crossCheck: CrossCheck = {
      checks: ['service_block.present'],
      async checkChunk(truths) {
        seen.push(truths.map((t) => t.number));
        expect(truths.every((t) => t.report?.verdict === 'identical')).toBe(true);
        const findings = new Map();
        if (truths.some((t) => t.number === FROM + 11))
          findings.set(FROM + 11, {
            failures: [{ check: 'service_block.present', message: 'no record', evidence: {} }],
            unchecked: [],
          });
        // A claim the chain cannot check makes a passing block not verifiable, never a failing one.
        if (truths.some((t) => t.number === FROM + 12))
          findings.set(FROM + 12, {
            failures: [],
            unchecked: ["service_logs: the records' tx_hash cannot be checked"],
          });
        return findings;
      },
    };
    const events = await collect(
      auditRange({
        source: memorySource(fixtureChain(FROM, TO)),
        chainId: 1,
        from: FROM + 4,
        to: FROM + 23,
        chunkSize: 10,
        crossCheck,
      }),
    );
    expect(seen).toEqual([
      Array.from({ length: 5 }, (_, i) => FROM + 4 + i), // 1000005..1000009
      Array.from({ length: 10 }, (_, i) => FROM + 9 + i), // 1000010..1000019
      Array.from({ length: 5 }, (_, i) => FROM + 19 + i), // 1000020..1000024
    ]);
    expect(notPassing(events)).toEqual([
      { block: FROM + 11, verdict: 'fail', checks: ['service_block.present'] },
      { block: FROM + 12, verdict: 'not_verifiable', checks: [] },
    ]);
    expect(blocksOf(events).find((e) => e.block_number === FROM + 12)!.reason).toBe(
      "service_logs: the records' tx_hash cannot be checked",
    );
  });

  it('a cross-check whose source is unreachable makes its chunk unreachable and stops the audit there', async () => {
    const crossCheck: CrossCheck = {
      checks: [],
      async checkChunk(truths) {
        if (truths[0]!.number >= FROM + 9)
          throw new SourceError('the service answered HTTP 503, still after 5 retries');
        return new Map();
      },
    };
    const audit = auditRange({
      source: memorySource(fixtureChain(FROM, TO)),
      chainId: 1,
      from: FROM,
      to: TO,
      chunkSize: 10,
      crossCheck,
    });
    const events = blocksOf(await collect(audit));
    expect(events.map((e) => e.verdict)).toEqual([...Array(9).fill('pass'), ...Array(10).fill('unreachable')]);
    expect(events[9]!.reason).toBe('the service answered HTTP 503, still after 5 retries');
    expect(audit.summary()).toMatchObject({ complete: false, next_block: FROM + 9 });
  });

  it('verifies with the injected verifier, once per block', async () => {
    const verified: number[] = [];
    const verify = async (block: BlockJson) => {
      verified.push(Number(block.header.number));
      return verifyBlock(block);
    };
    const events = await collect(
      auditRange({ source: memorySource(fixtureChain(FROM, FROM + 4)), chainId: 1, from: FROM, to: FROM + 4, verify }),
    );
    expect(verified).toEqual([FROM, FROM + 1, FROM + 2, FROM + 3, FROM + 4]);
    expect(notPassing(events)).toEqual([]);
  });

  it('starts an injected verifier on each block as it arrives, so that the fetch window verifies at once (a pool runs them in parallel)', async () => {
    let inFlight = 0;
    let most = 0;
    const verify = async (block: BlockJson) => {
      most = Math.max(most, ++inFlight);
      await new Promise((resolve) => setTimeout(resolve, 5));
      inFlight--;
      return verifyBlock(block);
    };
    const events = await collect(
      auditRange({
        source: memorySource(fixtureChain(FROM, FROM + 9)),
        chainId: 1,
        from: FROM,
        to: FROM + 9,
        concurrency: 3,
        verify,
      }),
    );
    expect(most).toBe(3);
    expect(blocksOf(events).map((e) => e.block_number)).toEqual(Array.from({ length: 10 }, (_, i) => FROM + i));
    expect(notPassing(events)).toEqual([]);
  });

  it('stops between blocks when its signal aborts, and says where to go on', async () => {
    const controller = new AbortController();
    const audit = auditRange({
      source: memorySource(fixtureChain(FROM, TO)),
      chainId: 1,
      from: FROM,
      to: TO,
      signal: controller.signal,
    });
    const events: AuditEvent[] = [];
    for await (const event of audit) {
      events.push(event);
      if (events.length === 5) controller.abort();
    }
    expect(events).toHaveLength(5);
    expect(audit.summary()).toMatchObject({ blocks: 5, complete: false, next_block: FROM + 5 });
  });

  it('a signal that cuts a fetch short ends the audit without a line for that block (not unreachable)', async () => {
    const n = await start();
    const held = (call: { params: unknown[] }) =>
      typeof call.params[0] === 'string' && Number(call.params[0]) > FROM + 2;
    n.fault = (call) => (held(call) ? { hang: true } : undefined);
    const controller = new AbortController();
    const audit = auditRange({
      source: new RpcBlockSource({ url: n.url, batch: 1, sleep: instant, signal: controller.signal }),
      chainId: 1,
      from: FROM,
      to: TO,
      signal: controller.signal,
    });
    const events: AuditEvent[] = [];
    for await (const event of audit) {
      events.push(event);
      if (events.length === 3) setTimeout(() => controller.abort(), 50); // while block FROM + 3 is held
    }
    expect(blocksOf(events).map((e) => e.verdict)).toEqual(['pass', 'pass', 'pass']);
    expect(audit.summary()).toMatchObject({ blocks: 3, complete: false, next_block: FROM + 3 });
  });
});

describe('auditRange: the block is the one asked for, whatever the source', () => {
  /** Every consecutive mainnet fixture: 1,000,001 to 1,000,030 and 1,000,040 to 1,000,050. */
  const real = new Map([...fixtureChain(FROM, TO), ...fixtureChain(1_000_040, 1_000_050)]);
  /** A source with a bug of its own: from block `from`, asked for n, it gives the real block n + shift. */
  const shifted = (shift: number, from: number): BlockSource => ({
    async block(chainId, number) {
      const b = real.get(number >= from ? number + shift : number);
      return b === undefined ? null : { chain_id: chainId, header: b.header, receipts: b.receipts };
    },
  });

  it('a source that answers block n with the real block n + 39 gets no pass: block n is unreachable, naming both numbers, and the audit stops (was: 11 passes, assurance consistent)', async () => {
    const audit = auditRange({ source: shifted(39, FROM), chainId: 1, from: FROM, to: FROM + 10 });
    const events = await collect(audit);
    expect(events).toEqual([
      {
        block_number: FROM,
        block_hash: null,
        verdict: 'unreachable',
        failures: [],
        reason: `the source answered block ${FROM} with block ${FROM + 39} (its header.number)`,
      },
    ]);
    expect(audit.summary()).toMatchObject({ verdicts: { pass: 0, unreachable: 1 }, complete: false, next_block: FROM });
  });

  it('for any shift and any block it starts at, the blocks before it pass and the first shifted one is unreachable, never a pass', async () => {
    const available = [...real.keys()];
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: FROM, max: TO - 4 }),
        fc.integer({ min: 0, max: 4 }),
        fc.constantFrom(...available),
        async (from, offset, target) => {
          const start = from + offset;
          fc.pre(target !== start);
          const events = await collect(
            auditRange({ source: shifted(target - start, start), chainId: 1, from, to: from + 4 }),
          );
          expect(blocksOf(events).map((e) => e.verdict)).toEqual([
            ...Array<string>(offset).fill('pass'),
            'unreachable',
          ]);
          expect(blocksOf(events).at(-1)).toMatchObject({
            block_number: start,
            reason: `the source answered block ${start} with block ${target} (its header.number)`,
          });
        },
      ),
      { numRuns: 60 },
    );
  });

  it("a block that gives another chain's id stops the audit as a node of another chain does, before any line", async () => {
    const source: BlockSource = {
      async block(_chainId, number) {
        const b = real.get(number)!;
        return { chain_id: 5, header: b.header, receipts: b.receipts };
      },
    };
    const audit = auditRange({ source, chainId: 1, from: FROM, to: FROM + 2 });
    await expect(collect(audit)).rejects.toThrow(
      new ChainMismatchError(`the block source (its block ${FROM} gives chain_id 5)`, 5n, 1),
    );
    await expect(collect(auditRange({ source, chainId: 1, from: FROM, to: FROM + 2 }))).rejects.toBeInstanceOf(
      ChainMismatchError,
    );
  });

  it('a reorg followed back holds the block asked for again to its number too', async () => {
    // Block FROM + 2 does not link; asked again, block FROM + 1 comes back as block FROM + 40.
    const blocks = fixtureChain(FROM, FROM + 3);
    const broken = blocks.get(FROM + 2)!;
    blocks.set(FROM + 2, { ...broken, header: rehash({ ...broken.header, parentHash: `0x${'ab'.repeat(32)}` }) });
    let asked = 0;
    const source: BlockSource = {
      async block(chainId, number) {
        if (number === FROM + 1 && ++asked > 1) {
          const other = real.get(FROM + 40)!;
          return { chain_id: chainId, header: other.header, receipts: other.receipts };
        }
        const b = blocks.get(number)!;
        return { chain_id: chainId, header: b.header, receipts: b.receipts };
      },
    };
    const events = await collect(auditRange({ source, chainId: 1, from: FROM, to: FROM + 3 }));
    expect(notPassing(events)).toEqual([{ block: FROM + 2, verdict: 'unreachable', checks: [] }]);
    expect(blocksOf(events).at(-1)!.reason).toBe(
      `the source answered block ${FROM + 1} with block ${FROM + 40} (its header.number)`,
    );
  });
});

describe('Polygon PoS: the unlisted state-sync receipt', () => {
  it("a node that returns Bor's state-sync receipt without listing its transaction: no transaction_count failure; the block's commitments hold where the rule is claimed (Polygon PoS, shown by polygon-pos-10000000), not_verifiable naming the receipt, which no commitment covers (was: pass), and not_verifiable on Amoy, whose rules no real block has shown yet", async () => {
    const polygon = loadFixture('polygon-pos-9013760');
    const read = readRpcBlock(polygon, new Problems())!;
    const derived = `0x${bytesToHex(borStateSyncTxHash(read.header.fields.number!, read.header.hash!))}`;
    const stateSync = {
      transactionIndex: `0x${polygon.receipts.length.toString(16)}`,
      transactionHash: derived,
      type: '0x0',
      status: '0x1',
      cumulativeGasUsed: '0x0',
      logs: [],
    };
    const number = Number(read.header.fields.number);
    const served = (chainId: number) =>
      startLoopbackNode(
        chainId,
        new Map([
          [
            number,
            {
              header: polygon.header,
              receipts: [...polygon.receipts.map(({ transactionHash: _, ...receipt }) => receipt), stateSync],
              transactions: polygon.receipts.length,
            },
          ],
        ]),
      );
    node = await served(TEST_CHAINS.polygon);
    const verify = inlineBlockVerifier({ registry: testRegistry });
    for (const keepMiscountedReceipts of [true, false]) {
      const source = new RpcBlockSource({ url: node.url, sleep: instant, keepMiscountedReceipts });
      const events = await collect(
        auditRange({ source, chainId: TEST_CHAINS.polygon, from: number, to: number, verify }),
      );
      expect(blocksOf(events)).toMatchObject([
        {
          block_number: number,
          verdict: 'not_verifiable',
          failures: [],
          reason: expect.stringContaining(`excluded_receipts: the receipt at index 4 (transaction hash ${derived})`),
        },
      ]);
    }
    await node.close();
    node = await served(137);
    const polygon137 = new RpcBlockSource({ url: node.url, sleep: instant, keepMiscountedReceipts: true });
    expect(
      blocksOf(await collect(auditRange({ source: polygon137, chainId: 137, from: number, to: number }))),
    ).toMatchObject([{ block_number: number, verdict: 'not_verifiable', failures: [] }]);
    await node.close();
    node = await served(80002);
    const source = new RpcBlockSource({ url: node.url, sleep: instant, keepMiscountedReceipts: true });
    const events = await collect(auditRange({ source, chainId: 80002, from: number, to: number }));
    expect(blocksOf(events)).toMatchObject([
      {
        block_number: number,
        verdict: 'not_verifiable',
        failures: [],
        // Amoy's eras: no real block has shown them at all.
        reason: expect.stringMatching(/receipts_root: not verifiable: no real block of this chain/),
      },
    ]);
  });
});

describe('RpcBlockSource and the transaction count', () => {
  it('gives the count with the block; refuses a miscounted block by default (lineage), keeps it when asked (audit)', async () => {
    const blocks = fixtureChain(FROM, FROM + 6);
    const block = blocks.get(FROM + 6)!;
    blocks.set(FROM + 6, { ...block, receipts: block.receipts.slice(0, 4), transactions: 5 });
    const n = await start(blocks);
    expect((await new RpcBlockSource({ url: n.url }).block(1, FROM + 1))?.transaction_count).toBe(3);
    await expect(new RpcBlockSource({ url: n.url }).block(1, FROM + 6)).rejects.toThrow(
      /gave 4 receipts for block 1000007, which has 5 transactions/,
    );
    const kept = await rpc(n).block(1, FROM + 6);
    expect([kept?.transaction_count, kept?.receipts.length]).toEqual([5, 4]);
  });

  it("keeps, by default too, a Polygon PoS block that lists Bor's state-sync transaction last without returning its receipt (Bor before v1.3.2), by the reader's rule (was: refused as miscounted)", async () => {
    const polygon = loadFixture('polygon-pos-10000000'); // Bor's state-sync receipt last
    const number = Number(polygon.header.number);
    const hashes = polygon.receipts.map((r) => r.transactionHash as string);
    const served = (transactionHashes: string[]) =>
      startLoopbackNode(
        137,
        new Map([[number, { header: polygon.header, receipts: polygon.receipts.slice(0, 5), transactionHashes }]]),
      );
    node = await served(hashes);
    const block = await new RpcBlockSource({ url: node.url, sleep: instant }).block(137, number);
    expect([block?.transaction_count, block?.receipts.length]).toEqual([6, 5]);
    expect(verifyBlock(block)).toMatchObject({ ok: true, value: { verdict: 'identical' } });
    await node.close();
    node = await served([...hashes.slice(0, 5), `0x${'ab'.repeat(32)}`]);
    await expect(new RpcBlockSource({ url: node.url, sleep: instant }).block(137, number)).rejects.toThrow(
      /gave 5 receipts for block 10000000, which has 6 transactions/,
    );
  });
});

describe('AuditTally: what a resumed audit carried over', () => {
  const line = (block: number, verdict: 'pass' | 'fail', hash = 'a'): BlockAudit => ({
    block_number: block,
    block_hash: `0x${hash.repeat(64)}`,
    verdict,
    failures: verdict === 'fail' ? [{ check: 'receipts_root', message: 'differs', evidence: {} }] : [],
  });
  it("counts the file's lines the summary still counts: a block a reorg audits again is this run's, by its new line (was: counted once as carried, whatever replaced it: a user check)", () => {
    const tally = new AuditTally(1, 1, 6);
    for (const b of [1, 2, 3, 4]) tally.carry(line(b, b === 4 ? 'fail' : 'pass'));
    expect(tally.carriedOver()).toEqual({
      blocks: 4,
      verdicts: { pass: 3, fail: 1, not_verifiable: 0, unreachable: 0 },
    });
    // This run meets a reorg that replaced blocks 3 and 4, audits them again on the new chain, then goes on.
    tally.add({ reorg: { detected_at: 5, depth: 2, replaced: [] } });
    for (const b of [3, 4, 5, 6]) tally.add(line(b, 'pass', 'b'));
    expect(tally.summary({ elapsed_ms: 0, fetching_ms: 0, verifying_ms: 0, cross_checking_ms: 0 }, 4)).toMatchObject({
      blocks: 6,
      verdicts: { pass: 6, fail: 0 },
    });
    expect(tally.carriedOver()).toEqual({
      blocks: 2,
      verdicts: { pass: 2, fail: 0, not_verifiable: 0, unreachable: 0 },
    });
  });

  it('names the blocks whose failing line a reorg replaced, each block once, beside the counts by last line (was: nowhere, the finding hidden: a user check)', () => {
    const tally = new AuditTally(1, 1, 6);
    for (const b of [1, 2, 3, 4, 5]) tally.add(line(b, b === 4 ? 'fail' : 'pass'));
    const timings = { elapsed_ms: 0, fetching_ms: 0, verifying_ms: 0, cross_checking_ms: 0 };
    expect(tally.summary(timings, 5).replaced_failures).toBeUndefined();
    // Two reorgs replace block 4: on the second chain it fails again, on the third it passes.
    tally.add({ reorg: { detected_at: 5, depth: 2, replaced: [] } });
    for (const b of [3, 4]) tally.add(line(b, b === 4 ? 'fail' : 'pass', 'b'));
    tally.add({ reorg: { detected_at: 5, depth: 1, replaced: [] } });
    for (const b of [4, 5, 6]) tally.add(line(b, 'pass', 'c'));
    expect(tally.summary(timings, 8)).toMatchObject({
      verdicts: { pass: 6, fail: 0 },
      replaced_failures: {
        blocks: 1,
        listed: [{ block_number: 4, block_hash: `0x${'a'.repeat(64)}`, checks: ['receipts_root'] }],
      },
    });
  });

  it("does not name a replaced block's cross-check failures: the other copy, read after the reorg, may hold the block that replaced it, which the new line holds it to (was: exit 1 on a service that was right: a user re-check)", () => {
    const timings = { elapsed_ms: 0, fetching_ms: 0, verifying_ms: 0, cross_checking_ms: 0 };
    const crossChecked = (block: number, checks: string[], hash = 'a'): BlockAudit => ({
      ...line(block, 'fail', hash),
      failures: checks.map((check) => ({ check, message: 'differs', evidence: {} })),
    });
    const tally = new AuditTally(1, 1, 3);
    tally.add(crossChecked(1, ['service_block.block_hash', 'service_logs.altered']));
    tally.add(crossChecked(2, ['receipts_root', 'service_block.block_hash']));
    tally.add({ reorg: { detected_at: 3, depth: 2, replaced: [] } });
    for (const b of [1, 2, 3]) tally.add(line(b, 'pass', 'b'));
    expect(tally.summary(timings, 5)).toMatchObject({
      verdicts: { pass: 3, fail: 0 },
      replaced_failures: {
        blocks: 1,
        listed: [{ block_number: 2, block_hash: `0x${'a'.repeat(64)}`, checks: ['receipts_root'] }],
      },
    });
    // Superseded by a line of the same block (the same hash), its cross-check's failure is a finding still.
    const same = new AuditTally(1, 1, 1);
    same.add(crossChecked(1, ['service_block.block_hash']));
    same.add(line(1, 'pass'));
    expect(same.summary(timings, 2).replaced_failures).toMatchObject({
      listed: [{ block_number: 1, checks: ['service_block.block_hash'] }],
    });
  });
});

describe('anchoring after a reorg that replaced a failing block', () => {
  it('an anchor at the last block proves the blocks before the replaced one again: the run of passing blocks is kept within the supersede window (was: [[FROM+14, TO]], partly_authentic: a user check)', async () => {
    const blocks = fixtureChain(FROM, TO);
    // Chain B forks at FROM+14 from the honest chain; on chain A, FROM+14's first receipt has another post-state root
    // (its hash still holds, so the reorg is followed back into it): it fails receipts_root, then chain B replaces it.
    const fork = forkOf(blocks, FROM + 14);
    const honest = blocks.get(FROM + 14)!;
    const receipts = structuredClone(honest.receipts);
    receipts[0]!.root = `0x${'33'.repeat(32)}`;
    blocks.set(FROM + 14, { ...honest, receipts });
    const source = memorySource(blocks);
    const asked = source.block.bind(source);
    source.block = async (chainId, n) => {
      if (n === FROM + 15 && blocks.get(n) !== fork.get(n)) for (const [b, block] of fork) blocks.set(b, block);
      return asked(chainId, n);
    };
    const anchors = new Map([[TO, String(fork.get(TO)!.header.hash)]]);
    const audit = auditRange({ source, chainId: 1, from: FROM, to: TO, concurrency: 1, anchors });
    const events = await collect(audit);
    expect(events.filter(isReorg).map((e) => e.reorg.replaced.map((r) => r.block_number))).toEqual([[FROM + 14]]);
    const first = blocksOf(events).find((e) => e.block_number === FROM + 14)!;
    expect(first.verdict).toBe('fail');
    expect(audit.summary()).toMatchObject({
      verdicts: { pass: 30, fail: 0 },
      anchoring: { authenticated: [[FROM, TO]], authenticated_blocks: 30, assurance: 'authentic' },
    });
  });

  it('AuditTally: an anchor at a block the audit could not fetch has not been reached: matches null, not false (was: false, read as another block: a user check)', () => {
    const anchors = new Map([
      [1, `0x${'a'.repeat(64)}`],
      [2, `0x${'b'.repeat(64)}`],
    ]);
    const tally = new AuditTally(1, 1, 2, { anchors });
    tally.add({ block_number: 1, block_hash: null, verdict: 'unreachable', failures: [], reason: 'HTTP 503' });
    const timings = { elapsed_ms: 0, fetching_ms: 0, verifying_ms: 0, cross_checking_ms: 0 };
    expect(tally.summary(timings, 1).anchoring?.anchors).toEqual([
      { block_number: 1, hash: `0x${'a'.repeat(64)}`, matches: null },
      { block_number: 2, hash: `0x${'b'.repeat(64)}`, matches: null },
    ]);
  });

  it('AuditTally: a reorg at a failing block links the blocks after it back to the run before it', () => {
    const line = (block: number, verdict: 'pass' | 'fail', hash: string): BlockAudit => ({
      block_number: block,
      block_hash: `0x${hash.repeat(64)}`,
      verdict,
      failures: verdict === 'fail' ? [{ check: 'receipts_root', message: 'differs', evidence: {} }] : [],
    });
    const tally = new AuditTally(1, 1, 8, { anchors: new Map([[8, `0x${'b'.repeat(64)}`]]) });
    for (const b of [1, 2, 3, 4, 5]) tally.add(line(b, b === 4 ? 'fail' : 'pass', 'a'));
    tally.add({
      reorg: {
        detected_at: 6,
        depth: 2,
        replaced: [
          { block_number: 4, old_hash: `0x${'a'.repeat(64)}`, new_hash: `0x${'b'.repeat(64)}` },
          { block_number: 5, old_hash: `0x${'a'.repeat(64)}`, new_hash: `0x${'b'.repeat(64)}` },
        ],
      },
    });
    for (const b of [4, 5, 6, 7, 8]) tally.add(line(b, 'pass', 'b'));
    const timings = { elapsed_ms: 0, fetching_ms: 0, verifying_ms: 0, cross_checking_ms: 0 };
    expect(tally.summary(timings, 10).anchoring).toMatchObject({ authenticated: [[1, 8]], assurance: 'authentic' });
  });
});

describe("auditRange: a library user's source that answers what is no block", () => {
  /** Real blocks FROM..FROM+3, block FROM+2 answered as `answer`. */
  const answering = (answer: unknown): BlockSource => {
    const blocks = fixtureChain(FROM, FROM + 3);
    return {
      block: async (chainId, number) => {
        if (number === FROM + 2) return answer as BlockJson;
        const b = blocks.get(number)!;
        return { chain_id: chainId, header: b.header, receipts: b.receipts };
      },
    };
  };
  const lines = async (answer: unknown) =>
    blocksOf(await collect(auditRange({ source: answering(answer), chainId: 1, from: FROM, to: FROM + 3 }))).map(
      (e) => ({ block: e.block_number, verdict: e.verdict, checks: e.failures.map((f) => f.check), reason: e.reason }),
    );

  it('a block without a header object fails block_input, naming the header (was: a TypeError out of the audit, "reading \'parentHash\'")', async () => {
    for (const header of [null, 'x', undefined]) {
      const [first, second, third, fourth] = await lines({ chain_id: 1, header, receipts: [] });
      expect([first!.verdict, second!.verdict]).toEqual(['pass', 'pass']);
      expect(third).toMatchObject({ block: FROM + 2, verdict: 'fail' });
      expect(third!.checks).toContain('block_input');
      // The block gave no hash, so the next one's link cannot be checked: not verifiable, never a pass.
      expect(fourth).toMatchObject({ block: FROM + 3, verdict: 'not_verifiable' });
    }
  });

  it('an answer that is no object is unreachable, saying what was answered (was: "Cannot read properties of undefined")', async () => {
    for (const [answer, said] of [
      [undefined, 'nothing'],
      ['x', 'a string'],
      [5, 'the number 5'],
    ] as const) {
      const audited = await lines(answer);
      expect(audited.map((l) => l.verdict)).toEqual(['pass', 'pass', 'unreachable']);
      expect(audited[2]!.reason).toBe(`the source answered block ${FROM + 2} with ${said}, not a block object`);
    }
  });

  it('chainId, from and to of another type than a number are a TypeError naming them (was: a SourceError, "from must be a block number …, got 1000001", and chainId "1" taken)', () => {
    const source = answering(null);
    const named = (name: string) => new TypeError(`${name} must be a number, got a string`);
    expect(() => auditRange({ source, chainId: '1' as unknown as number, from: FROM, to: TO })).toThrow(
      named('chainId'),
    );
    expect(() => auditRange({ source, chainId: 1, from: String(FROM) as unknown as number, to: TO })).toThrow(
      named('from'),
    );
    expect(() => auditRange({ source, chainId: 1, from: FROM, to: String(TO) as unknown as number })).toThrow(
      named('to'),
    );
    expect(() => auditRange({ source, chainId: 1, from: -1, to: TO })).toThrow(
      new RangeError('from must be a non-negative integer, got -1'),
    );
    expect(() => auditRange({ source, chainId: 1, from: TO, to: FROM })).toThrow(
      new RangeError(`to must be a block number at or after from (${TO}), got ${FROM}`),
    );
  });
});
