/**
 * `evm-integrity audit`: the CLI over the range engine, run as a real process against a loopback
 * JSON-RPC node: NDJSON out, exit statuses, SIGKILL then --resume, Ctrl-C, record then replay.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { madeDashFile } from './helpers/cli-process.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { closeOutputEarly } from './helpers/pipe.js';
import { main } from '../packages/service/src/cli/main.js';
import { resumeFrom } from '../packages/service/src/cli/audit/audit-checkpoint.js';
import { ChainedLines, headerDigest } from '../packages/service/src/queue/audit-lines.js';
import { AuditTally, type AuditEvent } from '../packages/core/src/audit/index.js';
import { statusOfVerdicts } from '../packages/service/src/cli/audit/audit-output.js';
import { runAudit } from '../packages/service/src/cli/audit/audit.js';
import { fixtureChain, forkOf, rehash, startLoopbackNode, type LoopbackNode } from './helpers/loopback-rpc.js';
import { startLoopbackService, type LoopbackService } from './helpers/loopback-service.js';
import { withTxHashes } from './helpers/synthetic-tx-hash.js';
import { loadFixture } from './helpers/fixtures.js';

const BIN = fileURLToPath(new URL('../packages/service/bin/evm-integrity.js', import.meta.url));
const FROM = 1_000_001;
const TO = 1_000_030;
const RANGE = ['--chain', '1', '--from', String(FROM), '--to', String(TO)];

let node: LoopbackNode | undefined;
afterEach(async () => {
  await node?.close();
  node = undefined;
});
async function start(blocks = fixtureChain(FROM, TO)): Promise<LoopbackNode> {
  node = await startLoopbackNode(1, blocks);
  return node;
}

/**
 * A node that serves chain A's FROM+24 with its first receipt's cumulativeGasUsed altered (the header, and hash, the
 * real one's), then, once FROM+26 is asked, chain B: forked at FROM+23, every block after it re-linked and re-hashed,
 * self-consistent, every block passing. The failing block is replaced by a reorg.
 */
async function failThenReorg(): Promise<{ fork: ReturnType<typeof forkOf>; n: LoopbackNode; failed: string }> {
  const blocks = fixtureChain(FROM, TO);
  const fork = forkOf(blocks, FROM + 23);
  const real = blocks.get(FROM + 24)!;
  const receipts = real.receipts.map((r, i) =>
    i === 0 ? { ...(r as Record<string, string>), cumulativeGasUsed: '0x1' } : r,
  );
  blocks.set(FROM + 24, { ...real, receipts });
  const n = await start(blocks);
  n.fault = (call) => {
    if (call.method === 'eth_getBlockByNumber' && Number(call.params[0]) === FROM + 26)
      for (const [b, block] of fork) n.blocks.set(b, block);
    return undefined;
  };
  return { fork, n, failed: String(real.header.hash) };
}
const tempFile = (name: string) => join(mkdtempSync(join(tmpdir(), 'audit-cli-')), name);

interface Run {
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI as a process (asynchronously: the node answering it lives in this process); `onStart` may signal it. */
function run(
  args: string[],
  onStart?: (child: ReturnType<typeof spawn>) => void,
  env: NodeJS.ProcessEnv = process.env,
): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, 'audit', ...args], { stdio: ['ignore', 'pipe', 'pipe'], env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (status, signal) => resolve({ status, signal, stdout, stderr }));
    onStart?.(child);
  });
}

/** Calls `then` once FILE holds at least `lines` lines. */
function whenLines(file: string, lines: number, then: () => void): void {
  const timer = setInterval(() => {
    if (existsSync(file) && readFileSync(file, 'utf8').split('\n').length > lines) {
      clearInterval(timer);
      then();
    }
  }, 5);
}

const parseLines = (text: string) =>
  text
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, any>);
/** The lines without the run's own timing (which differs from run to run). */
/** The lines without the run's own timing (which differs from run to run), nor what a resume carried over. */
const comparable = (text: string) =>
  parseLines(text).map((line) =>
    line.summary === undefined
      ? line
      : {
          summary: { ...line.summary, blocks_per_second: 0, time_share: 0, timings: 0, carried_over: undefined },
        },
  );

/**
 * The lines (header first, without newlines) with their digests computed again, as a forger who knows the format
 * would: the chain then holds, and only what the lines say can give them away.
 */
function rechain(lines: string[]): string {
  const [header, ...events] = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  const chain = new ChainedLines(headerDigest(header as { audit: object }));
  const texts = events.map(({ digest: _digest, ...event }) => chain.line(event as unknown as AuditEvent));
  return `${[JSON.stringify(header), ...texts].join('\n')}\n`;
}

describe('evm-integrity audit (a process against a loopback node)', () => {
  it('prints a header, one line per block and a summary; exit 0 when every block passes', async () => {
    const n = await start();
    const result = await run([...RANGE, '--rpc', n.url]);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    const lines = parseLines(result.stdout);
    expect(lines[0]).toEqual({ audit: { chain_id: 1, from: FROM, to: TO } });
    expect(lines.slice(1, -1).map((l) => [l.block_number, l.verdict])).toEqual(
      Array.from({ length: 30 }, (_, i) => [FROM + i, 'pass']),
    );
    expect(lines.at(-1)!.summary).toMatchObject({ blocks: 30, verdicts: { pass: 30, fail: 0 }, complete: true });
  });

  it('exit 1 when a block fails, naming the check', async () => {
    const blocks = fixtureChain(FROM, TO);
    blocks.set(TO, {
      ...blocks.get(TO)!,
      header: rehash({ ...blocks.get(TO)!.header, parentHash: `0x${'44'.repeat(32)}` }),
    });
    const n = await start(blocks);
    const result = await run([...RANGE, '--rpc', n.url]);
    expect(result.status).toBe(1);
    expect(parseLines(result.stdout).at(-1)!.summary).toMatchObject({
      verdicts: { pass: 29, fail: 1 },
      failed_checks: { parent_link: 1 },
    });
  });

  it('SIGKILL mid-audit, then --resume: the file equals an uninterrupted run, no block twice, none lost', async () => {
    const n = await start();
    const whole = tempFile('whole.ndjson');
    expect((await run([...RANGE, '--rpc', n.url, '--out', whole])).status).toBe(0);

    n.delayMs = 15; // slow enough to be killed mid-way
    const out = tempFile('killed.ndjson');
    const killed = await run([...RANGE, '--rpc', n.url, '--out', out, '--concurrency', '2'], (child) =>
      whenLines(out, 10, () => child.kill('SIGKILL')),
    );
    expect(killed.signal).toBe('SIGKILL');
    const before = readFileSync(out, 'utf8');
    expect(before).not.toContain('summary');
    expect(before.split('\n').length).toBeLessThan(31); // killed before its last block
    n.delayMs = 0;
    const resumed = await run([...RANGE, '--rpc', n.url, '--out', out, '--resume']);
    expect(resumed.status).toBe(0);
    const lines = comparable(readFileSync(out, 'utf8'));
    expect(lines).toEqual(comparable(readFileSync(whole, 'utf8')));
    const numbers = lines.filter((l) => l.block_number !== undefined).map((l) => l.block_number);
    expect(new Set(numbers).size).toBe(numbers.length);
  });

  it('--resume past an --anchor it already passed: the file equals an uninterrupted run (was: exit 3, "anchors: block 1000005 is no block of the range 1000011 to 1000030": a user re-check)', async () => {
    const n = await start();
    const anchor = [
      '--anchor',
      `${FROM + 4}:${String(n.blocks.get(FROM + 4)!.header.hash)
        .slice(2)
        .toUpperCase()}`,
    ];
    const whole = tempFile('anchored-whole.ndjson');
    expect((await run([...RANGE, '--rpc', n.url, '--out', whole, ...anchor])).status).toBe(0);
    const text = readFileSync(whole, 'utf8');
    // Stopped after block FROM+9: the header line and ten blocks.
    const out = tempFile('anchored-cut.ndjson');
    writeFileSync(out, `${text.split('\n').slice(0, 11).join('\n')}\n`);
    const resumed = await run([...RANGE, '--rpc', n.url, '--out', out, '--resume', ...anchor]);
    expect(resumed.stderr).not.toContain('this is a bug');
    expect(resumed.status).toBe(0);
    expect(comparable(readFileSync(out, 'utf8'))).toEqual(comparable(text));
  });

  it('a reorg across a --resume (the node switched chains while the audit was stopped) is followed back into the file, as an uninterrupted run follows it: the same lines, exit 0 (was: the first resumed block failed parent_link, a user check)', async () => {
    const blocks = fixtureChain(FROM, TO);
    // Chain B forks at FROM+4 (other extraData), every block after it re-linked and re-hashed.
    const fork = forkOf(blocks, FROM + 4);
    const switchAt = (n: LoopbackNode) =>
      (n.fault = (call) => {
        if (call.method === 'eth_getBlockByNumber' && Number(call.params[0]) === FROM + 6)
          for (const [b, block] of fork) n.blocks.set(b, block);
        return undefined;
      });
    // The uninterrupted run: the node switches to chain B when the audit asks for FROM+6.
    const whole = tempFile('whole.ndjson');
    switchAt(await start(fixtureChain(FROM, TO)));
    expect(
      (await run([...RANGE, '--rpc', node!.url, '--out', whole, '--concurrency', '1', '--batch', '1'])).status,
    ).toBe(0);
    await node!.close();
    // A run stopped after FROM+5 on chain A: the header and its first six block lines; the node then switches.
    const out = tempFile('stopped.ndjson');
    const first = await start(fixtureChain(FROM, TO));
    expect((await run([...RANGE, '--rpc', first.url, '--out', out])).status).toBe(0);
    writeFileSync(out, `${readFileSync(out, 'utf8').split('\n').slice(0, 7).join('\n')}\n`);
    switchAt(first);
    const resumed = await run([
      ...RANGE,
      '--rpc',
      first.url,
      '--out',
      out,
      '--resume',
      '--concurrency',
      '1',
      '--batch',
      '1',
    ]);
    expect(resumed.stderr).toBe('');
    expect(resumed.status).toBe(0);
    const lines = comparable(readFileSync(out, 'utf8'));
    expect(lines).toEqual(comparable(readFileSync(whole, 'utf8')));
    expect(
      lines.filter((l) => l.reorg !== undefined).map((l) => l.reorg.replaced.map((r: any) => r.block_number)),
    ).toEqual([[FROM + 4, FROM + 5]]);
    expect(lines.at(-1)!.summary).toMatchObject({ verdicts: { pass: 30, fail: 0 }, reorgs: 1, complete: true });
    // Carried over: the file's blocks the summary still counts by their line there, not the two the reorg replaced
    // (was: all six).
    expect(parseLines(readFileSync(out, 'utf8')).at(-1)!.summary.carried_over).toEqual({
      blocks: 4,
      verdicts: { pass: 4, fail: 0, not_verifiable: 0, unreachable: 0 },
    });
  });

  it('a block that failed, then replaced by a reorg onto a chain that passes: exit 1, the summary and stderr name it, and so does --resume on the file (was: exit 0, fail: 0, a user check)', async () => {
    const { n, failed: hash } = await failThenReorg();
    const out = tempFile('replaced.ndjson');
    const result = await run([...RANGE, '--rpc', n.url, '--out', out, '--concurrency', '1', '--batch', '1']);
    const named = `evm-integrity: 1 block failed a check on a chain that a reorg then replaced (the failing lines are in the output, before their reorg line; the summary's verdicts count each block by its last line): block ${FROM + 24} ${hash} (receipts_root)\n`;
    expect(result.stderr).toBe(named);
    expect(result.status).toBe(1);
    const lines = parseLines(readFileSync(out, 'utf8'));
    expect(lines.filter((l) => l.verdict === 'fail').map((l) => [l.block_number, l.block_hash])).toEqual([
      [FROM + 24, hash],
    ]);
    expect(lines.filter((l) => l.reorg !== undefined)).toHaveLength(1);
    expect(lines.at(-1)!.summary).toMatchObject({
      verdicts: { pass: 30, fail: 0 },
      reorgs: 1,
      complete: true,
      replaced_failures: {
        blocks: 1,
        listed: [{ block_number: FROM + 24, block_hash: hash, checks: ['receipts_root'] }],
      },
    });
    // The file's lines carried over count as this run's did.
    const resumed = await run([...RANGE, '--rpc', n.url, '--out', out, '--resume']);
    expect(resumed.stderr).toBe(named);
    expect(resumed.status).toBe(1);
  });

  it("--resume after a block whose hash its header refuted: the node's right answer later is no reorg, the block's fail stands and the next block fails its link (a user re-check)", async () => {
    const blocks = fixtureChain(FROM, TO);
    const honest = blocks.get(FROM + 5)!;
    blocks.set(FROM + 5, { ...honest, header: { ...honest.header, hash: `0x${'ab'.repeat(32)}` } });
    const n = await start(blocks);
    const out = tempFile('forged.ndjson');
    expect((await run([...RANGE, '--rpc', n.url, '--out', out])).status).toBe(1);
    writeFileSync(out, `${readFileSync(out, 'utf8').split('\n').slice(0, 7).join('\n')}\n`); // header, 6 blocks
    n.blocks.set(FROM + 5, honest);
    expect((await run([...RANGE, '--rpc', n.url, '--out', out, '--resume'])).status).toBe(1);
    const lines = parseLines(readFileSync(out, 'utf8'));
    expect(lines.some((l) => l.reorg !== undefined)).toBe(false);
    expect(
      lines.filter((l) => l.verdict === 'fail').map((l) => [l.block_number, l.failures.map((f: any) => f.check)]),
    ).toEqual([
      [FROM + 5, ['header_hash']],
      [FROM + 6, ['parent_link']],
    ]);
  });

  it('Ctrl-C stops cleanly: exit 130, a line saying how to resume, and --resume completes the audit', async () => {
    const n = await start();
    n.delayMs = 15; // a block a round trip (no batching, one block at a time): time to interrupt
    const out = tempFile('interrupted.ndjson');
    const slow = ['--batch', '1', '--concurrency', '1'];
    const stopped = await run([...RANGE, '--rpc', n.url, '--out', out, ...slow], (child) =>
      whenLines(out, 5, () => child.kill('SIGINT')),
    );
    expect(stopped.status).toBe(130);
    expect(stopped.stderr).toMatch(
      /^evm-integrity: interrupted before block \d+; continue later with the same command and --resume\n$/,
    );
    n.delayMs = 0;
    const resumed = await run([...RANGE, '--rpc', n.url, '--out', out, '--resume']);
    expect(resumed.status).toBe(0);
    expect(parseLines(readFileSync(out, 'utf8')).at(-1)!.summary).toMatchObject({
      blocks: 30,
      verdicts: { pass: 30 },
      complete: true,
    });
  });

  it('Ctrl-C with the lines on stdout: exit 130, and the message says where to start again and what to link to', async () => {
    const n = await start();
    n.delayMs = 15; // a block a round trip (no batching, one block at a time): time to interrupt
    let seen = 0;
    const stopped = await run([...RANGE, '--rpc', n.url, '--batch', '1', '--concurrency', '1'], (child) =>
      child.stdout!.on('data', (chunk: Buffer) => {
        seen += chunk.toString().split('\n').length - 1;
        if (seen >= 4 && seen < 1000) {
          seen = 1000;
          child.kill('SIGINT');
        }
      }),
    );
    expect(stopped.status).toBe(130);
    const lines = parseLines(stopped.stdout);
    const last = lines.at(-1)!;
    expect(last.summary).toBeUndefined(); // no summary for an audit cut short
    expect(stopped.stderr).toBe(
      `evm-integrity: interrupted before block ${last.block_number + 1}; continue later with --from ${last.block_number + 1} --head-hash ${last.block_hash} and the other flags as before\n`,
    );
  });

  it('Ctrl-C while the node holds every request: exit 130 at once, the requests abandoned, no file made', async () => {
    const n = await start();
    n.fault = () => ({ hang: true });
    const out = tempFile('held.ndjson');
    let interruptedAt = 0;
    const stopped = await run([...RANGE, '--rpc', n.url, '--out', out], (child) => {
      const timer = setInterval(() => {
        if (n.requests === 0) return;
        clearInterval(timer);
        interruptedAt = performance.now();
        child.kill('SIGINT');
      }, 5);
    });
    // Without the requests abandoned, the process lived on for their time limits and retries: 4 minutes.
    expect(performance.now() - interruptedAt).toBeLessThan(5_000);
    expect(stopped.status).toBe(130);
    expect(stopped.stderr).toBe(
      `evm-integrity: interrupted before block ${FROM}; continue later with the same command and --resume\n`,
    );
    expect(existsSync(out)).toBe(false);
  });

  it('Ctrl-C while a block is held: no line for it (not unreachable), the lines before kept, and --resume completes', async () => {
    const n = await start();
    const held = (call: { params: unknown[] }) =>
      typeof call.params[0] === 'string' && call.params[0].startsWith('0x') && Number(call.params[0]) > FROM + 9;
    n.fault = (call) => (held(call) ? { hang: true } : undefined);
    const out = tempFile('held-later.ndjson');
    let interruptedAt = 0;
    const stopped = await run([...RANGE, '--rpc', n.url, '--out', out, '--batch', '1', '--concurrency', '1'], (child) =>
      whenLines(out, 11, () => {
        interruptedAt = performance.now();
        child.kill('SIGINT');
      }),
    );
    expect(performance.now() - interruptedAt).toBeLessThan(5_000);
    expect(stopped.status).toBe(130);
    const lines = parseLines(readFileSync(out, 'utf8'));
    expect(lines.slice(1).map((l) => [l.block_number, l.verdict])).toEqual(
      Array.from({ length: 10 }, (_, i) => [FROM + i, 'pass']),
    );
    expect(stopped.stderr).toBe(
      `evm-integrity: interrupted before block ${FROM + 10}; continue later with the same command and --resume\n`,
    );
    n.fault = undefined;
    const resumed = await run([...RANGE, '--rpc', n.url, '--out', out, '--resume']);
    expect(resumed.status).toBe(0);
    expect(parseLines(readFileSync(out, 'utf8')).at(-1)!.summary).toMatchObject({ blocks: 30, verdicts: { pass: 30 } });
  });

  it('--record then --bundle replays the audit offline with the same lines', async () => {
    const blocks = fixtureChain(FROM, TO);
    const block = blocks.get(FROM + 6)!;
    blocks.set(FROM + 6, { ...block, receipts: block.receipts.slice(1), transactions: block.receipts.length }); // one failure to replay too
    const n = await start(blocks);
    const bundle = tempFile('audit.json.gz');
    const live = await run([...RANGE, '--rpc', n.url, '--record', bundle]);
    expect(live.status).toBe(1);
    await node!.close();
    node = undefined;
    const replay = await run([...RANGE, '--bundle', bundle]);
    expect(replay.status).toBe(1);
    expect(comparable(replay.stdout)).toEqual(comparable(live.stdout));
  });

  it('Ctrl-C, then the same command with --resume: --record holds every block of the range, and the replay audits them all (was: the resumed blocks alone)', async () => {
    const n = await start();
    n.delayMs = 15;
    const [out, bundle] = [tempFile('recorded.ndjson'), tempFile('recorded.json.gz')];
    const command = [...RANGE, '--rpc', n.url, '--out', out, '--record', bundle, '--batch', '1', '--concurrency', '1'];
    const stopped = await run(command, (child) => whenLines(out, 5, () => child.kill('SIGINT')));
    expect(stopped.status).toBe(130);
    n.delayMs = 0;
    const resumed = await run([...command, '--resume']);
    expect(resumed.status).toBe(0);
    await node!.close();
    node = undefined;
    const replay = await run([...RANGE, '--bundle', bundle]);
    expect(replay.stderr).toBe('');
    expect(parseLines(replay.stdout).at(-1)!.summary).toMatchObject({ blocks: 30, verdicts: { pass: 30 } });
  });

  it('SIGKILL, then the same command with --resume: the blocks the killed run audited are not in the recording, and a line says so (they were silently missing: a user check)', async () => {
    const n = await start();
    n.delayMs = 15;
    const [out, bundle] = [tempFile('killed.ndjson'), tempFile('killed.json')];
    const command = [...RANGE, '--rpc', n.url, '--out', out, '--record', bundle, '--batch', '1', '--concurrency', '1'];
    const killed = await run(command, (child) => whenLines(out, 5, () => child.kill('SIGKILL')));
    expect(killed.signal).toBe('SIGKILL');
    expect(existsSync(bundle)).toBe(false);
    n.delayMs = 0;
    const resumed = await run([...command, '--resume']);
    expect(resumed.status).toBe(0);
    const [, carried, next] = /: (\d+) of the blocks before (\d+), audited before/.exec(resumed.stderr) ?? [];
    expect(Number(carried)).toBe(Number(next) - FROM);
    expect(resumed.stderr).toContain(
      `evm-integrity: --record ${bundle}: ${carried} of the blocks before ${next}, audited before the audit was stopped without writing its recording (SIGKILL, a crash), are not in it and will not be; audit the range again without --resume to record it whole\n`,
    );
    expect((JSON.parse(readFileSync(bundle, 'utf8')) as { blocks: unknown[] }).blocks).toHaveLength(
      TO + 1 - Number(next),
    );
  });

  it.each([
    ['SIGTERM', 143],
    ['SIGHUP', 129],
  ] as const)(
    '%s stops it as Ctrl-C does: the line saying how to resume, the recording written, and the status the shell reports (it died, recording nothing: a user check)',
    async (signal, status) => {
      const n = await start();
      n.delayMs = 15;
      const [out, bundle] = [tempFile('stopped.ndjson'), tempFile('stopped.json')];
      const command = [
        ...RANGE,
        '--rpc',
        n.url,
        '--out',
        out,
        '--record',
        bundle,
        '--batch',
        '1',
        '--concurrency',
        '1',
      ];
      const stopped = await run(command, (child) => whenLines(out, 5, () => child.kill(signal)));
      expect(stopped.status).toBe(status);
      expect(stopped.stderr).toMatch(
        /^evm-integrity: interrupted before block \d+; continue later with the same command and --resume\n$/,
      );
      const recorded = JSON.parse(readFileSync(bundle, 'utf8')) as { blocks: unknown[] };
      expect(recorded.blocks.length).toBeGreaterThanOrEqual(4);
    },
  );

  it('--resume with a --record file that is no recording of this chain: one line naming it, exit 2, the file kept', async () => {
    const n = await start();
    const out = tempFile('first.ndjson');
    expect((await run([...RANGE, '--rpc', n.url, '--out', out, '--to', String(FROM + 1)])).status).toBe(0);
    const notBundle = tempFile('not-a-bundle.json');
    writeFileSync(notBundle, '{"header": {}');
    const otherChain = tempFile('other-chain.json');
    writeFileSync(
      otherChain,
      JSON.stringify({ exchanges: [], blocks: [{ ...loadFixture('mainnet-1000001'), chain_id: 10 }] }),
    );
    for (const [file, why] of [
      [
        notBundle,
        /^evm-integrity: --record \S+not-a-bundle\.json cannot be read as a recording \(\S+: not JSON \(.* at line 1 column \d+\)\); --resume adds/,
      ],
      [
        otherChain,
        /^evm-integrity: --record \S+other-chain\.json holds blocks of chain 10, not 1; --resume adds to the recording it holds: give another file$/,
      ],
    ] as const) {
      const before = readFileSync(file, 'utf8');
      const refused = await run([...RANGE, '--rpc', n.url, '--out', out, '--record', file, '--resume']);
      expect(refused.status).toBe(2);
      expect(refused.stderr.split('\n')[0]).toMatch(why);
      expect(readFileSync(file, 'utf8')).toBe(before);
    }
  });

  it('--bundle with a block twice: an identical copy is audited once; an altered one is exit 2 naming both, no line', async () => {
    const blocks = Array.from({ length: TO - FROM + 1 }, (_, i) => loadFixture(`mainnet-${FROM + i}`));
    const copy = structuredClone(blocks[22]!); // block 1000023, which has logs
    const file = tempFile('twice.json');
    writeFileSync(file, JSON.stringify({ exchanges: [], blocks: [...blocks, copy] }));
    const same = await run([...RANGE, '--bundle', file]);
    expect(same.status).toBe(0);
    expect(parseLines(same.stdout).at(-1)!.summary).toMatchObject({ blocks: 30, verdicts: { pass: 30 } });

    const log = (copy.receipts as Array<{ logs: Array<{ data: string }> }>).find((r) => r.logs.length > 0)!.logs[0]!;
    log.data = `0x${'ff'.repeat((log.data.length - 2) / 2)}`;
    writeFileSync(file, JSON.stringify({ exchanges: [], blocks: [...blocks, copy] }));
    const altered = await run([...RANGE, '--bundle', file]);
    expect(altered.status).toBe(2);
    expect(altered.stdout).toBe('');
    expect(altered.stderr).toBe(
      `evm-integrity: ${file}: blocks[30]: expected the same as blocks[22] (block 1000023 of chain 1, given twice, must be given identically), got another version (they differ at receipts[1].logs[0].data)\n`,
    );
  });

  it('--record across a reorg keeps one version of each block, the chain the audit went on with: the replay audits it', async () => {
    const blocks = fixtureChain(FROM, TO);
    // Chain B forks at FROM+4 (other extraData), every block after it re-linked and re-hashed; the node switches to it
    // when the audit asks for FROM+6, after FROM+4 and FROM+5 were fetched on chain A.
    const fork = forkOf(blocks, FROM + 4);
    const n = await start(blocks);
    n.fault = (call) => {
      if (call.method === 'eth_getBlockByNumber' && Number(call.params[0]) === FROM + 6)
        for (const [b, block] of fork) n.blocks.set(b, block);
      return undefined;
    };
    const bundle = tempFile('reorg.json');
    const live = await run([...RANGE, '--rpc', n.url, '--record', bundle, '--concurrency', '1', '--batch', '1']);
    expect(live.status).toBe(0);
    expect(parseLines(live.stdout).filter((l) => l.reorg !== undefined)).toHaveLength(1);
    await node!.close();
    node = undefined;

    const replay = await run([...RANGE, '--bundle', bundle]);
    expect(replay.stderr).toBe('');
    expect(replay.status).toBe(0);
    const blockLines = (text: string) =>
      parseLines(text)
        .filter((l) => l.block_number !== undefined)
        .map((l): [unknown, unknown] => [l.block_number, l.block_hash]);
    expect(blockLines(replay.stdout)).toHaveLength(30);
    // The live audit's last line for each block is the new chain's.
    expect(new Map(blockLines(replay.stdout))).toEqual(new Map(blockLines(live.stdout)));
  });

  it('a --bundle replay that stops at a block the recording lacks says the recording cannot go past it, not --resume (which would stop there again: a user check)', async () => {
    const n = await start();
    const bundle = tempFile('short.json');
    expect((await run([...RANGE, '--rpc', n.url, '--record', bundle])).status).toBe(0);
    const recorded = JSON.parse(readFileSync(bundle, 'utf8')) as { blocks: Array<{ header: { number: string } }> };
    recorded.blocks = recorded.blocks.filter((block) => Number(block.header.number) !== FROM + 9);
    writeFileSync(bundle, JSON.stringify(recorded));
    const out = tempFile('short.ndjson');
    const replay = await run([...RANGE, '--bundle', bundle, '--out', out]);
    expect(replay.status).toBe(2);
    expect(replay.stderr).toMatch(
      new RegExp(
        `^evm-integrity: stopped at block ${FROM + 9}: .*; the recording \\S+short\\.json cannot replay this audit past it \\(record it again from the live sources, with the same --chunk-size\\)\n$`,
      ),
    );
  });

  it('a --bundle that is not a bundle, or whose block lacks chain_id: one line naming the file and the member', async () => {
    const notBundle = tempFile('block.json');
    writeFileSync(notBundle, JSON.stringify(loadFixture('mainnet-1000001')));
    const noChainId = tempFile('no-chain-id.json');
    const { chain_id: _, ...block } = loadFixture('mainnet-1000001');
    writeFileSync(noChainId, JSON.stringify({ exchanges: [], blocks: [block] }));
    const cases: Array<[string, string]> = [
      [
        notBundle,
        "not an audit bundle (what audit --record writes): exchanges: expected the hosted service's recorded request/response pairs (an array) (this is a block, not a bundle), got nothing",
      ],
      [noChainId, "blocks[0].chain_id: expected the block's chain id (a positive integer), got nothing"],
    ];
    for (const [file, message] of cases) {
      const refused = await run([...RANGE, '--bundle', file]);
      expect(refused.status).toBe(2);
      expect(refused.stderr).toBe(`evm-integrity: ${file}: ${message}\n`);
      expect(refused.stdout).toBe('');
    }
  });

  it('--workers is no option of audit (removed: verifying on threads was slower than inline): exit 2, nothing asked', async () => {
    const n = await start();
    const refused = await run([...RANGE, '--rpc', n.url, '--workers', '2']);
    expect(refused.status).toBe(2);
    expect(refused.stderr).toMatch(/--workers/);
    expect(refused.stdout).toBe('');
    expect(n.requests).toBe(0);
  });

  it('a chain outside the registry is not verifiable, naming --add-chain; with --add-chain its blocks are verified', async () => {
    const hive = loadFixture('hive-generated-1');
    const chain = String(hive.chain_id);
    const number = String(Number(hive.header.number));
    node = await startLoopbackNode(
      hive.chain_id!,
      new Map([[Number(hive.header.number), { header: hive.header, receipts: hive.receipts }]]),
    );
    const range = ['--chain', chain, '--from', number, '--to', number, '--rpc', node.url];
    const unnamed = await run(range);
    // Nothing verified is no pass: exit 2, and one line says so.
    expect(unnamed.stderr).toBe(
      'evm-integrity: 1 of 1 blocks could not be verified (verdict not_verifiable; each line says why)\n',
    );
    expect(unnamed.status).toBe(2);
    expect(parseLines(unnamed.stdout)[1]).toMatchObject({
      verdict: 'not_verifiable',
      reason: expect.stringContaining('--add-chain ID:RULES'),
    });
    const named = await run([...range, '--add-chain', `${chain}:ethereum`]);
    expect(named.status).toBe(0);
    expect(parseLines(named.stdout)[1]).toMatchObject({ verdict: 'pass', failures: [] });
    const wrong = await run([...range, '--add-chain', `${chain}:bitcoin`]);
    expect(wrong.status).toBe(2);
    expect(wrong.stderr).toMatch(/^evm-integrity: --add-chain: "\d+:bitcoin" names no rule set; use one of ethereum/);
  });

  it('Bor before v1.3.2 (its state-sync transaction listed last, its receipt not returned) passes, as the reader and prove receipt accept it (was: transaction_count failed); another hash listed last fails transaction_count', async () => {
    const polygon = loadFixture('polygon-pos-10000000'); // 6 receipts, Bor's state-sync receipt last
    const number = Number(polygon.header.number);
    const listed = polygon.receipts.map((r) => r.transactionHash as string);
    const served = (transactionHashes: string[]) =>
      startLoopbackNode(
        137,
        new Map([[number, { header: polygon.header, receipts: polygon.receipts.slice(0, 5), transactionHashes }]]),
      );
    const range = ['--chain', '137', '--from', String(number), '--to', String(number)];
    node = await served(listed);
    const bor = await run([...range, '--rpc', node.url]);
    expect([bor.status, parseLines(bor.stdout)[1]]).toEqual([
      0,
      expect.objectContaining({ verdict: 'pass', failures: [] }),
    ]);
    await node.close();
    node = await served([...listed.slice(0, 5), `0x${'ab'.repeat(32)}`]);
    const other = await run([...range, '--rpc', node.url]);
    expect(other.status).toBe(1);
    expect(parseLines(other.stdout)[1]).toMatchObject({
      verdict: 'fail',
      failures: [{ check: 'transaction_count', evidence: { transactions: 6, receipts: 5 } }],
    });
  });

  it('--out - is standard output, as without --out; --record - and --resume with it are refused', async () => {
    const n = await start();
    const dashed = await run([...RANGE, '--rpc', n.url, '--out', '-']);
    const plain = await run([...RANGE, '--rpc', n.url]);
    expect(dashed.status).toBe(0);
    expect(parseLines(dashed.stdout).length).toBe(parseLines(plain.stdout).length);
    expect(parseLines(dashed.stdout).at(-1)).toMatchObject({ summary: { blocks: TO - FROM + 1 } });
    const recorded = await run([...RANGE, '--rpc', n.url, '--record', '-']);
    expect([recorded.status, recorded.stderr.split('\n')[0]]).toEqual([
      2,
      "evm-integrity: --record -: standard output holds the audit's lines; give --record a FILE",
    ]);
    const resumed = await run([...RANGE, '--rpc', n.url, '--out', '-', '--resume']);
    expect([resumed.status, resumed.stderr.split('\n')[0]]).toEqual([
      2,
      'evm-integrity: --resume needs --out FILE (the file is the checkpoint)',
    ]);
    expect(madeDashFile()).toBe(false);
  });

  it('a reader that closes the pipe early (`| head -1`): status 141 and nothing on stderr, no stack trace', async () => {
    const n = await start();
    const result = await closeOutputEarly(BIN, ['audit', ...RANGE, '--rpc', n.url]);
    expect(result).toEqual({ status: 141, stderr: '' });
  });

  it("asks the node's chain id in the first request, with the first blocks' calls: no round trip of its own", async () => {
    const n = await start();
    const result = await run([...RANGE, '--rpc', n.url, '--batch', '16']);
    expect(result.status).toBe(0);
    expect(n.calls[0]).toMatchObject({ method: 'eth_chainId' });
    expect(n.calls.filter((c) => c.method === 'eth_chainId')).toHaveLength(1);
    // 1 + 60 calls in batches of at most 16: 4 requests (the chain id alone first would make 5).
    expect(n.requests).toBe(4);
    expect(parseLines(result.stdout)[0]).toEqual({ audit: { chain_id: 1, from: FROM, to: TO } });
  });

  it('--concurrency and --batch past their bounds: one line naming the flag and the range, exit 2, nothing asked of the node', async () => {
    const n = await start();
    for (const [flag, value, range] of [
      ['--concurrency', '100000', '1 to 64'],
      ['--batch', '9007199254740991', '1 to 1000'],
    ]) {
      const out = tempFile('bounded.ndjson');
      const refused = await run([...RANGE, '--rpc', n.url, flag!, value!, '--out', out]);
      expect(refused.status).toBe(2);
      expect(refused.stderr.split('\n')[0]).toBe(
        `evm-integrity: ${flag}: "${value}" is more than ${value === '100000' ? 64 : 1000}; use ${range}`,
      );
      expect(refused.stderr).not.toMatch(/\n\s+at /);
      expect(existsSync(out)).toBe(false);
    }
    expect(n.requests).toBe(0);
    // The bounds themselves are accepted.
    const most = await run([...RANGE, '--rpc', n.url, '--concurrency', '64', '--batch', '1000']);
    expect(most.status).toBe(0);
  });

  it('an --out or --record that cannot be written: one line naming it and why, exit 2, before any block is fetched', async () => {
    const n = await start();
    const dir = mkdtempSync(join(tmpdir(), 'audit-cli-'));
    const file = join(dir, 'file');
    writeFileSync(file, 'x');
    const cases: Array<[string[], string]> = [
      [
        ['--out', join(dir, 'no-such-dir', 'x.ndjson')],
        `--out ${join(dir, 'no-such-dir', 'x.ndjson')}: cannot write it: no such directory`,
      ],
      [
        ['--out', join(dir, 'no-such-dir', 'x.ndjson'), '--resume'],
        `--out ${join(dir, 'no-such-dir', 'x.ndjson')}: cannot write it: no such directory`,
      ],
      [['--out', dir, '--resume'], `--out ${dir}: cannot write it: it is a directory`],
      [['--out', dir], `--out ${dir}: cannot write it: it is a directory`],
      [
        ['--out', join(file, 'x.ndjson')],
        `--out ${join(file, 'x.ndjson')}: cannot write it: ${file} is not a directory`,
      ],
      [
        ['--record', join(dir, 'no-such-dir', 'r.json.gz')],
        `--record ${join(dir, 'no-such-dir', 'r.json.gz')}: cannot write it: no such directory`,
      ],
    ];
    for (const [flags, message] of cases) {
      const refused = await run([...RANGE, '--rpc', n.url, ...flags]);
      expect(refused.status, flags.join(' ')).toBe(2);
      expect(refused.stderr).toBe(`evm-integrity: ${message}\n`);
      expect(refused.stdout).toBe('');
    }
    // A file that exists is refused as such, whatever its size says (a /proc file reads as empty).
    if (existsSync('/proc/version')) {
      const proc = await run([...RANGE, '--rpc', n.url, '--out', '/proc/version']);
      expect(proc.status).toBe(2);
      expect(proc.stderr).toBe(
        'evm-integrity: /proc/version exists: add --resume to continue that audit, or remove it\n',
      );
    }
    expect(n.requests).toBe(0);
    expect(readdirSync(dir)).toEqual(['file']);
  });

  it('file refusals are one line without the usage: an --out that exists, an empty path, a device with --resume, another audit', async () => {
    const n = await start();
    const dir = mkdtempSync(join(tmpdir(), 'audit-cli-'));
    const exists = join(dir, 'exists.ndjson');
    writeFileSync(exists, '');
    const other = join(dir, 'other.ndjson');
    writeFileSync(other, '{"audit":{"chain_id":10,"from":1,"to":2}}\n');
    const notJson = join(dir, 'not-json.ndjson');
    writeFileSync(notJson, 'not json\n');
    const cases: Array<[string[], string]> = [
      [['--out', exists], `${exists} exists: add --resume to continue that audit, or remove it`],
      [['--out', ''], '--out: the path is empty; give a file name'],
      [['--record', ''], '--record: the path is empty; give a file name'],
      [
        ['--out', '/dev/null', '--resume'],
        '--resume: /dev/null is not a regular file, so it holds no audit to continue',
      ],
      [
        ['--out', other, '--resume'],
        `--resume: ${other} is the output of another audit ({"chain_id":10,"from":1,"to":2}), not of {"chain_id":1,"from":${FROM},"to":${TO}}`,
      ],
      [['--out', notJson, '--resume'], `--resume: line 1 of ${notJson} is not JSON; is it the output of an audit?`],
    ];
    for (const [flags, message] of cases) {
      const refused = await run([...RANGE, '--rpc', n.url, ...flags]);
      expect(refused.status, flags.join(' ')).toBe(2);
      expect(refused.stderr, flags.join(' ')).toBe(`evm-integrity: ${message}\n`);
      expect(refused.stdout).toBe('');
    }
    expect(n.requests).toBe(0);
  });

  it("--resume on a file without a newline that is not the start of this audit's header: refused, the file kept (was: cut to nothing and overwritten, exit 0: a user check); a torn header of this audit is cut and the audit runs", async () => {
    const n = await start();
    const dir = mkdtempSync(join(tmpdir(), 'audit-cli-'));
    const header = `{"audit":{"chain_id":1,"from":${FROM},"to":${TO}}}`;
    const kept = {
      'bundle.json': JSON.stringify(loadFixture('mainnet-1000001')),
      'text.txt': 'notes, no newline',
      'list.json': '[1,2,3]',
      'other-audit.ndjson': '{"audit":{"chain_id":1,"from":5,"to":6}}',
    };
    for (const [name, text] of Object.entries(kept)) {
      const file = join(dir, name);
      writeFileSync(file, text);
      const refused = await run([...RANGE, '--rpc', n.url, '--out', file, '--resume']);
      expect(refused.status, name).toBe(2);
      expect(refused.stderr, name).toBe(
        `evm-integrity: --resume: ${file} holds no whole line, and what it holds is not the start of this audit's header line; is it the output of an audit?\n`,
      );
      expect(readFileSync(file, 'utf8'), name).toBe(text);
    }
    expect(n.requests).toBe(0);
    const torn = join(dir, 'torn.ndjson');
    writeFileSync(torn, header.slice(0, 20));
    const resumed = await run([...RANGE, '--rpc', n.url, '--out', torn, '--resume']);
    expect(resumed.status).toBe(0);
    const lines = parseLines(readFileSync(torn, 'utf8'));
    expect(lines[0]).toEqual(JSON.parse(header));
    expect(lines.at(-1)!.summary).toMatchObject({ complete: true, verdicts: { pass: 30 } });
  });

  it('--out a device (/dev/null) is written to without --resume: it is no file of an earlier audit', async () => {
    const n = await start();
    const result = await run([...RANGE, '--rpc', n.url, '--out', '/dev/null']);
    expect({ status: result.status, stderr: result.stderr, stdout: result.stdout }).toEqual({
      status: 0,
      stderr: '',
      stdout: '',
    });
  });

  it('exit 2 when the node cannot be reached past its retries, after the unreachable line and the summary', async () => {
    const n = await start();
    const url = n.url;
    await n.close();
    node = undefined;
    const result = await run(['--chain', '1', '--from', String(FROM), '--to', String(FROM + 2), '--rpc', url]);
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(
      // The chain id is asked first, in the first batch with the blocks' calls.
      /^evm-integrity: stopped at block 1000001: the JSON-RPC node at http:\/\/127.0.0.1:\d+ answered a batch of \d+ calls \(eth_chainId, .*\) with a network error.*; continue later with --from 1000001 and the other flags as before\n$/,
    );
    const lines = parseLines(result.stdout);
    expect(lines[1]).toMatchObject({ block_number: FROM, verdict: 'unreachable' });
    expect(lines.at(-1)!.summary).toMatchObject({ complete: false, next_block: FROM });
  }, 30_000);

  it('stopped at an unreachable block: the advice names the hash of the block before it, not of the unreachable line', async () => {
    const n = await start();
    const stuck = FROM + 3;
    n.fault = (call) =>
      call.method === 'eth_getBlockReceipts' && Number(call.params[0]) === stuck ? { status: 404 } : undefined;
    const result = await run([...RANGE, '--rpc', n.url, '--batch', '1', '--concurrency', '1']);
    expect(result.status).toBe(2);
    const lines = parseLines(result.stdout);
    const before = lines.find((line) => line.block_number === stuck - 1)!;
    expect(before.verdict).toBe('pass');
    expect(lines.find((line) => line.block_number === stuck)).toMatchObject({
      verdict: 'unreachable',
      block_hash: null,
    });
    expect(result.stderr).toMatch(
      new RegExp(
        `; continue later with --from ${stuck} --head-hash ${before.block_hash} and the other flags as before\\n$`,
      ),
    );
    // The advice, followed, completes the range.
    n.fault = undefined;
    const resumed = await run([
      '--chain',
      '1',
      '--from',
      String(stuck),
      '--to',
      String(TO),
      '--head-hash',
      before.block_hash,
      '--rpc',
      n.url,
    ]);
    expect(resumed.status).toBe(0);
    expect(parseLines(resumed.stdout).at(-1)!.summary).toMatchObject({
      complete: true,
      verdicts: { pass: TO - stuck + 1 },
    });
  });

  it('stopped while a reorg was followed back (the node failed the block asked again): the advice starts where the reorg may have begun, and followed, completes the range on the new chain (was: --from the block that did not link, linked to the old chain: parent_link, exit 1)', async () => {
    const blocks = fixtureChain(FROM, TO);
    const fork = forkOf(blocks, FROM + 4);
    const n = await start(blocks);
    let switched = false;
    n.fault = (call) => {
      if (call.method !== 'eth_getBlockByNumber') return undefined;
      const asked = Number(call.params[0]);
      if (asked === FROM + 6 && !switched) {
        switched = true;
        for (const [b, block] of fork) n.blocks.set(b, block);
      } else if (asked === FROM + 5 && switched) return { status: 404 };
      return undefined;
    };
    const result = await run([...RANGE, '--rpc', n.url, '--batch', '1', '--concurrency', '1']);
    expect(result.status).toBe(2);
    expect(parseLines(result.stdout).find((l) => l.block_number === FROM + 6)).toMatchObject({
      verdict: 'unreachable',
    });
    // The summary says where to go on as the advice does.
    expect(parseLines(result.stdout).at(-1)!.summary).toMatchObject({ complete: false, next_block: FROM });
    expect(result.stderr).toMatch(
      new RegExp(
        `; continue later with --from ${FROM} and the other flags as before \\(a reorg was being followed back when the audit stopped: the blocks audited from ${FROM} on may be the old chain's\\)\\n$`,
      ),
    );
    n.fault = undefined;
    const resumed = await run([...RANGE, '--rpc', n.url]);
    expect(resumed.stderr).toBe('');
    expect(resumed.status).toBe(0);
    expect(parseLines(resumed.stdout).at(-1)!.summary).toMatchObject({ complete: true, verdicts: { pass: 30 } });
  });

  it('a node answering with another block: the number it gave in decimal, as the docs show it (was: 0xf424d); a number that is no quantity as given, made printable on stderr', async () => {
    const blocks = fixtureChain(FROM, TO);
    const asked = FROM + 11;
    blocks.set(asked, blocks.get(asked + 1)!);
    const n = await start(blocks);
    const result = await run([...RANGE, '--rpc', n.url]);
    expect(result.status).toBe(2);
    const said = `the JSON-RPC node at ${n.url} answered eth_getBlockByNumber ${asked} with block ${asked + 1}`;
    expect(parseLines(result.stdout).find((l) => l.block_number === asked)).toMatchObject({
      verdict: 'unreachable',
      reason: said,
    });
    expect(result.stderr).toMatch(new RegExp(`^evm-integrity: stopped at block ${asked}: ${said}; continue later`));

    blocks.set(asked, { ...blocks.get(asked)!, header: { ...blocks.get(asked)!.header, number: '0x\u001b[2J' } });
    const forged = await run([...RANGE, '--rpc', n.url]);
    expect(forged.status).toBe(2);
    expect(parseLines(forged.stdout).find((l) => l.block_number === asked)!.reason).toBe(
      `the JSON-RPC node at ${n.url} answered eth_getBlockByNumber ${asked} with block 0x\u001b[2J`,
    );
    expect(forged.stderr).toContain(`answered eth_getBlockByNumber ${asked} with block 0xU+001B[2J; continue later`);
    expect(forged.stderr).not.toContain('\u001b');
  });

  it('stopped after a block the node gave without its hash: the advice starts at that block, which nothing links past (was: a start after it, linked to nothing)', async () => {
    const blocks = fixtureChain(FROM, TO);
    const hashless = FROM + 3;
    const { hash: _, ...header } = blocks.get(hashless)!.header;
    blocks.set(hashless, { ...blocks.get(hashless)!, header });
    const n = await start(blocks);
    n.fault = (call) =>
      call.method === 'eth_getBlockReceipts' && Number(call.params[0]) === hashless + 1 ? { status: 404 } : undefined;
    const result = await run([...RANGE, '--rpc', n.url, '--batch', '1', '--concurrency', '1']);
    expect(result.status).toBe(1); // the hashless block's fail is not hidden behind the stop
    const lines = parseLines(result.stdout);
    expect(lines.find((line) => line.block_number === hashless)).toMatchObject({ verdict: 'fail', block_hash: null });
    const before = lines.find((line) => line.block_number === hashless - 1)!;
    expect(result.stderr).toMatch(
      new RegExp(
        `^evm-integrity: stopped at block ${hashless + 1}: .*; continue later with --from ${hashless} --head-hash ${before.block_hash} and the other flags as before\n$`,
      ),
    );
  });

  it('a block fails, then the node stops answering: exit 1, the fail not hidden behind the stop, the stop still said with how to resume (was: exit 2)', async () => {
    const blocks = fixtureChain(FROM, TO);
    const forged = FROM + 2;
    blocks.set(forged, {
      ...blocks.get(forged)!,
      header: rehash({ ...blocks.get(forged)!.header, parentHash: `0x${'44'.repeat(32)}` }),
    });
    const n = await start(blocks);
    const stuck = FROM + 6;
    n.fault = (call) =>
      call.method === 'eth_getBlockReceipts' && Number(call.params[0]) >= stuck ? { status: 404 } : undefined;
    const result = await run([...RANGE, '--rpc', n.url, '--batch', '1', '--concurrency', '1']);
    expect(result.status).toBe(1);
    const lines = parseLines(result.stdout);
    expect(lines.find((line) => line.block_number === forged)).toMatchObject({ verdict: 'fail' });
    expect(lines.find((line) => line.block_number === stuck)).toMatchObject({ verdict: 'unreachable' });
    expect(lines.at(-1)!.summary).toMatchObject({ complete: false, next_block: stuck, verdicts: { unreachable: 1 } });
    const before = lines.find((line) => line.block_number === stuck - 1)!;
    expect(result.stderr).toMatch(
      new RegExp(
        `^evm-integrity: stopped at block ${stuck}: .*; continue later with --from ${stuck} --head-hash ${before.block_hash} and the other flags as before\\n$`,
      ),
    );
  });

  it('stopped at the first block: the advice keeps the --head-hash given', async () => {
    const n = await start();
    const head = `0x${'ab'.repeat(32)}`;
    n.fault = (call) => (call.method === 'eth_getBlockReceipts' ? { status: 404 } : undefined);
    const result = await run([...RANGE, '--head-hash', head, '--rpc', n.url, '--batch', '1']);
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(
      new RegExp(`; continue later with --from ${FROM} --head-hash ${head} and the other flags as before\\n$`),
    );
  });
});

/**
 * The arguments a process `node NODE_ARGS BIN audit …` runs with once it asks the node (read from /proc while the
 * node holds the request), then interrupted.
 */
async function argumentsWhileAsking(nodeArgs: string[], env: NodeJS.ProcessEnv = process.env): Promise<string[]> {
  return (await processWhileAsking(nodeArgs, env)).args;
}

/** {@link argumentsWhileAsking}, and the environment the process runs with (what glibc read at its start). */
async function processWhileAsking(
  nodeArgs: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ args: string[]; environment: Map<string, string> }> {
  const n = await start();
  n.fault = () => ({ hang: true });
  const child = spawn(process.execPath, [...nodeArgs, BIN, 'audit', ...RANGE, '--rpc', n.url], {
    stdio: 'ignore',
    env,
  });
  let ended: string | undefined;
  const closed = new Promise<void>((resolve) =>
    child.on('close', (status, signal) => {
      ended = `status ${status}, signal ${signal}`;
      resolve();
    }),
  );
  while (n.requests === 0) {
    if (ended !== undefined) throw new Error(`the audit ended (${ended}) before it asked the node`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const args = readFileSync(`/proc/${child.pid}/cmdline`, 'latin1').split('\0').slice(0, -1);
  const environment = new Map(
    readFileSync(`/proc/${child.pid}/environ`, 'latin1')
      .split('\0')
      .filter((entry) => entry.includes('='))
      .map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)]),
  );
  child.kill('SIGINT');
  await closed;
  return { args, environment };
}

describe.runIf(process.platform === 'linux' && typeof process.execve === 'function')(
  "evm-integrity audit: V8's young generation capped at semi-spaces of 16 MB",
  () => {
    const semiSpace = (args: string[]) => args.filter((arg) => arg.startsWith('--max-semi-space-size'));

    it("started again in place with --max-semi-space-size=16; a size of the user's own, to node or in NODE_OPTIONS, is kept", async () => {
      const plain = await argumentsWhileAsking([]);
      expect(semiSpace(plain)).toEqual(['--max-semi-space-size=16']);
      expect(plain.slice(plain.indexOf(BIN))).toEqual([BIN, 'audit', ...RANGE, '--rpc', node!.url]);
      await node!.close();
      expect(semiSpace(await argumentsWhileAsking(['--max-semi-space-size=4']))).toEqual(['--max-semi-space-size=4']);
      await node!.close();
      const env = { ...process.env, NODE_OPTIONS: '--max-semi-space-size=8' };
      expect(semiSpace(await argumentsWhileAsking([], env))).toEqual([]);
    });

    it("glibc's allocator kept from handing back what answers took (MALLOC_MMAP_THRESHOLD_ 32 MiB, MALLOC_TRIM_THRESHOLD_ 256 MiB), in the same process; either of the user's own keeps both as the user has them", async () => {
      const allocator = (environment: Map<string, string>) => [
        environment.get('MALLOC_MMAP_THRESHOLD_'),
        environment.get('MALLOC_TRIM_THRESHOLD_'),
      ];
      const plain = { ...process.env };
      delete plain.MALLOC_MMAP_THRESHOLD_;
      delete plain.MALLOC_TRIM_THRESHOLD_;
      const set = await processWhileAsking([], plain);
      expect(allocator(set.environment)).toEqual(['33554432', '268435456']);
      expect(set.args.slice(set.args.indexOf(BIN))).toEqual([BIN, 'audit', ...RANGE, '--rpc', node!.url]);
      await node!.close();
      const own = await processWhileAsking([], { ...plain, MALLOC_TRIM_THRESHOLD_: '1048576' });
      expect(allocator(own.environment)).toEqual([undefined, '1048576']);
      await node!.close();
      // With a semi-space size of the user's own, started again for the allocator alone, the size kept.
      const sized = await processWhileAsking(['--max-semi-space-size=4'], plain);
      expect(allocator(sized.environment)).toEqual(['33554432', '268435456']);
      expect(sized.args.filter((arg) => arg.startsWith('--max-semi-space-size'))).toEqual(['--max-semi-space-size=4']);
      await node!.close();
      // From --env-file, after glibc read the environment: started again with it, so glibc reads it.
      const envFile = tempFile('.env');
      writeFileSync(envFile, 'MALLOC_MMAP_THRESHOLD_=65536\n');
      const fromFile = await processWhileAsking([`--env-file=${envFile}`], plain);
      expect(allocator(fromFile.environment)).toEqual(['65536', undefined]);
    });

    it("not started again where V8 would refuse the size beside the user's (--max-heap-size with an old-space size) nor where Node forbids it (the permission model): it runs on", async () => {
      // V8 stops the process (a fatal check) for --max-heap-size beside both a semi-space and an old-space size.
      const heap = await argumentsWhileAsking(['--max-heap-size=512', '--max-old-space-size=256']);
      expect(semiSpace(heap)).toEqual([]);
      await node!.close();
      const permitted = await argumentsWhileAsking(['--permission', '--allow-fs-read=*']);
      expect(semiSpace(permitted)).toEqual([]);
      expect(permitted).toContain('--permission');
    });

    it("not started again where code of the user's runs first (--import, or --require in NODE_OPTIONS): it runs once", async () => {
      // A preload that writes a line each time it runs, once in each of the two processes: a restart would run it again.
      const runs = tempFile('runs');
      const hook = tempFile('hook.cjs');
      writeFileSync(hook, `require('node:fs').appendFileSync(${JSON.stringify(runs)}, 'ran\\n');\n`);
      const imported = await argumentsWhileAsking(['--import', hook]);
      expect(semiSpace(imported)).toEqual([]);
      await node!.close();
      const required = await argumentsWhileAsking([], { ...process.env, NODE_OPTIONS: `--require ${hook}` });
      expect(semiSpace(required)).toEqual([]);
      expect(readFileSync(runs, 'utf8')).toBe('ran\nran\n');
    });
  },
);

describe('evm-integrity audit: the parent link of the first block of a run', () => {
  it('a wrong --head-hash: block --from fails parent_link naming --head-hash, not a block audited before it', async () => {
    const n = await start();
    const head = `0x${'ab'.repeat(32)}`;
    const result = await run([...RANGE, '--head-hash', head, '--rpc', n.url]);
    expect(result.status).toBe(1);
    const failing = parseLines(result.stdout).filter((l) => l.verdict === 'fail');
    expect(failing.map((l) => [l.block_number, l.failures])).toEqual([
      [
        FROM,
        [
          {
            check: 'parent_link',
            message: 'the parentHash is not the --head-hash given',
            evidence: { expected: head, found: expect.any(String) },
          },
        ],
      ],
    ]);
  });

  it('--resume: the first block resumed, linking to no block the node has, fails parent_link naming the checkpoint, the next one the block audited before it', async () => {
    const n = await start();
    const whole = tempFile('whole.ndjson');
    expect((await run([...RANGE, '--rpc', n.url, '--out', whole])).status).toBe(0);
    const file = tempFile('stopped.ndjson');
    writeFileSync(file, `${readFileSync(whole, 'utf8').split('\n').slice(0, 6).join('\n')}\n`); // header, 5 blocks
    // The node's FROM+5 now links to no block: asked again, FROM+4 is the block the file holds, so the link is broken.
    const broken = n.blocks.get(FROM + 5)!;
    n.blocks.set(FROM + 5, { ...broken, header: rehash({ ...broken.header, parentHash: `0x${'55'.repeat(32)}` }) });
    expect((await run([...RANGE, '--rpc', n.url, '--out', file, '--resume'])).status).toBe(1);
    const failing = parseLines(readFileSync(file, 'utf8')).filter((l) => l.verdict === 'fail');
    expect(failing.map((l) => [l.block_number, l.failures[0].message])).toEqual([
      [FROM + 5, "the parentHash is not the hash of the checkpoint's last block (--resume)"],
      // FROM+6 names the block FROM+5 was before it was altered.
      [FROM + 6, 'the parentHash is not the hash of the block audited before it'],
    ]);
  });
});

describe('--resume takes no line of the file on trust (a real checkpoint, edited, then resumed)', () => {
  const tail = String(loadFixture(`mainnet-${TO}`).header.hash);
  const ANCHORED = [...RANGE, '--tail-hash', tail];
  /** A node whose block FROM+6 lies (a receipt left out): it fails transaction_count, and the rest are anchored. */
  async function lyingNode(): Promise<LoopbackNode> {
    const blocks = fixtureChain(FROM, TO);
    const block = blocks.get(FROM + 6)!;
    blocks.set(FROM + 6, { ...block, receipts: block.receipts.slice(1), transactions: block.receipts.length });
    return start(blocks);
  }
  /** The whole audit, uninterrupted, in a file: what any resume must end with. */
  async function wholeRun(n: LoopbackNode, args: string[], status: number): Promise<string> {
    const whole = tempFile('whole.ndjson');
    expect((await run([...args, '--rpc', n.url, '--out', whole])).status).toBe(status);
    return whole;
  }
  const edited = (file: string, line: number, why: string, from: number) =>
    `evm-integrity: --resume: line ${line} of ${file} ${why}: the file is cut there, and the blocks from ${from} are audited again\n`;
  const blockNumbers = (file: string) =>
    parseLines(readFileSync(file, 'utf8'))
      .filter((l) => l.block_number !== undefined)
      .map((l) => l.block_number as number);

  it('a fail line edited to pass: the block is audited again and still fails (exit 1), never authentic', async () => {
    const n = await lyingNode();
    const whole = await wholeRun(n, ANCHORED, 1);
    const lines = readFileSync(whole, 'utf8').trim().split('\n');
    const file = tempFile('edited.ndjson');
    const lied = JSON.parse(lines[7]!) as Record<string, unknown>; // block FROM+6
    expect(lied.verdict).toBe('fail');
    lines[7] = JSON.stringify({ ...lied, verdict: 'pass', failures: [] });
    writeFileSync(file, `${lines.join('\n')}\n`);
    const resumed = await run([...ANCHORED, '--rpc', n.url, '--out', file, '--resume']);
    expect(resumed.status).toBe(1);
    const summary = parseLines(readFileSync(file, 'utf8')).at(-1)!.summary;
    expect(summary).toMatchObject({
      verdicts: { pass: 29, fail: 1 },
      complete: true,
      carried_over: { blocks: 6, verdicts: { pass: 6, fail: 0 } },
      anchoring: { assurance: 'partly_authentic' },
    });
    expect(comparable(readFileSync(file, 'utf8'))).toEqual(comparable(readFileSync(whole, 'utf8')));
    // Said on stderr: the line from which the file was not taken on trust.
    expect(resumed.stderr).toBe(edited(file, 8, 'does not match its digest (the file was edited)', FROM + 6));
  });

  it('a block line deleted from the middle: the gap is audited, 30 blocks of 30, and stderr names the line', async () => {
    const n = await start();
    const whole = await wholeRun(n, RANGE, 0);
    const lines = readFileSync(whole, 'utf8').trim().split('\n');
    lines.splice(15, 1); // block FROM+14
    const file = tempFile('gap.ndjson');
    writeFileSync(file, `${lines.join('\n')}\n`);
    n.calls.length = 0;
    const resumed = await run([...RANGE, '--rpc', n.url, '--out', file, '--resume']);
    expect(resumed.status).toBe(0);
    const fetched = n.calls.filter((c) => c.method === 'eth_getBlockByNumber').map((c) => Number(c.params[0]));
    expect(Math.min(...fetched)).toBe(FROM + 14);
    expect(parseLines(readFileSync(file, 'utf8')).at(-1)!.summary).toMatchObject({
      blocks: 30,
      complete: true,
      carried_over: { blocks: 14 },
    });
    expect(comparable(readFileSync(file, 'utf8'))).toEqual(comparable(readFileSync(whole, 'utf8')));
    // Said on stderr: the line from which the file was not taken on trust.
    expect(resumed.stderr).toBe(edited(file, 16, 'does not match its digest (the file was edited)', FROM + 14));
  });

  it('two block lines swapped: the file is cut at the first, and ends in block order, each block once', async () => {
    const n = await start();
    const whole = await wholeRun(n, RANGE, 0);
    const lines = readFileSync(whole, 'utf8').trim().split('\n');
    [lines[10], lines[11]] = [lines[11]!, lines[10]!]; // blocks FROM+9 and FROM+10
    const file = tempFile('swapped.ndjson');
    writeFileSync(file, `${lines.join('\n')}\n`);
    const resumed = await run([...RANGE, '--rpc', n.url, '--out', file, '--resume']);
    expect(resumed.status).toBe(0);
    expect(comparable(readFileSync(file, 'utf8'))).toEqual(comparable(readFileSync(whole, 'utf8')));
    // Said on stderr: the line from which the file was not taken on trust.
    expect(resumed.stderr).toBe(edited(file, 11, 'does not match its digest (the file was edited)', FROM + 9));
  });

  it('Ctrl-C, then an earlier line repeated at the end: the resume goes on after the last block, none twice', async () => {
    const n = await start();
    const whole = await wholeRun(n, RANGE, 0);
    n.delayMs = 15; // a block a round trip: time to interrupt
    const file = tempFile('repeated.ndjson');
    const stopped = await run(
      [...RANGE, '--rpc', n.url, '--out', file, '--batch', '1', '--concurrency', '1'],
      (child) => whenLines(file, 5, () => child.kill('SIGINT')),
    );
    expect(stopped.status).toBe(130);
    n.delayMs = 0;
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    const kept = lines.length - 1;
    expect(kept).toBeLessThan(30);
    writeFileSync(file, `${[...lines, lines[2]].join('\n')}\n`); // block FROM+1 again
    const resumed = await run([...RANGE, '--rpc', n.url, '--out', file, '--resume']);
    expect(resumed.status).toBe(0);
    expect(blockNumbers(file)).toEqual(Array.from({ length: 30 }, (_, i) => FROM + i));
    expect(comparable(readFileSync(file, 'utf8'))).toEqual(comparable(readFileSync(whole, 'utf8')));
    // Said on stderr: the line from which the file was not taken on trust.
    expect(resumed.stderr).toBe(edited(file, kept + 2, 'does not match its digest (the file was edited)', FROM + kept));
  });

  it('a file without digests (written before the lines had them): no line taken on trust, the range audited again', async () => {
    const n = await lyingNode();
    const whole = await wholeRun(n, ANCHORED, 1);
    const file = tempFile('old.ndjson');
    const old = parseLines(readFileSync(whole, 'utf8'))
      .slice(0, -1)
      .map(({ digest: _digest, ...line }) =>
        JSON.stringify({ ...line, ...(line.verdict && { verdict: 'pass', failures: [] }) }),
      );
    writeFileSync(file, `${old.join('\n')}\n`);
    const resumed = await run([...ANCHORED, '--rpc', n.url, '--out', file, '--resume']);
    expect(resumed.status).toBe(1);
    expect(parseLines(readFileSync(file, 'utf8')).at(-1)!.summary).toMatchObject({
      verdicts: { pass: 29, fail: 1 },
      carried_over: { blocks: 0 },
    });
    // Said on stderr: the line from which the file was not taken on trust.
    expect(resumed.stderr).toBe(
      edited(file, 2, 'has no digest (written before the lines carried one, or edited)', FROM),
    );
  });
});

describe('--resume under the rules the file was audited under (a chain outside the registry, --add-chain: a user check)', () => {
  const DEVNET = 999_999;
  const DEVNET_RANGE = ['--chain', String(DEVNET), '--from', String(FROM), '--to', String(TO)];
  const added = (rules: string) => ['--add-chain', `${DEVNET}:${rules}`];

  /** The devnet's whole audit under `rules`, and a file of it cut after its first ten blocks, as a stopped run leaves it. */
  async function checkpointUnder(rules: string[]): Promise<{ n: LoopbackNode; whole: string; file: string }> {
    node = await startLoopbackNode(DEVNET, fixtureChain(FROM, TO));
    const whole = (await run([...DEVNET_RANGE, '--rpc', node.url, ...rules])).stdout;
    const file = tempFile('devnet.ndjson');
    writeFileSync(file, `${whole.split('\n').slice(0, 11).join('\n')}\n`);
    return { n: node, whole, file };
  }

  /** A resume that is refused before anything is asked: exit 2, one line, nothing written, the file as it was. */
  async function refused(n: LoopbackNode, file: string, rules: string[]): Promise<string> {
    const before = readFileSync(file, 'utf8');
    const requests = n.requests;
    const result = await run([...DEVNET_RANGE, '--rpc', n.url, '--out', file, '--resume', ...rules]);
    expect(result.status).toBe(2);
    expect(result.stdout).toBe('');
    expect(readFileSync(file, 'utf8')).toBe(before);
    expect(n.requests).toBe(requests);
    return result.stderr;
  }

  it('the header line records the rule set (null without --add-chain), and the same rules resume to the lines of an uninterrupted run', async () => {
    const { n, whole, file } = await checkpointUnder(added('ethereum'));
    expect(parseLines(whole)[0]).toEqual({ audit: { chain_id: DEVNET, rules: 'ethereum', from: FROM, to: TO } });
    const resumed = await run([...DEVNET_RANGE, '--rpc', n.url, '--out', file, '--resume', ...added('ethereum')]);
    expect([resumed.status, resumed.stderr]).toEqual([0, '']);
    expect(comparable(readFileSync(file, 'utf8'))).toEqual(comparable(whole));
    const unnamed = await run([...DEVNET_RANGE, '--rpc', n.url]);
    expect(parseLines(unnamed.stdout)[0]).toEqual({ audit: { chain_id: DEVNET, rules: null, from: FROM, to: TO } });
  });

  it('a resume under another rule set, or none, is refused naming --add-chain and both (exit 2, the file kept, nothing asked)', async () => {
    const { n, file } = await checkpointUnder(added('ethereum'));
    expect(await refused(n, file, added('optimism'))).toBe(
      `evm-integrity: --resume: ${file} was audited under --add-chain ${DEVNET}:ethereum, not under --add-chain ${DEVNET}:optimism as this run is: give --add-chain ${DEVNET}:ethereum to resume it, or audit to another file\n`,
    );
    expect(await refused(n, file, [])).toBe(
      `evm-integrity: --resume: ${file} was audited under --add-chain ${DEVNET}:ethereum, not without --add-chain as this run is: give --add-chain ${DEVNET}:ethereum to resume it, or audit to another file\n`,
    );
    await node!.close();
    const unnamed = await checkpointUnder([]);
    expect(await refused(unnamed.n, unnamed.file, added('ethereum'))).toBe(
      `evm-integrity: --resume: ${unnamed.file} was audited without --add-chain, not under --add-chain ${DEVNET}:ethereum as this run is: give no --add-chain to resume it, or audit to another file\n`,
    );
  });

  it("a file of an earlier version (its header without the rule set): refused for a chain outside the registry, whose rules it cannot tell; a registry chain's resumes", async () => {
    const { n, file } = await checkpointUnder(added('ethereum'));
    const [header, ...rest] = readFileSync(file, 'utf8').trim().split('\n');
    const { rules: _rules, ...earlier } = (JSON.parse(header!) as { audit: Record<string, unknown> }).audit;
    writeFileSync(file, rechain([JSON.stringify({ audit: earlier }), ...rest]));
    const unknown = `evm-integrity: --resume: ${file} was written by an earlier version, whose header line does not record the rule set of chain ${DEVNET} (--add-chain), so the rules its verdicts were made under are unknown: audit the range to another file\n`;
    expect(await refused(n, file, added('ethereum'))).toBe(unknown);
    expect(await refused(n, file, [])).toBe(unknown);
    // A registry chain's header is as an earlier version wrote it: its rules are the registry's, and it resumes.
    await node!.close();
    const mainnet = await start();
    const whole = (await run([...RANGE, '--rpc', mainnet.url])).stdout;
    const registryFile = tempFile('mainnet.ndjson');
    writeFileSync(registryFile, `${whole.split('\n').slice(0, 11).join('\n')}\n`);
    expect(parseLines(whole)[0]).toEqual({ audit: { chain_id: 1, from: FROM, to: TO } });
    const resumed = await run([...RANGE, '--rpc', mainnet.url, '--out', registryFile, '--resume']);
    expect([resumed.status, resumed.stderr]).toEqual([0, '']);
    expect(comparable(readFileSync(registryFile, 'utf8'))).toEqual(comparable(whole));
  });
});

describe('evm-integrity audit: blocks as cast users write them', () => {
  const first = loadFixture(`mainnet-${FROM}`);
  const last = loadFixture(`mainnet-${TO}`);
  /** A hash as `verify` prints it: no 0x. */
  const bare = (hash: unknown) => String(hash).slice(2);

  it('--from in 0x hex, --to latest (resolved once from the node), hashes without 0x: the header names the numbers', async () => {
    const n = await start();
    const result = await run([
      '--chain',
      '0x1',
      '--from',
      `0x${FROM.toString(16)}`,
      '--to',
      'latest',
      '--rpc',
      n.url,
      '--head-hash',
      bare(first.header.parentHash).toUpperCase(),
      '--anchor',
      `latest:${bare(last.header.hash)}`,
    ]);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    const lines = parseLines(result.stdout);
    expect(lines[0]).toEqual({
      audit: {
        chain_id: 1,
        from: FROM,
        to: TO,
        head_hash: String(first.header.parentHash),
        anchors: { [TO]: String(last.header.hash) },
      },
    });
    expect(lines.at(-1)!.summary).toMatchObject({ blocks: 30, verdicts: { pass: 30, fail: 0 } });
    const tagCalls = n.calls.filter((c) => c.method === 'eth_getBlockByNumber' && c.params[0] === 'latest');
    expect(tagCalls).toEqual([{ method: 'eth_getBlockByNumber', params: ['latest', false] }]);
  });

  it("--to finalized and --from safe are the node's blocks of those tags", async () => {
    const n = await start();
    n.tags.set('finalized', FROM + 4).set('safe', FROM + 2);
    const result = await run(['--chain', '1', '--from', 'safe', '--to', 'finalized', '--rpc', n.url]);
    expect(result.status).toBe(0);
    expect(parseLines(result.stdout)[0]).toEqual({ audit: { chain_id: 1, from: FROM + 2, to: FROM + 4 } });
  });

  it('--rpc-url and ETH_RPC_URL name the node as --rpc does; a flag wins over the environment', async () => {
    const n = await start();
    const range = ['--chain', '1', '--from', String(FROM), '--to', String(FROM + 1)];
    expect((await run([...range, '--rpc-url', n.url])).status).toBe(0);
    expect((await run(range, undefined, { ...process.env, ETH_RPC_URL: n.url })).status).toBe(0);
    const flagWins = await run([...range, '--rpc', n.url], undefined, {
      ...process.env,
      ETH_RPC_URL: 'http://127.0.0.1:1',
    });
    expect(flagWins.status).toBe(0);
    expect(parseLines(flagWins.stdout).at(-1)!.summary).toMatchObject({ blocks: 2 });
  });

  it('a tag after --to resolves before --from: told with both numbers', async () => {
    const n = await start();
    n.tags.set('finalized', FROM + 1);
    const result = await run(['--chain', '1', '--from', String(FROM + 5), '--to', 'finalized', '--rpc', n.url]);
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(
      /^evm-integrity: --to \(finalized: block 1000002\) must not be before --from \(1000006\)\n/,
    );
  });

  it('a node with no such tagged block: one line, exit 2', async () => {
    const n = await start();
    n.fault = (call) =>
      call.params[0] === 'finalized' ? { status: 200, body: { jsonrpc: '2.0', id: 1, result: null } } : undefined;
    const result = await run(['--chain', '1', '--from', String(FROM), '--to', 'finalized', '--rpc', n.url]);
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(
      /^evm-integrity: the JSON-RPC node at http:\/\/127\.0\.0\.1:\d+ has no "finalized" block \(eth_getBlockByNumber "finalized" answered null\)\n$/,
    );
  });
});

describe('evm-integrity audit (in process)', () => {
  const io = () => {
    const out = { stdout: '', stderr: '' };
    return {
      out,
      io: { stdout: (t: string) => void (out.stdout += t), stderr: (t: string) => void (out.stderr += t) },
    };
  };

  it.each([
    [
      ['--from', '1', '--to', '2', '--rpc', 'http://127.0.0.1:1'],
      /--chain is required: a chain id or name \(1 or mainnet, 8453 or base\)/,
    ],
    [
      ['--chain', '1', '--from', '5', '--to', '2', '--rpc', 'http://127.0.0.1:1'],
      /--to \(2\) must not be before --from \(5\)/,
    ],
    [
      ['--chain', '1', '--from', '1', '--to', '2'],
      /give where the blocks come from: --rpc URL \(or ETH_RPC_URL\), --service URL \(its \/evm\/rpc\) or --bundle FILE/,
    ],
    [
      ['--chain', '1', '--from', '1', '--to', '2', '--bundle', 'b.json', '--rpc', 'http://127.0.0.1:1'],
      /--bundle FILE replays a recorded audit: give it without --rpc and --service/,
    ],
    [
      ['--chain', '1', '--from', '1', '--to', '2', '--bundle', 'b.json', '--record', 'c.json'],
      /--record needs a live source, --rpc or --service/,
    ],
    [
      ['--chain', '1', '--from', '1', '--to', '2', '--rpc', 'http://127.0.0.1:1', '--resume'],
      /--resume needs --out FILE/,
    ],
    [
      ['--chain', '1', '--from', '1', '--to', '2', '--rpc', 'http://127.0.0.1:1', '--head-hash', '0x12'],
      /--head-hash: "0x12" is not a block hash \(2 hex digits\); use 64 hex digits, with or without 0x/,
    ],
    [
      ['--chain', '1', '--from', '1', '--to', '2', '--rpc', 'http://127.0.0.1:1', '--concurrency', '0'],
      /--concurrency: "0" is not a positive whole number; use 1 to 64/,
    ],
    [
      ['--chain', 'mainet', '--from', '1', '--to', '2', '--rpc', 'http://127.0.0.1:1'],
      /^evm-integrity: --chain: "mainet" is not a chain id or a chain's name; evm-integrity chains lists the names\n/,
    ],
    [
      ['--chain', '1', '--from', 'yesterday', '--to', '2', '--rpc', 'http://127.0.0.1:1'],
      /--from: "yesterday" is not a block; use a block number \(decimal or 0x hex\) or latest, finalized, safe/,
    ],
    [
      ['--chain', '1', '--from', '-1', '--to', '2', '--rpc', 'http://127.0.0.1:1'],
      /^evm-integrity: --from needs a value, and "-1" reads as a flag \(to give it as the value: --from=-1\)\n/,
    ],
    [
      ['--chain', '1', '--from=-1', '--to', '2', '--rpc', 'http://127.0.0.1:1'],
      /^evm-integrity: --from: "-1" is not a block;/,
    ],
    [
      ['--chain', '1', '--from', '1', '--rpc', 'http://127.0.0.1:1'],
      /--to is required: use a block number \(decimal or 0x hex\) or latest, finalized, safe/,
    ],
    [
      ['--chain', '1', '--from', '1', '--to', 'latest', '--bundle', 'b.json'],
      /--to: "latest" needs a node to resolve it, and --bundle has none; give the block number/,
    ],
    [
      ['--chain', '1', '--from', '1', '--to', '2', '--bundle', 'b.json', '--anchor', `finalized:${'ab'.repeat(32)}`],
      /--anchor: "finalized" needs a node/,
    ],
    [
      ['--chain', '1', '--from', '1', '--to', '2', '--rpc', 'http://127.0.0.1:1', '--anchor', '2'],
      /--anchor: "2" is not N:HASH; use a block and its hash/,
    ],
    [
      ['--chain', '1', '--from', '1', '--to', '2', '--rpc', 'http://127.0.0.1:1', '--anchor', `x:${'ab'.repeat(32)}`],
      /--anchor: "x" is not a block/,
    ],
    [
      ['--chain', '1', '--from', '1', '--to', '2', '--rpc', 'http://127.0.0.1:1', '--tail-hash', 'zz'],
      /--tail-hash: "zz" is not a block hash \(not hex\)/,
    ],
    [
      ['--chain', '1', '--from', '1', '--to', '2', '--rpc', 'ftp://x'],
      /--rpc: "ftp:\/\/x" is not a node's URL; use http:\/\/… or https:\/\/…/,
    ],
    [
      ['--chain', '1', '--from', '1', '--to', '2', '--rpc', 'http://a', '--rpc-url', 'http://b'],
      /--rpc and --rpc-url name different nodes/,
    ],
    [
      ['--chain', '1', '--from', '1', '--to', '2', '--rpc', 'http://127.0.0.1:1', '--chunk-size', 'many'],
      /--chunk-size: "many" is not a positive whole number/,
    ],
    [
      ['--chain', '1', '--from', '1', '--to', '2', '--rpc', 'http://127.0.0.1:1', '--batch', '0'],
      /--batch: "0" is not a positive whole number/,
    ],
    [
      ['--chain', '1', '--from', '1', '--to', '2', '--rpc', 'http://127.0.0.1:1', '--max-answer-mb', '1.5'],
      /--max-answer-mb: "1.5" is not a positive whole number/,
    ],
    [
      ['--chain', '1', '--from', '1', '--to', '2', '--rpc', 'http://127.0.0.1:1', '--concurrency', '65'],
      /^evm-integrity: --concurrency: "65" is more than 64; use 1 to 64\n/,
    ],
    [
      ['--chain', '1', '--from', '1', '--to', '2', '--rpc', 'http://127.0.0.1:1', '--concurrency', '9007199254740991'],
      /^evm-integrity: --concurrency: "9007199254740991" is more than 64; use 1 to 64\n/,
    ],
    [
      ['--chain', '1', '--from', '1', '--to', '2', '--rpc', 'http://127.0.0.1:1', '--batch', '1001'],
      /^evm-integrity: --batch: "1001" is more than 1000; use 1 to 1000\n/,
    ],
    [
      ['--chain', '1', '--from', '1', '--to', '2', '--rpc', 'http://127.0.0.1:1', '--max-answer-mb', '512'],
      /^evm-integrity: --max-answer-mb: "512" is more than 511; use 1 to 511\n/,
    ],
    [
      [
        '--chain',
        '1',
        '--from',
        '1',
        '--to',
        '2',
        '--rpc',
        'http://127.0.0.1:1',
        '--max-answer-mb',
        '99999999999999999999',
      ],
      /^evm-integrity: --max-answer-mb: "99999999999999999999" is more than 511; use 1 to 511\n/,
    ],
    [
      ['--chain', '1', '--from', '99999999999999999999', '--to', '2', '--rpc', 'http://127.0.0.1:1'],
      /^evm-integrity: --from: "99999999999999999999" is more than 2\^53-1, the largest it can be\n/,
    ],
    [
      ['--chain', '1', '--from', '1', '--to', '2', '--rpc', 'http://127.0.0.1:1', '--batch', 'x'],
      /^evm-integrity: --batch: "x" is not a positive whole number; use 1 to 1000\n/,
    ],
    [
      ['--chain', '1', '--from', '1', '--to', '2', '--rpc', 'http://127.0.0.1:1', '--workers', '257'],
      /^evm-integrity: unknown option '--workers'\n/,
    ],
    [
      ['--chain', '1', '--from', '1', '--to', '2', '--bundle', 'x.json', '--batch', '4'],
      /--batch is an option of a node \(--rpc, --service\): a bundle is read from a file/,
    ],
    [
      ['--chain', '1', '--from', '1', '--to', '2', '--rpc', 'http://127.0.0.1:1', '--bogus'],
      /^evm-integrity: unknown option '--bogus'\n/,
    ],
  ])('bad input %j: exit 2 with one line and where the help is', async (args, message) => {
    const { out, io: cli } = io();
    expect(await main(['audit', ...args], cli)).toBe(2);
    expect(out.stderr).toMatch(message);
    expect(out.stderr.split('\n')).toEqual([expect.any(String), "try 'evm-integrity audit --help'", '']);
  });

  it('refuses to write over an existing --out without --resume', async () => {
    const file = tempFile('exists.ndjson');
    writeFileSync(file, '{"audit":{}}\n');
    const { out, io: cli } = io();
    expect(await main(['audit', ...RANGE, '--rpc', 'http://127.0.0.1:1', '--out', file], cli)).toBe(2);
    expect(out.stderr).toMatch(/exists: add --resume to continue that audit, or remove it/);
  });

  it('--resume drops a torn last line and goes on from the last complete block, linked to its hash', async () => {
    const n = await start();
    const whole = tempFile('whole.ndjson');
    expect(await main(['audit', ...RANGE, '--rpc', n.url, '--out', whole], io().io)).toBe(0);
    const lines = readFileSync(whole, 'utf8').split('\n');
    const file = tempFile('torn.ndjson');
    writeFileSync(file, `${lines.slice(0, 13).join('\n')}\n${lines[13]!.slice(0, 20)}`); // header, 12 blocks, a torn 13th
    n.calls.length = 0;
    expect(await main(['audit', ...RANGE, '--rpc', n.url, '--out', file, '--resume'], io().io)).toBe(0);
    expect(comparable(readFileSync(file, 'utf8'))).toEqual(comparable(readFileSync(whole, 'utf8')));
    const fetched = n.calls.filter((c) => c.method === 'eth_getBlockByNumber').map((c) => Number(c.params[0]));
    expect(Math.min(...fetched)).toBe(FROM + 12);
  });

  it("--resume takes no hash of the file on trust: a last hash edited (the digests computed again) is told at the first block resumed, which does not link to it, and the node's block is audited again", async () => {
    const n = await start();
    const whole = tempFile('whole.ndjson');
    expect(await main(['audit', ...RANGE, '--rpc', n.url, '--out', whole], io().io)).toBe(0);
    const lines = readFileSync(whole, 'utf8').split('\n').slice(0, 6); // header, 5 blocks
    const last = JSON.parse(lines[5]!) as Record<string, unknown>;
    const forged = `0x${'55'.repeat(32)}`;
    lines[5] = JSON.stringify({ ...last, block_hash: forged });
    const file = tempFile('relinked.ndjson');
    writeFileSync(file, rechain(lines)); // the digests computed again: the link is what gives the edit away
    // As for a reorg across the restart (the node cannot tell the two apart): the block the node gives for FROM+4
    // replaces the line, and is audited again; the summary counts the block by its new line.
    expect(await main(['audit', ...RANGE, '--rpc', n.url, '--out', file, '--resume'], io().io)).toBe(0);
    const written = parseLines(readFileSync(file, 'utf8'));
    expect(written.filter((l) => l.reorg !== undefined).map((l) => l.reorg)).toEqual([
      {
        detected_at: FROM + 5,
        depth: 1,
        replaced: [{ block_number: FROM + 4, old_hash: forged, new_hash: last.block_hash }],
      },
    ]);
    expect(written.at(-1)!.summary).toMatchObject({ blocks: 30, verdicts: { pass: 30 }, reorgs: 1, complete: true });
  });

  it('--resume refuses the output of another audit', async () => {
    const file = tempFile('other.ndjson');
    writeFileSync(file, '{"audit":{"chain_id":10,"from":1,"to":2}}\n');
    const { out, io: cli } = io();
    expect(await main(['audit', ...RANGE, '--rpc', 'http://127.0.0.1:1', '--out', file, '--resume'], cli)).toBe(2);
    expect(out.stderr).toMatch(/is the output of another audit/);
  });
});

describe("evm-integrity audit --service (the hosted service's raw datasets, against a loopback service)", () => {
  const KEY = 'svc-test-key';
  const withKey = { ...process.env, EVM_DATA_SERVICE_API_KEY: KEY };
  let service: LoopbackService | undefined;
  afterEach(async () => {
    await service?.close();
    service = undefined;
  });
  /** A node and a service over the same blocks; the service proxies /evm/rpc to the node. */
  async function both(): Promise<{ node: LoopbackNode; service: LoopbackService }> {
    const blocks = fixtureChain(FROM, TO);
    const n = await start(blocks);
    const served = [...blocks.values()].map((b) =>
      withTxHashes({ chain_id: 1, header: b.header, receipts: b.receipts }),
    );
    service = await startLoopbackService({ blocks: served, apiKey: KEY, rpcUrl: n.url });
    return { node: n, service };
  }
  const failedLines = (text: string) =>
    parseLines(text)
      .filter((l) => l.verdict === 'fail')
      .map((l) => ({ block: l.block_number, checks: (l.failures as Array<{ check: string }>).map((f) => f.check) }));

  it('a block that failed, then replaced by a reorg onto a chain the node and the service agree on: exit 1, the summary and stderr name it (was: exit 0, a user check)', async () => {
    const { fork, n, failed } = await failThenReorg();
    // The service holds the chain the audit goes on with: its datasets are no finding here.
    const served = [...new Map([...fixtureChain(FROM, TO), ...fork]).values()].map((b) =>
      withTxHashes({ chain_id: 1, header: b.header, receipts: b.receipts }),
    );
    service = await startLoopbackService({ blocks: served, apiKey: KEY, rpcUrl: n.url });
    const args = [...RANGE, '--rpc', n.url, '--service', service.url, '--concurrency', '1', '--batch', '1'];
    const result = await run(args, undefined, withKey);
    expect(result.stderr).toBe(
      `evm-integrity: 1 block failed a check on a chain that a reorg then replaced (the failing lines are in the output, before their reorg line; the summary's verdicts count each block by its last line): block ${FROM + 24} ${failed} (receipts_root)\n`,
    );
    expect(result.status).toBe(1);
    expect(parseLines(result.stdout).at(-1)!.summary).toMatchObject({
      verdicts: { pass: 30, fail: 0 },
      reorgs: 1,
      replaced_failures: { blocks: 1 },
    });
  });

  it('passes a faithful service; a dropped log record fails that block with service_logs.missing and nothing else (exit 1)', async () => {
    const { node: n, service: s } = await both();
    const clean = await run([...RANGE, '--rpc', n.url, '--service', s.url], undefined, withKey);
    expect(clean.stderr).toBe('');
    expect(clean.status).toBe(0);
    s.faults.push({ kind: 'drop_log', block: 1000023, txIndex: 2, logIndex: 1 });
    const faulty = await run([...RANGE, '--rpc', n.url, '--service', s.url], undefined, withKey);
    expect(faulty.status).toBe(1);
    expect(failedLines(faulty.stdout)).toEqual([{ block: 1000023, checks: ['service_logs.missing'] }]);
    expect(parseLines(faulty.stdout).at(-1)!.summary).toMatchObject({
      failed_checks: { 'service_logs.missing': 1 },
      verdicts: { fail: 1, pass: 29 },
    });
  });

  it("Polygon PoS (polygon-pos-10000000): a service without the records of Bor's state-sync receipt's logs fails no service_logs check (was: service_logs.missing, exit 1); the block is not_verifiable, naming the receipt (exit 2); another log dropped still fails", async () => {
    const polygon = loadFixture('polygon-pos-10000000');
    const number = Number(polygon.header.number);
    node = await startLoopbackNode(137, new Map([[number, { header: polygon.header, receipts: polygon.receipts }]]));
    service = await startLoopbackService({
      blocks: [{ chain_id: 137, header: polygon.header, receipts: polygon.receipts }],
      apiKey: KEY,
      rpcUrl: node.url,
    });
    const args = ['--chain', '137', '--from', String(number), '--to', String(number), '--rpc', node.url];
    const stateSyncLogs = (polygon.receipts[5]!.logs as unknown[]).length;
    for (let logIndex = 0; logIndex < stateSyncLogs; logIndex++)
      service.faults.push({ kind: 'drop_log', block: number, txIndex: 5, logIndex });
    const result = await run([...args, '--service', service.url], undefined, withKey);
    expect(result.status).toBe(2);
    expect(parseLines(result.stdout)[1]).toMatchObject({
      verdict: 'not_verifiable',
      failures: [],
      reason: expect.stringContaining('excluded_receipts: the receipt at index 5'),
    });
    service.faults.push({ kind: 'drop_log', block: number, txIndex: 0, logIndex: 0 });
    const dropped = await run([...args, '--service', service.url], undefined, withKey);
    expect(dropped.status).toBe(1);
    expect(failedLines(dropped.stdout)).toEqual([{ block: number, checks: ['service_logs.missing'] }]);
  });

  it("--resume refuses to mix an audit without the service's datasets and one with them: the header line says which it is (a resumed run passed where an uninterrupted one failed: a user check)", async () => {
    const { node: n, service: s } = await both();
    s.faults.push({ kind: 'alter_log', block: 1000023, txIndex: 2, logIndex: 1, field: 'data', value: 'ff' });
    const out = tempFile('mixed.ndjson');
    expect((await run([...RANGE, '--rpc', n.url, '--out', out])).status).toBe(0);
    const withoutService = readFileSync(out, 'utf8').split('\n');
    expect(JSON.parse(withoutService[0]!)).toEqual({ audit: { chain_id: 1, from: FROM, to: TO } });
    writeFileSync(out, `${withoutService.slice(0, 21).join('\n')}\n`); // the header and blocks 1000001-1000020
    const resumed = await run(
      [...RANGE, '--rpc', n.url, '--service', s.url, '--out', out, '--resume'],
      undefined,
      withKey,
    );
    expect(resumed.status).toBe(2);
    expect(resumed.stderr).toContain(
      `--resume: ${out} is the output of an audit without the service's datasets, or of one written before the header line said so (an earlier version); resume it as it was run, or audit to another file`,
    );
    const full = tempFile('full.ndjson');
    expect((await run([...RANGE, '--rpc', n.url, '--service', s.url, '--out', full], undefined, withKey)).status).toBe(
      1,
    );
    const withService = readFileSync(full, 'utf8').split('\n');
    expect(JSON.parse(withService[0]!)).toEqual({ audit: { chain_id: 1, from: FROM, to: TO, service_datasets: true } });
    writeFileSync(full, `${withService.slice(0, 11).join('\n')}\n`);
    const back = await run([...RANGE, '--rpc', n.url, '--out', full, '--resume']);
    expect(back.status).toBe(2);
    expect(back.stderr).toContain("is the output of an audit that cross-checked the service's datasets");
    // Resumed as it was run, it ends as the uninterrupted run did.
    expect(
      (await run([...RANGE, '--rpc', n.url, '--service', s.url, '--out', full, '--resume'], undefined, withKey)).status,
    ).toBe(1);
  });

  it("without --rpc, the chain comes from the service's /evm/rpc proxy, with the key: the same lines", async () => {
    const { node: n, service: s } = await both();
    s.faults.push({ kind: 'alter_block', block: 1000005, field: 'receipt_root', value: '00'.repeat(32) });
    const direct = await run([...RANGE, '--rpc', n.url, '--service', s.url], undefined, withKey);
    const proxied = await run([...RANGE, '--service', s.url], undefined, withKey);
    expect(proxied.status).toBe(1);
    expect(comparable(proxied.stdout)).toEqual(comparable(direct.stdout));
    expect(failedLines(proxied.stdout)).toEqual([{ block: 1000005, checks: ['service_block.receipt_root'] }]);
    const rpcCalls = s.requests.filter((r) => r.path === '/v1/evm/rpc');
    expect(rpcCalls.length).toBeGreaterThan(0);
    expect(rpcCalls.every((r) => r.authorization === `Bearer ${KEY}`)).toBe(true);
  });

  it('--record with --service keeps the dataset pages: --bundle replays the same lines offline', async () => {
    const { node: n, service: s } = await both();
    s.faults.push({ kind: 'alter_log', block: 1000023, txIndex: 2, logIndex: 1, field: 'data', value: 'ff' });
    const bundle = tempFile('service-audit.json.gz');
    const live = await run([...RANGE, '--rpc', n.url, '--service', s.url, '--record', bundle], undefined, withKey);
    expect(live.status).toBe(1);
    await s.close();
    service = undefined;
    await node!.close();
    node = undefined;
    const replay = await run([...RANGE, '--bundle', bundle]);
    expect(replay.status).toBe(1);
    expect(comparable(replay.stdout)).toEqual(comparable(live.stdout));
    expect(failedLines(replay.stdout)).toEqual([{ block: 1000023, checks: ['service_logs.altered'] }]);
  });

  it("--chunk-size N: the datasets are asked for N blocks at a time; a replay needs the recording's chunk size", async () => {
    const { node: n, service: s } = await both();
    const bundle = tempFile('chunked.json');
    const live = await run(
      [...RANGE, '--rpc', n.url, '--service', s.url, '--chunk-size', '7', '--record', bundle],
      undefined,
      withKey,
    );
    expect(live.status).toBe(0);
    const ranges = s.requests
      .filter((r) => r.path === '/v1/evm/raw/blocks' && r.body.cursor === undefined)
      .map((r) => [r.body.from_block, r.body.to_block]);
    expect(ranges[0]).toEqual([FROM, 1_000_005]); // chunks are aligned to multiples of 7
    expect(ranges.every(([from, to]) => (to as number) - (from as number) < 7)).toBe(true);
    expect(comparable((await run([...RANGE, '--bundle', bundle, '--chunk-size', '7'])).stdout)).toEqual(
      comparable(live.stdout),
    );
    const mismatched = await run([...RANGE, '--bundle', bundle]);
    expect(mismatched.status).toBe(2);
    expect(mismatched.stderr).toMatch(/a replay needs the recording's chunkSize, --chunk-size on the command line/);
  });

  it('a replay of a recording that lacks a block: the chunk before it says the recording holds the whole chunk, not that the chunk size may differ (a user check)', async () => {
    const { node: n, service: s } = await both();
    const bundle = tempFile('cut.json');
    expect(
      (await run([...RANGE, '--rpc', n.url, '--service', s.url, '--record', bundle], undefined, withKey)).status,
    ).toBe(0);
    const recorded = JSON.parse(readFileSync(bundle, 'utf8')) as { blocks: Array<{ header: { number: string } }> };
    recorded.blocks = recorded.blocks.filter((b) => Number(b.header.number) !== TO);
    writeFileSync(bundle, JSON.stringify(recorded));
    const replay = await run([...RANGE, '--bundle', bundle]);
    expect(replay.status).toBe(2);
    const lines = parseLines(replay.stdout);
    expect(lines.find((l) => l.block_number === FROM)!.reason).toBe(
      `the bundle has no answer to evm/raw/blocks for blocks ${FROM}-${TO - 1} on chain 1 (the recording has it for blocks ${FROM}-${TO}: the replay asked for that chunk only up to block ${TO - 1}, as it does where it could not get block ${TO}, or where its --to or --chunk-size are not the recording's)`,
    );
    expect(lines.find((l) => l.block_number === TO)).toMatchObject({ verdict: 'unreachable' });
  });

  it('--service without EVM_DATA_SERVICE_API_KEY: exit 2 naming the variable, and no --out file', async () => {
    const { service: s } = await both();
    const out = tempFile('never.ndjson');
    const env = { ...process.env };
    delete env.EVM_DATA_SERVICE_API_KEY;
    const result = await run([...RANGE, '--service', s.url, '--out', out], undefined, env);
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/^evm-integrity: --service needs the API key in EVM_DATA_SERVICE_API_KEY\n/);
    expect(existsSync(out)).toBe(false);
  });
});

describe('the --resume checkpoint read in chunks', () => {
  it('a file of 20,000 lines (several read chunks, multi-byte text across their edges): every line handed on once, the torn line and the trailing reorg cut off', () => {
    const file = tempFile('long.ndjson');
    const header = { audit: { chain_id: 1, from: 100, to: 50_000 } };
    const hash = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;
    const lines = [JSON.stringify(header)];
    const chain = new ChainedLines(headerDigest(header));
    for (let n = 100; n < 20_100; n++)
      lines.push(
        chain.line({
          block_number: n,
          block_hash: hash(n),
          verdict: n % 7 === 0 ? 'not_verifiable' : 'pass',
          failures: [],
          ...(n % 7 === 0 && { reason: 'era … not verifiable ✓' }),
        }),
      );
    const kept = `${lines.join('\n')}\n`;
    const reorg = {
      detected_at: 20_100,
      depth: 1,
      replaced: [{ block_number: 20_099, old_hash: hash(20_099), new_hash: hash(1) }],
    };
    const trailing = `${chain.line({ reorg })}\n{"block_number":20099,"block_ha`;
    writeFileSync(file, kept + trailing);
    const events: unknown[] = [];
    const checkpoint = resumeFrom(file, header, (event) => events.push(event));
    expect(checkpoint).toEqual({
      next: 20_100,
      lastHash: hash(20_099),
      headerKept: true,
      digest: parseLines(kept).at(-1)!.digest,
      // The last blocks' hashes, as many as a reorg met at the first block resumed is followed back into, and one.
      hashes: new Map(Array.from({ length: 65 }, (_, i) => [20_035 + i, hash(20_035 + i)])),
    });
    expect(events).toHaveLength(20_000);
    expect(events.map((e) => (e as { block_number: number }).block_number)).toEqual(
      Array.from({ length: 20_000 }, (_, i) => 100 + i),
    );
    expect(readFileSync(file, 'utf8')).toBe(kept);
  });

  it.each([
    ['a block repeated', [100, 101, 102, 101, 103], 5, 'is not the line of block 103'],
    ['a block left out', [100, 101, 103, 104], 4, 'is not the line of block 102'],
    ['a block past the range', [100, 101, 102, 103, 104, 105], 7, 'is not the line of block 105'],
  ])(
    'digests computed again (a forger) still must follow in block order: %s is cut off with the lines after it',
    (_what, numbers, line, why) => {
      const header = { audit: { chain_id: 1, from: 100, to: 104 } };
      const block = (n: number) => JSON.stringify({ block_number: n, block_hash: null, verdict: 'pass', failures: [] });
      const file = tempFile('forged.ndjson');
      writeFileSync(file, rechain([JSON.stringify(header), ...numbers.map(block)]));
      const events: Array<{ block_number: number }> = [];
      const checkpoint = resumeFrom(file, header, (event) => events.push(event as { block_number: number }));
      const next = 100 + line - 2;
      expect(checkpoint).toMatchObject({ next, dropped: { line, why } });
      expect(events.map((e) => e.block_number)).toEqual(Array.from({ length: next - 100 }, (_, i) => 100 + i));
      expect(readFileSync(file, 'utf8').trim().split('\n')).toHaveLength(line - 1);
    },
  );

  it('an unreachable block (a chunk whose cross-check was unreachable has several): the resume starts at the first', () => {
    const header = { audit: { chain_id: 1, from: 100, to: 104 } };
    const block = (n: number, verdict: string) =>
      JSON.stringify({ block_number: n, block_hash: null, verdict, failures: [] });
    const file = tempFile('unreachable.ndjson');
    const lines = [block(100, 'pass'), block(101, 'unreachable'), block(102, 'pass'), block(103, 'unreachable')];
    writeFileSync(file, rechain([JSON.stringify(header), ...lines]));
    const events: Array<{ block_number: number }> = [];
    const checkpoint = resumeFrom(file, header, (event) => events.push(event as { block_number: number }));
    expect(checkpoint).toMatchObject({ next: 101, headerKept: true });
    expect(checkpoint.dropped).toBeUndefined();
    expect(events.map((e) => e.block_number)).toEqual([100]);
    expect(readFileSync(file, 'utf8').trim().split('\n')).toHaveLength(2);
  });

  it('exit 0 needs every block of the range: a summary without a verdict for each block is no pass', () => {
    const tally = new AuditTally(1, 100, 102);
    for (const n of [100, 101]) tally.add({ block_number: n, block_hash: null, verdict: 'pass', failures: [] });
    let stderr = '';
    const timings = { elapsed_ms: 0, fetching_ms: 0, verifying_ms: 0, cross_checking_ms: 0 };
    expect(statusOfVerdicts(tally.summary(timings, 2), (text) => void (stderr += text))).toBe(2);
    expect(stderr).toBe("evm-integrity: 1 of the range's 3 blocks have no verdict: not a pass\n");
  });

  it('an audit stopped short (a later block unreachable or refused): 1 when a block before failed, else 2; where it stopped is said either way', () => {
    const timings = { elapsed_ms: 0, fetching_ms: 0, verifying_ms: 0, cross_checking_ms: 0 };
    const stopped = 'stopped at block 102: the node is down; continue later with --from 102';
    for (const [verdict, status] of [
      ['fail', 1],
      ['pass', 2],
    ] as const) {
      const tally = new AuditTally(1, 100, 104);
      tally.add({ block_number: 100, block_hash: null, verdict: 'pass', failures: [] });
      tally.add({ block_number: 101, block_hash: null, verdict, failures: [] });
      let stderr = '';
      expect(statusOfVerdicts(tally.summary(timings, 2), (text) => void (stderr += text), stopped)).toBe(status);
      expect(stderr).toBe(`evm-integrity: ${stopped}\n`);
    }
  });

  it('the next block is the first without a verdict, past which the blocks after a gap do not move it (was: from + the blocks audited)', () => {
    const timings = { elapsed_ms: 0, fetching_ms: 0, verifying_ms: 0, cross_checking_ms: 0 };
    const line = (n: number, verdict: 'pass' | 'unreachable' = 'pass') => ({
      block_number: n,
      block_hash: null,
      verdict,
      failures: [],
    });
    // A distributed audit's export: no line for a parked chunk's blocks 103-104.
    const gap = new AuditTally(1, 100, 109);
    for (const n of [100, 101, 102, 105, 106, 107, 108, 109]) gap.add(line(n));
    expect(gap.summary(timings, 8)).toMatchObject({ blocks: 8, complete: false, next_block: 103 });
    // An unreachable block, audited again later: the run joins up once it has its verdict.
    const again = new AuditTally(1, 100, 103);
    for (const event of [line(100), line(101, 'unreachable'), line(102), line(103)]) again.add(event);
    expect(again.summary(timings, 4)).toMatchObject({ complete: false, next_block: 101 });
    again.add(line(101));
    expect(again.summary(timings, 5)).toMatchObject({ complete: true, next_block: null });
    // A block audited again as unreachable after its run went on (a reorg): the next block moves back to it.
    again.add(line(102, 'unreachable'));
    expect(again.summary(timings, 6)).toMatchObject({ complete: false, next_block: 102 });
  });

  it('a file of another audit is refused, and left as it was', () => {
    const file = tempFile('other.ndjson');
    const text = `${JSON.stringify({ audit: { chain_id: 1, from: 1, to: 2 } })}\n`;
    writeFileSync(file, text);
    expect(() => resumeFrom(file, { audit: { chain_id: 1, from: 1, to: 3 } }, () => undefined)).toThrow(
      /is the output of another audit/,
    );
    expect(readFileSync(file, 'utf8')).toBe(text);
  });
});

describe('progress on a terminal', () => {
  it('redraws one line on stderr (blocks done, blocks/s, ETA, failures) when stderr is a terminal; nothing with --quiet', async () => {
    const n = await start();
    n.delayMs = 50; // 30 round trips (no batching, a block at a time): past the first redraw at 1 s
    const drawn = async (extra: string[]) => {
      let stderr = '';
      const status = await runAudit([...RANGE, '--rpc', n.url, '--concurrency', '1', '--batch', '1', ...extra], {
        stdout: () => undefined,
        stderr: (text) => void (stderr += text),
        stderrIsTty: true,
      });
      return { status, stderr };
    };
    const shown = await drawn([]);
    expect(shown.status).toBe(0);
    expect(shown.stderr).toMatch(/^(\r\d+\/30 blocks, \d+\.\d blocks\/s, ETA (\d+ s|\?), 0 failed )+\n$/);
    expect(await drawn(['--quiet'])).toEqual({ status: 0, stderr: '' });
  }, 20_000);
});
