/**
 * JSON-RPC calls to one node, batched: the calls made while a request is being prepared go out
 * together, up to `batch` calls per HTTP request (a JSON array), at most `connections` requests in
 * flight. Batches `'sized'` by their answers hold as many calls as an answer of about 4 MiB does,
 * from 16 to 100. Answers are matched to calls by id, in whatever order they come; a call the batch did not
 * answer fails alone. A node that refuses batches (an HTTP 4xx but those of CLIENT_REFUSED, a
 * single error object for the whole array, or "batch … too large / not supported" per call or for
 * the first call alone) or
 * whose batch answer is over the size cap gets the refused calls again in batches half as large,
 * down to one call per request (no batching), and that size is kept for the rest of the run.
 */
import { isObject, type JsonObject } from '../input/values/json-values.js';
import { show } from '../json/show.js';
import { sameJson } from '../json/versions.js';
import { AnswerTooLargeError, SourceError } from '../errors.js';
import { type AnswerVerdict, type HttpClient } from './http-client.js';

/**
 * JSON-RPC calls per HTTP request that batches sized by their answers start at and never go under: 8 blocks (a header
 * and its receipts each), see docs/audit.md.
 */
export const DEFAULT_BATCH = 16;

/** The most calls a batch sized by its answers holds: Erigon refuses more by default (`--rpc.batch.limit`). */
export const MAX_SIZED_BATCH = 100;

/**
 * The answer a batch sized by its answers aims at, in characters: about what 16 calls for modern mainnet blocks weigh
 * (some 250 KB a call). Calls for blocks before Byzantium weigh 2 KB, and 16 of them a request held an audit against
 * a node 50 ms away to some 600 blocks a second, where its CPU allows 3,000.
 */
export const SIZED_ANSWER_CHARS = 4 * 1024 * 1024;

/**
 * The calls of a batch sized by its answers, where a call's answer is `charsPerCall` long and the node takes at most
 * `ceiling` calls a request: as many as an answer of SIZED_ANSWER_CHARS holds, from DEFAULT_BATCH (or the ceiling, if
 * lower) to the ceiling.
 * @example
 * sizedBatch(2_000, 100) // 100: blocks of 2016
 * sizedBatch(250_000, 100) // 16: modern mainnet blocks
 */
export function sizedBatch(charsPerCall: number, ceiling: number): number {
  const fits = Math.floor(SIZED_ANSWER_CHARS / Math.max(1, charsPerCall));
  return Math.max(Math.min(DEFAULT_BATCH, ceiling), Math.min(ceiling, fits));
}

/**
 * HTTP statuses by which a node refuses the client (its key, its plan or credit, its URL), whatever the request: a batch
 * answered so fails at once, not asked again in smaller batches down to one call each (72 requests for a 30-block audit).
 */
const CLIENT_REFUSED = new Set([401, 402, 403, 404, 405, 407]);

/** A call's answer as the node sent it: `{result}` or `{error}`. */
export type RpcAnswer = JsonObject;

/** A call waiting for its answer. */
interface Pending {
  method: string;
  params: unknown[];
  /** Rate-limited answers to this call so far (per-call answers of a batch). */
  limited: number;
  resolve(answer: RpcAnswer): void;
  reject(error: unknown): void;
}

/**
 * A call as messages name it: its method, and the block (a quantity or tag) or transaction (a hash) its first parameter
 * asks for (`eth_getBlockReceipts for block 1000023`): a batch's many calls name blocks apart.
 */
function callName(method: string, params: unknown[]): string {
  const first = params[0];
  if (typeof first !== 'string') return method;
  if (/^0x[0-9a-fA-F]{64}$/.test(first)) return `${method} for transaction ${first}`;
  if (/^0x[0-9a-fA-F]{1,16}$/.test(first)) return `${method} for block ${BigInt(first)}`;
  return /^(latest|finalized|safe|earliest|pending)$/.test(first) ? `${method} for block "${first}"` : method;
}

/** A node's refusal of a batch as a whole, or of a call for being in one (providers word it differently). */
const BATCH_REFUSED = /batch|response (is |size )?too (large|big)/i;

/** An error object's code and message, for messages and the rules below. */
export function rpcErrorOf(error: JsonObject): { code: number | undefined; message: string } {
  return {
    code: typeof error.code === 'number' ? error.code : undefined,
    message: typeof error.message === 'string' ? error.message : show(error),
  };
}

/**
 * The call of a batch whose answer holds `path` (`[8].result[1].logs[0].data`: the answer at place 8, whatever call it
 * answers), by that answer's id in `answer` read leniently: `its answer to eth_getBlockReceipts for block 1000023`;
 * undefined where the id cannot be told (it is the member named twice, or names no call of the batch).
 */
function answerOf(calls: Pending[], ids: number[], path: string, answer: unknown): string | undefined {
  const place = /^\[(\d+)\](.*)$/.exec(path);
  if (place === null || /^\.id\b/.test(place[2]!) || !Array.isArray(answer)) return undefined;
  const element: unknown = answer[Number(place[1])];
  const at = isObject(element) ? ids.indexOf(element.id as number) : -1;
  return at === -1 ? undefined : `its answer to ${callName(calls[at]!.method, calls[at]!.params)}`;
}

/** What a {@link JsonRpcTransport} sends through, to where, and its rules. */
export interface JsonRpcTransportOptions {
  client: HttpClient;
  url: string;
  headers: Record<string, string>;
  /** The node, by origin, for messages. */
  where: string;
  /**
   * Calls per request at most (1: no batching), or `'sized'`: as many as an answer of {@link SIZED_ANSWER_CHARS} holds
   * by the answers so far, from {@link DEFAULT_BATCH} to {@link MAX_SIZED_BATCH}.
   */
  batch: number | 'sized';
  /** Requests in flight at once (the HTTP client's bound of connections should be as large). */
  connections: number;
  /** Whether an error answer to this call is a rate limit to wait for (the source's rule). */
  isRateLimit: (method: string, code: number | undefined, message: string) => boolean;
  /** Retries of a call whose answer in a batch is a rate limit. */
  maxRetries: number;
  sleep: (ms: number) => Promise<void>;
}

/**
 * The batching transport of {@link RpcBlockSource}: `call` queues a call and gives its answer
 * object; the queue is sent on the next turn of the event loop, so that the calls of all the blocks
 * being fetched share requests.
 * @example
 * const answer = await transport.call('eth_chainId', []) // { jsonrpc: '2.0', id: 1, result: '0x1' }
 */
export class JsonRpcTransport {
  private readonly queue: Pending[] = [];
  private scheduled = false;
  private inFlight = 0;
  private nextId = 1;
  /** Calls per request now: sized by the answers, and at most the ceiling. */
  private batch: number;
  /** Calls per request at most: halved each time the node refuses a batch. */
  private ceiling: number;
  /** The mean length of an answer to one call so far, where batches are sized by their answers. */
  private charsPerCall: number | undefined;

  constructor(private readonly options: JsonRpcTransportOptions) {
    const { batch } = options;
    this.ceiling = batch === 'sized' ? MAX_SIZED_BATCH : Math.max(1, Math.floor(batch));
    this.batch = batch === 'sized' ? DEFAULT_BATCH : this.ceiling;
  }

  /** The calls per request now (sized by the answers, after any refusals). */
  get batchSize(): number {
    return this.batch;
  }

  /** The node's answer object to one call (`result` or `error`), or a SourceError when there is none. */
  call(method: string, params: unknown[]): Promise<RpcAnswer> {
    return new Promise((resolve, reject) => {
      this.enqueue([{ method, params, limited: 0, resolve, reject }]);
    });
  }

  private enqueue(calls: Pending[]): void {
    this.queue.push(...calls);
    this.schedule();
  }

  /**
   * Sends the queue on the next turn of the event loop, so that the calls made in the continuations
   * of the answers just read join it; calls wait in the queue (where they can still join a batch)
   * while all connections are busy.
   */
  private schedule(): void {
    if (this.scheduled || this.queue.length === 0 || this.inFlight >= this.options.connections) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      while (this.queue.length > 0 && this.inFlight < this.options.connections) {
        this.inFlight++;
        void this.send(this.queue.splice(0, this.batch)).finally(() => {
          this.inFlight--;
          this.schedule();
        });
      }
    });
  }

  /** Sends calls as one request (a single object when alone) and settles each. */
  private async send(calls: Pending[]): Promise<void> {
    const ids = calls.map(() => this.nextId++);
    const bodies = calls.map((c, i) => ({ jsonrpc: '2.0', id: ids[i], method: c.method, params: c.params }));
    const single = calls.length === 1;
    const what = single
      ? calls[0]!.method
      : `a batch of ${calls.length} calls (${[...new Set(calls.map((c) => c.method))].join(', ')})`;
    let answer: unknown;
    let status: number;
    let length: number;
    try {
      ({
        json: answer,
        status,
        length,
      } = await this.options.client.post(
        this.options.url,
        JSON.stringify(single ? bodies[0] : bodies),
        this.options.headers,
        {
          who: this.options.where,
          what,
          partOf: single ? undefined : (path, json) => answerOf(calls, ids, path, json),
        },
        (a) => (single ? this.judgeSingle(calls[0]!.method, a.status, a.json) : this.judgeBatch(a.status, a.json)),
      ));
    } catch (error) {
      if (error instanceof AnswerTooLargeError && !single) return this.refused(calls);
      for (const c of calls) c.reject(error);
      return;
    }
    if (single) return calls[0]!.resolve(answer as RpcAnswer);
    if (CLIENT_REFUSED.has(status)) {
      const error = new SourceError(`${this.options.where} answered ${what} with HTTP ${status}`);
      for (const c of calls) c.reject(error);
      return;
    }
    if (status < 200 || status >= 300 || !Array.isArray(answer)) return this.refused(calls);
    const byId = new Map<unknown, JsonObject>();
    // An id answered twice, differently, is the node's fault: neither answer is taken (json/versions.ts).
    const answeredTwice = new Set<unknown>();
    for (const element of answer) {
      if (!isObject(element)) continue;
      const first = byId.get(element.id);
      if (first === undefined) byId.set(element.id, element);
      else if (!sameJson(first, element)) answeredTwice.add(element.id);
    }
    // Geth and Erigon refuse a batch over their limit with one error object, under the first call's
    // id, and no answer to the others: those are refused with it, not left unanswered.
    const batchRefused = answer.some(
      (element) =>
        isObject(element) && isObject(element.error) && BATCH_REFUSED.test(rpcErrorOf(element.error).message),
    );
    const again: Pending[] = [];
    const limited: Pending[] = [];
    calls.forEach((c, i) => {
      const element = byId.get(ids[i]);
      if (answeredTwice.has(ids[i]))
        return c.reject(
          new SourceError(
            `${this.options.where} answered ${what} with two different answers to ${callName(c.method, c.params)} (id ${ids[i]})`,
          ),
        );
      if (element === undefined && batchRefused) return again.push(c);
      if (element === undefined)
        return c.reject(
          new SourceError(
            `${this.options.where} answered ${what} without an answer to ${callName(c.method, c.params)} (id ${ids[i]})`,
          ),
        );
      if (isObject(element.error)) {
        const { code, message } = rpcErrorOf(element.error);
        if (BATCH_REFUSED.test(message)) return again.push(c);
        if (this.options.isRateLimit(c.method, code, message)) {
          if (++c.limited > this.options.maxRetries)
            return c.reject(
              new SourceError(
                `${this.options.where} answered ${c.method} with error ${code ?? '(no code)'}: ${message}, still after ${this.options.maxRetries} retries`,
              ),
            );
          return limited.push(c);
        }
      } else if (!('result' in element)) {
        return c.reject(new SourceError(`${this.options.where} answered ${c.method} with no result`));
      }
      c.resolve(element);
    });
    // A refusal's answer is short, and says nothing of the answers' size.
    if (again.length > 0) this.refused(again);
    else if (this.options.batch === 'sized') this.resize(calls.length, length);
    if (limited.length > 0) {
      const waitMs = Math.min(500 * 2 ** (Math.max(...limited.map((c) => c.limited)) - 1), 60_000);
      // Waited for outside the request's turn: the other calls keep going.
      void this.options.sleep(waitMs).then(() => this.enqueue(limited));
    }
  }

  /**
   * The next batches' size after an answer of `length` characters to `calls` calls: sizedBatch at the mean length of a
   * call's answer, the last batch's weighed as much as all before it, so that the size follows a range from small
   * blocks to large.
   */
  private resize(calls: number, length: number): void {
    const perCall = length / calls;
    this.charsPerCall = this.charsPerCall === undefined ? perCall : (this.charsPerCall + perCall) / 2;
    this.batch = sizedBatch(this.charsPerCall, this.ceiling);
  }

  /** Calls of a refused batch: the batch size halved (at least 1) and kept as the ceiling, and the calls sent again. */
  private refused(calls: Pending[]): void {
    this.ceiling = this.batch = Math.max(1, Math.min(this.batch, Math.floor(calls.length / 2)));
    this.enqueue(calls);
  }

  /**
   * A batch's answer as a whole: final unless a rate limit (an HTTP 429, or one rate-limit error
   * object for the whole array: waited for, not taken for a refusal of batches) or an outage; a
   * refusal is seen by the caller. An error object saying batches are refused is a refusal whatever
   * its code: jsonrpsee's "Batched requests are not supported" is -32005, many providers' rate limit.
   */
  private judgeBatch(status: number, json: unknown): AnswerVerdict {
    if (status === 429) return { kind: 'rate_limited', failure: 'HTTP 429' };
    if (isObject(json) && isObject(json.error)) {
      const { code, message } = rpcErrorOf(json.error);
      if (!BATCH_REFUSED.test(message) && this.options.isRateLimit('', code, message))
        return { kind: 'rate_limited', failure: `error ${code ?? '(no code)'}: ${message}` };
    }
    if (status >= 500) return { kind: 'retry', failure: `HTTP ${status}` };
    return { kind: 'final' };
  }

  /** One call's answer, as the node words it. */
  private judgeSingle(method: string, status: number, json: unknown): AnswerVerdict {
    const { where } = this.options;
    if (isObject(json) && isObject(json.error)) {
      const { code, message } = rpcErrorOf(json.error);
      if (status === 429 || this.options.isRateLimit(method, code, message))
        return { kind: 'rate_limited', failure: `error ${code ?? '(no code)'}: ${message}` };
      return { kind: 'final' };
    }
    if (status >= 200 && status < 300) {
      if (!isObject(json) || !('result' in json))
        return {
          kind: 'refuse',
          message: `${where} answered ${method} with ${json === undefined ? 'a body that is not JSON' : 'no result'}`,
        };
      return { kind: 'final' };
    }
    const failure = `HTTP ${status}`;
    if (status === 429) return { kind: 'rate_limited', failure };
    if (status >= 500) return { kind: 'retry', failure };
    return { kind: 'refuse', message: `${where} answered ${method} with ${failure}` };
  }
}
