/**
 * `prove logs`, `verify logs-proof` and `audit-logs`: the CLI as a real process against a loopback
 * JSON-RPC node serving real fixture blocks. The logs a verified proof releases, and the node's
 * eth_getLogs, are computed by the test from the fixtures' JSON alone (helpers/logs-proofs.ts).
 */
import { spawn, spawnSync } from 'node:child_process';
import { createReadStream, existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fixtureBlocks, fixtureChain, startLoopbackNode, type LoopbackNode } from './helpers/loopback-rpc.js';
import { expectedLogs, rangeNames, type HexFilter, BUSY_2016, THIRTY, TRANSFER } from './helpers/logs-proofs.js';
import {
  BIN,
  runCliBytes,
  runWithoutFileSpace,
  temporaryFilesIn,
  withFullOutput,
  type Run,
} from './helpers/cli-process.js';
import { loadFixture } from './helpers/fixtures.js';
import { closeOutputEarly } from './helpers/pipe.js';
import { makeFifo } from './helpers/special-files.js';

let node: LoopbackNode | undefined;
afterEach(async () => {
  await node?.close();
  node = undefined;
});

const run = runCliBytes;

const tempDir = () => mkdtempSync(join(tmpdir(), 'logs-cli-'));
const ndjson = (text: string) =>
  text
    .trim()
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, any>);

/** The hash of a fixture block, as the node gives it. */
const hashOf = (name: string) => loadFixture(name).header['hash']!;
const numberOf = (name: string) => Number(loadFixture(name).header['number']);

/** The flags of a range of fixture blocks and a filter, against the node. */
function rangeFlags(names: readonly string[], filter: HexFilter, chainId = loadFixture(names[0]!).chain_id!): string[] {
  return [
    '--chain',
    String(chainId),
    '--rpc',
    node!.url,
    '--from',
    String(numberOf(names[0]!)),
    '--to',
    String(numberOf(names[names.length - 1]!)),
    ...(filter.address ?? []).flatMap((a) => ['--address', a]),
    ...(filter.topics?.[0] ?? []).flatMap((t) => ['--topic0', t]),
  ];
}

/** Starts a node serving the fixture blocks `names` on their chain. */
async function serve(names: readonly string[], chainId = loadFixture(names[0]!).chain_id!): Promise<LoopbackNode> {
  node = await startLoopbackNode(chainId, fixtureBlocks(names));
  return node;
}

/** Proves `names` for a filter with `prove logs --out`: the artifact's path and the run. */
async function prove(names: readonly string[], filter: HexFilter): Promise<{ file: string; result: Run }> {
  const file = join(tempDir(), 'range.elp');
  const result = await run(['prove', 'logs', ...rangeFlags(names, filter), '--out', file]);
  return { file, result };
}

const RANGES: Array<{ name: string; blocks: string[]; filter: HexFilter }> = [
  { name: '30 blocks of 2016, the busy contract', blocks: THIRTY, filter: { address: [BUSY_2016] } },
  { name: 'the Merge pair, 10,041 logs, every log', blocks: rangeNames('mainnet', 15_537_393, 15_537_394), filter: {} },
  {
    name: 'Cancun pair, Transfer',
    blocks: rangeNames('mainnet', 19_426_586, 19_426_587),
    filter: { topics: [[TRANSFER]] },
  },
  { name: 'Prague pair, every log', blocks: rangeNames('mainnet', 22_431_083, 22_431_084), filter: {} },
  { name: 'OP Mainnet, Transfer', blocks: ['op-mainnet-154497277'], filter: { topics: [[TRANSFER]] } },
  { name: 'Arbitrum One, every log', blocks: ['arbitrum-one-150000000'], filter: {} },
];

describe('prove logs, then verify logs-proof', () => {
  it.each(RANGES)('$name: round trip, the logs are what eth_getLogs answers', async ({ blocks, filter }) => {
    await serve(blocks);
    const { file, result } = await prove(blocks, filter);
    expect(result.stderr).toContain(
      `head hash ${hashOf(blocks[blocks.length - 1]!)} (block ${numberOf(blocks[blocks.length - 1]!)})`,
    );
    expect(result.status).toBe(0);
    const expected = expectedLogs(blocks, filter);
    expect(result.stderr).toContain(`${expected.length.toLocaleString('en-US')} matching logs`);
    const verified = await run(['verify', 'logs-proof', file, '--head-hash', hashOf(blocks[blocks.length - 1]!)]);
    expect(verified.stderr).toMatch(/the proof holds: chain \d+ \(/);
    expect(verified.status).toBe(0);
    expect(ndjson(verified.stdout.toString())).toEqual(expected);
  });

  it('the 30 blocks: 9 logs of the busy contract in block 1,000,023, to stdout and from stdin, with --chain', async () => {
    await serve(THIRTY);
    const proved = await run(['prove', 'logs', ...rangeFlags(THIRTY, { address: [BUSY_2016] })]);
    expect(proved.status).toBe(0);
    expect(proved.stderr).toMatch(
      /30 blocks, 1 candidate block \(bloom may match\), 7 receipts\), filter address 0x276c5c6ca8507ed7bac085fc9b9521f4f54b58d3: 9 matching logs; [\d,]+ bytes/,
    );
    const out = join(tempDir(), 'logs.ndjson');
    const verified = await run(
      ['verify', 'logs-proof', '-', '--head-hash', hashOf(THIRTY[29]!), '--chain', '1', '--out', out],
      { input: proved.stdout },
    );
    expect(verified.status).toBe(0);
    const logs = ndjson(readFileSync(out, 'utf8'));
    expect(logs.filter((log) => log.blockNumber === '0xf4257')).toHaveLength(9);
    expect(logs).toEqual(expectedLogs(THIRTY, { address: [BUSY_2016] }));
    expect(readdirSync(dirname(out))).toEqual(['logs.ndjson']);
  });

  it('--rpc-url and ETH_RPC_URL name the node too (the flag wins)', async () => {
    await serve(THIRTY);
    const flags = rangeFlags(THIRTY, { address: [BUSY_2016] }).filter(
      (f, i, all) => f !== '--rpc' && all[i - 1] !== '--rpc',
    );
    const viaEnv = await run(['prove', 'logs', ...flags], { env: { ...process.env, ETH_RPC_URL: node!.url } });
    expect(viaEnv.status).toBe(0);
    const viaFlag = await run(['prove', 'logs', ...flags, '--rpc-url', node!.url], {
      env: { ...process.env, ETH_RPC_URL: 'http://127.0.0.1:1' },
    });
    expect(viaFlag.status).toBe(0);
    expect(viaFlag.stdout.equals(viaEnv.stdout)).toBe(true);
  });
});

describe('verify logs-proof refuses what does not hold', () => {
  it('a wrong head hash: 1, head-mismatch, and nothing at --out', async () => {
    await serve(THIRTY);
    const { file } = await prove(THIRTY, { address: [BUSY_2016] });
    const out = join(tempDir(), 'logs.ndjson');
    const result = await run(['verify', 'logs-proof', file, '--head-hash', hashOf(THIRTY[28]!), '--out', out]);
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/does not hold: head-mismatch at block 1000030: Block 1000030 hashes to 0x/);
    expect(result.stdout.length).toBe(0);
    expect(readdirSync(dirname(out))).toEqual([]);
  });

  it('a byte flipped in a record: 1, the fault and its block named; an existing --out is left untouched', async () => {
    await serve(THIRTY);
    const { file } = await prove(THIRTY, { address: [BUSY_2016] });
    const bytes = readFileSync(file);
    bytes[bytes.length - 200]! ^= 0x01;
    writeFileSync(file, bytes);
    const out = join(tempDir(), 'logs.ndjson');
    writeFileSync(out, 'before\n');
    const result = await run(['verify', 'logs-proof', file, '--head-hash', hashOf(THIRTY[29]!), '--out', out]);
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/does not hold: [a-z-]+ at block 10000[0-3]\d: /);
    expect(readFileSync(out, 'utf8')).toBe('before\n');
    expect(readdirSync(dirname(out))).toEqual(['logs.ndjson']);
  });

  it('a truncated proof: 1, blocks missing', async () => {
    await serve(THIRTY);
    const { file } = await prove(THIRTY, { address: [BUSY_2016] });
    writeFileSync(file, readFileSync(file).subarray(0, 3_000));
    const result = await run(['verify', 'logs-proof', file, '--head-hash', hashOf(THIRTY[29]!)]);
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/does not hold: blocks-missing at block 1000\d\d\d: /);
    expect(result.stdout.length).toBe(0);
  });

  it('not a proof, or no file: 2', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'x.json'), '{"not":"a proof"}');
    const notProof = await run(['verify', 'logs-proof', join(dir, 'x.json'), '--head-hash', hashOf(THIRTY[29]!)]);
    expect(notProof.status).toBe(2);
    // No verdict, worded as none (it said "the proof does not hold" with exit 2: a user check).
    expect(notProof.stderr).toMatch(/x\.json: no verdict: malformed: The input is not a logs proof/);
    const missing = await run(['verify', 'logs-proof', join(dir, 'none.elp'), '--head-hash', hashOf(THIRTY[29]!)]);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain('none.elp: cannot read it: no such file');
    const badHash = await run(['verify', 'logs-proof', join(dir, 'x.json'), '--head-hash', '0x12']);
    expect(badHash.status).toBe(2);
    expect(badHash.stderr).toContain('--head-hash: "0x12" is not a block hash (2 hex digits)');
  });

  it('--from/--to and --address/--topic0 refuse a proof of another range or filter: 1, range-mismatch, nothing written (a shorter range held with no log: a user check)', async () => {
    await serve(THIRTY);
    const { file } = await prove(THIRTY, { address: [BUSY_2016] });
    const head = ['--head-hash', hashOf(THIRTY[29]!)];
    const asked = await run([
      'verify',
      'logs-proof',
      file,
      ...head,
      '--from',
      '1000001',
      '--to',
      '1000030',
      '--address',
      BUSY_2016,
    ]);
    expect(asked.status).toBe(0);
    expect(ndjson(asked.stdout.toString())).toEqual(expectedLogs(THIRTY, { address: [BUSY_2016] }));
    const shorter = await run(['verify', 'logs-proof', file, ...head, '--from', '1000000', '--to', '1000030']);
    expect(shorter.status).toBe(1);
    expect(shorter.stdout.length).toBe(0);
    expect(shorter.stderr).toContain(
      'range-mismatch: The proof is of blocks 1,000,001 to 1,000,030, not of blocks 1,000,000 to 1,000,030 as asked.',
    );
    const other = await run(['verify', 'logs-proof', file, ...head, '--address', `0x${'11'.repeat(20)}`]);
    expect(other.status).toBe(1);
    expect(other.stderr).toContain(`range-mismatch: The proof's filter is {"address":["${BUSY_2016}"],"topics":[]}`);
    const anyLog = await run(['verify', 'logs-proof', file, ...head, '--topic0', `0x${'22'.repeat(32)}`]);
    expect(anyLog.status).toBe(1);
    const tag = await run(['verify', 'logs-proof', file, ...head, '--to', 'latest']);
    expect(tag.status).toBe(2);
    expect(tag.stderr).toContain('--to: "latest" is a tag, which names no block without a node; give the block number');
  });

  it('--chain of another chain: 1, chain-mismatch', async () => {
    await serve(THIRTY);
    const { file } = await prove(THIRTY, { address: [BUSY_2016] });
    const result = await run(['verify', 'logs-proof', file, '--head-hash', hashOf(THIRTY[29]!), '--chain', '10']);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('chain-mismatch: The proof is of chain 1, not of chain 10.');
  });
});

describe('verify logs-proof under a file size limit (ulimit -f), which holds its temporary file too', () => {
  const LIMIT = 'the file is larger than this process may write (ulimit -f)';
  type Where = 'file' | 'full' | 'pipe' | 'out';

  /**
   * `verify logs-proof FILE --head-hash HASH` under a file size limit: no file can grow (`file`: standard output a file;
   * `pipe`: a pipe, which the limit does not hold; `out`: `--out FILE`), or only standard output, a file at the limit
   * (`full`).
   */
  function verifyUnderLimit(file: string, hash: string, where: Where): { status: number | null; stderr: string } {
    const out = join(tempDir(), 'logs.ndjson');
    const args = ['verify', 'logs-proof', file, '--head-hash', hash];
    if (where === 'full') {
      const { status, stderr } = spawnSync(...withFullOutput(1, out, args), { encoding: 'utf8' });
      return { status, stderr };
    }
    if (where === 'out') return runWithoutFileSpace([...args, '--out', out]);
    return runWithoutFileSpace(args, where === 'file' ? { stdoutFile: out } : {});
  }

  it.each([
    ['standard output a file', 'file'],
    ['standard output a file at the limit, the temporary file with room', 'full'],
    ['standard output a pipe', 'pipe'],
    ['--out FILE', 'out'],
  ] as const)(
    // Where the temporary file could not grow, this was 2, naming it (a user check).
    '%s, a proof that fails at the head only: 1, head-mismatch, as without the limit',
    async (_, where) => {
      await serve(THIRTY);
      const { file } = await prove(THIRTY, {});
      const result = verifyUnderLimit(file, hashOf(THIRTY[28]!), where);
      expect(result.status).toBe(1);
      expect(result.stderr).toMatch(
        /^evm-integrity: \S+: the proof does not hold: head-mismatch at block 1000030: [^\n]+\n$/,
      );
    },
  );

  it.each([
    ['a file', 'file'],
    ['a file at the limit, the temporary file with room', 'full'],
  ] as const)(
    // Where the temporary file could not grow either, it was named (a user check).
    'a proof that holds, standard output %s: 2, naming standard output, as every command does',
    async (_, where) => {
      await serve(THIRTY);
      const { file } = await prove(THIRTY, {});
      expect(verifyUnderLimit(file, hashOf(THIRTY[29]!), where)).toEqual({
        status: 2,
        stderr: `evm-integrity: standard output: cannot write it: ${LIMIT}\n`,
      });
    },
  );

  it('a proof that holds, standard output a pipe: 2, naming the temporary file, which alone the limit holds', async () => {
    await serve(THIRTY);
    const { file } = await prove(THIRTY, {});
    const result = verifyUnderLimit(file, hashOf(THIRTY[29]!), 'pipe');
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(
      /^evm-integrity: \S+\/\.evm-integrity\.\d+\.[0-9a-f]+\.tmp, where standard output's output waits until it is whole: cannot write it: the file is larger than this process may write \(ulimit -f\) \(TMPDIR names another directory\)\n$/,
    );
  });
});

describe('prove logs refuses', () => {
  it('a Polygon range of the state-sync era: 2 at once, not verifiable, nothing fetched and no --out', async () => {
    const names = rangeNames('polygon-pos', 9_013_765, 9_013_767);
    await serve(names);
    const { file, result } = await prove(names, {});
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/the range cannot be proven: Block 9,013,765: Bor's state-sync receipts/);
    expect(node!.calls.map((c) => c.method)).toEqual(['eth_chainId']);
    expect(existsSync(file)).toBe(false);
    expect(readdirSync(dirname(file))).toEqual([]);
  });

  it('a node of another chain: 2, naming both', async () => {
    await serve(THIRTY, 10);
    const { file, result } = await prove(THIRTY, { address: [BUSY_2016] });
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(
      /^evm-integrity: the JSON-RPC node at http:\/\/127\.0\.0\.1:\d+ serves chain 10, not chain 1: give the chain id it serves, or a node of chain 1\n$/,
    );
    expect(readdirSync(dirname(file))).toEqual([]);
  });

  it('a node whose block does not hash to its hash: 2, naming the block, nothing left at --out', async () => {
    node = await startLoopbackNode(1, fixtureChain(1_000_001, 1_000_030));
    const block = node.blocks.get(1_000_010)!;
    block.header = { ...block.header, hash: hashOf(THIRTY[0]!) };
    const { file, result } = await prove(THIRTY, { address: [BUSY_2016] });
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/block 1,000,010 has hash 0x[0-9a-f]{64}, but its header hashes to 0x/);
    expect(readdirSync(dirname(file))).toEqual([]);
  });

  it('the same to stdout (`--out -`): 2, and what it wrote before the block is a proof cut short, which does not verify', async () => {
    node = await startLoopbackNode(1, fixtureChain(1_000_001, 1_000_030));
    const block = node.blocks.get(1_000_020)!;
    block.header = { ...block.header, hash: hashOf(THIRTY[0]!) };
    const dir = tempDir();
    const result = await runCliBytes(['prove', 'logs', ...rangeFlags(THIRTY, {}), '--out', '-'], { cwd: dir });
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/block 1,000,020 has hash 0x[0-9a-f]{64}, but its header hashes to 0x/);
    expect(readdirSync(dir)).toEqual([]); // no file named -
    expect(result.stdout.length).toBeGreaterThan(0); // streamed, block by block
    const verified = await run(['verify', 'logs-proof', '-', '--head-hash', hashOf(THIRTY[29]!)], {
      input: result.stdout,
    });
    expect(verified.status).toBe(1);
    expect(verified.stdout.length).toBe(0);
  });

  it('a reader that closes stdout early (`| head -c1`): 141, nothing on stderr, no temporary file left', async () => {
    const blocks = rangeNames('mainnet', 15_537_393, 15_537_394);
    await serve(blocks);
    const tmp = tempDir();
    const env = { ...process.env, ETH_RPC_URL: '', TMPDIR: tmp };
    // prove logs streams its proof; verify logs-proof holds its logs in a temporary file until the proof holds, then
    // copies them (5.5 MB here): the reader is gone while it copies.
    const proved = await closeOutputEarly(BIN, ['prove', 'logs', ...rangeFlags(blocks, {})], { env });
    const { file } = await prove(blocks, {});
    const verify = ['verify', 'logs-proof', file, '--head-hash', hashOf(blocks[1]!)];
    const verified = await closeOutputEarly(BIN, verify, { env });
    expect([proved, verified]).toEqual([
      { status: 141, stderr: '' },
      { status: 141, stderr: '' },
    ]);
    expect(temporaryFilesIn(tmp)).toEqual([]);
  });

  it.each([
    ['Ctrl-C', 'SIGINT', 130, 'interrupted'],
    ['SIGTERM', 'SIGTERM', 143, 'stopped by SIGTERM'],
    ['SIGHUP', 'SIGHUP', 129, 'stopped by SIGHUP'],
  ] as const)(
    '%s while writing --out: %i, and neither the file nor its temporary file is left',
    async (_, signal, code, said) => {
      await serve(THIRTY);
      node!.delayMs = 50;
      const dir = tempDir();
      const file = join(dir, 'range.elp');
      const child = spawn(process.execPath, [BIN, 'prove', 'logs', ...rangeFlags(THIRTY, {}), '--out', file], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const status = await new Promise<number | null>((resolve) => {
        child.on('close', resolve);
        const timer = setInterval(() => {
          if (readdirSync(dir).length > 0 && node!.calls.length > 3) {
            clearInterval(timer);
            child.kill(signal);
          }
        }, 5);
      });
      expect(status).toBe(code);
      expect(stderr).toContain(`evm-integrity: ${said}; nothing was written\n`);
      expect(readdirSync(dir)).toEqual([]);
    },
  );

  it('SIGTERM while the logs are copied into a FIFO whose reader has stopped reading: the command ends at once', async () => {
    const blocks = rangeNames('mainnet', 15_537_393, 15_537_394);
    await serve(blocks);
    const { file } = await prove(blocks, {});
    const tmp = tempDir();
    const fifo = makeFifo(tmp);
    const child = spawn(
      process.execPath,
      [BIN, 'verify', 'logs-proof', file, '--head-hash', hashOf(blocks[1]!), '--out', fifo],
      { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, TMPDIR: tmp } },
    );
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const ended = new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
      child.on('close', (status, signal) => resolve([status, signal])),
    );
    // The reader takes the first piece of the 5.5 MB, then reads no more: the command's next write waits for it.
    const reader = createReadStream(fifo);
    await new Promise((resolve) => reader.once('data', resolve));
    reader.pause();
    await new Promise((resolve) => setTimeout(resolve, 200));
    child.kill('SIGTERM');
    // Before, the process wrote its message and then waited for the reader (process.exit joins the thread pool).
    const outcome = await Promise.race([
      ended,
      new Promise((resolve) => setTimeout(() => resolve('still running'), 3000)),
    ]);
    if (outcome === 'still running') child.kill('SIGKILL');
    reader.destroy();
    expect(outcome).toEqual([null, 'SIGTERM']);
    expect(stderr).toBe('evm-integrity: stopped by SIGTERM; the output may be incomplete\n');
    expect(temporaryFilesIn(tmp)).toEqual([]);
  });

  it('bad flags, each named: 2', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['--address', '0x12'], /--address: "0x12" is not an address \(2 hex digits\); use 40 hex digits/],
      [['--topic0', BUSY_2016], /--topic0: "0x276c.*" is not a topic \(40 hex digits\); use 64 hex digits/],
      [['--from', '20', '--to', '10'], /--to \(10\) must not be before --from \(20\)/],
      [
        ['--from', 'ten'],
        /--from: "ten" is not a block; use a block number \(decimal or 0x hex\) or latest, finalized, safe/,
      ],
      [['--chain', 'mainet'], /--chain: "mainet" is not a chain id or a chain's name/],
      [['--concurrency', '65'], /^evm-integrity: --concurrency: "65" is more than 64; use 1 to 64\n/],
    ];
    for (const [flags, message] of cases) {
      const base = { '--chain': '1', '--rpc': 'http://127.0.0.1:1', '--from': '1', '--to': '2' } as Record<
        string,
        string
      >;
      for (let i = 0; i < flags.length; i += 2) base[flags[i]!] = flags[i + 1]!;
      const args = Object.entries(base).flat();
      const result = await run(['prove', 'logs', ...args, '--out', join(tempDir(), 'x.elp')]);
      expect(result.status, flags.join(' ')).toBe(2);
      expect(result.stderr).toMatch(message);
    }
    const noNode = await run(['prove', 'logs', '--chain', '1', '--from', '1', '--to', '2']);
    expect(noNode.status).toBe(2);
    expect(noNode.stderr).toContain('give the node: --rpc URL');
    // A value given twice was carried into the proof, its summary saying "address A or A" (a user check).
    const range = ['--chain', '1', '--rpc', 'http://127.0.0.1:1', '--from', '1', '--to', '2'];
    const upper = TRANSFER.slice(2).toUpperCase();
    for (const [flag, first, second, said] of [
      ['--address', BUSY_2016, BUSY_2016, `--address ${BUSY_2016} is given twice: give each value once`],
      ['--topic0', TRANSFER, upper, `--topic0 ${upper} is given twice (as ${TRANSFER} too): give each value once`],
    ]) {
      const twice = await run([
        'prove',
        'logs',
        ...range,
        flag!,
        first!,
        flag!,
        second!,
        '--out',
        join(tempDir(), 'x.elp'),
      ]);
      expect(twice.status, flag).toBe(2);
      expect(twice.stderr).toContain(said);
    }
  });
});

describe('audit-logs', () => {
  const FILTER = { address: [BUSY_2016] };

  it("a complete node: 0, no discrepancy, the summary says the headers are the node's word", async () => {
    await serve(THIRTY);
    const result = await run(['audit-logs', ...rangeFlags(THIRTY, FILTER)]);
    expect(result.status).toBe(0);
    const [summary] = ndjson(result.stdout.toString());
    expect(summary!.summary).toMatchObject({
      from: 1_000_001,
      to: 1_000_030,
      proven_logs: expectedLogs(THIRTY, FILTER).length,
      node_logs: expectedLogs(THIRTY, FILTER).length,
      complete: true,
      anchoring: 'node',
      head_hash: hashOf(THIRTY[29]!),
    });
    expect(result.stderr).toContain("the headers are the node's own word");
  });

  it('a node that drops a log: 1, naming it', async () => {
    await serve(THIRTY);
    const dropped = expectedLogs(THIRTY, FILTER)[4]!;
    node!.logsFault = (logs) => logs.filter((log) => JSON.stringify(log) !== JSON.stringify(dropped));
    const result = await run(['audit-logs', ...rangeFlags(THIRTY, FILTER), '--head-hash', hashOf(THIRTY[29]!)]);
    expect(result.status).toBe(1);
    const [line, summary] = ndjson(result.stdout.toString());
    expect(line).toEqual({
      kind: 'dropped',
      blockNumber: Number(dropped.blockNumber),
      logIndex: Number(dropped.logIndex),
      proven: dropped,
    });
    expect(summary!.summary).toMatchObject({ complete: false, anchoring: 'head_hash' });
    expect(summary!.summary.discrepancies).toEqual({ dropped: 1, invented: 0, altered: 0, unreadable: 0 });
  });

  it('a node that invents a log, or alters one: 1, naming it and the members', async () => {
    await serve(THIRTY);
    const first = expectedLogs(THIRTY, FILTER)[0]!;
    node!.logsFault = (logs) => (logs.length === 0 ? logs : [...logs, { ...first, logIndex: '0x63' }]);
    const invented = await run(['audit-logs', ...rangeFlags(THIRTY, FILTER)]);
    expect(invented.status).toBe(1);
    expect(ndjson(invented.stdout.toString())[0]).toMatchObject({
      kind: 'invented',
      blockNumber: Number(first.blockNumber),
      logIndex: 0x63,
      why: 'the block holds no matching log at this index',
    });
    node!.logsFault = (logs) =>
      logs.map((log) => (JSON.stringify(log) === JSON.stringify(first) ? { ...first, data: '0x00' } : log));
    const altered = await run(['audit-logs', ...rangeFlags(THIRTY, FILTER)]);
    expect(altered.status).toBe(1);
    expect(ndjson(altered.stdout.toString())[0]).toMatchObject({ kind: 'altered', members: ['data'], proven: first });
  });

  it('"too many results": the window is halved until the node answers, and the answer is still checked whole', async () => {
    await serve(THIRTY);
    node!.maxLogsBlocks = 4;
    const result = await run(['audit-logs', ...rangeFlags(THIRTY, {}), '--window', '30']);
    expect(result.status).toBe(0);
    const ranges = node!.calls
      .filter((c) => c.method === 'eth_getLogs')
      .map((c) => c.params[0] as { fromBlock: string; toBlock: string })
      .map((p) => Number(p.toBlock) - Number(p.fromBlock) + 1);
    expect(ranges.filter((n) => n <= 4).reduce((a, b) => a + b, 0)).toBe(30);
    expect(ndjson(result.stdout.toString())[0]!.summary.node_logs).toBe(expectedLogs(THIRTY, {}).length);
  });

  it("--head-hash that is not the node's: 1, head-mismatch, before the range is fetched", async () => {
    await serve(THIRTY);
    const result = await run(['audit-logs', ...rangeFlags(THIRTY, FILTER), '--head-hash', hashOf(THIRTY[0]!)]);
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/head-mismatch at block 1000030: the node's block 1000030 has hash 0x/);
  });

  it('--proof: a given proof checked, then compared; --save-proof writes the one built', async () => {
    await serve(THIRTY);
    const saved = join(tempDir(), 'saved.elp');
    const built = await run(['audit-logs', ...rangeFlags(THIRTY, FILTER), '--save-proof', saved]);
    expect(built.status).toBe(0);
    const { file } = await prove(THIRTY, FILTER);
    expect(readFileSync(saved).equals(readFileSync(file))).toBe(true);
    node!.logsFault = (logs) => logs.slice(1);
    const given = await run([
      'audit-logs',
      ...rangeFlags(THIRTY, FILTER),
      '--proof',
      saved,
      '--head-hash',
      hashOf(THIRTY[29]!),
    ]);
    expect(given.status).toBe(1);
    expect(ndjson(given.stdout.toString())[0]).toMatchObject({ kind: 'dropped' });
    const otherRange = await run(['audit-logs', ...rangeFlags(THIRTY.slice(0, 10), FILTER), '--proof', saved]);
    expect(otherRange.status).toBe(2);
    expect(otherRange.stderr).toContain('covers blocks 1000001 to 1000030, not --from 1000001 --to 1000010');
    const otherHead = await run([
      'audit-logs',
      ...rangeFlags(THIRTY, FILTER),
      '--proof',
      saved,
      '--head-hash',
      hashOf(THIRTY[3]!),
    ]);
    expect(otherHead.status).toBe(1);
    expect(otherHead.stderr).toContain('head-mismatch at block 1000030');
    const toStdout = await run(['audit-logs', ...rangeFlags(THIRTY, FILTER), '--save-proof', '-']);
    expect([toStdout.status, toStdout.stderr]).toEqual([
      2,
      "evm-integrity: --save-proof -: standard output holds the discrepancies; give --save-proof a FILE\ntry 'evm-integrity audit-logs --help'\n",
    ]);
  });

  it('an unreachable node: 2', async () => {
    const result = await run(['audit-logs', '--chain', '1', '--rpc', 'http://127.0.0.1:1', '--from', '1', '--to', '2']);
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/network error/);
  });
});
