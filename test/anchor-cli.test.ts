/**
 * Verifying from a beacon-chain checkpoint instead of a trusted hash, through the built CLI as a user runs it: the
 * real anchor proof file fixtures/anchor/mainnet-checkpoint-11635710.jsonl and the real blocks of fixtures/blocks/.
 * `anchor verify` lists what the file proves; a receipt proof (`prove receipt`) and a complete-log proof (`prove
 * logs`, from a loopback node) of a pre-merge block (14,764,013), the first Capella block (17,034,870) and a Deneb
 * block (22,162,263) verify from the checkpoint alone, each said `authentic` with the checkpoint named; an audit of
 * 19,426,586..19,426,587 anchored by the file is authentic. A wrong checkpoint, a changed byte of the file, a block the
 * file does not prove, and a flag missing or beside a trusted hash are each refused in one line, never a pass.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliBytes } from './helpers/cli-process.js';
import { loadFixture } from './helpers/fixtures.js';
import { fixtureBlocks, rehash, startLoopbackNode, type LoopbackNode } from './helpers/loopback-rpc.js';

const FILE = 'fixtures/anchor/mainnet-checkpoint-11635710.jsonl';
const TEXT = readFileSync(FILE, 'utf8');
const CHECKPOINT = '0x5ab5b37414ebe99dc2c1e1e325bca79b8f659a4f0af21afdea4b38e646508e82';
const OTHER_CHECKPOINT = `0x${'11'.repeat(32)}`;
/** The blocks the file proves, with how: the numbers its records carry. */
const PROVEN = [
  [14764013, 'pre-merge'],
  [17034870, 'historical-summaries'],
  [17042287, 'historical-summaries'],
  [17062257, 'historical-summaries'],
  [19426586, 'historical-summaries'],
  [19426587, 'historical-summaries'],
  [22162263, 'historical-summaries'],
] as const;
/** One block of each era the brief names: before the merge, the first of Capella, and one of Deneb. */
const ERAS = [14764013, 17034870, 22162263] as const;

const hashOf = (number: number) => loadFixture(`mainnet-${number}`).header['hash'] as string;

/** `evm-integrity ARGS`, the built CLI in a process: exit status, stdout as text, stderr. */
async function cli(args: string[], input?: string) {
  const run = await runCliBytes(args, input === undefined ? {} : { input: Buffer.from(input) });
  return { status: run.status, stdout: run.stdout.toString(), stderr: run.stderr };
}

/** A refusal of the command line: exit 2, one line saying what is wrong, then where the help is. */
function expectUsage(result: Awaited<ReturnType<typeof cli>>, command: string, message: RegExp) {
  expect({ status: result.status, stdout: result.stdout }).toEqual({ status: 2, stdout: '' });
  const lines = result.stderr.split('\n');
  expect(lines).toHaveLength(3);
  expect(lines[0]).toMatch(message);
  expect(lines[1]).toBe(`try 'evm-integrity ${command} --help'`);
}

let dir: string;
let node: LoopbackNode;
/** The receipt proof and the logs proof of each block of ERAS, made by `prove receipt` and `prove logs`. */
const receiptProof = (number: number) => join(dir, `receipt-${number}.json`);
const logsProof = (number: number) => join(dir, `logs-${number}.elp`);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'anchor-cli-'));
  node = await startLoopbackNode(1, fixtureBlocks([...ERAS, 19426586, 19426587].map((n) => `mainnet-${n}`)));
  for (const number of ERAS) {
    const block = `fixtures/blocks/mainnet-${number}.json`;
    const proved = await cli(['prove', 'receipt', block, '--index', '0', '--out', receiptProof(number)]);
    expect(proved.status, proved.stderr).toBe(0);
    const range = ['--from', String(number), '--to', String(number)];
    const logs = await cli(['prove', 'logs', '--chain', '1', '--rpc', node.url, ...range, '--out', logsProof(number)]);
    expect(logs.status, logs.stderr).toBe(0);
  }
}, 60_000);

afterAll(async () => {
  await node?.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

describe('anchor verify', () => {
  it('prints each block the file proves from the checkpoint: number, hash, how, slot; exit 0', async () => {
    const result = await cli(['anchor', 'verify', FILE, '--checkpoint', CHECKPOINT]);
    expect(result.status).toBe(0);
    const rows = result.stdout
      .trimEnd()
      .split('\n')
      .map((line) => line.trim().split(/\s+/));
    expect(rows.map(([number, , via]) => [Number(number), via])).toEqual(PROVEN);
    // Each hash is the one the fixture block carries (17,042,287 has no fixture block of its own).
    for (const [number, hash] of rows) if (number !== '17042287') expect(hash).toBe(hashOf(Number(number)));
    expect(rows[0]).toHaveLength(3); // before the merge: no slot
    expect(rows.find(([n]) => n === '22162263')!.slice(3)).toEqual(['slot', '11378687']);
    expect(result.stderr).toBe(
      `evm-integrity: ${FILE}: the anchor proof holds: 7 blocks proven (mainnet): 6 from checkpoint ${CHECKPOINT}, 1 from the pre-merge accumulator (EIP-7643, built in)\n`,
    );
  });

  it('block lines repeated: each block listed and counted once, the repeats said; --json lists each block once', async () => {
    const [head, header, ...blocks] = TEXT.trimEnd().split('\n');
    const repeated = join(dir, 'repeated.jsonl');
    writeFileSync(repeated, `${[head, header, ...blocks, ...blocks, ...blocks].join('\n')}\n`);
    const result = await cli(['anchor', 'verify', repeated, '--checkpoint', CHECKPOINT]);
    expect(result.status).toBe(0);
    const rows = result.stdout.trimEnd().split('\n');
    expect(rows.map((row) => Number(row.trim().split(/\s+/)[0]))).toEqual(PROVEN.map(([number]) => number));
    expect(result.stderr).toBe(
      `evm-integrity: ${repeated}: the anchor proof holds: 7 blocks proven (mainnet): 6 from checkpoint ${CHECKPOINT}, 1 from the pre-merge accumulator (EIP-7643, built in); 14 lines prove a block again\n`,
    );
    const json = JSON.parse((await cli(['anchor', 'verify', repeated, '--checkpoint', CHECKPOINT, '--json'])).stdout);
    expect(json.data[0].blocks.map((b: { block_number: number; line: number }) => b.block_number)).toEqual(
      PROVEN.map(([number]) => number),
    );
  });

  it('reads standard input for -, and --json prints what POST /v1/evm/verify/anchor answers', async () => {
    const result = await cli(
      ['anchor', 'verify', '-', '--checkpoint', CHECKPOINT.slice(2).toUpperCase(), '--json'],
      TEXT,
    );
    expect(result.status).toBe(0);
    const body = JSON.parse(result.stdout);
    expect(body).toMatchObject({ chain_id: 1, count: 1, data: [{ is_valid: true, network: 'mainnet' }] });
    expect(body.data[0].blocks.map((b: { block_number: number; via: string }) => [b.block_number, b.via])).toEqual(
      PROVEN,
    );
  });

  it('a file that starts with blank lines verifies, as docs/anchor.md says (it was refused at line 1: a user re-check)', async () => {
    const spaced = join(dir, 'spaced.jsonl');
    writeFileSync(spaced, `\n\n${TEXT}`);
    const result = await cli(['anchor', 'verify', spaced, '--checkpoint', CHECKPOINT]);
    expect(result.status, result.stderr).toBe(0);
    const refused = await cli(['anchor', 'verify', spaced, '--checkpoint', OTHER_CHECKPOINT]);
    expect(refused.stderr).toMatch(/refused at line 3 \(checkpoint\)/);
  });

  it('a byte order mark (U+FEFF) before the first line: read by the core, as the library and the service read it; two are refused naming it, exit 2', async () => {
    const bom = join(dir, 'bom.jsonl');
    writeFileSync(bom, `\uFEFF${TEXT}`);
    const result = await cli(['anchor', 'verify', bom, '--checkpoint', CHECKPOINT]);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toBe((await cli(['anchor', 'verify', FILE, '--checkpoint', CHECKPOINT])).stdout);
    const two = join(dir, 'two-boms.jsonl');
    writeFileSync(two, `\uFEFF\uFEFF${TEXT}`);
    const refused = await cli(['anchor', 'verify', two, '--checkpoint', CHECKPOINT]);
    expect({ status: refused.status, stderr: refused.stderr }).toEqual({
      status: 2,
      stderr: `evm-integrity: ${two}: not an anchor proof the anchor can verify: line 1 (format): $: a byte order mark (U+FEFF): one is allowed, at the very start of the file\n`,
    });
  });

  it('another checkpoint: refused at line 1, exit 1', async () => {
    const result = await cli(['anchor', 'verify', FILE, '--checkpoint', OTHER_CHECKPOINT]);
    expect({ status: result.status, stdout: result.stdout }).toEqual({ status: 1, stdout: '' });
    expect(result.stderr).toBe(
      `evm-integrity: ${FILE}: the anchor proof is refused at line 1 (checkpoint): the file hangs from checkpoint ${CHECKPOINT}, not the trusted ${OTHER_CHECKPOINT}\n`,
    );
  });

  it('a changed byte of the file: refused at its line, exit 1 (--json: is_valid false)', async () => {
    const changed = join(dir, 'changed.jsonl');
    const lines = TEXT.split('\n');
    // A hex digit of the execution branch of block 22,162,263 (line 9).
    lines[8] = lines[8]!.replace(/("execution_branch":\["0x)(.)/, (_, before: string, digit: string) => {
      return `${before}${digit === '0' ? '1' : '0'}`;
    });
    writeFileSync(changed, lines.join('\n'));
    const result = await cli(['anchor', 'verify', changed, '--checkpoint', CHECKPOINT]);
    expect({ status: result.status, stdout: result.stdout }).toEqual({ status: 1, stdout: '' });
    expect(result.stderr).toMatch(/: the anchor proof is refused at line 9 \(block-branch\): block 22162263: /);
    const json = await cli(['anchor', 'verify', changed, '--checkpoint', CHECKPOINT, '--json']);
    expect(json.status).toBe(1);
    expect(JSON.parse(json.stdout).data[0]).toMatchObject({ is_valid: false, reason: 'block-branch', line: 9 });
  });

  it('a file that is no anchor proof: one line naming it and the line, exit 2', async () => {
    const result = await cli(['anchor', 'verify', 'fixtures/blocks/mainnet-1000001.json', '--checkpoint', CHECKPOINT]);
    expect({ status: result.status, stdout: result.stdout }).toEqual({ status: 2, stdout: '' });
    expect(result.stderr).toMatch(
      /^evm-integrity: fixtures\/blocks\/mainnet-1000001\.json: not an anchor proof the anchor can verify: line 1 \(format\): /,
    );
  });

  it('the grammar: --checkpoint missing or not a root, no FILE, another subcommand: one line, exit 2', async () => {
    expectUsage(await cli(['anchor', 'verify', FILE]), 'anchor', /^evm-integrity: --checkpoint is required: /);
    expectUsage(
      await cli(['anchor', 'verify', FILE, '--checkpoint', '0x5ab5']),
      'anchor',
      /^evm-integrity: --checkpoint: "0x5ab5" is not a beacon block root \(4 hex digits\); use 64 hex digits/,
    );
    expectUsage(await cli(['anchor', 'verify', '--checkpoint', CHECKPOINT]), 'anchor', /needs the anchor proof: FILE/);
    expectUsage(
      await cli(['anchor', 'sign']),
      'anchor',
      /^evm-integrity: no anchor command "sign": expected verify or prove$/,
    );
  });
});

describe('verify receipt-proof --anchor-proof FILE --checkpoint ROOT', () => {
  it.each(ERAS)('block %i: the receipt, and authentic from the checkpoint; exit 0', async (number) => {
    const result = await cli([
      'verify',
      'receipt-proof',
      receiptProof(number),
      '--anchor-proof',
      FILE,
      '--checkpoint',
      CHECKPOINT,
    ]);
    expect(result.status, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ blockHash: hashOf(number), transactionIndex: '0x0' });
    // Before the merge the block rests on the accumulator EIP-7643 fixes, not on the checkpoint.
    const proven =
      number === 14764013
        ? 'pre-merge\\) is proven from the pre-merge accumulator \\(EIP-7643, built in; mainnet\\), not from the checkpoint'
        : `historical-summaries, slot \\d+\\) is proven from checkpoint ${CHECKPOINT} \\(mainnet\\)`;
    expect(result.stderr).toMatch(
      new RegExp(`^evm-integrity: authentic: block ${number} \\(${hashOf(number)}, ${proven}\\n$`),
    );
  });

  it('a pre-merge block from a file that hangs from a made-up checkpoint: authentic from the accumulator, never said to be from that checkpoint', async () => {
    const madeUp = `0x${'42'.repeat(32)}`;
    const [head, checkpointHeader, preMerge, ...postMerge] = TEXT.trimEnd().split('\n');
    const madeUpHead = head!.replace(CHECKPOINT.slice(2), madeUp.slice(2));
    const file = join(dir, 'made-up-checkpoint.jsonl');
    writeFileSync(file, `${madeUpHead}\n${preMerge}\n`);
    const anchored = ['--anchor-proof', file, '--checkpoint', madeUp];
    const receipt = await cli(['verify', 'receipt-proof', receiptProof(14764013), ...anchored]);
    const logs = await cli([
      'verify',
      'logs-proof',
      logsProof(14764013),
      ...anchored,
      '--out',
      join(dir, 'made-up.ndjson'),
    ]);
    const authentic = `evm-integrity: authentic: block 14764013 (${hashOf(14764013)}, pre-merge) is proven from the pre-merge accumulator (EIP-7643, built in; mainnet), not from the checkpoint\n`;
    expect(receipt.status, receipt.stderr).toBe(0);
    expect(receipt.stderr).toBe(authentic);
    expect(logs.status, logs.stderr).toBe(0);
    expect(logs.stderr.split('\n').slice(1).join('\n')).toBe(authentic);
    const listed = await cli(['anchor', 'verify', file, '--checkpoint', madeUp]);
    expect(listed.status).toBe(0);
    expect(listed.stderr).toBe(
      `evm-integrity: ${file}: the anchor proof holds: 1 block proven (mainnet): none from checkpoint ${madeUp}, 1 from the pre-merge accumulator (EIP-7643, built in)\n`,
    );
    // Post-merge records under that checkpoint do not verify: the whole file is refused.
    writeFileSync(file, [madeUpHead, preMerge, checkpointHeader, ...postMerge].join('\n'));
    for (const number of [14764013, 22162263]) {
      const mixed = await cli(['verify', 'receipt-proof', receiptProof(number), ...anchored]);
      expect({ status: mixed.status, stdout: mixed.stdout }).toEqual({ status: 1, stdout: '' });
      expect(mixed.stderr).toMatch(/\(anchor-refused\): The anchor proof is refused at line 3 \(untrusted-header\): /);
    }
  });

  it('a mainnet proof relabelled as another chain: the mainnet anchor proves nothing of it; exit 2, never authentic', async () => {
    const relabelled = join(dir, 'receipt-22162263-chain-10.json');
    const proof = JSON.parse(readFileSync(receiptProof(22162263), 'utf8'));
    writeFileSync(relabelled, JSON.stringify({ ...proof, chain_id: 10 }));
    const result = await cli([
      'verify',
      'receipt-proof',
      relabelled,
      '--anchor-proof',
      FILE,
      '--checkpoint',
      CHECKPOINT,
    ]);
    expect(result.status).toBe(2);
    expect(result.stderr).not.toMatch(/authentic/);
    // OP Mainnet's schedule refuses the header first (block 22,162,263 of OP Mainnet would be legacy's).
    expect(result.stderr).toMatch(/header_rlp: expected a header without baseFeePerGas: OP Mainnet block 22162263/);
    // A devnet's, which has no schedule to refuse it by: the anchor's network refuses it.
    const devnet = join(dir, 'receipt-22162263-chain-31337.json');
    writeFileSync(devnet, JSON.stringify({ ...proof, chain_id: 31337 }));
    const anchored = await cli([
      'verify',
      'receipt-proof',
      devnet,
      '--add-chain',
      '31337:ethereum',
      '--anchor-proof',
      FILE,
      '--checkpoint',
      CHECKPOINT,
    ]);
    expect(anchored.status).toBe(2);
    expect(anchored.stderr).not.toMatch(/authentic/);
    expect(anchored.stderr).toMatch(/network mainnet proves blocks of chain 1, not of chain 31337/);
  });

  it('a mainnet anchor file relabelled sepolia, for a chain-1 proof: refused by its chain, naming both, exit 2 (a user check: exit 1 at line 2, state-branch)', async () => {
    const sepolia = join(dir, 'relabelled-sepolia.jsonl');
    writeFileSync(sepolia, TEXT.replace('"network":"mainnet"', '"network":"sepolia"'));
    const args = ['verify', 'receipt-proof', receiptProof(22162263), '--anchor-proof', sepolia];
    const result = await cli([...args, '--checkpoint', CHECKPOINT]);
    expect({ status: result.status, stdout: result.stdout }).toEqual({ status: 2, stdout: '' });
    // Told as the service's 422 tells it, the command printing the endpoint's answer.
    expect(result.stderr).toBe(
      `evm-integrity: ${sepolia}: The anchor proof's network sepolia proves blocks of chain 11155111, not of chain 1.\n`,
    );
    // The chain is told before the checkpoint, as no record is read for a chain the file cannot prove.
    const elsewhere = await cli([...args, '--checkpoint', OTHER_CHECKPOINT]);
    expect({ status: elsewhere.status, stderr: elsewhere.stderr }).toEqual({ status: 2, stderr: result.stderr });
  });

  it('a proof that carries its own anchor member: refused, whoever checks gives the checkpoint; exit 2', async () => {
    const embedded = join(dir, 'receipt-embedded-anchor.json');
    const proof = JSON.parse(readFileSync(receiptProof(22162263), 'utf8'));
    writeFileSync(embedded, JSON.stringify({ ...proof, anchor: { checkpoint: CHECKPOINT, proof: TEXT } }));
    for (const extra of [[], ['--block-hash', hashOf(22162263)]]) {
      const result = await cli(['verify', 'receipt-proof', embedded, ...extra]);
      expect(result.status).toBe(2);
      expect(result.stderr).toMatch(
        /the receipt proof carries an anchor member: the checkpoint and its anchor proof must be yours/,
      );
      expect(result.stderr).not.toMatch(/authentic/);
    }
  });

  it('"anchor": null claims nothing: read as absent, as the endpoint reads it; "anchor": {} is an anchor member, refused', async () => {
    const proof = JSON.parse(readFileSync(receiptProof(22162263), 'utf8'));
    const nulled = join(dir, 'receipt-null-anchor.json');
    writeFileSync(nulled, JSON.stringify({ ...proof, anchor: null }));
    const plain = await cli(['verify', 'receipt-proof', nulled]);
    // Bound to nothing: it holds, consistent, as a proof with no anchor member does.
    expect(plain.status).toBe(0);
    expect(plain.stderr).toMatch(/^evm-integrity: consistent: the proof holds under the block hash it states/);
    expect(JSON.parse(plain.stdout)).toMatchObject({ blockHash: hashOf(22162263) });
    const anchored = await cli(['verify', 'receipt-proof', nulled, '--anchor-proof', FILE, '--checkpoint', CHECKPOINT]);
    expect(anchored.status).toBe(0);
    expect(anchored.stderr).toMatch(/authentic: block 22162263 /);
    const empty = join(dir, 'receipt-empty-anchor.json');
    writeFileSync(empty, JSON.stringify({ ...proof, anchor: {} }));
    const refused = await cli(['verify', 'receipt-proof', empty]);
    expect(refused.status).toBe(2);
    expect(refused.stderr).toMatch(/the receipt proof carries an anchor member/);
  });

  it('a document with its own expected_block_hash: never dropped; another --block-hash or --anchor-proof beside it is refused naming both, exit 2', async () => {
    const own = join(dir, 'receipt-22162263-expected.json');
    const proof = JSON.parse(readFileSync(receiptProof(22162263), 'utf8'));
    const expected = hashOf(22162263);
    writeFileSync(own, JSON.stringify({ ...proof, expected_block_hash: expected.slice(2).toUpperCase() }));
    const refusal = (flag: string) =>
      `evm-integrity: ${own}: the document's expected_block_hash (${expected.slice(2).toUpperCase()}) and ${flag} both say which block hash to trust: give one (remove expected_block_hash from the document, or the flag)\n`;
    const anchored = await cli(['verify', 'receipt-proof', own, '--anchor-proof', FILE, '--checkpoint', CHECKPOINT]);
    expect({ status: anchored.status, stdout: anchored.stdout }).toEqual({ status: 2, stdout: '' });
    expect(anchored.stderr).toBe(refusal('--anchor-proof'));
    const other = `0x${'ab'.repeat(32)}`;
    const overridden = await cli(['verify', 'receipt-proof', own, '--block-hash', other]);
    expect({ status: overridden.status, stdout: overridden.stdout }).toEqual({ status: 2, stdout: '' });
    expect(overridden.stderr).toBe(refusal(`--block-hash ${other}`));
    // The same hash drops nothing: the proof is checked against it.
    const same = await cli(['verify', 'receipt-proof', own, '--block-hash', expected]);
    expect(same.status, same.stderr).toBe(0);
    expect(JSON.parse(same.stdout)).toMatchObject({ blockHash: expected });
  });

  it('a block the file does not prove: refused, naming the block, its hash and the checkpoint; exit 1', async () => {
    // The file's first three lines prove 14,764,013 alone.
    const short = join(dir, 'short.jsonl');
    writeFileSync(short, TEXT.split('\n').slice(0, 3).join('\n'));
    const result = await cli([
      'verify',
      'receipt-proof',
      receiptProof(22162263),
      '--anchor-proof',
      short,
      '--checkpoint',
      CHECKPOINT,
    ]);
    expect({ status: result.status, stdout: result.stdout }).toEqual({ status: 1, stdout: '' });
    expect(result.stderr).toBe(
      `evm-integrity: ${receiptProof(22162263)}: the proof does not hold (block-hash-mismatch): Block 22162263's hash ${hashOf(22162263)} is not among the blocks the anchor proof proves from checkpoint ${CHECKPOINT}.\n`,
    );
  });

  it('another checkpoint: the anchor proof refused, exit 1', async () => {
    const result = await cli([
      'verify',
      'receipt-proof',
      receiptProof(17034870),
      '--anchor-proof',
      FILE,
      '--checkpoint',
      OTHER_CHECKPOINT,
    ]);
    expect({ status: result.status, stdout: result.stdout }).toEqual({ status: 1, stdout: '' });
    expect(result.stderr).toMatch(
      /the proof does not hold \(anchor-refused\): The anchor proof is refused at line 1 \(checkpoint\): the file hangs from checkpoint 0x5ab5/,
    );
  });

  it('the flags: both or neither, never with --block-hash, for receipt-proof and logs-proof only', async () => {
    const proof = receiptProof(17034870);
    expectUsage(
      await cli(['verify', 'receipt-proof', proof, '--anchor-proof', FILE]),
      'verify',
      /^evm-integrity: --anchor-proof FILE needs --checkpoint ROOT: /,
    );
    expectUsage(
      await cli(['verify', 'receipt-proof', proof, '--checkpoint', CHECKPOINT]),
      'verify',
      /^evm-integrity: --checkpoint ROOT goes with --anchor-proof FILE/,
    );
    expectUsage(
      await cli([
        'verify',
        'receipt-proof',
        proof,
        '--anchor-proof',
        FILE,
        '--checkpoint',
        CHECKPOINT,
        '--block-hash',
        hashOf(17034870),
      ]),
      'verify',
      /^evm-integrity: --anchor-proof proves the hash that --block-hash gives: give one of them, not both$/,
    );
    expectUsage(
      await cli([
        'verify',
        'block',
        'fixtures/blocks/mainnet-17034870.json',
        '--anchor-proof',
        FILE,
        '--checkpoint',
        CHECKPOINT,
      ]),
      'verify',
      /are for verify receipt-proof and verify logs-proof$/,
    );
  });
});

describe('verify logs-proof --anchor-proof FILE --checkpoint ROOT', () => {
  it.each(ERAS)('block %i: the logs, the proof holds, authentic from the checkpoint; exit 0', async (number) => {
    const out = join(dir, `logs-${number}.ndjson`);
    const args = ['verify', 'logs-proof', logsProof(number), '--anchor-proof', FILE, '--checkpoint', CHECKPOINT];
    const result = await cli([...args, '--chain', 'mainnet', '--out', out]);
    expect(result.status, result.stderr).toBe(0);
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^evm-integrity: the proof holds: chain 1 /);
    expect(lines[1]).toMatch(
      new RegExp(
        `^evm-integrity: authentic: block ${number} \\(${hashOf(number)}, .*\\) is proven from ${number === 14764013 ? 'the pre-merge accumulator \\(EIP-7643, built in; mainnet\\), not from the checkpoint' : `checkpoint ${CHECKPOINT} \\(mainnet\\)`}$`,
      ),
    );
    // Every log of the block, as its fixture's receipts hold them.
    const logs = readFileSync(out, 'utf8')
      .trimEnd()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
    const expected = loadFixture(`mainnet-${number}`).receipts.flatMap((r) => (r['logs'] as unknown[]) ?? []);
    expect(logs).toHaveLength(expected.length);
    expect(logs.every((log: { blockHash: string }) => log.blockHash === hashOf(number))).toBe(true);
  });

  it('a head the file does not prove: head-mismatch naming it, nothing written, exit 1', async () => {
    const short = join(dir, 'premerge-only.jsonl');
    writeFileSync(short, TEXT.split('\n').slice(0, 3).join('\n'));
    const out = join(dir, 'never.ndjson');
    const result = await cli([
      'verify',
      'logs-proof',
      logsProof(17034870),
      '--anchor-proof',
      short,
      '--checkpoint',
      CHECKPOINT,
      '--out',
      out,
    ]);
    expect({ status: result.status, stdout: result.stdout }).toEqual({ status: 1, stdout: '' });
    expect(result.stderr).toBe(
      `evm-integrity: ${logsProof(17034870)}: the proof does not hold: head-mismatch at block 17034870: block 17034870's hash ${hashOf(17034870)} is not among the blocks the anchor proof proves from checkpoint ${CHECKPOINT}\n`,
    );
    expect(() => readFileSync(out)).toThrow();
  });

  it('a proof of another chain: refused as one the anchor cannot verify, with or without --chain, naming both chains; exit 2', async () => {
    // Mainnet's block 22,162,263 as a devnet's (its schedule is Ethereum's, so the header reads).
    const devnet = await startLoopbackNode(31337, fixtureBlocks(['mainnet-22162263']));
    const proof = join(dir, 'logs-22162263-chain-31337.elp');
    const chain = ['--add-chain', '31337:ethereum'];
    try {
      const range = ['--from', '22162263', '--to', '22162263'];
      const proved = await cli([
        'prove',
        'logs',
        '--chain',
        '31337',
        ...chain,
        '--rpc',
        devnet.url,
        ...range,
        '--out',
        proof,
      ]);
      expect(proved.status, proved.stderr).toBe(0);
    } finally {
      await devnet.close();
    }
    const anchored = ['verify', 'logs-proof', proof, ...chain, '--anchor-proof', FILE, '--checkpoint', CHECKPOINT];
    for (const named of [[], ['--chain', '31337']]) {
      const result = await cli([...anchored, ...named]);
      expect({ status: result.status, stdout: result.stdout }).toEqual({ status: 2, stdout: '' });
      expect(result.stderr).toBe(
        `evm-integrity: ${FILE}: not an anchor proof the anchor can verify: line 1 (network): network mainnet proves blocks of chain 1, not of chain 31337\n`,
      );
    }
  });

  it('another checkpoint: refused before the logs proof is read, exit 1', async () => {
    const result = await cli([
      'verify',
      'logs-proof',
      logsProof(22162263),
      '--anchor-proof',
      FILE,
      '--checkpoint',
      OTHER_CHECKPOINT,
    ]);
    expect({ status: result.status, stdout: result.stdout }).toEqual({ status: 1, stdout: '' });
    expect(result.stderr).toMatch(/^evm-integrity: .*: the anchor proof is refused at line 1 \(checkpoint\): /);
  });

  it('--head-hash or --anchor-proof, not both, and --checkpoint with it', async () => {
    const proof = logsProof(22162263);
    expectUsage(
      await cli(['verify', 'logs-proof', proof, '--anchor-proof', FILE]),
      'verify',
      /^evm-integrity: --anchor-proof FILE needs --checkpoint ROOT/,
    );
    expectUsage(
      await cli([
        'verify',
        'logs-proof',
        proof,
        '--anchor-proof',
        FILE,
        '--checkpoint',
        CHECKPOINT,
        '--head-hash',
        hashOf(22162263),
      ]),
      'verify',
      /^evm-integrity: --anchor-proof proves the hash that --head-hash gives: give one of them, not both$/,
    );
    expectUsage(
      await cli(['verify', 'logs-proof', proof]),
      'verify',
      /^evm-integrity: --head-hash is required: .*--anchor-proof/,
    );
  });
});

describe('audit --anchor-proof FILE --checkpoint ROOT', () => {
  const range = ['--chain', 'mainnet', '--from', '19426586', '--to', '19426587'];
  const lines = (stdout: string) =>
    stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));

  it('19,426,586..19,426,587 against a node: every block anchored by the file, authentic, naming the checkpoint', async () => {
    const result = await cli([
      'audit',
      ...range,
      '--rpc',
      node.url,
      '--anchor-proof',
      FILE,
      '--checkpoint',
      CHECKPOINT,
    ]);
    expect(result.status, result.stderr).toBe(0);
    const [header, first, second, summary] = lines(result.stdout);
    expect(header.audit).toEqual({
      chain_id: 1,
      from: 19426586,
      to: 19426587,
      anchors: { 19426586: hashOf(19426586), 19426587: hashOf(19426587) },
      checkpoint: CHECKPOINT,
    });
    expect([first.verdict, second.verdict]).toEqual(['pass', 'pass']);
    expect(summary.summary.anchoring).toEqual({
      head_hash: null,
      anchors: [
        { block_number: 19426586, hash: hashOf(19426586), matches: true },
        { block_number: 19426587, hash: hashOf(19426587), matches: true },
      ],
      authenticated: [[19426586, 19426587]],
      authenticated_blocks: 2,
      assurance: 'authentic',
      checkpoint: CHECKPOINT,
    });
    expect(result.stderr).toBe(
      `evm-integrity: --anchor-proof ${FILE}: blocks 19426586, 19426587 anchored from checkpoint ${CHECKPOINT}\n`,
    );
  });

  it('a pre-merge block anchored by a file that hangs from a made-up checkpoint: authentic from the accumulator, no checkpoint named', async () => {
    const madeUp = `0x${'42'.repeat(32)}`;
    const [head, , preMerge] = TEXT.trimEnd().split('\n');
    const file = join(dir, 'made-up-checkpoint-audit.jsonl');
    writeFileSync(file, `${head!.replace(CHECKPOINT.slice(2), madeUp.slice(2))}\n${preMerge}\n`);
    const result = await cli([
      'audit',
      ...['--chain', 'mainnet', '--from', '14764013', '--to', '14764013'],
      ...['--rpc', node.url, '--anchor-proof', file, '--checkpoint', madeUp],
    ]);
    expect(result.status, result.stderr).toBe(0);
    const [header, , summary] = lines(result.stdout);
    expect(header.audit).toEqual({
      chain_id: 1,
      from: 14764013,
      to: 14764013,
      anchors: { 14764013: hashOf(14764013) },
    });
    expect(summary.summary.anchoring).toMatchObject({ assurance: 'authentic', authenticated_blocks: 1 });
    expect(summary.summary.anchoring).not.toHaveProperty('checkpoint');
    expect(result.stderr).toBe(
      `evm-integrity: --anchor-proof ${file}: block 14764013 anchored from the pre-merge accumulator (EIP-7643, built in), not from the checkpoint\n`,
    );
  });

  it('a node that serves another block 19,426,587 (rehashed, consistent in itself): its anchor fails, exit 1', async () => {
    const real = node.blocks.get(19426587)!;
    node.blocks.set(19426587, { ...real, header: rehash({ ...real.header, extraData: '0x666f72676564' }) });
    try {
      const result = await cli([
        'audit',
        ...range,
        '--rpc',
        node.url,
        '--anchor-proof',
        FILE,
        '--checkpoint',
        CHECKPOINT,
      ]);
      expect(result.status).toBe(1);
      const [, first, second, summary] = lines(result.stdout);
      expect(first.verdict).toBe('pass');
      expect(second).toMatchObject({ verdict: 'fail', failures: [{ check: 'anchor' }] });
      expect(summary.summary.anchoring).toMatchObject({ assurance: 'partly_authentic', checkpoint: CHECKPOINT });
    } finally {
      node.blocks.set(19426587, real);
    }
  });

  it('a range the file proves no block of: refused before the node is asked, exit 1', async () => {
    const calls = node.calls.length;
    const result = await cli([
      'audit',
      '--chain',
      '1',
      '--from',
      '1000001',
      '--to',
      '1000002',
      '--rpc',
      node.url,
      '--anchor-proof',
      FILE,
      '--checkpoint',
      CHECKPOINT,
    ]);
    expect({ status: result.status, stdout: result.stdout }).toEqual({ status: 1, stdout: '' });
    expect(result.stderr).toBe(
      `evm-integrity: ${FILE}: the anchor proof proves no block of the range 1000001-1000002 from checkpoint ${CHECKPOINT} (it proves 14764013, 17034870, 17042287, 17062257, 19426586, 19426587, 22162263)\n`,
    );
    expect(node.calls.length).toBe(calls);
  });

  it('a wrong checkpoint, or a trusted-hash flag beside it, is refused before the node is asked', async () => {
    const calls = node.calls.length;
    const wrong = await cli([
      'audit',
      ...range,
      '--rpc',
      node.url,
      '--anchor-proof',
      FILE,
      '--checkpoint',
      OTHER_CHECKPOINT,
    ]);
    expect({ status: wrong.status, stdout: wrong.stdout }).toEqual({ status: 1, stdout: '' });
    expect(wrong.stderr).toMatch(/the anchor proof is refused at line 1 \(checkpoint\)/);
    for (const flag of [
      ['--tail-hash', hashOf(19426587)],
      ['--anchor', `19426587:${hashOf(19426587)}`],
      ['--head-hash', hashOf(19426587)],
    ])
      expectUsage(
        await cli(['audit', ...range, '--rpc', node.url, '--anchor-proof', FILE, '--checkpoint', CHECKPOINT, ...flag]),
        'audit',
        new RegExp(`^evm-integrity: --anchor-proof proves the hash that ${flag[0]} gives: give one of them, not both$`),
      );
    expectUsage(
      await cli(['audit', ...range, '--rpc', node.url, '--anchor-proof', FILE]),
      'audit',
      /^evm-integrity: --anchor-proof FILE needs --checkpoint ROOT/,
    );
    expect(node.calls.length).toBe(calls);
  });
});
