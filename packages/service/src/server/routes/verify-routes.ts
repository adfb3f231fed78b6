import type { IncomingMessage } from 'node:http';
import { finished } from 'node:stream';
import type { Context, MiddlewareHandler } from 'hono';
import { Hono } from 'hono';
import { Admission } from '../admission/admission.js';
import { BodyBudget, maxBodyBytesFor } from '../admission/body-budget.js';
import { CLIENT_CLOSED_REQUEST, clientLeft, itsTurn, readPendingCloses, serverEnded } from '../connections/client.js';
import { cuOf, type Endpoint } from '../../endpoints/endpoints.js';
import { bodyLimitOf } from '../config/config.js';
import { inFlightBoundsOf } from '../admission/in-flight-bounds.js';
import type { AppDeps, Env } from '../env.js';
import { allowanceProblem } from '../middleware/allowance.js';
import { inviteBody } from '../middleware/request-head.js';
import { forbidden } from '../middleware/entitled.js';
import { answerOf, type VerifyOutcome } from '../../endpoints/verify-outcome.js';
import { runOnPool } from '../../workers/verify-pool.js';
import { readRequestBody } from '../../endpoints/read-request-body.js';
import {
  type ApiProblem,
  invalidRequest,
  payloadTooLarge,
  unsupportedCharset,
  unsupportedEncoding,
  unsupportedTransferCoding,
  wrongContentType,
} from '../responses.js';
import type { ServerMetrics } from '../server-metrics.js';
import { PendingReleases } from '../admission/pending-releases.js';
import { StoreError } from '../../store/store-error.js';
import type { Account, Reservation, Store, Usage } from '../../store/store.js';

/** The middleware a verify request passes before its route reads its body, in order (app.ts composes them). */
export type VerifyGuards = readonly [
  MiddlewareHandler<Env>,
  MiddlewareHandler<Env>,
  MiddlewareHandler<Env>,
  MiddlewareHandler<Env>,
];

/** `application/json`, with parameters (`; charset=utf-8`) or none: not `application/json-seq`, a list, or a `+json` type. */
const JSON_MEDIA_TYPE = /^\s*application\/json\s*(;.*)?$/i;

/** A `charset` parameter of a Content-Type, quoted or not: `; charset=utf-8`, `;Charset="UTF-8"`. */
const CHARSET_PARAMETER = /;\s*charset\s*=\s*(?:"([^"]*)"|([^;\s]*))/gi;

/** UTF-8's names: a body is read as UTF-8 (json-body.ts), and JSON is UTF-8 (RFC 8259). */
const UTF8 = /^utf-?8$/i;

/** The first charset `contentType` names that is not UTF-8; undefined when it names none, or UTF-8 only. */
function foreignCharset(contentType: string): string | undefined {
  for (const [, quoted, bare] of contentType.matchAll(CHARSET_PARAMETER)) {
    const charset = quoted ?? bare ?? '';
    if (!UTF8.test(charset)) return charset;
  }
  return undefined;
}

/**
 * The work of one verify request once its body is read: run inline or on a worker, aborted by `signal` while it waits.
 */
type Verification = (signal: AbortSignal) => Promise<VerifyOutcome>;

/**
 * What one verify request holds while it is worked on: a place (`max_in_flight`,
 * `max_in_flight_per_account`) and its CU (`cu`: the endpoint's for this body). `end` gives back what
 * was taken, once, whatever happened: the place, and the CU unless the answer is 2xx, when they are
 * charged before it is sent.
 */
class RequestHold {
  #entered = false;
  #reservation: Reservation | undefined;
  /** The status the request is answered with; until one is known, a fault's (500). */
  status = 500;

  /** `refuse`: the 429 when the allowance cannot pay. */
  constructor(
    private readonly deps: {
      admission: Admission;
      store: Store;
      now: () => Date;
      pending: PendingReleases;
      metrics?: ServerMetrics;
    },
    private readonly account: Account,
    private readonly endpoint: Endpoint,
    private readonly cu: number,
    private readonly requestId: string,
    private readonly refuse: (usage: Usage) => ApiProblem,
  ) {}

  /**
   * Takes a place (waiting for one while the client stays, 503 past `admission_wait_ms`), then reserves the
   * endpoint's CU (429 when the allowance cannot pay).
   */
  async take(signal: AbortSignal): Promise<void> {
    await this.deps.admission.enter(this.account.id, signal);
    this.#entered = true;
    const held = await this.deps.store.reserve(this.account.id, this.endpoint.name, this.cu, this.deps.now());
    if (!held.ok) throw this.refuse(held.error.usage);
    this.#reservation = held.value.reservation;
  }

  /** Gives the place back (once): the work is done, or failed. */
  leave(): void {
    if (this.#entered) this.deps.admission.leave(this.account.id);
    this.#entered = false;
  }

  /**
   * Gives the place back, and settles (2xx) or releases the CU, logging the request with its status. A 2xx is
   * settled before it is sent: when the settle is refused (the lease ran out, its CU went back and the allowance has
   * no room left) the request is released and answered 429 instead; when the store cannot answer, the error
   * propagates (503) and the release is tried again until the store takes it (PendingReleases). Either way no answer
   * goes out unpaid.
   */
  async end(): Promise<void> {
    this.leave();
    const reservation = this.#reservation;
    this.#reservation = undefined;
    if (reservation === undefined) return;
    try {
      await this.#end(reservation);
    } catch (error) {
      if (error instanceof StoreError && error.code === 'STORE_UNAVAILABLE')
        this.deps.pending.add(reservation, {
          requestId: this.requestId,
          endpoint: this.endpoint.name,
          status: 503,
          cu: 0,
        });
      throw error;
    }
  }

  /** Settles (2xx) or releases the reservation, logging the request with its status. */
  async #end(reservation: Reservation): Promise<void> {
    const charged = this.status >= 200 && this.status < 300;
    const record = {
      requestId: this.requestId,
      endpoint: this.endpoint.name,
      status: this.status,
      cu: charged ? this.cu : 0,
    };
    if (!charged) return this.deps.store.release(reservation, record, this.deps.now());
    const settled = await this.deps.store.settle(reservation, record, this.deps.now());
    if (settled.ok) {
      this.deps.metrics?.charged(this.endpoint.name, this.cu);
      return;
    }
    this.status = 429;
    await this.deps.store.release(reservation, { ...record, status: this.status, cu: 0 }, this.deps.now());
    throw this.refuse(settled.error.usage);
  }
}

/**
 * Refuses a body the server cannot read: compressed, by Content-Encoding or by a transfer coding before `chunked`
 * (`gzip, chunked`: Node's parser undoes only the chunking) (415), not declared JSON, or declared in a charset other
 * than UTF-8 (400 naming the Content-Type header). Each before the body is read, so none costs CU.
 */
function requirePlainJson(c: Context<Env>): void {
  const encoding = c.req.header('content-encoding');
  // A list (RFC 9110, 5.6.1): its empty members name no coding, so an empty header is an uncompressed body.
  const codings = encoding?.split(',').map((coding) => coding.trim()) ?? [];
  if (codings.some((coding) => coding !== '' && !/^identity$/i.test(coding))) throw unsupportedEncoding(encoding!);
  const transfer = c.req.header('transfer-encoding');
  if (transfer !== undefined && !/^\s*chunked\s*$/i.test(transfer)) throw unsupportedTransferCoding(transfer);
  const contentType = c.req.header('content-type') ?? '';
  if (!JSON_MEDIA_TYPE.test(contentType)) throw wrongContentType(contentType);
  // A body in another charset would be read as UTF-8 all the same: a UTF-16 body refused as "not UTF-8", or one in
  // Latin-1 read as other text than was meant.
  const charset = foreignCharset(contentType);
  if (charset !== undefined) throw unsupportedCharset(charset);
}

/**
 * A body's bytes as they come, up to `limit`. A declared length is read into one buffer of that length, so a large
 * body costs one allocation, not its chunks and their concatenation; a chunked body's chunks are kept and joined once
 * it has ended.
 */
class BodyBytes {
  readonly #buffer: Uint8Array<ArrayBuffer> | undefined;
  readonly #chunks: Uint8Array[] = [];
  #at = 0;

  constructor(
    declared: number | undefined,
    private readonly limit: number,
  ) {
    if (declared !== undefined) this.#buffer = new Uint8Array(declared);
  }

  /** Takes `chunk`; false once the body has gone past its limit (the chunk is then dropped). */
  add(chunk: Uint8Array): boolean {
    const at = this.#at;
    this.#at += chunk.byteLength;
    if (this.#at > this.limit) return false;
    if (this.#buffer === undefined) this.#chunks.push(chunk);
    // A web request's stream (readStream) may run past its declared length: the rest is dropped.
    else if (at < this.#buffer.byteLength) this.#buffer.set(chunk.subarray(0, this.#buffer.byteLength - at), at);
    return true;
  }

  /** The bytes taken: in a buffer of their own, which release() may free (never a view of Node's shared pool). */
  bytes(): Uint8Array<ArrayBuffer> {
    if (this.#buffer !== undefined)
      return this.#at === this.#buffer.byteLength
        ? this.#buffer
        : this.#buffer.subarray(0, Math.min(this.#at, this.#buffer.byteLength));
    const bytes = new Uint8Array(this.#at);
    let at = 0;
    for (const chunk of this.#chunks) {
      bytes.set(chunk, at);
      at += chunk.byteLength;
    }
    return bytes;
  }
}

/**
 * The body's bytes, marked read (so the connection may be kept alive); undefined, the rest left unread, once it goes
 * past `limit` (a chunked body, whose size only its end tells). `declared` is its Content-Length (the head's check has
 * held it to `limit`). This is the one place a body is read, and only once the head has passed every check: a client
 * that waits for `100 Continue` is sent it here. Served by Node's HTTP server, the chunks are taken from its request
 * as they come: the web stream the adaptor would make of it copies each chunk once more on the event loop, and leaves
 * garbage for the event loop's collector (bench/health.bench.ts).
 */
async function readBody(
  c: Context<Env>,
  declared: number | undefined,
  limit: number,
): Promise<Uint8Array<ArrayBuffer> | undefined> {
  inviteBody(c);
  const body = new BodyBytes(declared, limit);
  const incoming = c.env?.incoming;
  const whole = incoming !== undefined ? await readFrom(incoming, body) : await readStream(c.req.raw.body, body);
  if (!whole) return undefined;
  c.set('bodyRead', true);
  return body.bytes();
}

/**
 * Reads `incoming`'s body into `body`: true once it has ended, false as soon as it goes past its limit (the rest is
 * left unread). It rejects when the request ends before its body does (the client gone: `finished` reports the
 * premature close).
 */
function readFrom(incoming: IncomingMessage, body: BodyBytes): Promise<boolean> {
  return new Promise((resolve, reject) => {
    let over = false;
    const take = (chunk: Buffer) => {
      if (body.add(chunk)) return;
      over = true;
      incoming.off('data', take);
      incoming.pause();
      resolve(false);
    };
    incoming.on('data', take);
    finished(incoming, (error) => {
      if (over) return;
      if (error !== undefined && error !== null) reject(error);
      else resolve(true);
    });
  });
}

/** Reads a web request's body (no Node request under it) into `body`, as readFrom does. */
async function readStream(stream: ReadableStream<Uint8Array> | null, body: BodyBytes): Promise<boolean> {
  if (stream === null) return true;
  const reader = stream.getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    if (body.add(read.value)) continue;
    await reader.cancel();
    return false;
  }
  return true;
}

/** The body's length as its `Content-Length` declares it; undefined when it declares none (chunked). */
function declaredLength(c: Context<Env>): number | undefined {
  const length = c.req.header('content-length');
  return length !== undefined && /^\d+$/.test(length) && c.req.header('transfer-encoding') === undefined
    ? Number(length)
    : undefined;
}

/**
 * Frees `bytes`' memory now rather than at the next garbage collection, which an idle server may
 * not run for minutes: detaching its buffer releases it. A buffer moved to a worker is detached already.
 */
function release(bytes: Uint8Array<ArrayBuffer> | undefined): void {
  // ES2024's ArrayBuffer.prototype.transfer, beyond the compiler's library.
  const buffer = bytes?.buffer as
    (ArrayBuffer & { detached: boolean; transfer(length: number): ArrayBuffer }) | undefined;
  if (buffer !== undefined && !buffer.detached) buffer.transfer(0);
}

/**
 * The answer to a request whose connection is gone: nothing is sent, the CU are given back, and the store's request log
 * has the status the request log has (the server's own ending, serverEnded, else the client's 499).
 */
function clientGone(c: Context<Env>, hold: RequestHold): Response {
  hold.status = serverEnded(c)?.status ?? CLIENT_CLOSED_REQUEST;
  return new Response(null, { status: CLIENT_CLOSED_REQUEST });
}

/**
 * The metered verify endpoints. Each request passes `guards(endpoint)`, the app's middleware (key, entitlements, rate,
 * and the allowance at the CU its Content-Length declares), and finds a place free, or waits for one with its
 * body unread (Admission: refused 503 when the wait is full or too long); then its body is read, and
 * only then does it take a place (`max_in_flight`, `max_in_flight_per_account`; waiting again if
 * others took them meanwhile) and reserve its CU (`cuOf`: an endpoint's `cuPerMiB` grows them with the body), so a
 * slow upload holds neither. Each endpoint's body limit is
 * `bodyLimitOf` its own. A body of `pool_threshold_bytes` or more, or one its endpoint `verifiesOnPool` (an anchor
 * proof's light-client steps), is then read and verified on a worker thread, a smaller one on the event loop. A 2xx answer keeps the CU; anything else, or a
 * client gone before the answer (even while its job waited for a worker), gives them back.
 */
export function verifyRoutes(
  deps: AppDeps,
  guards: (endpoint: Endpoint) => VerifyGuards,
  endpoints: readonly Endpoint[],
): Hono<Env> {
  const { config, store, registry, now, pool, metrics } = deps;
  const bounds = inFlightBoundsOf(config, pool?.size ?? 0);
  const admission = new Admission(bounds.maxInFlight, bounds.maxInFlightPerAccount, config.admissionWaitMs);
  const pending = new PendingReleases(store, now);
  const bodies = new BodyBudget(
    config.maxBodyBytesInFlight ?? maxBodyBytesFor(Math.max(config.bodyLimitBytes, config.logsProofBodyLimitBytes)),
  );
  /** 413: a body over `endpoint`'s limit (`bodyLimitOf`), by its Content-Length or, chunked, as it is read. */
  const tooLarge = (c: Context<Env>, endpoint: Endpoint): ApiProblem =>
    payloadTooLarge(bodyLimitOf(config, endpoint), c.req.header('content-length'), endpoint.oversizeActions);

  /**
   * What verifying `bytes` takes. A small body is read here, so a malformed one is answered (400,
   * or 403 for a chain the account may not use) before it takes a place or CU; a large one is read
   * by a worker, with the same function. `docsUrl` is the request's (AppDeps.docsUrl), for its error envelopes.
   */
  const prepare = (
    endpoint: Endpoint,
    account: Account,
    bytes: Uint8Array<ArrayBuffer>,
    docsUrl: string,
  ): Verification => {
    const chains = account.entitlements?.chains ?? null;
    if (pool !== undefined && (bytes.byteLength >= config.poolThresholdBytes || endpoint.verifiesOnPool?.(bytes))) {
      // Each account waits in its own queue, so one account's burst of large bodies does not hold the others'.
      return (signal) =>
        runOnPool(pool, { kind: 'endpoint', endpoint: endpoint.name, bytes, chains, docsUrl }, signal, account.id);
    }
    const read = readRequestBody(endpoint, bytes, chains, docsUrl);
    if (read.kind === 'invalid') throw invalidRequest(read.envelope);
    if (read.kind === 'forbidden') throw forbidden(account, `chain ${read.chainId}`);
    return async () => answerOf(await endpoint.operation(read.value, { registry, docsUrl }));
  };

  /** Runs the verification under `hold` and answers it; `hold.status` is the status the request ends with. */
  const answer = async (
    c: Context<Env>,
    account: Account,
    verify: Verification,
    hold: RequestHold,
  ): Promise<Response> => {
    let outcome: VerifyOutcome;
    try {
      outcome = await verify(c.req.raw.signal);
    } catch (error) {
      // A client gone while its job waited for a worker: the job was dropped.
      if (clientLeft(c)) return clientGone(c, hold);
      throw error;
    }
    if (outcome.kind === 'forbidden') {
      hold.status = 403;
      throw forbidden(account, `chain ${outcome.chainId}`);
    }
    // The work is done: its place goes back now. Its CU are charged only on its turn to be written (a pipelined answer
    // waits for those ahead of it): one whose connection closes first is given back, never charged unwritten.
    hold.leave();
    await itsTurn(c);
    await readPendingCloses();
    if (clientLeft(c)) return clientGone(c, hold);
    hold.status = outcome.status;
    return c.body(outcome.json, outcome.status as 200, { 'Content-Type': 'application/json' });
  };

  const routes = new Hono<Env>();
  for (const endpoint of endpoints) {
    routes.post(endpoint.path, ...guards(endpoint), async (c) => {
      const account = c.get('account')!;
      const limit = bodyLimitOf(config, endpoint);
      const declared = declaredLength(c);
      // Every refusal that the headers decide comes before the body is read; a place is the last.
      if (declared !== undefined && declared > limit) throw tooLarge(c, endpoint);
      requirePlainJson(c);
      await admission.place(account.id, c.req.raw.signal);
      // A chunked body is budgeted at its limit, the most it may be.
      const budgeted = declared ?? limit;
      bodies.take(budgeted);
      let bytes: Uint8Array<ArrayBuffer> | undefined;
      try {
        bytes = await readBody(c, declared, limit);
        if (bytes === undefined) throw tooLarge(c, endpoint);
        const verify = prepare(endpoint, account, bytes, deps.docsUrl(c));
        const cu = cuOf(endpoint, bytes.byteLength);
        const hold = new RequestHold(
          { admission, store, now, pending, ...(metrics && { metrics }) },
          account,
          endpoint,
          cu,
          c.get('requestId'),
          (usage) => allowanceProblem(account, usage, endpoint, cu, now),
        );
        try {
          // The CU are taken before the work, atomically across every process on the store.
          await hold.take(c.req.raw.signal);
          const response = await answer(c, account, verify, hold);
          await hold.end(); // charged before the answer leaves
          return response;
        } finally {
          await hold.end(); // after a fault: gives back what is still held
        }
      } finally {
        release(bytes);
        bodies.give(budgeted);
      }
    });
  }
  return routes;
}
