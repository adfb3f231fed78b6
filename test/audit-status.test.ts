/**
 * `audit-status` of an audit that cannot finish by itself, with real processes, a real PostgreSQL and a loopback node:
 * while a chunk is parked it gives no ETA but says that the audit waits for an operator, and what to do; once the audit
 * is enqueued again and finishes, it says so no more.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { freshDatabase, type FreshDatabase } from './helpers/postgres.js';
import { fixtureChain, startLoopbackNode, type LoopbackNode } from './helpers/loopback-rpc.js';
import {
  killWorkers,
  auditIdOf,
  runCli,
  startWorker,
  statusOf,
  stopWorker,
  until,
  untilComplete,
  type WorkerProcess,
} from './helpers/audit-queue.js';

const FROM = 1_000_001;
const TO = 1_000_020;
/** The node fails every call for a block from here on: the chunks that hold them are parked, the first is done. */
const FAILING_FROM = 1_000_011;

let db: FreshDatabase | undefined;
let node: LoopbackNode | undefined;
const workers: WorkerProcess[] = [];
afterEach(async () => {
  await killWorkers(workers);
  await node?.close();
  node = undefined;
  await db?.drop();
  db = undefined;
});

describe('audit-status of an audit with parked chunks', () => {
  it('gives no ETA but says the audit waits for an operator; after a second enqueue it completes', async () => {
    db = await freshDatabase();
    node = await startLoopbackNode(1, fixtureChain(FROM, TO));
    node.delayMs = 20; // the done chunk takes some time: a rate to project an ETA from
    node.fault = (call) => {
      const block = call.params[0];
      return typeof block === 'string' && block.startsWith('0x') && Number(block) >= FAILING_FROM
        ? { status: 503 }
        : undefined;
    };
    const args = ['audit', '--chain', '1', '--from', String(FROM), '--to', String(TO), '--rpc', node.url];
    const queued = [...args, '--queue', db.url, '--chunk-size', '10', '--chunk-retries', '0'];
    const id = auditIdOf(await runCli(queued));
    // One chunk in hand: chunks held together share the node's batches, and a batch that asks for a failing block
    // fails whole, so the first chunk, whose blocks the node serves, would be parked beside the others.
    workers.push(startWorker(['--queue', db.url, '--concurrency', '1']));

    // A timeout names the last status seen and what the worker wrote, so that a hang says where it stopped.
    let last: Record<string, any> | undefined;
    const status = await until('the failing chunks to be parked and the other done', async () => {
      const s = (last = await statusOf(id, db!.url));
      return s.chunks.parked + s.chunks.done === s.chunks.total && s.chunks.done > 0 ? s : undefined;
    }).catch((error: Error) => {
      throw new Error(
        `${error.message}; last status ${JSON.stringify(last)}; the worker wrote:\n${workers[0]!.stderr()}`,
      );
    });
    expect(status.chunks).toMatchObject({ total: 3, done: 1, parked: 2, queued: 0, running: 0 });
    expect(status.blocks_per_second).toBeGreaterThan(0);
    expect(status.blocks.audited).toBeLessThan(status.blocks.total);
    // Blocks are left and there is a rate, yet no ETA: no worker takes a parked chunk again.
    expect(status.eta_seconds).toBeNull();
    expect(status.needs_operator).toBe(true);
    expect(status.complete).toBe(false);
    const human = await runCli(['audit-status', id, '--queue', db.url]);
    expect(human.stdout).toMatch(
      /blocks: \d+ of 20 audited, [\d.]+ blocks\/s, no ETA: 2 chunks parked, the audit cannot finish until it is enqueued again \(audit … --queue, the same flags\), which hands them back\n/,
    );
    expect(human.stdout).not.toMatch(/ETA \d/);

    node.fault = undefined; // the node is back: enqueuing the same audit again hands the parked chunks back
    expect(auditIdOf(await runCli(queued))).toBe(id);
    const done = await untilComplete(id, db.url);
    expect(done).toMatchObject({ needs_operator: false, eta_seconds: null, verdicts: { pass: 20 } });
    expect((await runCli(['audit-status', id, '--queue', db.url])).stdout).toContain('blocks: 20 of 20 audited');
    for (const w of workers) expect((await stopWorker(w)).status).toBe(0);
  }, 120_000);
});
