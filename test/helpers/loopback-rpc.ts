/**
 * A JSON-RPC node on loopback (127.0.0.1, a free port) serving blocks in the fixtures' format:
 * `eth_chainId`, `eth_getBlockByNumber` (with synthesized transaction hashes, one per
 * transaction) and `eth_getBlockReceipts`. Tests change its chain while it runs (a reorg) and
 * inject faults per call (a status, a hang past the client's time limit), and read every call.
 * `eth_getLogs` is computed from the blocks served by the test's own matching (helpers/logs-proofs.ts);
 * a test may make it change its answer (drop, alter, invent a log) or refuse a range as too big.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { headerHash, Problems, readRpcHeader, bytesToHex } from '../../packages/core/src/index.js';
import { syntheticTxHash } from './synthetic-tx-hash.js';
import { loadFixture } from './fixtures.js';
import { matchingLogs, type HexFilter } from './logs-proofs.js';

/** A block as the node serves it; `transactions` defaults to the receipt count (a missing receipt keeps it). */
export interface NodeBlock {
  header: Record<string, unknown>;
  receipts: Array<Record<string, unknown>>;
  transactions?: number;
  /** The hashes `eth_getBlockByNumber` lists (default: each receipt's, in the list's order). */
  transactionHashes?: string[];
}

/** What a fault makes of one call: an HTTP answer, or no answer at all (the client times out). */
export type NodeFault =
  | {
      status: number;
      body?: unknown;
      headers?: Record<string, string>;
      /** Sent as is, in place of `body`. */ text?: string;
    }
  | { hang: true };

/**
 * How providers refuse a batch too large: an HTTP status (413, 400), one error object for the
 * whole array, an error object per call, or (Geth's and Erigon's batch limit) an array holding one
 * error object, with the first call's id, and no answer to the other calls; or (jsonrpsee's, a
 * server built on it with batches turned off) one error object with -32005, the code most
 * providers give their rate limit.
 */
export type BatchRefusal =
  'http-413' | 'single-error' | 'per-call-error' | 'first-call-error' | 'batches-not-supported';

export interface RpcCall {
  method: string;
  params: unknown[];
}

export interface LoopbackNode {
  url: string;
  /** The chain served, by block number; tests may replace blocks at any time. */
  blocks: Map<number, NodeBlock>;
  calls: RpcCall[];
  /** Decides a fault for a call (after it is recorded), or lets it through. */
  fault: ((call: RpcCall, index: number) => NodeFault | undefined) | undefined;
  /** Waits this long before each answer (a slow node). */
  delayMs: number;
  /** The blocks the tags name (`latest`, `finalized`, `safe`); a tag not set names the highest block served. */
  tags: Map<string, number>;
  /** Changes each `eth_getLogs` answer (drops, alters or invents a log). */
  logsFault: ((logs: unknown[]) => unknown[]) | undefined;
  /** An `eth_getLogs` call over more blocks than this is refused as "query returned more than 10000 results". */
  maxLogsBlocks: number;
  /** HTTP requests received, a batch (a JSON array of calls) counting once. */
  requests: number;
  /** TCP connections accepted. */
  connections: number;
  /** How the node answers a batch of more than `maxBatch` calls (default: it answers every call). */
  batchRefusal: BatchRefusal | undefined;
  /** The largest batch answered (default no limit); see batchRefusal. */
  maxBatch: number;
  /** Answers a batch's calls in reverse order (answers are matched by id). */
  reverseBatches: boolean;
  /** Leaves the answer to such a call out of a batch's answer. */
  dropFromBatch: ((call: RpcCall) => boolean) | undefined;
  /** Answers such a call twice in a batch, under its id: the second answer's `result` is what this returns. */
  answerTwice: ((call: RpcCall) => unknown) | undefined;
  /**
   * Answers compressed this way when the client accepts it, as providers do: `deflate-raw` is a bare deflate stream
   * (RFC 1951) sent as `Content-Encoding: deflate`, as some servers and proxies send it; null for none.
   */
  compression: 'gzip' | 'deflate' | 'deflate-raw' | 'br' | null;
  /** Answers such a call in a batch with this text, as it stands (JSON a parser may refuse): `id` is the call's. */
  rawAnswer: ((call: RpcCall, id: number) => string | undefined) | undefined;
  /** Answers a call with a JSON-RPC error object instead of its result (alone or in a batch). */
  callError: ((call: RpcCall, index: number) => { code: number; message: string } | undefined) | undefined;
  close(): Promise<void>;
}

/** The fixture blocks `names`, of one chain, by number, as a node serves them. */
export function fixtureBlocks(names: readonly string[]): Map<number, NodeBlock> {
  const blocks = new Map<number, NodeBlock>();
  for (const name of names) {
    const fixture = loadFixture(name);
    blocks.set(Number(fixture.header['number']), { header: { ...fixture.header }, receipts: fixture.receipts });
  }
  return blocks;
}

/** The mainnet fixture blocks `from`..`to` (a consecutive run), as a node serves them. */
export function fixtureChain(from: number, to: number): Map<number, NodeBlock> {
  const blocks = new Map<number, NodeBlock>();
  for (let n = from; n <= to; n++) {
    const fixture = loadFixture(`mainnet-${n}`);
    blocks.set(n, { header: { ...fixture.header }, receipts: fixture.receipts });
  }
  return blocks;
}

/**
 * `count` blocks from `from`: the 30 consecutive fixture blocks 1000001..1000030 over and over, renumbered, linked by
 * their parent hashes and re-hashed, so that every block passes: a range longer than the fixtures.
 */
export function loopedChain(from: number, count: number): Map<number, NodeBlock> {
  const fixtures = fixtureChain(1_000_001, 1_000_030);
  const blocks = new Map<number, NodeBlock>();
  let parentHash = String(fixtures.get(1_000_001)!.header.parentHash);
  for (let n = from; n < from + count; n++) {
    const fixture = fixtures.get(1_000_001 + ((n - from) % fixtures.size))!;
    const header = rehash({ ...fixture.header, number: `0x${n.toString(16)}`, parentHash });
    parentHash = String(header.hash);
    blocks.set(n, { header, receipts: fixture.receipts });
  }
  return blocks;
}

/** A header with its `hash` recomputed from its fields: a block a node could really serve. */
export function rehash(header: Record<string, unknown>): Record<string, unknown> {
  const problems = new Problems();
  const read = readRpcHeader({ ...header, hash: undefined }, 'header', problems);
  if (read?.complete === undefined) throw new Error('rehash: the header cannot be encoded');
  return { ...header, hash: `0x${bytesToHex(headerHash(read.complete))}` };
}

/**
 * Another branch of `blocks` from block `first` on, as a reorg brings: its first block another (other extraData),
 * linked to `parentHash` (by default the hash of the block before it), and every block after it re-linked and
 * re-hashed. Receipts that name their block (`blockHash`) name the new one.
 */
export function forkOf(
  blocks: ReadonlyMap<number, NodeBlock>,
  first: number,
  parentHash = String(blocks.get(first - 1)!.header.hash),
): Map<number, NodeBlock> {
  const fork = new Map<number, NodeBlock>();
  let parent = parentHash;
  const last = Math.max(...blocks.keys());
  for (let b = first; b <= last; b++) {
    const old = blocks.get(b)!;
    const header = rehash({ ...old.header, parentHash: parent, ...(b === first && { extraData: '0xabcdef' }) });
    const receipts = old.receipts.map((r) =>
      typeof r === 'object' && r !== null && 'blockHash' in r ? { ...r, blockHash: header.hash } : r,
    );
    fork.set(b, { ...old, header, receipts });
    parent = String(header.hash);
  }
  return fork;
}

interface JsonRpcBody {
  id: number;
  method: string;
  params?: unknown[];
}

const quantity = (n: number) => `0x${n.toString(16)}`;

/** Each of {@link LoopbackNode.compression}'s ways, applied to an answer's text. */
const COMPRESS: Record<NonNullable<LoopbackNode['compression']>, (text: string) => Buffer> = {
  gzip: (text) => gzipSync(text),
  deflate: (text) => deflateSync(text),
  'deflate-raw': (text) => deflateRawSync(text),
  br: (text) => brotliCompressSync(text),
};

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** The number a call's block parameter names: a quantity, or a tag (`latest`, …). */
function blockNumberOf(node: LoopbackNode, param: unknown): number {
  if (param === 'latest' || param === 'finalized' || param === 'safe')
    return node.tags.get(param) ?? Math.max(...node.blocks.keys());
  return Number(param);
}

/** `eth_getLogs` over the blocks served: a filter of addresses and topics (a string, a list or null each). */
function getLogs(node: LoopbackNode, param: Record<string, unknown>): unknown[] {
  const from = Number(param['fromBlock']);
  const to = Number(param['toBlock']);
  const list = (v: unknown) =>
    v === null || v === undefined ? [] : Array.isArray(v) ? (v as string[]) : [v as string];
  const filter: HexFilter = {
    address: list(param['address']),
    topics: ((param['topics'] as unknown[] | undefined) ?? []).map(list),
  };
  const blocks = [...node.blocks].filter(([n]) => n >= from && n <= to).sort(([a], [b]) => a - b);
  const logs = matchingLogs(
    blocks.map(([, block]) => block),
    filter,
  );
  return node.logsFault?.(logs) ?? logs;
}

function answer(node: LoopbackNode, chainId: number, call: RpcCall): unknown {
  if (call.method === 'eth_chainId') return quantity(chainId);
  if (call.method === 'eth_getLogs') return getLogs(node, call.params[0] as Record<string, unknown>);
  const n = blockNumberOf(node, call.params[0]);
  const block = node.blocks.get(n);
  if (call.method === 'eth_getBlockByNumber') {
    if (block === undefined) return null;
    const count = block.transactions ?? block.receipts.length;
    return {
      ...block.header,
      transactions:
        block.transactionHashes ??
        Array.from(
          { length: count },
          (_, i) => (block.receipts[i]?.transactionHash as string | undefined) ?? syntheticTxHash(chainId, n, i),
        ),
    };
  }
  if (call.method === 'eth_getBlockReceipts') return block === undefined ? null : block.receipts;
  throw new Error(`the loopback node has no method ${call.method}`);
}

/** Starts a node serving `blocks` of chain `chainId`. */
export async function startLoopbackNode(chainId: number, blocks: Map<number, NodeBlock>): Promise<LoopbackNode> {
  const hanging = new Set<() => void>();
  const node: LoopbackNode = {
    url: '',
    blocks,
    calls: [],
    fault: undefined,
    delayMs: 0,
    tags: new Map(),
    logsFault: undefined,
    maxLogsBlocks: Number.POSITIVE_INFINITY,
    requests: 0,
    connections: 0,
    batchRefusal: undefined,
    maxBatch: Number.POSITIVE_INFINITY,
    reverseBatches: false,
    dropFromBatch: undefined,
    answerTwice: undefined,
    rawAnswer: undefined,
    callError: undefined,
    compression: null,
    close: async () => undefined,
  };
  /** One call's answer object, or the fault it meets. */
  const answerCall = (body: JsonRpcBody): NodeFault | { json: unknown } => {
    const call = { method: body.method, params: body.params ?? [] };
    node.calls.push(call);
    const fault = node.fault?.(call, node.calls.length - 1);
    if (fault !== undefined) return fault;
    const error = node.callError?.(call, node.calls.length - 1);
    if (error !== undefined) return { json: { jsonrpc: '2.0', id: body.id, error } };
    const range = call.method === 'eth_getLogs' ? (call.params[0] as Record<string, unknown>) : undefined;
    if (range !== undefined && Number(range['toBlock']) - Number(range['fromBlock']) + 1 > node.maxLogsBlocks) {
      const error = { code: -32005, message: 'query returned more than 10000 results' };
      return { json: { jsonrpc: '2.0', id: body.id, error } };
    }
    return { json: { jsonrpc: '2.0', id: body.id, result: answer(node, chainId, call) } };
  };
  /** A batch: refused when over maxBatch (as batchRefusal says), else each call answered; a call's fault is the batch's. */
  const answerBatch = (bodies: JsonRpcBody[]): NodeFault | { json: unknown } => {
    if (bodies.length > node.maxBatch && node.batchRefusal === 'http-413')
      return { status: 413, body: { message: 'request entity too large' } };
    if (bodies.length > node.maxBatch && node.batchRefusal === 'single-error')
      return {
        json: { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'batch requests are not supported' } },
      };
    if (bodies.length > node.maxBatch && node.batchRefusal === 'batches-not-supported')
      return {
        json: {
          jsonrpc: '2.0',
          id: null,
          error: { code: -32005, message: 'Batched requests are not supported by this server' },
        },
      };
    if (bodies.length > node.maxBatch && node.batchRefusal === 'first-call-error') {
      const message = `batch limit ${node.maxBatch} exceeded (can increase by --rpc.batch.limit). Requested batch of size: ${bodies.length}`;
      return { json: [{ jsonrpc: '2.0', id: bodies[0]!.id, error: { code: -32600, message } }] };
    }
    if (bodies.length > node.maxBatch)
      return {
        json: bodies.map((b) => ({
          jsonrpc: '2.0',
          id: b.id,
          error: { code: -32600, message: 'batch size too large' },
        })),
      };
    const answers: unknown[] = [];
    // Answers given as text, each in place of the one answer it stands for.
    const raw: string[] = [];
    for (const body of bodies) {
      const answered = answerCall(body);
      if (!('json' in answered)) return answered;
      const call = { method: body.method, params: body.params ?? [] };
      const text = node.rawAnswer?.(call, body.id);
      if (text !== undefined) answers.push(`@raw${raw.push(text) - 1}`);
      else if (node.dropFromBatch?.(call) !== true) answers.push(answered.json);
      const second = node.answerTwice?.(call);
      if (second !== undefined) answers.push({ jsonrpc: '2.0', id: body.id, result: second });
    }
    const json = node.reverseBatches ? answers.reverse() : answers;
    if (raw.length === 0) return { json };
    return { status: 200, text: JSON.stringify(json).replace(/"@raw(\d+)"/g, (_, i: string) => raw[Number(i)]!) };
  };
  const server: Server = createServer(async (req, res) => {
    node.requests++;
    const body = JSON.parse(await readBody(req)) as JsonRpcBody | JsonRpcBody[];
    if (node.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, node.delayMs));
    const fault = Array.isArray(body) ? answerBatch(body) : answerCall(body);
    if ('hang' in fault) {
      const end = () => res.destroy();
      hanging.add(end);
      res.on('close', () => hanging.delete(end));
      return;
    }
    if ('status' in fault) {
      res.writeHead(fault.status, { 'Content-Type': 'application/json', ...fault.headers });
      return void res.end(fault.text ?? JSON.stringify(fault.body ?? {}));
    }
    const text = JSON.stringify(fault.json);
    const compression = node.compression;
    const name = compression === 'deflate-raw' ? 'deflate' : compression;
    if (name !== null && new RegExp(`\\b${name}\\b`).test(req.headers['accept-encoding'] ?? '')) {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Encoding': name });
      return void res.end(COMPRESS[compression!](text));
    }
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(text);
  });
  server.on('connection', () => node.connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  node.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  node.close = () =>
    new Promise<void>((resolve) => {
      for (const end of hanging) end();
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return node;
}
