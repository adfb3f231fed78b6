/**
 * A hosted data service on loopback (node:http, 127.0.0.1, a free port) serving the raw datasets
 * of real fixture blocks: block records (0101, `POST /v1/evm/raw/blocks`) and log records (0103,
 * `POST /v1/evm/raw/logs`), derived from each block's header and receipts, in small pages, behind
 * a bearer key. Faults are injected per test: records dropped, added or altered, 429s with
 * `Retry-After`, requests left unanswered (a timeout).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BlockJson } from '../../packages/core/src/sources/block-source.js';

type Json = Record<string, unknown>;

/** A fault of the service, applied to every answer until the test clears it. */
export type ServiceFault =
  /** The log record at that place is not served. */
  | { kind: 'drop_log'; block: number; txIndex: number; logIndex: number }
  /** A copy of the log record at that place is served too, at the next free `log_index` of its transaction. */
  | { kind: 'extra_log'; block: number; txIndex: number; logIndex: number }
  /** The log record at that place has `field` set to `value`. */
  | { kind: 'alter_log'; block: number; txIndex: number; logIndex: number; field: string; value: unknown }
  /** The block record has `field` set to `value`. */
  | { kind: 'alter_block'; block: number; field: string; value: unknown }
  /** The next `requests` requests are answered 429 with `Retry-After: retryAfterSeconds`. */
  | { kind: 'rate_limit'; requests: number; retryAfterSeconds: number }
  /** The next `requests` requests are never answered. */
  | { kind: 'hang'; requests: number }
  /** Every page names `chainId` as its chain_id, whichever chain was asked. */
  | { kind: 'answer_chain'; chainId: unknown };

export interface LoopbackService {
  /** The base URL, ending with `/v1`. */
  url: string;
  /** The faults in force; a test sets them. Counted faults (rate_limit, hang) count down. */
  faults: ServiceFault[];
  /** Every request received: path, body, Authorization header. */
  requests: Array<{ path: string; body: Json; authorization: string | undefined }>;
  close(): Promise<void>;
}

const bare = (hex: unknown) => String(hex).replace(/^0x/, '');
const iso = (timestamp: unknown) => new Date(Number(timestamp) * 1000).toISOString();

/**
 * The block record (0101) of a block, in the spec's mixed forms: hashes without 0x, the miner with it, the time with or
 * without millis.
 */
export function blockRecord(block: BlockJson): Json {
  const { header } = block;
  const number = Number(header.number);
  return {
    block_number: number,
    block_hash: bare(header.hash),
    parent_block_hash: bare(header.parentHash),
    receipt_root: bare(header.receiptsRoot),
    miner: header.miner,
    gas_limit: Number(header.gasLimit),
    extra_data: bare(header.extraData),
    size: 0,
    timestamp_utc: number % 2 === 0 ? iso(header.timestamp) : iso(header.timestamp).replace('.000Z', 'Z'),
    _computed_receipt_root: bare(header.receiptsRoot),
    _tracing_id: `b${number}`,
    _created_at: '2026-01-01T00:00:00Z',
  };
}

/** The log records (0103) of a block: one per log of its receipts, `log_index` counted within the transaction. */
export function logRecords(block: BlockJson): Json[] {
  const { header } = block;
  return block.receipts.flatMap((receipt, txIndex) =>
    ((receipt as Json).logs as Json[]).map((log, logIndex) => {
      const topics = (log.topics as string[]).map(bare);
      return {
        block_number: Number(header.number),
        block_hash: bare(header.hash),
        block_time: iso(header.timestamp),
        tx_hash: bare((receipt as Json).transactionHash),
        tx_index: txIndex,
        log_index: logIndex,
        contract_address: bare(log.address),
        topic_zero: topics[0] ?? null,
        data_topics: topics.slice(1),
        data: bare(log.data),
        _tracing_id: `l${Number(header.number)}-${txIndex}-${logIndex}`,
      };
    }),
  );
}

const samePlace = (record: Json, f: { block: number; txIndex: number; logIndex: number }) =>
  record.block_number === f.block && record.tx_index === f.txIndex && record.log_index === f.logIndex;

/** The log records with the faults applied. */
function faultyLogs(records: Json[], faults: readonly ServiceFault[]): Json[] {
  let out = records;
  for (const f of faults) {
    if (f.kind === 'drop_log') out = out.filter((r) => !samePlace(r, f));
    if (f.kind === 'alter_log') out = out.map((r) => (samePlace(r, f) ? { ...r, [f.field]: f.value } : r));
    if (f.kind === 'extra_log') {
      const copy = out.find((r) => samePlace(r, f))!;
      const next = out.filter((r) => r.block_number === f.block && r.tx_index === f.txIndex).length;
      out = [...out, { ...copy, log_index: next }];
    }
  }
  return out;
}

const faultyBlocks = (records: Json[], faults: readonly ServiceFault[]) =>
  faults.reduce(
    (out, f) =>
      f.kind === 'alter_block' ? out.map((r) => (r.block_number === f.block ? { ...r, [f.field]: f.value } : r)) : out,
    records,
  );

async function bodyOf(req: IncomingMessage): Promise<Json> {
  let text = '';
  for await (const chunk of req) text += chunk;
  return JSON.parse(text) as Json;
}
const send = (res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}) =>
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers }).end(JSON.stringify(value));
const envelope = (status: number, code: string, message: string) => ({
  error: { code, http_status: status, message, hint: '', docs_url: '' },
});

type Counted = Extract<ServiceFault, { requests: number }>;

/** The counted fault of that kind in force, counted down; undefined when none. */
function takeCounted(faults: ServiceFault[], kind: Counted['kind']): Counted | undefined {
  const fault = faults.find((f): f is Counted => f.kind === kind && 'requests' in f && f.requests > 0);
  if (fault !== undefined) fault.requests--;
  return fault;
}

/**
 * Starts the service over `blocks` (each with its receipts' `transactionHash`, see
 * synthetic-tx-hash.ts). Pages hold at most `pageSize` records (default 7), fewer when the
 * request's `limit` says so; the cursor is opaque. The blocks dataset answers with `count`,
 * the logs dataset with `page_count`, as the spec's samples vary.
 */
export async function startLoopbackService(options: {
  blocks: readonly BlockJson[];
  apiKey: string;
  pageSize?: number;
  /** A JSON-RPC node that `/evm/rpc` proxies to, as the hosted service's proxy does. */
  rpcUrl?: string;
}): Promise<LoopbackService> {
  const pageSize = options.pageSize ?? 7;
  const datasets = {
    blocks: options.blocks.map(blockRecord),
    logs: options.blocks.flatMap(logRecords),
  };
  const service: Omit<LoopbackService, 'url' | 'close'> = { faults: [], requests: [] };
  const server = createServer(async (req, res) => {
    const body = await bodyOf(req);
    const path = req.url ?? '';
    service.requests.push({ path, body, authorization: req.headers.authorization });
    if (takeCounted(service.faults, 'hang') !== undefined) return; // never answered: the client's time limit ends it
    const limited = takeCounted(service.faults, 'rate_limit');
    if (limited?.kind === 'rate_limit')
      return send(res, 429, envelope(429, 'RATE_LIMITED', 'too many requests'), {
        'Retry-After': String(limited.retryAfterSeconds),
      });
    if (req.headers.authorization !== `Bearer ${options.apiKey}`)
      return send(res, 401, envelope(401, 'UNAUTHORIZED', 'invalid API key'));
    if (path === '/v1/evm/rpc' && options.rpcUrl !== undefined) {
      const proxied = await fetch(options.rpcUrl, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
      return send(res, proxied.status, await proxied.json());
    }
    const dataset = path === '/v1/evm/raw/blocks' ? 'blocks' : path === '/v1/evm/raw/logs' ? 'logs' : undefined;
    if (dataset === undefined) return send(res, 404, envelope(404, 'NOT_FOUND', `no route ${path}`));
    const all =
      dataset === 'blocks' ? faultyBlocks(datasets.blocks, service.faults) : faultyLogs(datasets.logs, service.faults);
    const selected = all.filter(
      (r) =>
        body.chain_id === options.blocks[0]?.chain_id &&
        (r.block_number as number) >= (body.from_block as number) &&
        (r.block_number as number) <= (body.to_block as number),
    );
    const offset = typeof body.cursor === 'string' ? Number(body.cursor.replace('after-', '')) : 0;
    const page = selected.slice(offset, offset + Math.min(pageSize, body.limit as number));
    const next = offset + page.length < selected.length ? `after-${offset + page.length}` : null;
    const named = service.faults.find((f) => f.kind === 'answer_chain');
    send(res, 200, {
      chain_id: named === undefined ? body.chain_id : named.chainId,
      data: page,
      cursor: next,
      [dataset === 'blocks' ? 'count' : 'page_count']: page.length,
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return Object.assign(service, {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}
