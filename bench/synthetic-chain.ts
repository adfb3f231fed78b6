/**
 * A synthetic chain for the logs-proof bench, generated block by block from a seed so that any
 * length of it is made without holding it: Cancun-layout headers linked by parentHash, whose
 * receiptsRoot and logsBloom are those of generated receipts (computed by the library). One busy
 * contract logs in about BUSY_SHARE of the blocks; a crowd of other contracts logs in every block,
 * so that blooms match the busy contract's address by chance, as real ones do.
 */
import {
  ChainRegistry,
  receiptsCommitment,
  RULE_SETS,
  type BlockHeader,
  type Log,
  type Receipt,
} from '../packages/core/src/index.js';

/** The operator-added chain the synthetic blocks are of: Ethereum's rules, every check taken on its word. */
export const BENCH_CHAIN_ID = 990_777;
export const benchRegistry = new ChainRegistry([
  { chainId: BENCH_CHAIN_ID, name: 'bench', rules: 'ethereum', verifiable: true },
]);

/** The contract the bench's filter asks for. */
export const BUSY_CONTRACT = new Uint8Array(20).fill(0xb5);
/** The share of blocks in which it logs. */
export const BUSY_SHARE = 0.02;
/** Receipts per block at most (uniform, so 20 on average), and logs per receipt at most (1.5 on average). */
const MAX_RECEIPTS = 40;
const MAX_LOGS = 3;

const EMPTY_UNCLES = Uint8Array.from(
  Buffer.from('1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347', 'hex'),
);

/** mulberry32: a small deterministic generator of numbers in [0, 1). */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `count` distinct byte strings of `size` bytes, from the generator. */
function pool(random: () => number, count: number, size: number): Uint8Array[] {
  return Array.from({ length: count }, () => Uint8Array.from({ length: size }, () => Math.floor(random() * 256)));
}

/** A synthetic block: its header (the parent's hash is the caller's) and its complete receipts. */
export interface SyntheticBlock {
  header: BlockHeader;
  receipts: Receipt[];
  /** Whether the busy contract logs in it. */
  busy: boolean;
}

/**
 * The blocks of the synthetic chain, in order from `fromBlock`: call `next(parentHash)` for each.
 * The same seed gives the same chain.
 */
export function syntheticChain(fromBlock: number, seed = 1): { next(parentHash: Uint8Array): SyntheticBlock } {
  const random = prng(seed);
  const below = (n: number) => Math.floor(random() * n);
  const contracts = pool(random, 2_000, 20);
  const events = pool(random, 50, 32);
  const accounts = pool(random, 10_000, 32);
  const data = pool(random, 64, 64);
  const log = (address: Uint8Array): Log => ({
    address,
    topics: [events[below(events.length)]!, accounts[below(accounts.length)]!, accounts[below(accounts.length)]!],
    data: data[below(data.length)]!,
  });
  let number = fromBlock;
  return {
    next(parentHash) {
      const receipts: Receipt[] = [];
      let gas = 0n;
      for (let r = below(MAX_RECEIPTS + 1); r > 0; r--) {
        gas += 21_000n + BigInt(below(200_000));
        const logs = Array.from({ length: below(MAX_LOGS + 1) }, () => log(contracts[below(contracts.length)]!));
        receipts.push({ type: 2, status: 1, cumulativeGasUsed: gas, logs });
      }
      const busy = receipts.length > 0 && random() < BUSY_SHARE;
      if (busy) receipts[below(receipts.length)]!.logs.push(log(BUSY_CONTRACT));
      const { receiptsRoot, logsBloom } = receiptsCommitment(receipts, { rules: RULE_SETS.ethereum });
      const [stateRoot, transactionsRoot, mixHash, withdrawalsRoot, beaconRoot] = pool(random, 5, 32);
      const header: BlockHeader = {
        parentHash,
        sha3Uncles: EMPTY_UNCLES,
        miner: contracts[below(contracts.length)]!,
        stateRoot: stateRoot!,
        transactionsRoot: transactionsRoot!,
        receiptsRoot,
        logsBloom,
        difficulty: 0n,
        number: BigInt(number),
        gasLimit: 30_000_000n,
        gasUsed: gas,
        timestamp: 1_700_000_000n + 12n * BigInt(number),
        extraData: new TextEncoder().encode('bench'),
        mixHash: mixHash!,
        nonce: new Uint8Array(8),
        baseFeePerGas: 7n + BigInt(below(50_000_000_000)),
        withdrawalsRoot: withdrawalsRoot!,
        blobGasUsed: 0n,
        excessBlobGas: 0n,
        parentBeaconBlockRoot: beaconRoot!,
      };
      number++;
      return { header, receipts, busy };
    },
  };
}
