/**
 * How long Ethereum's whole chain takes to audit, projected from measurements: the real CLI process (`evm-integrity
 * audit --chain 1 --rpc URL --from A --to B`, every other flag at its default: one worker) audits a range of each
 * era's fixture blocks, looped (era-node.ts), from a loopback JSON-RPC node that adds 0 ms, then 50 ms, to every HTTP
 * request. Each era's blocks per second (the audit's own, from its first line on: without the process's start, its
 * first round trip and the filling of its window, paid once for millions of blocks) weighted by the era's share of the
 * first 23,000,000 blocks gives the hours on 32 workers, each as fast as the one measured, with the node not the
 * bottleneck (it answers every worker's requests without a rate limit; the requests per second it must then serve are
 * printed). The CPU each process kept busy, read
 * from /proc, is printed beside its rate: CPU milliseconds a block hold steadier than rates on a loaded machine.
 * An era's fixture blocks are every fixtures/blocks/mainnet-N.json whose N is in the era (but LEFT_OUT's).
 *
 * The eras' first blocks are the forks of mainnet in the repository's own chain table (core/chains/builtin.ts, from
 * go-ethereum's params/config.go): Homestead 1,150,000, Byzantium 4,370,000, Petersburg (Constantinople) 7,280,000,
 * Istanbul 9,069,000, Berlin 12,244,000, London 12,965,000, Paris 15,537,394; Shanghai, Cancun and Prague activate by
 * timestamp, and their first blocks, 17,034,870, 19,426,587 and 22,431,084, are the fixture blocks straddling those
 * timestamps. The bench checks both before it measures.
 */
import { execFileSync, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { defaultRegistry } from '../packages/core/src/index.js';
import { eraRange, startEraNode, type EraNode, type EraRange } from './era-node.js';
import { median } from './timing.js';

const BIN = 'packages/service/bin/evm-integrity.js';
/** The chain projected: Ethereum's first 23 million blocks, on 32 workers, at most 1 hour. */
const CHAIN_BLOCKS = 23_000_000;
const WORKERS = 32;
const GOAL_HOURS = 1;
const LATENCIES_MS = [0, 50];
/** Rounds of each measurement, interleaved across the eras; the median is kept. */
const ROUNDS = Number(process.env.PROJECTION_ROUNDS ?? 3);

/** An era of mainnet: its first block and the fork that starts it in the chain table. */
interface Era {
  name: string;
  first: number;
  fork: string;
}

const ERAS: readonly Era[] = [
  { name: 'Frontier', first: 0, fork: 'Frontier' },
  { name: 'Homestead to Spurious Dragon', first: 1_150_000, fork: 'Homestead' },
  { name: 'Byzantium', first: 4_370_000, fork: 'Byzantium' },
  { name: 'Petersburg to Berlin', first: 7_280_000, fork: 'Petersburg' },
  { name: 'London', first: 12_965_000, fork: 'London' },
  { name: 'Paris', first: 15_537_394, fork: 'Paris' },
  { name: 'Shanghai', first: 17_034_870, fork: 'Shanghai' },
  { name: 'Cancun', first: 19_426_587, fork: 'Cancun' },
  { name: 'Prague', first: 22_431_084, fork: 'Prague' },
];

/**
 * Mainnet fixture blocks left out of the samples: the genesis, which has no parent to link to; 15537394 (10,041 logs,
 * 4.2 MB of receipts), which looped would make a quarter of Paris's blocks.
 */
const LEFT_OUT = new Set([0, 15_537_394]);

/** The mainnet fixture blocks (fixtures/blocks/mainnet-N.json) of era `i`, by number. */
function sampleOf(i: number): number[] {
  const numbers = readdirSync('fixtures/blocks').flatMap((file) => {
    const n = /^mainnet-(\d+)\.json$/.exec(file)?.[1];
    return n === undefined ? [] : [Number(n)];
  });
  const end = ERAS[i + 1]?.first ?? CHAIN_BLOCKS;
  return numbers.filter((n) => n >= ERAS[i]!.first && n < end && !LEFT_OUT.has(n)).sort((a, b) => a - b);
}

/** The blocks of era `i` among the first CHAIN_BLOCKS. */
const eraBlocks = (i: number) => (ERAS[i + 1]?.first ?? CHAIN_BLOCKS) - ERAS[i]!.first;

/** Each era's first block against mainnet's fork schedule: a fork by block at that block, by timestamp straddled. */
function checkEras(): void {
  const timestamp = (n: number) =>
    BigInt(JSON.parse(readFileSync(`fixtures/blocks/mainnet-${n}.json`, 'utf8')).header.timestamp);
  const forks = defaultRegistry.get(1)?.forks ?? [];
  for (const era of ERAS) {
    const fork = forks.find((f) => f.fork === era.fork);
    if (fork === undefined) throw new Error(`${era.name}: mainnet's schedule has no fork ${era.fork}`);
    const ok =
      fork.block !== undefined
        ? fork.block === era.first
        : timestamp(era.first - 1) < BigInt(fork.timestamp) && timestamp(era.first) >= BigInt(fork.timestamp);
    if (!ok) throw new Error(`${era.name}: block ${era.first} is not the first of ${era.fork} in the chain table`);
  }
}

/**
 * Blocks to audit in an era's range: several rounds of the default window (32 blocks ahead), and about the same work
 * in each era (fewer blocks where blocks hold more receipts), so that the bench takes a minute or two.
 */
const blocksFor = (receiptsPerBlock: number) =>
  Math.max(128, Math.min(1_024, Math.round(24_000 / Math.max(1, receiptsPerBlock) / 32) * 32));

/** What one audit process showed: its blocks per second, the cores it kept busy, the node's HTTP requests a block. */
interface Measured {
  /** From the first line on (steadyRate). */
  rate: number;
  /** By the summary: from the audit's start, its first round trip included. */
  fromStart: number;
  cores: number;
  /** CPU milliseconds a block (cores over blocks/s): what a worker whose bound is its CPU needs of a whole core. */
  cpuMs: number;
  requestsPerBlock: number;
}

/** Clock ticks a second, the unit of a process's CPU time in /proc/PID/stat. */
const CLOCK_TICKS = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());

/** CPU seconds `pid` has used (user and system), from /proc; undefined once it is gone. */
function cpuSeconds(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The fields after the command name (in parentheses, which may hold spaces): utime and stime are the 12th and 13th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}

/**
 * Blocks a second from the times the lines of the blocks arrived: `arrivals` holds each piece of standard output's time
 * and the lines ended so far, `blocks` the blocks' lines (all but the summary). Timed from the first piece, as the cores
 * are: what comes before it (the first round trip, the window filling) a worker pays once for millions of blocks, since
 * its chunks fetch back to back, and a range of a hundred-odd modern blocks paid it in about a tenth of its time.
 * Undefined where the blocks came in one piece.
 */
function steadyRate(arrivals: ReadonlyArray<{ at: number; lines: number }>, blocks: number): number | undefined {
  const first = arrivals[0];
  const last = arrivals.find((arrival) => arrival.lines >= blocks);
  if (first === undefined || last === undefined || last.at <= first.at) return undefined;
  return (blocks - Math.min(first.lines, blocks)) / ((last.at - first.at) / 1000);
}

/**
 * One `audit` process over `era`'s range from `node` (every block must pass): its blocks per second from its first
 * line on (steadyRate), and by its summary (from its start: the first round trip included), and the cores it kept busy
 * from its first line on, sampled from /proc.
 */
function auditOnce(node: EraNode, era: EraRange): Promise<Measured> {
  const args = ['audit', '--chain', '1', '--rpc', node.url, '--from', String(era.from), '--to', String(era.to)];
  const requests = node.requests;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let first: { at: number; cpu: number } | undefined;
    let last: { at: number; cpu: number } | undefined;
    const arrivals: Array<{ at: number; lines: number }> = [];
    let lines = 0;
    const sample = () => {
      const cpu = cpuSeconds(child.pid!);
      if (cpu !== undefined) last = { at: performance.now(), cpu };
      return last;
    };
    const sampling = setInterval(sample, 20);
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      first ??= sample();
      for (let at = d.indexOf('\n'); at !== -1; at = d.indexOf('\n', at + 1)) lines++;
      arrivals.push({ at: performance.now(), lines });
      // Only the last line matters (the summary): keep the tail, not every block's line.
      stdout = (stdout + d).slice(-100_000);
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('close', (status) => {
      clearInterval(sampling);
      const summary = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}').summary;
      const count = era.to - era.from + 1;
      if (status !== 0 || summary?.verdicts?.pass !== count)
        return reject(
          new Error(`audit of ${era.from}..${era.to}: exit ${status}, ${stderr.trim()}, ${stdout.slice(-400)}`),
        );
      const cores = first && last && last.at > first.at ? (last.cpu - first.cpu) / ((last.at - first.at) / 1000) : NaN;
      const fromStart: number = summary.blocks_per_second;
      const rate = steadyRate(arrivals, count) ?? fromStart;
      resolve({
        rate,
        fromStart,
        cores,
        cpuMs: (1000 * cores) / rate,
        requestsPerBlock: (node.requests - requests) / count,
      });
    });
  });
}

const pad = (text: string | number, width: number) => String(text).padStart(width);

async function main() {
  checkEras();
  const node = await startEraNode();
  const fixtures = ERAS.map((_, i) => sampleOf(i));
  const ranges = ERAS.map((era, i) => {
    const names = fixtures[i]!.map((n) => `mainnet-${n}`);
    if (names.length === 0)
      throw new Error(`${era.name}: no fixture block (fixtures/blocks/mainnet-N.json, N in the era)`);
    const once = eraRange(names, Math.max(1, era.first), names.length);
    return eraRange(names, once.from, blocksFor(once.receiptsPerBlock));
  });
  // samples[era][latency], one a round, the rounds interleaved so that the machine's noise falls on every era alike.
  const samples = ERAS.map(() => LATENCIES_MS.map(() => [] as Measured[]));
  for (let round = 0; round < ROUNDS; round++)
    for (const [l, latency] of LATENCIES_MS.entries())
      for (const [i, range] of ranges.entries()) {
        node.latencyMs = latency;
        node.range = range;
        samples[i]![l]!.push(await auditOnce(node, range));
      }
  await node.close();

  /** The median of each figure of era `i` at latency `l`. */
  const measured = (i: number, l: number): Measured => {
    const of = (figure: keyof Measured) => median(samples[i]![l]!.map((s) => s[figure]));
    return {
      rate: of('rate'),
      fromStart: of('fromStart'),
      cores: of('cores'),
      cpuMs: of('cpuMs'),
      requestsPerBlock: of('requestsPerBlock'),
    };
  };

  console.log(
    `whole-chain projection: one \`audit\` process a measurement (every flag at its default: one worker), median of ` +
      `${ROUNDS} rounds; ${CHAIN_BLOCKS.toLocaleString('en-US')} blocks on ${WORKERS} workers, each as fast as the one ` +
      `measured, the node not the bottleneck`,
  );
  console.log(
    `  ${'era'.padEnd(28)} ${pad('first block', 11)} ${pad('share', 6)} ${pad('fixtures', 8)} ${pad('range', 5)} ` +
      `${pad('rcpt/b', 6)}` +
      LATENCIES_MS.map(
        (ms) => ` | ${pad(`${ms} ms: b/s`, 11)} ${pad('cores', 5)} ${pad('cpu ms', 6)} ${pad('hours', 5)}`,
      ).join(''),
  );
  // Worker-seconds, CPU-seconds and HTTP requests over the whole chain, at each latency.
  const totals = LATENCIES_MS.map(() => ({ seconds: 0, fromStartSeconds: 0, cpu: 0, requests: 0 }));
  for (const [i, era] of ERAS.entries()) {
    const blocks = eraBlocks(i);
    const cells = LATENCIES_MS.map((_, l) => {
      const { rate, fromStart, cores, cpuMs, requestsPerBlock } = measured(i, l);
      const seconds = blocks / rate;
      totals[l]!.seconds += seconds;
      totals[l]!.fromStartSeconds += blocks / fromStart;
      totals[l]!.cpu += seconds * cores;
      totals[l]!.requests += blocks * requestsPerBlock;
      const hours = (seconds / WORKERS / 3600).toFixed(2);
      return ` | ${pad(rate.toFixed(0), 11)} ${pad(cores.toFixed(2), 5)} ${pad(cpuMs.toFixed(1), 6)} ${pad(hours, 5)}`;
    });
    const range = ranges[i]!;
    const share = `${((100 * blocks) / CHAIN_BLOCKS).toFixed(1)}%`;
    console.log(
      `  ${era.name.padEnd(28)} ${pad(era.first.toLocaleString('en-US'), 11)} ${pad(share, 6)} ` +
        `${pad(fixtures[i]!.length, 8)} ${pad(range.to - range.from + 1, 5)} ` +
        `${pad(range.receiptsPerBlock.toFixed(0), 6)}${cells.join('')}`,
    );
  }
  for (const [l, latency] of LATENCIES_MS.entries()) {
    const { seconds, fromStartSeconds, cpu, requests } = totals[l]!;
    const hours = seconds / WORKERS / 3600;
    const wallSeconds = seconds / WORKERS;
    console.log(
      `  ${latency} ms a request: ${hours.toFixed(2)} h on ${WORKERS} workers ` +
        `(${(CHAIN_BLOCKS / seconds).toFixed(0)} blocks/s a worker over the chain, ` +
        `${Math.ceil(seconds / (GOAL_HOURS * 3600))} workers for ${GOAL_HOURS} h); ` +
        `${(cpu / wallSeconds).toFixed(1)} cores busy, the node serving ${(requests / wallSeconds).toFixed(0)} ` +
        `requests/s (${((2 * CHAIN_BLOCKS) / wallSeconds).toFixed(0)} calls/s); ` +
        `goal at most ${GOAL_HOURS} hour: ${hours <= GOAL_HOURS ? 'met' : 'NOT met'} ` +
        `(${(fromStartSeconds / WORKERS / 3600).toFixed(2)} h by the audits' summaries, each from its start)`,
    );
  }
}

await main();
