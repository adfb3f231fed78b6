/**
 * Blocks of any number of unique receipts for the linearity figures: each receipt is a real one
 * (a fixture block's, in turn) whose every address and topic has its last four bytes mixed with
 * the receipt's number, so that no item repeats across receipts as it would in a cycled list (a
 * cycled list hashes each item once for the whole block and measures the cache, not the work).
 * The block is JSON as a node returns it (JSON.parse of text, in pieces), with a header whose
 * root, bloom and hash are the block's own, so that `verifyBlock` finds it identical.
 */
import {
  bytesToHex,
  defaultKeccak256,
  encodeHeader,
  Problems,
  readRpcBlock,
  readRpcHeader,
  verifyBlock,
  type Receipt,
} from '../packages/core/src/index.js';

/** Receipts turned to text at a time: one text per piece keeps each string far below V8's limit. */
const PIECE = 10_000;

/** `hex` (0x…) with its last 8 digits XOR `n`. */
function mixed(hex: string, n: number): string {
  return hex.slice(0, -8) + ((Number.parseInt(hex.slice(-8), 16) ^ n) >>> 0).toString(16).padStart(8, '0');
}

/** The JSON-RPC receipt at `index` made from `sample` (a JSON-RPC receipt): its items mixed with `index + 1`. */
function receiptText(sample: any, index: number): string {
  const n = index + 1;
  const logs = sample.logs.map((log: any) => ({
    address: mixed(log.address, n),
    topics: log.topics.map((topic: string) => mixed(topic, n)),
    data: log.data,
  }));
  return JSON.stringify({
    type: sample.type,
    status: sample.status,
    cumulativeGasUsed: sample.cumulativeGasUsed,
    transactionIndex: `0x${index.toString(16)}`,
    logs,
  });
}

/**
 * A block of `count` unique receipts made from `fixture`'s (a fixture block's JSON), with a header
 * that commits to them (`verifyBlock(block)` is identical). Its root and bloom are what `verifyBlock`
 * computes of it, which decodes each receipt only while it is hashed: the block is made without
 * holding its receipts decoded, so that V8 does not learn from the making to allocate decoded
 * receipts in its old generation (see the linearity figures in json-rpc.bench.ts).
 */
export function uniqueBlock(fixture: any, count: number): any {
  const samples = fixture.receipts;
  const receipts: unknown[] = [];
  for (let start = 0; start < count; start += PIECE) {
    const texts: string[] = [];
    for (let i = start; i < Math.min(count, start + PIECE); i++)
      texts.push(receiptText(samples[i % samples.length], i));
    for (const receipt of JSON.parse(`[${texts.join(',')}]`)) receipts.push(receipt);
  }
  const zero = (bytes: number) => `0x${'00'.repeat(bytes)}`;
  const unset = { ...fixture.header, receiptsRoot: zero(32), logsBloom: zero(256) };
  const report = verifyBlock({ chain_id: fixture.chain_id, header: unset, receipts });
  if (!report.ok || report.value.receipts_root.computed === null || report.value.logs_bloom.computed === null)
    throw new Error(`the unique block of ${count} receipts is not computed: ${JSON.stringify(report).slice(0, 300)}`);
  const header = {
    ...fixture.header,
    receiptsRoot: `0x${report.value.receipts_root.computed}`,
    logsBloom: `0x${report.value.logs_bloom.computed}`,
  };
  const read = readRpcHeader(header, 'header', new Problems())!;
  header.hash = `0x${bytesToHex(defaultKeccak256(encodeHeader(read.complete!, read.layout)))}`;
  return { chain_id: fixture.chain_id, header, receipts };
}

/** The receipts of a block made by {@link uniqueBlock}, decoded (held: the core's input). */
export function decodedReceipts(block: any): Receipt[] {
  return readRpcBlock(block, new Problems())!.receipts;
}
