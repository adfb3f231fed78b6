import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { badRequest } from 'evm-integrity/api';
import { Admission } from '../admission.js';
import { CLIENT_CLOSED_REQUEST, clientLeft, readPendingCloses } from '../client.js';
import type { Endpoint } from '../../endpoints/endpoints.js';
import type { AppDeps, Env } from '../env.js';
import { forbidden, type createGuards } from '../middleware/guards.js';
import { answerOf, type VerifyOutcome } from '../../workers/endpoint-job.js';
import { runOnPool } from '../../workers/verify-pool.js';
import { readRequestBody } from '../../endpoints/read-request-body.js';
import { payloadTooLarge, unsupportedEncoding } from '../responses.js';
import type { Reservation } from '../../store/store.js';

const JSON_MEDIA_TYPE = /^application\/(.+\+)?json\b/i;
const decoder = new TextDecoder();

/**
 * The metered verify endpoints. Each request passes the guards, then its body is read; only then
 * does it take a place (`max_in_flight`, `max_in_flight_per_account`) and reserve its CU, so a slow
 * upload holds neither. A body of `pool_threshold_bytes` or more is then read and verified on a
 * worker thread, a smaller one on the event loop. A 2xx answer keeps the CU; anything else, or a
 * client gone before the answer (even while its job waited for a worker), gives them back.
 */
export function verifyRoutes(deps: AppDeps, guards: ReturnType<typeof createGuards>, endpoints: readonly Endpoint[]): Hono<Env> {
  const { config, store, registry, docsUrl, now, pool } = deps;
  const admission = new Admission(config.maxInFlight, config.maxInFlightPerAccount);
  const routes = new Hono<Env>();
  const limit = bodyLimit({
    maxSize: config.bodyLimitBytes,
    onError: (c) => {
      throw payloadTooLarge(config.bodyLimitBytes, c.req.header('content-length'));
    },
  });

  for (const endpoint of endpoints) {
    routes.post(endpoint.path, guards.authenticate, guards.entitled(endpoint), guards.throttle, guards.affordable(endpoint), limit, async (c) => {
      const account = c.get('account')!;
      const encoding = c.req.header('content-encoding');
      if (encoding !== undefined && !/^\s*identity\s*$/i.test(encoding)) throw unsupportedEncoding(encoding);
      const contentType = c.req.header('content-type') ?? '';
      if (!JSON_MEDIA_TYPE.test(contentType)) {
        const problem = {
          name: 'Content-Type',
          location: 'body' as const,
          reason: 'invalid_format' as const,
          expected: `application/json, got ${contentType === '' ? 'none' : JSON.stringify(contentType)}`,
        };
        return c.json(badRequest([problem], 1, { docsUrl }), 400);
      }
      const bytes = new Uint8Array(await c.req.arrayBuffer());
      c.set('bodyRead', true);
      const chains = account.entitlements?.chains ?? null;
      const offload = pool !== undefined && bytes.byteLength >= config.poolThresholdBytes;
      // A small body is read here, so a malformed one is answered before it takes a place or CU;
      // a large one is read by the worker, in the same function.
      let body: unknown;
      if (!offload) {
        const read = readRequestBody(decoder.decode(bytes), chains, docsUrl);
        if (read.kind === 'invalid') return c.json(read.envelope, 400);
        if (read.kind === 'forbidden') throw forbidden(account, `chain ${read.chainId}`);
        body = read.value;
      }
      const record = (status: number, cu: number) => ({ requestId: c.get('requestId'), endpoint: endpoint.name, status, cu });
      admission.enter(account.id);
      let reservation: Reservation;
      let outcome: VerifyOutcome;
      try {
        // The CU are taken before the work, atomically across every process on the store.
        const held = store.reserve(account.id, endpoint.name, endpoint.cu, now());
        if (!held.ok) throw guards.allowanceProblem(account, held.error.usage);
        reservation = held.value.reservation;
        try {
          outcome = offload
            ? await runOnPool(pool, { kind: 'endpoint', endpoint: endpoint.name, bytes, chains, docsUrl }, c.req.raw.signal)
            : answerOf(await endpoint.operation(body, { registry, docsUrl }));
        } catch (error) {
          // A client gone while its job waited for a worker: the job was dropped.
          const left = clientLeft(c);
          store.release(reservation, record(left ? CLIENT_CLOSED_REQUEST : 500, 0), now());
          if (left) return new Response(null, { status: CLIENT_CLOSED_REQUEST });
          throw error;
        }
      } finally {
        admission.leave(account.id);
      }
      if (outcome.kind === 'forbidden') {
        store.release(reservation, record(403, 0), now());
        throw forbidden(account, `chain ${outcome.chainId}`);
      }
      await readPendingCloses();
      if (clientLeft(c)) {
        store.release(reservation, record(CLIENT_CLOSED_REQUEST, 0), now());
        return new Response(null, { status: CLIENT_CLOSED_REQUEST });
      }
      const { status, json } = outcome;
      if (status >= 200 && status < 300) store.settle(reservation, record(status, endpoint.cu), now());
      else store.release(reservation, record(status, 0), now());
      return c.body(json, status as 200, { 'Content-Type': 'application/json' });
    });
  }
  return routes;
}
