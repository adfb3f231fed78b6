/**
 * The worker pool over real HTTP on loopback: large bodies verified on a worker answer exactly
 * as inline, admission bounds each account, /v1/health answers while the pool is busy, a client
 * that leaves while its job waits is not charged, and shutdown ends the workers. The workers run
 * the built service (dist/), as `npm test` builds it first. Blocks verified on the pool (the CLI's
 * many blocks, the lineage walk's block checks) give what they give inline.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { getPriority } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Problems, readRpcBlock, verifyBlock } from '../packages/core/src/index.js';
import { auditBundle, receiptRootBody } from '../packages/core/src/api/index.js';
import type { BlockJson, BlockVerifier } from '../packages/core/src/lineage/index.js';
import { poolBlockVerifier } from '../packages/service/src/workers/pool-block-verifier.js';
import { createVerifyPool, runOnPool, type VerifyPool } from '../packages/service/src/workers/verify-pool.js';
import { Admission } from '../packages/service/src/server/admission/admission.js';
import { ApiProblem } from '../packages/service/src/server/responses.js';
import { startServer, type RunningServer } from '../packages/service/src/server/start-server.js';
import { MemoryStore } from '../packages/service/src/store/memory-store.js';
import type { Reservation, RequestRecord } from '../packages/service/src/store/store.js';
import { fixtureNames, loadFixture } from './helpers/fixtures.js';
import { capturingLogger, testConfig } from './helpers/server.js';

const bigBlock = readRpcBlock(loadFixture('mainnet-15537394'), new Problems())!;
const big = receiptRootBody({
  chainId: 1,
  receiptRoot: bigBlock.header.fields.receiptsRoot!,
  receipts: bigBlock.receipts,
});
const bigBody = JSON.stringify(big);
const smallBody = JSON.stringify({ expected_bloom: '00'.repeat(256), logs: [] });

const ACCOUNTS = ['a', 'b', 'c'] as const;
const keyOf = (account: string) => `evmi_pool-test-key-${account}-0123456789abcdefghijklmnopq`;

/** A memory store that tells which account each reservation was for, and what was settled and released. */
class WatchedStore extends MemoryStore {
  readonly owners = new Map<Reservation, string>();
  readonly reserved: string[] = [];
  readonly settled: Array<RequestRecord & { account: string }> = [];
  readonly released: Array<RequestRecord & { account: string; settledBefore: number }> = [];
  /** While set, a reservation waits for it: its request holds its place (taken before the CU) until then. */
  gate: Promise<void> | undefined;
  /** Reservations asked for, the waiting ones included. */
  asked = 0;

  override async reserve(...args: Parameters<MemoryStore['reserve']>) {
    this.asked++;
    await this.gate;
    const held = await super.reserve(...args);
    if (held.ok) this.owners.set(held.value.reservation, args[0]);
    this.reserved.push(args[0]);
    return held;
  }
  override async settle(reservation: Reservation, request: RequestRecord, now: Date) {
    this.settled.push({ ...request, account: this.owners.get(reservation)! });
    return super.settle(reservation, request, now);
  }
  override async release(reservation: Reservation, request: RequestRecord, now: Date) {
    this.released.push({ ...request, account: this.owners.get(reservation)!, settledBefore: this.settled.length });
    await super.release(reservation, request, now);
  }
}

const serverConfig = (poolWorkers: number) =>
  testConfig({
    auth: true,
    poolWorkers,
    // fetch opens a connection in place of the one a test aborts and sends nothing on it; Node
    // counts such a connection as in progress, so close() ends it at this deadline.
    shutdownTimeoutMs: 500,
    // Every body goes to the pool, so one worker and a queue are easy to set up.
    poolThresholdBytes: 0,
    maxInFlightPerAccount: 3,
    // Refused at once beyond the places, so a test sees the bound.
    admissionWaitMs: 0,
    accounts: ACCOUNTS.map((id) => ({
      id,
      name: id,
      plan: 'pro',
      cuLimit: 100_000,
      rateLimitRps: 10_000,
      entitlements: id === 'a' ? { chains: [1] } : null,
      keys: [{ label: 'test', key: keyOf(id) }],
    })),
  });

let pooled: RunningServer;
let inline: RunningServer;
let store: WatchedStore;

beforeAll(async () => {
  store = new WatchedStore();
  pooled = await startServer(serverConfig(1), { logger: capturingLogger().logger, store });
  inline = await startServer(serverConfig(0), { logger: capturingLogger().logger });
});
afterAll(async () => {
  await pooled?.close();
  await inline?.close();
});

const post = (server: RunningServer, account: string, path: string, body: string, signal?: AbortSignal) =>
  fetch(`${server.url}/v1/evm/verify/${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${keyOf(account)}` },
    body,
    ...(signal && { signal }),
  });

/** Status, media type and body, with the server's origin (in docs_url) taken out. */
async function answer(server: RunningServer, account: string, path: string, body: string) {
  const res = await post(server, account, path, body);
  return {
    status: res.status,
    type: res.headers.get('content-type'),
    body: (await res.text()).replaceAll(server.url, 'ORIGIN'),
  };
}

describe('a body verified on a worker', () => {
  const mismatching = JSON.stringify({ ...big, receipt_root: `0x${'ab'.repeat(32)}` });
  const txs = big.transactions.map((tx, i) =>
    i === 5 ? { ...tx, cumulative_gas_used: 'lots' } : i === 7 ? { ...tx, status: 7 } : tx,
  );
  const invalid = JSON.stringify({ ...big, transactions: txs });
  const cases: Array<[string, string, string, number]> = [
    ['a block that matches', 'b', bigBody, 200],
    ['a root that does not match', 'b', mismatching, 200],
    ['invalid receipts (400 problems)', 'b', invalid, 400],
    ['a body that is not JSON', 'b', `${bigBody.slice(0, -1)},}`, 400],
    ['a chain the account is not entitled to (403)', 'a', JSON.stringify({ ...big, chain_id: 10 }), 403],
  ];

  it.each(cases)('%s: the same answer as inline', async (_, account, body, status) => {
    const settled = store.settled.length + store.released.length;
    const viaPool = await answer(pooled, account, 'receipt-root', body);
    expect(viaPool).toEqual(await answer(inline, account, 'receipt-root', body));
    expect(viaPool.status).toBe(status);
    // It went the whole way through the route: reserved, then settled (2xx) or released.
    expect(store.settled.length + store.released.length).toBe(settled + 1);
  });

  it('the mismatch and the problems are really there', async () => {
    expect(JSON.parse((await answer(pooled, 'b', 'receipt-root', mismatching)).body).data[0].is_identical).toBe(false);
    const problems = JSON.parse((await answer(pooled, 'b', 'receipt-root', invalid)).body).error.details
      .invalid_parameters;
    expect(problems.map((p: { name: string }) => p.name)).toEqual([
      'transactions[5].cumulative_gas_used',
      'transactions[7].status',
    ]);
  });
});

describe('admission and a busy pool', () => {
  it("beyond an account's places: 503 with Retry-After; another account is still admitted; /v1/health answers meanwhile", async () => {
    // b's three requests take their places, then wait at their reservations until the gate opens, so the
    // fourth finds none free however fast the worker is.
    let open!: () => void;
    store.gate = new Promise((resolve) => (open = resolve));
    const askedBefore = store.asked;
    const held = Array.from({ length: 3 }, () => post(pooled, 'b', 'receipt-root', bigBody));
    try {
      await expect.poll(() => store.asked - askedBefore, { interval: 1 }).toBe(3);
      const refused = await post(pooled, 'b', 'logs-bloom', smallBody);
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('1');
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('SERVICE_UNAVAILABLE');
      const health = await fetch(`${pooled.url}/v1/health`);
      expect(health.status).toBe(200);
    } finally {
      store.gate = undefined;
      open();
    }
    const other = post(pooled, 'c', 'logs-bloom', smallBody);
    expect((await Promise.all(held)).map((r) => r.status)).toEqual([200, 200, 200]);
    expect((await other).status).toBe(200);
  });

  it('the bound in all and the bound per account', async () => {
    const admission = new Admission(3, 2);
    await admission.enter('x');
    await admission.enter('x');
    await expect(admission.enter('x')).rejects.toThrow(ApiProblem);
    await admission.enter('y');
    await expect(admission.enter('z')).rejects.toEqual(
      expect.objectContaining({ status: 503, headers: { 'Retry-After': '1' } }),
    );
    admission.leave('x');
    await admission.enter('z');
  });

  it('beyond the places, requests wait oldest first, as many as may be in progress, and go on as places free', async () => {
    const admission = new Admission(3, 2, 60_000);
    // Free: nothing is taken before the body is read.
    await admission.place('x');
    await admission.enter('x');
    await admission.enter('x');
    const order: string[] = [];
    const waited = (name: string, going: Promise<void>) => going.then(() => order.push(name));
    // x is at its bound: one of x's waits with its body unread, one with its body read; a third is refused at once.
    const x1 = waited('x1', admission.place('x'));
    const x2 = waited('x2', admission.enter('x'));
    await expect(admission.place('x')).rejects.toEqual(expect.objectContaining({ status: 503 }));
    await admission.place('y');
    await admission.enter('y');
    // All three places taken: z waits behind x's; one that leaves while it waits is refused.
    const z = waited('z', admission.place('z'));
    const gone = new AbortController();
    const left = admission.place('y', gone.signal);
    gone.abort();
    await expect(left).rejects.toEqual(expect.objectContaining({ status: 503 }));
    // One place free: the oldest goes on, to read its body; it holds no place until it enters.
    admission.leave('x');
    await x1;
    expect(order).toEqual(['x1']);
    // Two free: x2 (its body read) takes one, z goes on for the other.
    admission.leave('y');
    await Promise.all([x2, z]);
    expect(order).toEqual(['x1', 'x2', 'z']);
    await admission.enter('z');
    // x1 finds x at its bound again (x2 took the place): it waits, now with its body read, for one of x's.
    const x1enters = waited('x1 enters', admission.enter('x'));
    admission.leave('z');
    expect(order).toEqual(['x1', 'x2', 'z']);
    admission.leave('x');
    await x1enters;
    // Past its wait, a request is refused.
    const brief = new Admission(1, 1, 1);
    await brief.enter('x');
    await expect(brief.place('x')).rejects.toEqual(expect.objectContaining({ status: 503 }));
    brief.leave('x');
    await brief.place('x');
  });

  it('a client that leaves while its job waits for a worker: the job is dropped and it is not charged', async () => {
    const before = {
      settled: store.settled.length,
      reserved: store.reserved.length,
      used: (await store.usage('c', new Date())).cuUsed,
    };
    // The accounts' queues take turns: c's own job ahead of it keeps it waiting.
    const ahead = [
      ...Array.from({ length: 3 }, () => post(pooled, 'a', 'receipt-root', bigBody)),
      ...Array.from({ length: 3 }, () => post(pooled, 'b', 'receipt-root', bigBody)),
      post(pooled, 'c', 'receipt-root', bigBody),
    ];
    // Seven bodies of mainnet-15537394's receipts are read before they are reserved: more than poll's default second on
    // a busy machine.
    await expect.poll(() => store.reserved.length - before.reserved, { interval: 1, timeout: 10_000 }).toBe(7);
    const leaving = new AbortController();
    const left = post(pooled, 'c', 'logs-bloom', smallBody, leaving.signal).catch((error: Error) => error.name);
    await expect
      .poll(() => store.reserved.slice(before.reserved).filter((account) => account === 'c').length, { interval: 1 })
      .toBe(2);
    leaving.abort();
    expect(await left).toBe('AbortError');
    await expect
      .poll(() => store.released.find((r) => r.account === 'c' && r.endpoint === 'verify/logs-bloom'))
      .toBeDefined();
    const release = store.released.find((r) => r.account === 'c')!;
    expect(release).toMatchObject({ status: 499, cu: 0 });
    // Released while the seven jobs ahead of it were still to be answered: it never ran.
    expect(release.settledBefore - before.settled).toBeLessThan(7);
    expect((await Promise.all(ahead)).every((r) => r.status === 200)).toBe(true);
    // Its job ahead is charged, the one that left is not.
    expect((await store.usage('c', new Date())).cuUsed).toBe(before.used + 1);
  });
});

describe('shutdown', () => {
  it('ends the workers once requests are drained', async () => {
    const server = await startServer(serverConfig(2), { logger: capturingLogger().logger });
    expect(server.pool!.threads).toBe(2);
    const res = await post(server, 'b', 'receipt-root', bigBody);
    expect(res.status).toBe(200);
    await server.close();
    expect(server.pool!.threads).toBe(0);
  });
});

describe('a worker that verified a large body', () => {
  const blockBytes = () => new TextEncoder().encode(JSON.stringify(loadFixture('mainnet-22869878')));
  const threadOf = async (pool: VerifyPool, bytes: Uint8Array<ArrayBuffer>) =>
    (await runOnPool(pool, { kind: 'block', bytes })).threadId;

  it('is replaced once it has answered; one under the bound keeps its thread', async () => {
    const size = blockBytes().byteLength;
    const pool = createVerifyPool(1, { chains: [], evidence: [] }, size);
    try {
      const under = await threadOf(pool, blockBytes().slice(0, size - 1));
      // A job under the bound leaves its worker in place: the next job runs on the same thread.
      const at = await threadOf(pool, blockBytes());
      expect(at).toBe(under);
      // The job at the bound was its worker's last: the next runs on a new thread, which stays.
      const next = await threadOf(pool, blockBytes().slice(0, 10));
      expect(next).not.toBe(at);
      expect(await threadOf(pool, blockBytes().slice(0, 10))).toBe(next);
    } finally {
      await pool.terminate();
    }
  });
});

/** The niceness of each thread of this process (Linux: the 19th field of its /proc stat, after the name's parenthesis). */
const threadNiceness = (): number[] =>
  readdirSync('/proc/self/task').flatMap((tid) => {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      return [Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16])];
    } catch {
      return []; // a thread that ended meanwhile
    }
  });

describe("the pool's threads give way to the event loop", () => {
  it.runIf(process.platform === 'linux')(
    'each worker takes the niceness asked; the calling thread keeps its own',
    async () => {
      const own = getPriority();
      const before = threadNiceness().filter((nice) => nice === 10).length;
      const pool = createVerifyPool(2, { chains: [], evidence: [] }, undefined, 10);
      try {
        // Two jobs at once: both workers have started (and set their priority) once both have answered.
        const bytes = () => new TextEncoder().encode(JSON.stringify(loadFixture('mainnet-1000010')));
        const outcomes = await Promise.all([
          runOnPool(pool, { kind: 'block', bytes: bytes() }),
          runOnPool(pool, { kind: 'block', bytes: bytes() }),
        ]);
        expect(new Set(outcomes.map((o) => o.threadId)).size).toBe(2);
        expect(threadNiceness().filter((nice) => nice === 10).length).toBe(before + 2);
        expect(getPriority()).toBe(own);
      } finally {
        await pool.terminate();
      }
    },
  );
});

describe('blocks verified on the pool', () => {
  let pool: VerifyPool;
  beforeAll(() => {
    pool = createVerifyPool(2, { chains: [], evidence: [] });
  });
  afterAll(async () => {
    await pool?.terminate();
  });

  it.each(fixtureNames)('%s: poolBlockVerifier gives what verifyBlock gives inline', async (name) => {
    const block = loadFixture(name) as unknown as BlockJson;
    expect(await poolBlockVerifier(pool)(block)).toEqual(verifyBlock(block));
  });

  it('--rules reaches the worker: a block that names no chain is verified with it, refused without it', async () => {
    const { chain_id: _named, ...block } = loadFixture('mainnet-22869878') as unknown as BlockJson;
    expect((await poolBlockVerifier(pool)(block as BlockJson)).ok).toBe(false);
    const ruled = await poolBlockVerifier(pool, 'ethereum')(block as BlockJson);
    expect(ruled).toEqual(verifyBlock(block, { rules: 'ethereum' }));
    expect(ruled.ok && ruled.value.verdict).toBe('identical');
  });

  describe("the lineage walk's block checks on the pool", () => {
    const bundle = JSON.parse(
      readFileSync(new URL('../fixtures/lineage/pair-reserves-19426587.bundle.json', import.meta.url), 'utf8'),
    );
    const tampered = structuredClone(bundle);
    tampered.blocks[0].receipts.pop();
    const PAIR_RECORD = bundle.exchanges[0].body.tracing_id as string;

    it.each([
      ['the recorded bundle (every check runs; fields held by no log)', bundle, 'not_verifiable'],
      ['a receipt taken out (the root check fails)', tampered, 'fail'],
    ])('%s: the same report as inline', async (_, json, verdict) => {
      let calls = 0;
      const onPool = poolBlockVerifier(pool);
      const counted: BlockVerifier = (block) => (calls++, onPool(block));
      const inline = await auditBundle({ chainId: 1, tracingId: PAIR_RECORD, bundle: json });
      const pooled = await auditBundle({ chainId: 1, tracingId: PAIR_RECORD, bundle: json, verify: counted });
      expect(pooled).toEqual(inline);
      expect(pooled.ok && pooled.value.verdict).toBe(verdict);
      // The receipts root came from the pool: once per block of the bundle.
      expect(calls).toBe(bundle.blocks.length);
    });
  });
});
