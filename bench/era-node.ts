/**
 * A range of one era's blocks for the whole-chain projection (audit-projection.bench.ts), and a loopback JSON-RPC node
 * that serves it: real fixture blocks of the era looped into `count` consecutive blocks, renumbered from the era's
 * first block, linked by their parent hashes and re-hashed, so that every block of the range verifies. Each receipt is
 * a node's whole answer (node-answer.ts: every member a node gives), naming its block's new hash and number.
 *
 * The node answers from text made once a template: a block's receipts are its template's text cut at the block's
 * hash and number, joined again with this block's at the first request for them and kept as bytes. It serves on the
 * bench's own cores, so it should cost as little as it can of what it shares with the audit it serves: no
 * JSON.stringify of a block's receipts per request, and an answer is its results' bytes copied once, not text built
 * and encoded again for each request (docs/audit.md, "The node's own cost").
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { bytesToHex, headerHash, Problems, readRpcHeader } from '../packages/core/src/index.js';
import { fullNodeAnswer } from './node-answer.js';

/** Stand-ins for a block's hash and number in its template's receipts text; no real value looks like them. */
const HASH_MARK = '0xHASH-OF-THE-BLOCK';
const NUMBER_MARK = '0xNUMBER-OF-THE-BLOCK';

/** A fixture block as a node gives it: its header's members and its receipts' text, cut at the block's hash and number. */
interface Template {
  header: Record<string, unknown>;
  /** The receipts' JSON text split at each HASH_MARK, each piece split at each NUMBER_MARK. */
  receipts: string[][];
  transactions: string[];
  receiptCount: number;
  logCount: number;
}

/** The block's transactions as `eth_getBlockByNumber` lists them: in the order of its receipts' `transactionIndex`. */
function transactionsOf(receipts: ReadonlyArray<Record<string, unknown>>): string[] {
  const listed: string[] = [];
  for (const [i, receipt] of receipts.entries())
    listed[receipt.transactionIndex === undefined ? i : Number(receipt.transactionIndex)] =
      receipt.transactionHash as string;
  return listed;
}

/** The template of fixture block `name` (fixtures/blocks/NAME.json). */
function template(name: string): Template {
  const fixture = JSON.parse(readFileSync(`fixtures/blocks/${name}.json`, 'utf8'));
  const header = { ...fixture.header, hash: HASH_MARK, number: NUMBER_MARK };
  const receipts = JSON.parse(fullNodeAnswer({ ...fixture, header })).receipts as Array<Record<string, unknown>>;
  const text = JSON.stringify(receipts);
  return {
    header: fixture.header,
    receipts: text.split(`"${HASH_MARK}"`).map((piece) => piece.split(`"${NUMBER_MARK}"`)),
    transactions: transactionsOf(receipts),
    receiptCount: receipts.length,
    logCount: receipts.reduce((sum, receipt) => sum + (receipt.logs as unknown[]).length, 0),
  };
}

/** The header with its hash recomputed from its fields. */
function rehash(header: Record<string, unknown>): Record<string, unknown> {
  const read = readRpcHeader({ ...header, hash: undefined }, 'header', new Problems());
  if (read?.complete === undefined) throw new Error(`header ${String(header.number)} cannot be encoded`);
  return { ...header, hash: `0x${bytesToHex(headerHash(read.complete))}` };
}

/**
 * One block of the range: the bytes of `eth_getBlockByNumber`'s result and of `eth_getBlockReceipts`', the receipts'
 * made from their template at the first call and kept for the range's later audits.
 */
interface ServedBlock {
  block: Buffer;
  receipts: () => Buffer;
}

/** A range of looped fixture blocks: where it starts and ends, and what its blocks hold on average. */
export interface EraRange {
  from: number;
  to: number;
  /** Receipts and logs a block, on average over the range. */
  receiptsPerBlock: number;
  logsPerBlock: number;
  blocks: Map<number, ServedBlock>;
}

/**
 * `count` blocks from `from`: fixture `names[i % names.length]` as block `from + i`, each linked to the one before.
 * Timestamps are the templates' own: a fork by timestamp (Shanghai on) is the template's, so `names` must be of one era.
 */
export function eraRange(names: readonly string[], from: number, count: number): EraRange {
  const templates = names.map(template);
  const blocks = new Map<number, ServedBlock>();
  let parentHash = templates[0]!.header.parentHash;
  let receipts = 0;
  let logs = 0;
  for (let i = 0; i < count; i++) {
    const t = templates[i % templates.length]!;
    const number = `0x${(from + i).toString(16)}`;
    const header = rehash({ ...t.header, number, parentHash });
    const hash = JSON.stringify(header.hash);
    const quantity = JSON.stringify(number);
    let made: Buffer | undefined;
    blocks.set(from + i, {
      block: Buffer.from(JSON.stringify({ ...header, transactions: t.transactions })),
      receipts: () => (made ??= Buffer.from(t.receipts.map((piece) => piece.join(quantity)).join(hash))),
    });
    parentHash = header.hash;
    receipts += t.receiptCount;
    logs += t.logCount;
  }
  return { from, to: from + count - 1, receiptsPerBlock: receipts / count, logsPerBlock: logs / count, blocks };
}

interface Call {
  id: unknown;
  method: string;
  params?: unknown[];
}

/** A loopback node: its URL, the latency it adds to each HTTP request, what it has been asked, and how to stop it. */
export interface EraNode {
  url: string;
  latencyMs: number;
  range: EraRange | undefined;
  requests: number;
  calls: number;
  close(): Promise<void>;
}

const CHAIN_ID = Buffer.from('"0x1"');
const NULL = Buffer.from('null');

/** The result's bytes of one call, from `range`. */
function resultBytes(range: EraRange | undefined, call: Call): Buffer {
  if (call.method === 'eth_chainId') return CHAIN_ID;
  const block = range?.blocks.get(Number(call.params?.[0]));
  if (block === undefined) return NULL;
  if (call.method === 'eth_getBlockByNumber') return block.block;
  if (call.method === 'eth_getBlockReceipts') return block.receipts();
  throw new Error(`no method ${call.method}`);
}

const [OPEN_LIST, CLOSE_LIST, CLOSE] = ['[', ']', '}'].map((mark) => Buffer.from(mark)) as [Buffer, Buffer, Buffer];

/** Starts a JSON-RPC node serving `node.range` (set it before each audit), calls alone or in batches. */
export async function startEraNode(): Promise<EraNode> {
  const node: EraNode = { url: '', latencyMs: 0, range: undefined, requests: 0, calls: 0, close: async () => {} };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (d: Buffer) => chunks.push(d));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Call | Call[];
      const calls = Array.isArray(body) ? body : [body];
      node.requests++;
      node.calls += calls.length;
      // Each result's bytes copied once into the answer's: building and encoding the answer's text for each request
      // cost the node about half a core beside an audit of Cancun's blocks, on the audit's two.
      const parts: Buffer[] = [];
      calls.forEach((call, i) => {
        const prefix = `${i === 0 ? '' : ','}{"jsonrpc":"2.0","id":${JSON.stringify(call.id)},"result":`;
        parts.push(Buffer.from(prefix), resultBytes(node.range, call), CLOSE);
      });
      const answer = Array.isArray(body) ? Buffer.concat([OPEN_LIST, ...parts, CLOSE_LIST]) : Buffer.concat(parts);
      const send = () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(answer);
      };
      if (node.latencyMs > 0) setTimeout(send, node.latencyMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  node.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  node.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return node;
}
