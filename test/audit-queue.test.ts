/**
 * Audits over many workers (`audit --queue`, `audit-worker`, `audit-status`, `audit-export`), as
 * real processes against a loopback node and a real PostgreSQL: enqueuing is idempotent, the export
 * of a distributed audit with a worker SIGKILLed mid-chunk equals the single-machine audit, the
 * join pass fails a broken link across chunks and follows a reorg between chunks, but heals no block at a chunk's edge
 * whose own line refutes it (a forged hash served once); an audit anchored by an anchor
 * proof exports authentic, naming its checkpoint, as on one machine.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { madeDashFile } from './helpers/cli-process.js';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { freshDatabase, type FreshDatabase } from './helpers/postgres.js';
import { openAuditQueue } from '../packages/service/src/queue/audit-queue.js';
import {
  fixtureBlocks,
  fixtureChain,
  forkOf,
  loopedChain,
  rehash,
  startLoopbackNode,
  type LoopbackNode,
  type NodeBlock,
} from './helpers/loopback-rpc.js';
import {
  killWorkers,
  auditIdOf,
  comparable,
  parseLines,
  query,
  runCli,
  startWorker,
  statusOf,
  stopWorker,
  until,
  untilComplete,
  type WorkerProcess,
} from './helpers/audit-queue.js';
import { kindOf, makeDevice, makeFifo, readFifoDuring } from './helpers/special-files.js';

const FROM = 1_000_001;
const TO = 1_000_030;
const RANGE = ['--chain', '1', '--from', String(FROM), '--to', String(TO)];
/** The checkpoint fixtures/anchor/mainnet-checkpoint-11635710.jsonl hangs from. */
const CHECKPOINT = '0x5ab5b37414ebe99dc2c1e1e325bca79b8f659a4f0af21afdea4b38e646508e82';

// A database per test: the queue is shared by every audit in it, and a test's leftovers would keep the next one's
// workers busy.
let db: FreshDatabase;
beforeEach(async () => {
  db = await freshDatabase();
});
let node: LoopbackNode | undefined;
const workers: WorkerProcess[] = [];
afterEach(async () => {
  await killWorkers(workers);
  await node?.close();
  node = undefined;
  await db.drop();
});

/** A chain with a block missing a receipt (1000007, mid-chunk) and a broken parent link at 1000020 (a chunk's first). */
function faultyChain() {
  const blocks = fixtureChain(FROM, TO);
  const seventh = blocks.get(1_000_007)!;
  blocks.set(1_000_007, { ...seventh, receipts: seventh.receipts.slice(1), transactions: seventh.receipts.length });
  const twentieth = blocks.get(1_000_020)!;
  blocks.set(1_000_020, { ...twentieth, header: rehash({ ...twentieth.header, parentHash: `0x${'44'.repeat(32)}` }) });
  return blocks;
}

describe('audit --queue', () => {
  it('enqueues the chunks and prints the id alone on the last line; a second run is the same audit, no chunk twice', async () => {
    node = await startLoopbackNode(1, fixtureChain(FROM, TO));
    const args = ['audit', ...RANGE, '--rpc', node.url, '--queue', db.url, '--chunk-size', '10'];
    const first = await runCli(args);
    expect(first.stderr).toBe('');
    expect(first.status).toBe(0);
    const id = auditIdOf(first);
    expect(id).toMatch(/^1-1000001-1000030-[0-9a-f]{12}$/);
    expect(first.stdout).toContain(
      '4 chunks (at most 10 blocks each, aligned to multiples of 10), 4 put on the queue now',
    );
    const second = await runCli(args);
    expect(second.status).toBe(0);
    expect(auditIdOf(second)).toBe(id);
    expect(second.stdout).toContain(
      '0 put on the queue now\nthis audit is not finished (0 of 4 chunks done, the others on the queue for audit-worker): audit-status tells where it stands\n',
    );
    expect(second.stdout).not.toContain('enqueued before');
    // The node's URL with a trailing slash after its host alone is the same node: the same audit.
    const slash = await runCli(['audit', ...RANGE, '--rpc', `${node.url}/`, '--queue', db.url, '--chunk-size', '10']);
    expect(auditIdOf(slash)).toBe(id);
    expect(slash.stdout).toContain('0 put on the queue now');
    // Options of how it runs are not of its id: the same audit, whose plan keeps the first run's, as the line says.
    const third = await runCli([...args, '--chunk-timeout', '30', '--chunk-retries', '5']);
    expect(auditIdOf(third)).toBe(id);
    expect(third.stdout).toContain(
      'enqueued before with --chunk-timeout 600, --chunk-retries 4: its workers keep that\n',
    );
    const chunks = await query(
      db.url,
      'SELECT first_block, last_block FROM evm_integrity_audit.chunks WHERE audit_id = $1 ORDER BY 1',
      [id],
    );
    expect(chunks.map((c) => [Number(c.first_block), Number(c.last_block)])).toEqual([
      [1_000_001, 1_000_009],
      [1_000_010, 1_000_019],
      [1_000_020, 1_000_029],
      [1_000_030, 1_000_030],
    ]);
    const jobs = await query(db.url, "SELECT count(*)::int AS n FROM pgboss.job WHERE data->>'audit_id' = $1", [id]);
    expect(jobs[0].n).toBe(4);
    // Before any chunk ran, no link is joined: the first chunk's, to the head hash, is judged when that chunk runs (a
    // user check read "1 of 4 links joined" here).
    const waiting = await runCli(['audit-status', id, '--queue', db.url]);
    expect(waiting.stdout).toContain(
      'chunks: 0 done, 0 running, 4 queued, 0 retrying, 0 parked, of 4; 0 of 4 links joined',
    );
    expect(await statusOf(id, db.url)).toMatchObject({ joined: 0, complete: false });
    // Another chunk size is another audit.
    const other = await runCli([...args.slice(0, -1), '15']);
    expect(auditIdOf(other)).not.toBe(id);
  });

  it('chunks by 500 without --chunk-size, and goes on with the same audit enqueued before under another size', async () => {
    node = await startLoopbackNode(1, fixtureChain(FROM, TO));
    const wide = [
      'audit',
      '--chain',
      '1',
      '--from',
      '1000001',
      '--to',
      '1002030',
      '--rpc',
      node.url,
      '--queue',
      db.url,
    ];
    const first = await runCli(wide);
    expect(first.status).toBe(0);
    expect(first.stdout).toContain(
      '5 chunks (at most 500 blocks each, aligned to multiples of 500), 5 put on the queue now',
    );
    expect(first.stdout).not.toContain('enqueued before');
    const chunks = await query(
      db.url,
      'SELECT first_block, last_block FROM evm_integrity_audit.chunks WHERE audit_id = $1 ORDER BY 1',
      [auditIdOf(first)],
    );
    expect(chunks.map((c) => [Number(c.first_block), Number(c.last_block)])).toEqual([
      [1_000_001, 1_000_499],
      [1_000_500, 1_000_999],
      [1_001_000, 1_001_499],
      [1_001_500, 1_001_999],
      [1_002_000, 1_002_030],
    ]);
    // An audit enqueued with chunks of 100 (the default until 2026-12-04): enqueued again without the flag, it is that
    // audit, not a second one of the same blocks.
    const older = await runCli(['audit', ...RANGE, '--rpc', node.url, '--queue', db.url, '--chunk-size', '100']);
    expect(older.status).toBe(0);
    const again = await runCli(['audit', ...RANGE, '--rpc', node.url, '--queue', db.url]);
    expect(again.status).toBe(0);
    expect(auditIdOf(again)).toBe(auditIdOf(older));
    expect(again.stdout).toContain(
      '1 chunk (at most 100 blocks each, aligned to multiples of 100), 0 put on the queue now\n',
    );
    expect(again.stdout).toContain(
      'enqueued before with --chunk-size 100: this is that audit (give --chunk-size to enqueue another)\n',
    );
    // Another node, or another range, is another audit: the queue's default, nothing said.
    const otherNode = await runCli(['audit', ...RANGE, '--rpc', `${node.url}/other`, '--queue', db.url]);
    expect(auditIdOf(otherNode)).not.toBe(auditIdOf(older));
    expect(otherNode.stdout).toContain('(at most 500 blocks each');
    expect(otherNode.stdout).not.toContain('enqueued before');
    // Given, the flag is the audit's: 500 is another audit than the one of 100, and from then on the default's own.
    const given = await runCli(['audit', ...RANGE, '--rpc', node.url, '--queue', db.url, '--chunk-size', '500']);
    expect(auditIdOf(given)).not.toBe(auditIdOf(older));
    const last = await runCli(['audit', ...RANGE, '--rpc', node.url, '--queue', db.url]);
    expect(auditIdOf(last)).toBe(auditIdOf(given));
    expect(last.stdout).not.toContain('enqueued before');
  });

  it('refuses flags of a run on this machine, and a URL that is not PostgreSQL', async () => {
    const noRpc = await runCli(['audit', ...RANGE, '--queue', db.url]);
    expect(noRpc.status).toBe(2);
    expect(noRpc.stderr).toMatch(/--queue needs --rpc URL \(or ETH_RPC_URL\): the node the workers ask/);
    const withOut = await runCli(['audit', ...RANGE, '--rpc', 'http://127.0.0.1:1', '--queue', db.url, '--out', 'x']);
    expect(withOut.stderr).toMatch(/give it without --out \(audit-export ID --queue URL --out FILE writes the lines\)/);
    // The cap on a node's answer is the workers' (their default), not audit-export's.
    const withCap = await runCli([
      'audit',
      ...RANGE,
      '--rpc',
      'http://127.0.0.1:1',
      '--queue',
      db.url,
      '--max-answer-mb',
      '64',
    ]);
    expect(withCap.status).toBe(2);
    expect(withCap.stderr.split('\n')[0]).toBe(
      "evm-integrity: --queue enqueues the audit for workers: give it without --max-answer-mb (the workers take a node's answers up to the default cap, 32 MiB)",
    );
    const notPg = await runCli(['audit', ...RANGE, '--rpc', 'http://127.0.0.1:1', '--queue', 'http://x']);
    expect(notPg.stderr).toMatch(/--queue: "http:\/\/x" is not a PostgreSQL URL/);
  });
});

describe('audit --queue, its node', () => {
  it('a node that cannot be asked its chain id: exit 2, one line naming it, nothing enqueued', async () => {
    const gone = await startLoopbackNode(1, fixtureChain(FROM, TO));
    await gone.close(); // nothing listens at its URL now
    const run = await runCli(['audit', ...RANGE, '--rpc', `${gone.url}/v3/key`, '--queue', db.url]);
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(
        /^evm-integrity: the audit is not enqueued: its node \(--rpc\) could not be asked its chain id: the JSON-RPC node at http:\/\/127\.0\.0\.1:\d+ answered eth_chainId with a network error: connect ECONNREFUSED/,
      ),
    ]);
    expect(run.stderr).not.toContain('/v3/key'); // a path may hold a provider's key
    const [tables] = await query(db.url, "SELECT to_regclass('evm_integrity_audit.audits') AS audits");
    expect(tables.audits).toBeNull(); // the queue was not even opened
  });
});

describe('the queue tables', () => {
  it('migrate once when three connections open the queue at once, and opening it again changes nothing', async () => {
    const opened = await Promise.all([1, 2, 3].map(() => openAuditQueue(db.url, { poolSize: 1 })));
    await Promise.all(opened.map((q) => q.close()));
    const again = await openAuditQueue(db.url, { poolSize: 1 });
    await again.close();
    const versions = await query(db.url, 'SELECT version FROM evm_integrity_audit.migrations ORDER BY version');
    expect(versions).toEqual([{ version: 1 }, { version: 2 }, { version: 3 }, { version: 4 }]);
    const tables = await query(
      db.url,
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'evm_integrity_audit' ORDER BY 1",
    );
    expect(tables.map((t) => t.table_name)).toEqual([
      'attempt_failures',
      'audits',
      'blocks',
      'chunks',
      'migrations',
      'reorgs',
    ]);
  });

  it('an audit id the queue does not hold: exit 2, one line', async () => {
    await openAuditQueue(db.url).then((q) => q.close());
    const status = await runCli(['audit-status', '1-2-3-000000000000', '--queue', db.url]);
    expect(status.status).toBe(2);
    expect(status.stderr).toMatch(/^evm-integrity: no audit 1-2-3-000000000000 in the queue at .*\n$/);
  });

  it('audit-export --out that exists or cannot be written: exit 2, one line, before the queue is asked', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'audit-export-'));
    const existing = join(dir, 'audit.ndjson');
    writeFileSync(existing, 'kept\n');
    // The queue's URL names no server: a file refused first is refused without it being reached.
    const queue = 'postgres://127.0.0.1:1/q';
    const exists = await runCli(['audit-export', '1-2-3-000000000000', '--queue', queue, '--out', existing]);
    expect(exists.status).toBe(2);
    expect(exists.stderr).toBe(`evm-integrity: ${existing} exists: remove it or name another file\n`);
    expect(readFileSync(existing, 'utf8')).toBe('kept\n');
    const missing = join(dir, 'no-dir', 'audit.ndjson');
    const unwritable = await runCli(['audit-export', '1-2-3-000000000000', '--queue', queue, '--out', missing]);
    expect(unwritable.status).toBe(2);
    expect(unwritable.stderr).toBe(`evm-integrity: --out ${missing}: cannot write it: no such directory\n`);
  });

  it('a queue that cannot be reached: exit 2, one line naming the server without its credentials', async () => {
    const status = await runCli([
      'audit-status',
      '1-2-3-000000000000',
      '--queue',
      'postgres://me:secret@127.0.0.1:1/q',
    ]);
    expect(status.status).toBe(2);
    expect(status.stderr).toMatch(
      /^evm-integrity: the audit queue at 127\.0\.0\.1:1\/q cannot be opened: .*ECONNREFUSED.*\n$/,
    );
    expect(status.stderr).not.toContain('secret');
  });
});

describe('audit-worker, audit-status, audit-export', () => {
  it('3 workers, one SIGKILLed mid-chunk: the export equals the single-machine audit, each block once', async () => {
    node = await startLoopbackNode(1, faultyChain());
    const single = await runCli(['audit', ...RANGE, '--rpc', node.url]);
    expect(single.status).toBe(1);

    node.delayMs = 60; // a chunk takes about a second: long enough to be killed in
    const enqueued = await runCli([
      'audit',
      ...RANGE,
      '--rpc',
      node.url,
      '--queue',
      db.url,
      '--chunk-size',
      '10',
      '--chunk-timeout',
      '2',
      '--concurrency',
      '2',
    ]);
    const id = auditIdOf(enqueued);
    const victim = startWorker(['--queue', db.url]);
    workers.push(victim);
    // The worker is frozen before its chunks are read, so that a chunk seen running is one it holds when killed, not one
    // it stores in between (a chunk done is never audited again); with none running yet, it goes on and is looked at again.
    const taken = await until(`the first worker to take a chunk (${victim.stderr()})`, async () => {
      victim.child.kill('SIGSTOP');
      await new Promise((resolve) => setTimeout(resolve, 100)); // a statement sent before the stop is answered
      const rows = await query(
        db.url,
        "SELECT first_block FROM evm_integrity_audit.chunks WHERE audit_id = $1 AND state = 'running' AND worker LIKE $2",
        [id, `%:${victim.child.pid}`],
      );
      if (rows.length === 0) victim.child.kill('SIGCONT');
      return rows[0]?.first_block as string | undefined;
    });
    victim.child.kill('SIGKILL');
    expect((await victim.ended).signal).toBe('SIGKILL');
    workers.push(startWorker(['--queue', db.url]), startWorker(['--queue', db.url]));

    const status = await untilComplete(id, db.url);
    expect(status.chunks).toMatchObject({ total: 4, done: 4, parked: 0 });
    expect(status.verdicts).toMatchObject({ pass: 27, fail: 3 });
    const redone = await query(
      db.url,
      'SELECT attempts FROM evm_integrity_audit.chunks WHERE audit_id = $1 AND first_block = $2',
      [id, taken],
    );
    expect(redone[0].attempts).toBeGreaterThanOrEqual(2); // the killed worker's chunk was audited again by another

    const exported = await runCli(['audit-export', id, '--queue', db.url]);
    expect(exported.status).toBe(1);
    expect(comparable(exported.stdout)).toEqual(comparable(single.stdout));
    const numbers = parseLines(exported.stdout)
      .filter((l) => l.block_number !== undefined)
      .map((l) => l.block_number);
    expect(numbers).toEqual(Array.from({ length: 30 }, (_, i) => FROM + i));

    const human = await runCli(['audit-status', id, '--queue', db.url]);
    expect(human.stdout).toContain(
      'chunks: 4 done, 0 running, 0 queued, 0 retrying, 0 parked, of 4; 4 of 4 links joined',
    );
    expect(human.stdout).toContain('failed: block 1000020 (parent_link)');
    // Enqueued again once complete: nothing audited again, and said so (a user check took "0 put on the queue now" for
    // a second run).
    const again = await runCli(['audit', ...RANGE, '--rpc', node.url, '--queue', db.url, '--chunk-size', '10']);
    expect(again.status).toBe(0);
    expect(again.stdout).toContain(
      '0 put on the queue now\nthis audit is complete (every chunk done, every link joined): nothing is audited again, its lines are those of its run (audit-export writes them)\n',
    );
    expect(auditIdOf(again)).toBe(id);
    const failed = await query(
      db.url,
      "SELECT block_number FROM evm_integrity_audit.blocks WHERE audit_id = $1 AND verdict = 'fail' ORDER BY 1",
      [id],
    );
    expect(failed.map((r) => Number(r.block_number))).toEqual([1_000_007, 1_000_020, 1_000_021]);

    for (const w of workers.slice(1)) expect((await stopWorker(w)).status).toBe(0);
  }, 120_000);

  it('chunks stored by a worker that died before joining them: the retries of their jobs join them', async () => {
    const chain = fixtureChain(FROM, TO);
    node = await startLoopbackNode(1, chain);
    const id = auditIdOf(await runCli(['audit', ...RANGE, '--rpc', node.url, '--queue', db.url, '--chunk-size', '10']));
    // As such a worker leaves them: each chunk done with its hashes, no link joined (the first chunk's is the engine's),
    // the jobs still to be delivered.
    const header = (n: number) => chain.get(n)!.header as { hash: string; parentHash: string };
    for (const [first, last] of [
      [FROM, 1_000_009],
      [1_000_010, 1_000_019],
      [1_000_020, 1_000_029],
      [TO, TO],
    ] as const)
      await query(
        db.url,
        `UPDATE evm_integrity_audit.chunks SET state = 'done', attempts = 1, worker = 'gone:1', joined = (first_block = $5),
           first_parent_hash = $3, last_hash = $4 WHERE audit_id = $1 AND first_block = $2`,
        [id, first, header(first).parentHash, header(last).hash, FROM],
      );
    const worker = startWorker(['--queue', db.url]);
    workers.push(worker);
    const status = await untilComplete(id, db.url, 30_000);
    expect(status).toMatchObject({ chunks: { done: 4 }, joined: 4 });
    const log = (await stopWorker(worker)).stderr;
    expect(log.match(/superseded, nothing written/g)).toHaveLength(4); // no chunk audited again
  });

  it('an audit anchored by an anchor proof: the export is the single-machine audit, authentic, naming the checkpoint', async () => {
    node = await startLoopbackNode(1, fixtureBlocks(['mainnet-19426586', 'mainnet-19426587']));
    const anchored = [
      'audit',
      '--chain',
      '1',
      '--from',
      '19426586',
      '--to',
      '19426587',
      '--rpc',
      node.url,
      '--anchor-proof',
      'fixtures/anchor/mainnet-checkpoint-11635710.jsonl',
      '--checkpoint',
      CHECKPOINT,
    ];
    const single = await runCli(anchored);
    expect(single.status, single.stderr).toBe(0);
    const id = auditIdOf(await runCli([...anchored, '--queue', db.url]));
    workers.push(startWorker(['--queue', db.url]));
    await untilComplete(id, db.url);
    const exported = await runCli(['audit-export', id, '--queue', db.url]);
    expect(exported.status).toBe(0);
    expect(comparable(exported.stdout)).toEqual(comparable(single.stdout));
    expect(parseLines(exported.stdout).at(-1)!.summary.anchoring).toMatchObject({
      assurance: 'authentic',
      checkpoint: CHECKPOINT,
    });
    expect((await stopWorker(workers[0]!)).status).toBe(0);
  }, 120_000);

  it('a worker asks the node as audit does: the plan keeps --concurrency and --batch, and no request holds more than B calls', async () => {
    node = await startLoopbackNode(1, fixtureChain(FROM, TO));
    const args = ['audit', ...RANGE, '--rpc', node.url, '--queue', db.url, '--concurrency', '2', '--batch', '6'];
    const id = auditIdOf(await runCli([...args, '--chunk-size', '30']));
    const [row] = await query(db.url, 'SELECT plan FROM evm_integrity_audit.audits WHERE id = $1', [id]);
    expect(row.plan).toMatchObject({ concurrency: 2, batch: 6 });
    const before = node.requests;
    workers.push(startWorker(['--queue', db.url]));
    const status = await untilComplete(id, db.url);
    expect(status.verdicts).toMatchObject({ pass: 30 });
    // 60 calls (a header and receipts a block) in batches of at most 6: 10 requests at least. With the default batch
    // (16) over the window of 2 requests (6 blocks ahead), they would go in about 5.
    expect(node.requests - before).toBeGreaterThanOrEqual(10);
    expect((await stopWorker(workers[0]!)).status).toBe(0);
  }, 120_000);

  it('a worker at its defaults sizes its batches by the answers, as audit does: more than 16 calls a request on small blocks', async () => {
    node = await startLoopbackNode(1, loopedChain(FROM, 400));
    const range = ['--chain', '1', '--from', String(FROM), '--to', String(FROM + 399)];
    const id = auditIdOf(await runCli(['audit', ...range, '--rpc', node.url, '--queue', db.url]));
    const [row] = await query(db.url, 'SELECT plan FROM evm_integrity_audit.audits WHERE id = $1', [id]);
    expect(row.plan).not.toHaveProperty('batch');
    const before = { requests: node.requests, calls: node.calls.length };
    workers.push(startWorker(['--queue', db.url]));
    const status = await untilComplete(id, db.url);
    expect(status.verdicts).toMatchObject({ pass: 400 });
    // 800 calls at least (a header and receipts a block): at 16 a request, 50 requests or more; sized, more than 32 a
    // request on average (100 once the first answers are in).
    const calls = node.calls.length - before.calls;
    expect(calls).toBeGreaterThanOrEqual(800);
    expect(node.requests - before.requests).toBeLessThan(calls / 32);
    expect((await stopWorker(workers[0]!)).status).toBe(0);
  }, 120_000);

  it('a reorg within a chunk: audit-status counts each block once, by its last line, as the export does', async () => {
    const blocks = fixtureChain(FROM, TO);
    node = await startLoopbackNode(1, blocks);
    const id = auditIdOf(await runCli(['audit', ...RANGE, '--rpc', node.url, '--queue', db.url, '--chunk-size', '10']));
    // The node's first answer for block 1000015 is another block at that height; its next ones, the real block.
    const real = blocks.get(1_000_015)!;
    const other = { ...real, header: rehash({ ...real.header, extraData: '0x01' }) };
    let asked = 0;
    node.fault = (call) => {
      if (call.method === 'eth_getBlockByNumber' && call.params[0] === '0xf424f')
        blocks.set(1_000_015, ++asked === 1 ? other : real);
      return undefined;
    };
    workers.push(startWorker(['--queue', db.url]));
    await untilComplete(id, db.url);
    const lines = parseLines((await runCli(['audit-export', id, '--queue', db.url])).stdout);
    // The chunk's lines hold block 1000015 twice: on the other block, then again after the reorg.
    expect(lines.filter((l) => l.block_number === 1_000_015)).toHaveLength(2);
    expect(lines.at(-1)!.summary).toMatchObject({ blocks: 30, verdicts: { pass: 30 }, reorgs: 1, complete: true });
    const status = await statusOf(id, db.url);
    expect(status.blocks).toEqual({ total: 30, audited: 30 });
    expect(status.verdicts).toEqual({ pass: 30, fail: 0, not_verifiable: 0, unreachable: 0 });
  });

  it('a reorg between two chunks: a reorg line, then the block it replaced audited again, as on one machine', async () => {
    const blocks = fixtureChain(FROM, TO);
    node = await startLoopbackNode(1, blocks);
    const enqueued = await runCli([
      'audit',
      ...RANGE,
      '--rpc',
      node.url,
      '--queue',
      db.url,
      '--chunk-size',
      '10',
      '--head-hash',
      blocks.get(FROM)!.header.parentHash as string,
    ]);
    const id = auditIdOf(enqueued);
    // Block 1000030 is held back (503) until the chunk before it is done on the old chain; then the node reorgs.
    let released = false;
    node.fault = (call) => (!released && call.params[0] === '0xf425e' ? { status: 503 } : undefined);
    workers.push(startWorker(['--queue', db.url, '--concurrency', '2']));
    await until('the chunk before the last to be done', async () => {
      const rows = await query(
        db.url,
        'SELECT state FROM evm_integrity_audit.chunks WHERE audit_id = $1 AND first_block = 1000020',
        [id],
      );
      return rows[0]?.state === 'done' || undefined;
    });
    const old29 = blocks.get(1_000_029)!.header.hash as string;
    const new29 = rehash({ ...blocks.get(1_000_029)!.header, extraData: '0x01' });
    blocks.set(1_000_029, { ...blocks.get(1_000_029)!, header: new29 });
    blocks.set(1_000_030, {
      ...blocks.get(1_000_030)!,
      header: rehash({ ...blocks.get(1_000_030)!.header, parentHash: new29.hash }),
    });
    released = true;

    await untilComplete(id, db.url);
    const exported = await runCli(['audit-export', id, '--queue', db.url]);
    expect(exported.status).toBe(0);
    const lines = parseLines(exported.stdout);
    const reorg = lines.find((l) => l.reorg !== undefined)!;
    expect(reorg.reorg).toEqual({
      detected_at: 1_000_030,
      depth: 1,
      replaced: [{ block_number: 1_000_029, old_hash: old29, new_hash: new29.hash }],
    });
    // Block 1000029 on the old chain, the reorg line, block 1000029 on the new chain, then block 1000030.
    const numbers = lines.filter((l) => l.block_number !== undefined).map((l) => l.block_number);
    expect(numbers).toEqual([...Array.from({ length: 29 }, (_, i) => FROM + i), 1_000_029, 1_000_030]);
    expect(lines.slice(-5, -1).map((l) => l.block_hash ?? 'reorg')).toEqual([
      old29,
      'reorg',
      new29.hash,
      blocks.get(1_000_030)!.header.hash,
    ]);
    expect(lines.at(-1)!.summary).toMatchObject({
      blocks: 30,
      verdicts: { pass: 30, fail: 0 },
      reorgs: 1,
      complete: true,
    });
    // --out FILE holds the same lines; a FILE that exists is refused, never overwritten.
    const file = join(mkdtempSync(join(tmpdir(), 'audit-queue-')), 'audit.ndjson');
    expect((await runCli(['audit-export', id, '--queue', db.url, '--out', file])).status).toBe(0);
    expect(comparable(readFileSync(file, 'utf8'))).toEqual(comparable(exported.stdout));
    const again = await runCli(['audit-export', id, '--queue', db.url, '--out', file]);
    expect(again.status).toBe(2);
    expect(again.stderr).toBe(`evm-integrity: ${file} exists: remove it or name another file\n`);
    // --out - is standard output, not a file named -.
    const dashed = await runCli(['audit-export', id, '--queue', db.url, '--out', '-']);
    expect(comparable(dashed.stdout)).toEqual(comparable(exported.stdout));
    expect(madeDashFile()).toBe(false);
    // A FIFO or a device is written into (never replaced by a file), a directory refused.
    const fifo = makeFifo(dirname(file));
    const piped = await readFifoDuring(fifo, () => runCli(['audit-export', id, '--queue', db.url, '--out', fifo]));
    expect(piped.result.status, piped.result.stderr).toBe(0);
    expect(comparable(piped.bytes.toString('utf8'))).toEqual(comparable(exported.stdout));
    expect(kindOf(fifo)).toBe('fifo');
    const device = makeDevice(dirname(file));
    expect((await runCli(['audit-export', id, '--queue', db.url, '--out', device])).status).toBe(0);
    expect(kindOf(device)).toBe('character device');
    const directory = await runCli(['audit-export', id, '--queue', db.url, '--out', dirname(file)]);
    expect(directory.stderr).toBe(`evm-integrity: --out ${dirname(file)}: cannot write it: it is a directory\n`);
    // A block the tables lost is no pass, even with every chunk done.
    await query(db.url, 'DELETE FROM evm_integrity_audit.blocks WHERE audit_id = $1 AND block_number = 1000015', [id]);
    const short = await runCli(['audit-export', id, '--queue', db.url]);
    expect(short.status).toBe(2);
    expect(short.stderr).toMatch(/holds 29 of the range's 30 blocks, 0 unreachable: not a pass/);
  }, 120_000);

  // Chunks of 5: the reorg at the last link (block 1000030, a chunk of its own) replaces blocks 1000023-1000029, back
  // into chunk 1000020-1000024, and its lines are stored after chunk 1000025-1000029's. On the old branch block 1000023
  // fails (a logsBloom its receipts do not give); on the new one it passes.
  it('a reorg between two chunks deeper than the chunk before: audit-status counts each replaced block once, by its last line, as the export does', async () => {
    const real = fixtureChain(FROM, TO);
    const blocks = new Map(real);
    const bad = real.get(1_000_023)!;
    const badBloom = new Map(real).set(1_000_023, {
      ...bad,
      header: { ...bad.header, logsBloom: `0x${'ff'.repeat(256)}` },
    });
    for (const [n, block] of forkOf(badBloom, 1_000_023)) blocks.set(n, block);
    node = await startLoopbackNode(1, blocks);
    const id = auditIdOf(await runCli(['audit', ...RANGE, '--rpc', node.url, '--queue', db.url, '--chunk-size', '5']));
    // Block 1000030 is held back (503) until every other chunk is done on the old branch; then the node reorgs.
    let released = false;
    node.fault = (call) => (!released && call.params[0] === '0xf425e' ? { status: 503 } : undefined);
    // One chunk in hand: no other chunk's calls share a batch with the held block's (a batch's fault is all of it).
    workers.push(startWorker(['--queue', db.url, '--concurrency', '1']));
    const before = await until('every chunk but the last to be done', async () => {
      const s = await statusOf(id, db.url);
      return s.chunks.done === s.chunks.total - 1 ? s : undefined;
    });
    expect(before.verdicts).toEqual({ pass: 28, fail: 1, not_verifiable: 0, unreachable: 0 });
    for (let n = 1_000_023; n <= TO; n++) blocks.set(n, real.get(n)!);
    released = true;

    await untilComplete(id, db.url);
    const exported = await runCli(['audit-export', id, '--queue', db.url]);
    // Block 1000023's failing line on the old branch is a finding, whatever replaced it (was: exit 0, a user check).
    const oldHash = String(forkOf(badBloom, 1_000_023).get(1_000_023)!.header.hash);
    expect(exported.stderr).toBe(
      `evm-integrity: 1 block failed a check on a chain that a reorg then replaced (the failing lines are in the output, before their reorg line; the summary's verdicts count each block by its last line): block 1000023 ${oldHash} (logs_bloom)\n`,
    );
    expect(exported.status).toBe(1);
    const lines = parseLines(exported.stdout);
    expect(lines.filter((l) => l.reorg !== undefined).map((l) => [l.reorg.detected_at, l.reorg.depth])).toEqual([
      [1_000_030, 7],
    ]);
    expect(lines.filter((l) => l.block_number === 1_000_023).map((l) => l.verdict)).toEqual(['fail', 'pass']);
    expect(lines.at(-1)!.summary).toMatchObject({
      blocks: 30,
      verdicts: { pass: 30, fail: 0 },
      complete: true,
      replaced_failures: {
        blocks: 1,
        listed: [{ block_number: 1_000_023, block_hash: oldHash, checks: ['logs_bloom'] }],
      },
    });
    const status = await statusOf(id, db.url);
    expect(status.verdicts).toEqual(lines.at(-1)!.summary.verdicts);
    expect(status.failures).toEqual([]);
    expect(status.replaced_failures).toEqual(lines.at(-1)!.summary.replaced_failures);
    const human = await runCli(['audit-status', id, '--queue', db.url]);
    expect(human.stdout).toContain('verdicts: 30 pass, 0 fail, 0 not verifiable\n');
    expect(human.stdout).toContain(`failed, then replaced by a reorg: block 1000023 ${oldHash} (logs_bloom)\n`);
  }, 120_000);

  /** The lines' reorgs, as [detected_at, depth]. */
  const reorgsOf = (lines: Array<Record<string, any>>) =>
    lines.filter((l) => l.reorg !== undefined).map((l) => [l.reorg.detected_at, l.reorg.depth]);
  const hashOf = (branch: Map<number, { header: Record<string, unknown> }>, n: number) => branch.get(n)!.header.hash;

  /** Each reorg line's old hashes name lines the export holds before it, its new hashes lines after it. */
  function expectReorgsBetweenTheirLines(lines: Array<Record<string, any>>): void {
    for (const [i, line] of lines.entries())
      for (const r of line.reorg?.replaced ?? []) {
        expect(lines.slice(0, i).some((l) => l.block_number === r.block_number && l.block_hash === r.old_hash)).toBe(
          true,
        );
        expect(lines.slice(i).some((l) => l.block_number === r.block_number && l.block_hash === r.new_hash)).toBe(true);
      }
  }

  // Chunks of 4 (1000001-1000003, then 1000004-1000007, …, 1000028-1000030). The node serves branch A, forked at
  // 1000017, on which blocks 1000021 and 1000026 fail (a logsBloom their receipts do not give), and holds back blocks
  // 1000016 and 1000028 (503). It moves to branch B, forked at 1000018, and lets 1000028 through: the join pass follows
  // the reorg back to 1000020 (chunk 1000016-1000019 is not done), its lines stored after chunk 1000024-1000027's.
  // Block 1000016 is still held back (`held`) when this returns.
  async function reorgOverHeldChunk() {
    const real = fixtureChain(FROM, TO);
    const badBloom = new Map(real);
    for (const n of [1_000_021, 1_000_026]) {
      const block = real.get(n)!;
      badBloom.set(n, { ...block, header: { ...block.header, logsBloom: `0x${'ff'.repeat(256)}` } });
    }
    const branchA = forkOf(badBloom, 1_000_017);
    const branchB = forkOf(real, 1_000_018);
    const blocks = new Map(real);
    for (const [n, block] of branchA) blocks.set(n, block);
    const loopback = await startLoopbackNode(1, blocks);
    node = loopback;
    const args = ['audit', ...RANGE, '--rpc', loopback.url, '--queue', db.url, '--chunk-size', '4'];
    const id = auditIdOf(await runCli([...args, '--chunk-retries', '10']));
    const held = new Set(['0xf4250', '0xf425c']); // blocks 1000016 and 1000028
    loopback.fault = (call) => (held.has(call.params[0] as string) ? { status: 503 } : undefined);
    // One chunk in hand: no other chunk's calls share a batch with a held block's (a batch's fault is all of it).
    workers.push(startWorker(['--queue', db.url, '--concurrency', '1']));
    await until('every chunk but the two held back to be done', async () => {
      const s = await statusOf(id, db.url);
      return s.chunks.done === s.chunks.total - 2 || undefined;
    });
    blocks.set(1_000_017, real.get(1_000_017)!);
    for (const [n, block] of branchB) blocks.set(n, block);
    held.delete('0xf425c');
    await until('the link to chunk 1000028-1000030 to be joined', async () => {
      const rows = await query(
        db.url,
        'SELECT 1 FROM evm_integrity_audit.chunks WHERE audit_id = $1 AND first_block = 1000028 AND joined',
        [id],
      );
      return rows.length > 0 || undefined;
    });
    const early = parseLines((await runCli(['audit-export', id, '--queue', db.url])).stdout);
    expect(reorgsOf(early)).toEqual([[1_000_028, 8]]);
    expect(early.find((l) => l.block_number === 1_000_026)).toMatchObject({
      block_hash: hashOf(branchA, 1_000_026),
      verdict: 'fail',
    });
    return { id, node: loopback, blocks, held, real, branchA, branchB };
  }

  /** Blocks 1000020-1000027 of the first reorg. */
  const REPLACED = Array.from({ length: 8 }, (_, i) => 1_000_020 + i);

  /** Blocks 1000020-1000027 on branch A (1000021 and 1000026 failing), the reorg line, the same blocks on branch B. */
  function expectFirstReorgStands(
    lines: Array<Record<string, any>>,
    { branchA, branchB }: { branchA: Map<number, NodeBlock>; branchB: Map<number, NodeBlock> },
  ): void {
    const at = lines.findIndex((l) => l.reorg?.detected_at === 1_000_028);
    expect(lines.slice(at - 8, at).map((l) => [l.block_number, l.block_hash, l.verdict])).toEqual(
      REPLACED.map((n) => [n, hashOf(branchA, n), [1_000_021, 1_000_026].includes(n) ? 'fail' : 'pass']),
    );
    expect(lines.slice(at + 1, at + 9).map((l) => [l.block_number, l.block_hash])).toEqual(
      REPLACED.map((n) => [n, hashOf(branchB, n)]),
    );
    expectReorgsBetweenTheirLines(lines);
    // Branch A's failing lines, replaced by the reorg, are findings all the same: the summary names them, exit 1.
    expect(lines.at(-1)!.summary.replaced_failures).toEqual({
      blocks: 2,
      listed: [1_000_021, 1_000_026].map((n) => ({
        block_number: n,
        block_hash: hashOf(branchA, n),
        checks: ['logs_bloom'],
      })),
    });
  }

  // Then 1000016 comes through, on branch B: chunk 1000020-1000023's first block is now branch B's, which links to it.
  // A user check: that link was judged by branch A's block, sent chunks 1000020-1000023 and 1000024-1000027 back as
  // broken links, and their audits again deleted the reorg line and branch A's lines, failing ones too.
  it('a reorg between two chunks, then the chunk before it done: the old lines, the reorg line and the new lines stand', async () => {
    const run = await reorgOverHeldChunk();
    run.held.delete('0xf4250');

    await untilComplete(run.id, db.url, 150_000);
    const exported = await runCli(['audit-export', run.id, '--queue', db.url]);
    const lines = parseLines(exported.stdout);
    expect(reorgsOf(lines)).toEqual([[1_000_028, 8]]);
    expectFirstReorgStands(lines, run);
    const numbers = lines.filter((l) => l.block_number !== undefined).map((l) => l.block_number);
    expect(numbers).toEqual([...Array.from({ length: 27 }, (_, i) => FROM + i), ...REPLACED, 1_000_028, 1_000_029, TO]);
    const summary = lines.at(-1)!.summary;
    // Block 1000020 on branch B was audited again before block 1000019 had a line; once chunk 1000016-1000019 is done
    // and its link joined, its parent link is judged against block 1000019, as one machine judges it: a pass (was:
    // not_verifiable, and the export's exit 2, on a valid chain).
    expect(lines.filter((l) => l.block_number === 1_000_020).map((l) => l.verdict)).toEqual(['pass', 'pass']);
    expect(summary).toMatchObject({
      blocks: 30,
      verdicts: { pass: 30, fail: 0, not_verifiable: 0, unreachable: 0 },
      reorgs: 1,
      complete: true,
    });
    expect(exported.status, exported.stderr).toBe(1);
    expect((await statusOf(run.id, db.url)).verdicts).toEqual(summary.verdicts);
  }, 240_000);

  // Then 1000016 comes through with block 1000019 on a third chain, C (forked from branch B at 1000019). Asked again by
  // the join of link 1000019 → 1000020, the node still gives C's block (a broken link: branch B's block 1000020, the
  // last line of that block, fails parent_link, as on one machine), or branch B's (a second reorg, below the link:
  // C's block 1000019, the reorg line, B's block 1000019, and block 1000020 then links). A user check: the link was
  // a broken one either way, chunks 1000020-1000023 and 1000024-1000027 were audited again from the new anchor, and
  // the first reorg's lines, branch A's failing ones too, were lost.
  it.each([
    ['still gives it', 'C'],
    ['gives branch B again', 'B'],
  ] as const)(
    'a reorg between two chunks, then the chunk before it done on a third chain, and the node %s: every line stands',
    async (_, asked19) => {
      const run = await reorgOverHeldChunk();
      const branchC = forkOf(new Map([...run.real, ...run.branchB]), 1_000_019);
      if (asked19 === 'C') for (const [n, block] of branchC) run.blocks.set(n, block);
      let asks = 0;
      const holding = run.node.fault;
      run.node.fault = (call, index) => {
        if (asked19 === 'B' && call.method === 'eth_getBlockByNumber' && call.params[0] === '0xf4253')
          run.blocks.set(1_000_019, ++asks === 1 ? branchC.get(1_000_019)! : run.branchB.get(1_000_019)!);
        return holding?.(call, index);
      };
      run.held.delete('0xf4250');

      await untilComplete(run.id, db.url, 150_000);
      const exported = await runCli(['audit-export', run.id, '--queue', db.url]);
      const lines = parseLines(exported.stdout);
      expectFirstReorgStands(lines, run);
      const last20 = lines.filter((l) => l.block_number === 1_000_020).at(-1)!;
      expect(last20.block_hash).toBe(hashOf(run.branchB, 1_000_020));
      const summary = lines.at(-1)!.summary;
      if (asked19 === 'C') {
        expect(reorgsOf(lines)).toEqual([[1_000_028, 8]]);
        expect(lines.find((l) => l.block_number === 1_000_019)!.block_hash).toBe(hashOf(branchC, 1_000_019));
        expect(last20).toMatchObject({
          verdict: 'fail',
          failures: [
            {
              check: 'parent_link',
              evidence: { expected: hashOf(branchC, 1_000_019), found: hashOf(run.branchB, 1_000_019) },
            },
          ],
        });
        expect(summary).toMatchObject({ blocks: 30, verdicts: { pass: 29, fail: 1, not_verifiable: 0 }, reorgs: 1 });
        expect(exported.status, exported.stderr).toBe(1);
      } else {
        expect(reorgsOf(lines)).toEqual([
          [1_000_020, 1],
          [1_000_028, 8],
        ]);
        // Block 1000019 on chain C, the reorg line, block 1000019 on branch B: after chunk 1000016-1000019's lines.
        const at = lines.findIndex((l) => l.reorg?.detected_at === 1_000_020);
        expect(lines.slice(at - 1, at + 2).map((l) => l.block_hash ?? 'reorg')).toEqual([
          hashOf(branchC, 1_000_019),
          'reorg',
          hashOf(run.branchB, 1_000_019),
        ]);
        expect(last20.verdict).toBe('pass');
        expect(summary).toMatchObject({ blocks: 30, verdicts: { pass: 30, fail: 0, not_verifiable: 0 }, reorgs: 2 });
        expect(exported.status, exported.stderr).toBe(1);
      }
      expect(summary.complete).toBe(true);
      expect((await statusOf(run.id, db.url)).verdicts).toEqual(summary.verdicts);
    },
    240_000,
  );

  // As above, the node asked again for block 1000019 by the join gives no block (until the link is seen retrying), then
  // branch B's. A user check: the chunk after the link was audited again, its lines deleted with the reorg's, branch
  // A's failing ones too; meanwhile audit-status showed no failure and the export exited 2; at the end it exited 0.
  it('a reorg between two chunks, then the chunk before it done on a third chain, and the node gives no block when asked again, then branch B: only the link is retried, every line stands', async () => {
    const run = await reorgOverHeldChunk();
    const branchC = forkOf(new Map([...run.real, ...run.branchB]), 1_000_019);
    let asks = 0;
    let answering = false;
    const holding = run.node.fault;
    run.node.fault = (call, index) => {
      if (call.method === 'eth_getBlockByNumber' && call.params[0] === '0xf4253') {
        if (++asks === 1) run.blocks.set(1_000_019, branchC.get(1_000_019)!);
        else if (answering) run.blocks.set(1_000_019, run.branchB.get(1_000_019)!);
        else run.blocks.delete(1_000_019);
      }
      return holding?.(call, index);
    };
    run.held.delete('0xf4250');
    const retrying = await until('the link to chunk 1000020-1000023 to be retrying', async () => {
      const s = await statusOf(run.id, db.url);
      return s.retrying.some((c: { first: number }) => c.first === 1_000_020) ? s : undefined;
    });
    expect(retrying.retrying[0].reason).toMatch(/^its link to block 1000019 could not be judged: /);
    // Branch A's failing lines are findings meanwhile: listed by audit-status, and the export's exit status is 1.
    expect(retrying.replaced_failures.listed.map((f: { block_number: number }) => f.block_number)).toEqual([
      1_000_021, 1_000_026,
    ]);
    const failing21 = `block 1000021 ${String(hashOf(run.branchA, 1_000_021))} (logs_bloom)`;
    const meanwhile = await runCli(['audit-export', run.id, '--queue', db.url]);
    expect(meanwhile.stderr).toContain(failing21);
    expect(meanwhile.status).toBe(1);
    answering = true;

    await untilComplete(run.id, db.url, 150_000);
    const exported = await runCli(['audit-export', run.id, '--queue', db.url]);
    const lines = parseLines(exported.stdout);
    expectFirstReorgStands(lines, run);
    expect(reorgsOf(lines)).toEqual([
      [1_000_020, 1],
      [1_000_028, 8],
    ]);
    expect(lines.filter((l) => l.block_number === 1_000_020).at(-1)).toMatchObject({
      block_hash: hashOf(run.branchB, 1_000_020),
      verdict: 'pass',
    });
    expect(lines.at(-1)!.summary).toMatchObject({
      blocks: 30,
      verdicts: { pass: 30, fail: 0, not_verifiable: 0 },
      reorgs: 2,
      complete: true,
    });
    expect(exported.stderr).toContain(failing21);
    expect(exported.status).toBe(1);
  }, 240_000);

  // The node serves block 1000014, the last of chunk 1000010-1000014, wrong once, then the right block: the join pass
  // asks it again and sees another hash, which is no reorg (the forged block's own line refutes its hash).
  it.each([
    ['a forged hash', (header: Record<string, unknown>) => ({ ...header, hash: `0x${'ab'.repeat(32)}` })],
    ['no hash', (header: Record<string, unknown>) => ({ ...header, hash: undefined })],
  ])(
    'a block at the end of a chunk served once with %s: its line stands, as on one machine, not healed as a reorg',
    async (_, forge) => {
      const blocks = fixtureChain(FROM, TO);
      node = await startLoopbackNode(1, blocks);
      const real = blocks.get(1_000_014)!;
      let asked = 0;
      node.fault = (call) => {
        if (call.method === 'eth_getBlockByNumber' && call.params[0] === '0xf424e')
          blocks.set(1_000_014, ++asked === 1 ? { ...real, header: forge(real.header) } : real);
        return undefined;
      };
      const single = await runCli(['audit', ...RANGE, '--rpc', node.url, '--chunk-size', '5']);
      expect(single.status).toBe(1);
      asked = 0;
      const args = [...RANGE, '--rpc', node.url, '--queue', db.url, '--chunk-size', '5'];
      const id = auditIdOf(await runCli(['audit', ...args]));
      workers.push(startWorker(['--queue', db.url]));
      const status = await untilComplete(id, db.url);
      expect(status.verdicts).not.toMatchObject({ pass: 30 });
      const exported = await runCli(['audit-export', id, '--queue', db.url]);
      expect(exported.status).toBe(1);
      expect(parseLines(exported.stdout).filter((l) => l.reorg !== undefined)).toEqual([]);
      expect(comparable(exported.stdout)).toEqual(comparable(single.stdout));
    },
    120_000,
  );

  // Chunk 1000010-1000014: the node serves block 1000012 once with a forged hash (its line and 1000013's fail) and block
  // 1000014 once as another block on the real 1000013; asked again, the real 1000014, to which 1000015 links.
  it('a reorg between two chunks replaces only the block it replaced: the failing lines before it stand, as on one machine', async () => {
    const blocks = fixtureChain(FROM, TO);
    node = await startLoopbackNode(1, blocks);
    const twelfth = blocks.get(1_000_012)!;
    const fourteenth = blocks.get(1_000_014)!;
    const asked = new Map<string, number>();
    node.fault = (call) => {
      if (call.method !== 'eth_getBlockByNumber') return undefined;
      const tag = call.params[0] as string;
      const count = (asked.get(tag) ?? 0) + 1;
      asked.set(tag, count);
      if (tag === '0xf424c')
        blocks.set(
          1_000_012,
          count === 1 ? { ...twelfth, header: { ...twelfth.header, hash: `0x${'ab'.repeat(32)}` } } : twelfth,
        );
      if (tag === '0xf424e')
        blocks.set(
          1_000_014,
          count === 1 ? { ...fourteenth, header: rehash({ ...fourteenth.header, extraData: '0x01' }) } : fourteenth,
        );
      return undefined;
    };
    const single = await runCli(['audit', ...RANGE, '--rpc', node.url, '--chunk-size', '5']);
    expect(single.status).toBe(1);
    asked.clear();
    const args = [...RANGE, '--rpc', node.url, '--queue', db.url, '--chunk-size', '5'];
    const id = auditIdOf(await runCli(['audit', ...args]));
    workers.push(startWorker(['--queue', db.url]));
    const status = await untilComplete(id, db.url);
    expect(status.verdicts).toEqual({ pass: 28, fail: 2, not_verifiable: 0, unreachable: 0 });
    const exported = await runCli(['audit-export', id, '--queue', db.url]);
    expect(exported.status).toBe(1);
    expect(comparable(exported.stdout)).toEqual(comparable(single.stdout));
    const lines = parseLines(exported.stdout);
    expect(lines.filter((l) => l.reorg !== undefined).map((l) => l.reorg)).toEqual([
      {
        detected_at: 1_000_015,
        depth: 1,
        replaced: [
          {
            block_number: 1_000_014,
            old_hash: rehash({ ...fourteenth.header, extraData: '0x01' }).hash,
            new_hash: fourteenth.header.hash,
          },
        ],
      },
    ]);
    expect(lines.filter((l) => l.verdict === 'fail').map((l) => [l.block_number, l.failures[0].check])).toEqual([
      [1_000_012, 'header_hash'],
      [1_000_013, 'parent_link'],
    ]);
  }, 120_000);

  // The node moves to a branch forked at 1000012 when block 1000021 is first asked, block 1000020 served before on the
  // old chain. Chunk 1000020-1000029 follows the reorg back to its first block (1000020), the join pass on into chunk
  // 1000010-1000019 (1000012-1000019). A user check: the join wrote a second reorg line (detected at 1000020, the new
  // 1000012-1000019) after chunk 1000010-1000019's lines, the old block 1000020 then standing after new-chain lines.
  it('a reorg within a chunk that replaced its first block, followed on back into the chunk before: one reorg line, as on one machine', async () => {
    const real = fixtureChain(FROM, TO);
    const fork = forkOf(real, 1_000_012);
    /** A node serving `blocks` that moves to the fork when block 1000021 is first asked, holding `held` back (503). */
    const switching = (blocks: Map<number, NodeBlock>, loopback: LoopbackNode, held = new Set<string>()) => {
      loopback.fault = (call) => {
        if (held.has(call.params[0] as string)) return { status: 503 };
        if (call.method === 'eth_getBlockByNumber' && call.params[0] === '0xf4255' && blocks.get(TO) === real.get(TO))
          for (const [n, block] of fork) blocks.set(n, block);
        return undefined;
      };
      return held;
    };
    const fetching = ['--concurrency', '1', '--batch', '2'];
    const alone = new Map(real);
    node = await startLoopbackNode(1, alone);
    switching(alone, node);
    const single = await runCli(['audit', ...RANGE, '--rpc', node.url, ...fetching]);
    expect(single.status, single.stderr).toBe(0);
    await node.close();

    const blocks = new Map(real);
    node = await startLoopbackNode(1, blocks);
    // Block 1000020 is held back until chunk 1000010-1000019 is done on the old chain, block 1000030 until chunk
    // 1000020-1000029 is done: every chunk after the reorg's is audited on the new chain, as on one machine.
    const held = switching(blocks, node, new Set(['0xf4254', '0xf425e']));
    const args = [
      ...RANGE,
      '--rpc',
      node.url,
      ...fetching,
      '--queue',
      db.url,
      '--chunk-size',
      '10',
      '--chunk-retries',
      '10',
    ];
    const id = auditIdOf(await runCli(['audit', ...args]));
    // One chunk in hand: no other chunk's calls share a batch with a held block's (a batch's fault is all of it).
    workers.push(startWorker(['--queue', db.url, '--concurrency', '1']));
    for (const [first, block] of [
      [1_000_010, '0xf4254'],
      [1_000_020, '0xf425e'],
    ] as const) {
      await until(`chunk ${first} to be done`, async () => {
        const rows = await query(
          db.url,
          'SELECT state FROM evm_integrity_audit.chunks WHERE audit_id = $1 AND first_block = $2',
          [id, first],
        );
        return rows[0]?.state === 'done' || undefined;
      });
      held.delete(block);
    }

    await untilComplete(id, db.url);
    const exported = await runCli(['audit-export', id, '--queue', db.url]);
    expect(exported.status, exported.stderr).toBe(0);
    expect(comparable(exported.stdout)).toEqual(comparable(single.stdout));
    const lines = parseLines(exported.stdout);
    const replaced = Array.from({ length: 9 }, (_, i) => 1_000_012 + i);
    expect(lines.filter((l) => l.reorg !== undefined).map((l) => l.reorg)).toEqual([
      {
        detected_at: 1_000_021,
        depth: 9,
        replaced: replaced.map((n) => ({ block_number: n, old_hash: hashOf(real, n), new_hash: hashOf(fork, n) })),
      },
    ]);
    // The old blocks to 1000020, the reorg line, the new blocks from 1000012 on.
    expect(lines.slice(1, -1).map((l) => l.block_hash ?? 'reorg')).toEqual([
      ...Array.from({ length: 20 }, (_, i) => hashOf(real, FROM + i)),
      'reorg',
      ...Array.from({ length: 19 }, (_, i) => hashOf(fork, 1_000_012 + i)),
    ]);
    const summary = lines.at(-1)!.summary;
    expect(summary).toMatchObject({ blocks: 30, verdicts: { pass: 30, fail: 0 }, reorgs: 1, complete: true });
    expect((await statusOf(id, db.url)).verdicts).toEqual(summary.verdicts);
    const [chunks] = await query(
      db.url,
      "SELECT sum((summary->>'reorgs')::int)::int AS reorgs FROM evm_integrity_audit.chunks WHERE audit_id = $1",
      [id],
    );
    expect(chunks.reorgs).toBe(1);
    // The export is a checkpoint one machine resumes: nothing is audited again, its lines stand, counted as they are.
    const file = join(mkdtempSync(join(tmpdir(), 'audit-queue-')), 'audit.ndjson');
    writeFileSync(file, exported.stdout);
    const resumed = await runCli(['audit', ...RANGE, '--rpc', node.url, '--out', file, '--resume']);
    expect(resumed.status, resumed.stderr).toBe(0);
    const kept = comparable(readFileSync(file, 'utf8'));
    expect(kept.slice(0, -1)).toEqual(comparable(exported.stdout).slice(0, -1));
    expect(kept.at(-1)!.summary).toMatchObject({
      blocks: 30,
      verdicts: summary.verdicts,
      reorgs: 1,
      complete: true,
      carried_over: { blocks: 30 },
    });
  }, 120_000);

  it("a receipt naming another transaction than the block's at its place fails block_input on one machine and on the queue alike, and both go on (was: unreachable, the audit stopped there and the chunk was parked: a user check)", async () => {
    const blocks = fixtureChain(FROM, TO);
    const block = blocks.get(1_000_002)!;
    const listed = block.receipts.map((_, i) => `0x${(i + 1).toString(16).padStart(64, '0')}`);
    blocks.set(1_000_002, {
      ...block,
      transactionHashes: listed,
      receipts: block.receipts.map((r, i) => ({ ...r, transactionHash: i === 0 ? `0x${'33'.repeat(32)}` : listed[i] })),
    });
    node = await startLoopbackNode(1, blocks);
    const single = await runCli(['audit', ...RANGE, '--rpc', node.url, '--chunk-size', '5']);
    expect(single.status).toBe(1);
    const id = auditIdOf(await runCli(['audit', ...RANGE, '--rpc', node.url, '--queue', db.url, '--chunk-size', '5']));
    workers.push(startWorker(['--queue', db.url]));
    const status = await untilComplete(id, db.url);
    expect(status.verdicts).toEqual({ pass: 29, fail: 1, not_verifiable: 0, unreachable: 0 });
    const exported = await runCli(['audit-export', id, '--queue', db.url]);
    expect(exported.status).toBe(1);
    expect(comparable(exported.stdout)).toEqual(comparable(single.stdout));
    const failing = parseLines(exported.stdout).filter((l) => l.verdict === 'fail');
    expect(failing.map((l) => [l.block_number, l.failures.map((f: { check: string }) => f.check)])).toEqual([
      [1_000_002, ['block_input']],
    ]);
    expect(failing[0]!.failures[0].message).toMatch(
      /: receipts\[0\]\.transactionHash: expected 0x0{63}1, the block's transactions\[0\], which it repeats, got 0x3333/,
    );
  }, 120_000);

  it('a block at the start of a chunk served once with a forged parentHash: its failing line stands, not audited again into a pass', async () => {
    const blocks = fixtureChain(FROM, TO);
    node = await startLoopbackNode(1, blocks);
    const real = blocks.get(1_000_015)!;
    let asked = 0;
    node.fault = (call) => {
      if (call.method === 'eth_getBlockByNumber' && call.params[0] === '0xf424f')
        blocks.set(
          1_000_015,
          ++asked === 1 ? { ...real, header: { ...real.header, parentHash: `0x${'cd'.repeat(32)}` } } : real,
        );
      return undefined;
    };
    const args = [...RANGE, '--rpc', node.url, '--queue', db.url, '--chunk-size', '5'];
    const id = auditIdOf(await runCli(['audit', ...args]));
    workers.push(startWorker(['--queue', db.url]));
    await untilComplete(id, db.url);
    const exported = await runCli(['audit-export', id, '--queue', db.url]);
    expect(exported.status).toBe(1);
    const lines = parseLines(exported.stdout);
    expect(lines.filter((l) => l.reorg !== undefined)).toEqual([]);
    const fifteenth = lines.filter((l) => l.block_number === 1_000_015);
    expect(fifteenth).toHaveLength(1);
    expect(fifteenth[0]!).toMatchObject({ verdict: 'fail', failures: [{ check: 'header_hash' }] });
    expect(lines.at(-1)!.summary).toMatchObject({ blocks: 30, verdicts: { pass: 29, fail: 1 }, complete: true });
  }, 120_000);
});
