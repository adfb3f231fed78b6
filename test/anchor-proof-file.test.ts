/**
 * The anchor proof file (core/anchor/proof-file/) on real mainnet data: the committed file
 * fixtures/anchor/mainnet-checkpoint-11635710.jsonl is what test/helpers/anchor-files.ts builds from its
 * sources, it proves every block it names from the checkpoint alone, and no changed byte, reordered or
 * missing record, or other checkpoint passes.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  anchoredHashes,
  AnchorProofVerifier,
  beaconBlockHeaderRoot,
  branchOf,
  formatAnchorHead,
  historicalEntryOf,
  listEntryBranch,
  MAINNET,
  formatAnchorRecord,
  readAnchorFileHead,
  readAnchorRecord,
  verifyAnchorProof,
  type AnchorRecord,
} from '../packages/core/src/anchor/index.js';
import { decodePostMergeProof } from '../packages/core/src/anchor/beacon-block-proof.js';
import { bytes32Vector, merkleize, mixInLength } from '../packages/core/src/anchor/ssz.js';
import { bytesToHex, hexToBytes } from '../packages/core/src/bytes/hex.js';
import {
  ELECTRA_CHECKPOINT,
  electraAnchorFile,
  electraRecords,
  MAINNET_CHECKPOINT,
  PRE_MERGE_BLOCKS,
  SUMMARIES_BLOCKS,
  mainnetAnchorFile,
  mainnetRecords,
} from './helpers/anchor-files.js';
import { loadFixture } from './helpers/fixtures.js';
import { contentValueOf, headerWithProof } from './helpers/portal-vectors.js';
import { runs } from './helpers/runs.js';

const FILE = new URL('../fixtures/anchor/mainnet-checkpoint-11635710.jsonl', import.meta.url);
const TEXT = readFileSync(FILE, 'utf8');
const RECORDS = mainnetRecords();
const head = formatAnchorHead({ network: 'mainnet', checkpoint: MAINNET_CHECKPOINT });
const fileOf = (records: readonly AnchorRecord[]): string => [head, ...records.map(formatAnchorRecord)].join('\n');

/** The hash a fixture block's header carries (fixtures/blocks/), to hold the proven hashes to. */
const servedHash = (number: number): string | undefined => loadFixture(`mainnet-${number}`).header['hash'];

describe('the mainnet anchor proof file', () => {
  it('is what its sources build', () => {
    expect(TEXT).toBe(mainnetAnchorFile());
  });

  it('proves every block it names from the checkpoint alone, each hash the one nodes serve', () => {
    const verdict = verifyAnchorProof(TEXT, MAINNET_CHECKPOINT);
    if (!verdict.ok) throw new Error(verdict.error.message);
    expect(verdict.value.newest?.slot).toBe(11635710n);
    const proven = verdict.value.blocks.map((block) => [Number(block.number), block.via]);
    expect(proven).toEqual([
      ...PRE_MERGE_BLOCKS.map((n) => [n, 'pre-merge']),
      ...SUMMARIES_BLOCKS.map((n) => [n, 'historical-summaries']),
    ]);
    for (const block of verdict.value.blocks) {
      if (Number(block.number) === 17042287) continue; // no fixture block of its own
      expect(`0x${bytesToHex(block.hash)}`).toBe(servedHash(Number(block.number)));
    }
  });

  it('streams: line by line gives the same verdict as the whole text', () => {
    const lines = TEXT.trimEnd().split('\n');
    const started = AnchorProofVerifier.start(lines[0]!, MAINNET_CHECKPOINT);
    if (!started.ok) throw new Error(started.error.message);
    const pushed = lines.slice(1).map((line, i) => started.value.push(line, i + 2));
    expect(pushed.every((result) => result.ok)).toBe(true);
    expect(started.value.finish()).toEqual(verifyAnchorProof(TEXT, MAINNET_CHECKPOINT));
  });

  it('refuses another checkpoint than the one the file hangs from', () => {
    const other = hexToBytes('0x' + '11'.repeat(32));
    const verdict = verifyAnchorProof(TEXT, other);
    expect(verdict.ok).toBe(false);
    if (!verdict.ok) expect(verdict.error).toMatchObject({ line: 1, reason: 'checkpoint' });
  });

  it('refuses a file whose head and records hang from another checkpoint, even when they are consistent', () => {
    // The records prove blocks under the state of block 0x5ab5b374…; named as checkpoint, any other root fails.
    const forged = [
      formatAnchorHead({ network: 'mainnet', checkpoint: hexToBytes('0x' + '22'.repeat(32)) }),
      ...RECORDS.map(formatAnchorRecord),
    ].join('\n');
    const verdict = verifyAnchorProof(forged, hexToBytes('0x' + '22'.repeat(32)));
    expect(verdict.ok).toBe(false);
    if (!verdict.ok) expect(verdict.error).toMatchObject({ line: 2, reason: 'untrusted-header' });
  });

  it('refuses a block before the state that roots it, naming the line', () => {
    const verdict = verifyAnchorProof(fileOf([RECORDS[2]!, RECORDS[0]!]), MAINNET_CHECKPOINT);
    expect(verdict.ok).toBe(false);
    if (!verdict.ok) expect(verdict.error).toMatchObject({ line: 2, reason: 'no-state' });
  });

  it('proves a pre-merge block without any state: the accumulator root is a constant (EIP-7643)', () => {
    const verdict = verifyAnchorProof(fileOf([RECORDS[1]!]), MAINNET_CHECKPOINT);
    expect(verdict.ok && verdict.value.blocks.map((b) => b.number)).toEqual([14764013n]);
  });

  it('refuses a file with no records, and an unknown network', () => {
    expect(verifyAnchorProof(head + '\n', MAINNET_CHECKPOINT)).toMatchObject({ ok: false, error: { reason: 'empty' } });
    const sepolia = head.replace('"mainnet"', '"nowhere"');
    expect(verifyAnchorProof(sepolia, MAINNET_CHECKPOINT)).toMatchObject({ ok: false, error: { reason: 'network' } });
  });

  it('refuses a file of nothing, or of blank lines alone, as empty at line 1 (was: "line 4 (format): $: a blank line" of a file of three newlines: a user check)', () => {
    const said = 'the file is empty (blank lines alone, or nothing): it has no head line and no records';
    for (const text of ['', '\n\n\n', ' \r\n\t', '\uFEFF']) {
      expect(verifyAnchorProof(text, MAINNET_CHECKPOINT), JSON.stringify(text)).toEqual({
        ok: false,
        error: { line: 1, reason: 'empty', message: said },
      });
      expect(readAnchorFileHead(text)).toEqual({
        line: 1,
        head: { ok: false, error: { line: 1, path: '$', message: said } },
      });
    }
  });

  it('refuses a member the format does not have, or one spelled another way, naming it (was: taken, the claim unread: a user check)', () => {
    const lines = TEXT.split('\n');
    const edit = (at: number, change: (line: Record<string, any>) => void) => {
      const copy = [...lines];
      const line = JSON.parse(copy[at]!);
      change(line);
      copy[at] = JSON.stringify(line);
      return verifyAnchorProof(copy.join('\n'), MAINNET_CHECKPOINT);
    };
    const block = lines.findIndex((line) => line.includes('"kind":"block"'));
    const header = lines.findIndex((line) => line.includes('"kind":"beacon-header"'));
    const cases: Array<[number, (line: Record<string, any>) => void, string, string]> = [
      [
        0,
        (l) => (l.blocks = []),
        '$.blocks',
        'a member this part of an anchor proof file does not have (its members: anchor_proof, network, checkpoint)',
      ],
      [
        block,
        (l) => (l.block_hash = `0x${'00'.repeat(32)}`),
        '$.block_hash',
        'a member this part of an anchor proof file does not have (its members: kind, header, proof)',
      ],
      [
        block,
        (l) => (l.proof.Era = l.proof.era),
        '$.proof.Era',
        'one spelling of each member: "Era" is "era" spelled another way, and "era" is given too; give one',
      ],
      [
        header,
        (l) => (l.header.Slot = 1),
        '$.header.Slot',
        'one spelling of each member: "Slot" is "slot" spelled another way, and "slot" is given too; give one',
      ],
    ];
    for (const [line, change, path, message] of cases)
      expect(edit(line, change), path).toEqual({
        ok: false,
        error: { line: line + 1, reason: 'format', message: `${path}: ${message}` },
      });
  });

  it('skips blank lines before the first line too, which is then the first with text', () => {
    const verdict = verifyAnchorProof(`\n \n${TEXT}`, MAINNET_CHECKPOINT);
    expect(verdict.ok && verdict.value.blocks.map((b) => b.line)).toEqual(
      TEXT.split('\n').flatMap((line, i) => (/"kind":"block"|"kind":"pre-merge"/.test(line) ? [i + 3] : [])),
    );
    expect(verifyAnchorProof(`\n${TEXT.replace('"mainnet"', '"nowhere"')}`, MAINNET_CHECKPOINT)).toMatchObject({
      ok: false,
      error: { reason: 'network', line: 2 },
    });
  });

  it('accepts one leading byte order mark (U+FEFF), as the CLI read a file with one; two are refused naming it (a user check: the library and the endpoints refused one as "not a JSON value")', () => {
    const verdict = verifyAnchorProof(`\uFEFF${TEXT}`, MAINNET_CHECKPOINT);
    const plain = verifyAnchorProof(TEXT, MAINNET_CHECKPOINT);
    expect(verdict.ok && plain.ok && verdict.value.blocks).toEqual(plain.ok && plain.value.blocks);
    expect(anchoredHashes(`\uFEFF${TEXT}`, MAINNET_CHECKPOINT, 1)).toMatchObject({ ok: true });
    // Before blank lines too: the mark is the file's, not its first line's.
    expect(verifyAnchorProof(`\uFEFF\n${TEXT}`, MAINNET_CHECKPOINT)).toMatchObject({ ok: true });
    expect(readAnchorFileHead(`\uFEFF\n\n${TEXT}`)).toMatchObject({
      line: 3,
      head: { ok: true, value: { network: 'mainnet' } },
    });
    // A head that cannot be read names the file's line, not the head's own (it said line 1 for line 2: a user re-check).
    expect(readAnchorFileHead('\n\uFEFF{"anchor_proof":1}')).toMatchObject({
      line: 2,
      head: { ok: false, error: { line: 2, path: '$' } },
    });
    expect(readAnchorFileHead('\n\n  \n{"anchor_proof":1}')).toMatchObject({
      line: 4,
      head: { ok: false, error: { line: 4, path: '$.network' } },
    });
    const message = 'a byte order mark (U+FEFF): one is allowed, at the very start of the file';
    expect(verifyAnchorProof(`\uFEFF\uFEFF${TEXT}`, MAINNET_CHECKPOINT)).toEqual({
      ok: false,
      error: { line: 1, reason: 'format', message: `$: ${message}` },
    });
    // Anywhere else a line is no JSON value, and is told so.
    const lines = TEXT.split('\n');
    lines[2] = `\uFEFF${lines[2]}`;
    expect(verifyAnchorProof(lines.join('\n'), MAINNET_CHECKPOINT)).toEqual({
      ok: false,
      error: { line: 3, reason: 'format', message: `$: ${message}` },
    });
  });

  it('skips blank lines, a trailing one and one between records', () => {
    const lines = TEXT.trimEnd().split('\n');
    const spaced = [lines[0], lines[1], '', '   ', ...lines.slice(2), '', ''].join('\n');
    const verdict = verifyAnchorProof(spaced, MAINNET_CHECKPOINT);
    expect(verdict.ok && verdict.value.blocks.length).toBe(7);
  });

  it('reads the text without holding anything a line: 16 million blank lines verify in a 48 MB heap', () => {
    // A child with a small heap (the built library): an array of the lines would take 8 bytes a line, 128 MB here.
    const blank = 16_000_000;
    const dir = mkdtempSync(join(tmpdir(), 'anchor-blank-'));
    try {
      const file = join(dir, 'blank.jsonl');
      const lines = TEXT.trimEnd().split('\n');
      writeFileSync(file, `${lines[0]}\n${'\n'.repeat(blank)}${lines.slice(1).join('\n')}\n`);
      const library = (path: string) =>
        JSON.stringify(fileURLToPath(new URL(`../packages/core/dist/${path}`, import.meta.url)));
      const script = [
        `import { readFileSync } from 'node:fs';`,
        `import { verifyAnchorProof } from ${library('anchor/index.js')};`,
        `import { hexToBytes } from ${library('index.js')};`,
        `const verdict = verifyAnchorProof(readFileSync(process.argv[1], 'utf8'), hexToBytes(process.argv[2]));`,
        `console.log(JSON.stringify(verdict.ok ? verdict.value.blocks.map((block) => block.line) : verdict.error));`,
      ].join('\n');
      const child = spawnSync(
        process.execPath,
        ['--max-old-space-size=48', '--input-type=module', '-e', script, file, `0x${bytesToHex(MAINNET_CHECKPOINT)}`],
        { encoding: 'utf8' },
      );
      expect(child.stderr).toBe('');
      expect(JSON.parse(child.stdout)).toEqual(
        lines.slice(1).flatMap((line, i) => (/"kind":"block"/.test(line) ? [blank + i + 2] : [])),
      );
    } finally {
      rmSync(dir, { recursive: true });
    }
  }, 60_000);

  it('refuses a member given twice in a line, naming it', () => {
    const line = formatAnchorRecord(RECORDS[1]!).replace('{"kind":"block",', '{"kind":"block","header":"0x00",');
    expect(readAnchorRecord(line, 3)).toEqual({
      ok: false,
      error: { line: 3, path: '$.header', message: 'a member given twice in one object' },
    });
  });

  it('binds a file to its network’s chain: mainnet proves chain 1’s blocks and no other’s', () => {
    const hashes = anchoredHashes(TEXT, MAINNET_CHECKPOINT, 1);
    if (!hashes.ok) throw new Error(hashes.error.message);
    expect(hashes.value.verdict.chainId).toBe(1);
    const block = hashes.value.blocks[1]!;
    expect(hashes.value.unproven(block.number, block.hash, 1)).toBeNull();
    expect(hashes.value.unproven(block.number, block.hash, 10)).toMatch(
      /of chain 10, and the anchor proof proves blocks of mainnet \(chain 1\)/,
    );
    expect(anchoredHashes(TEXT, MAINNET_CHECKPOINT, 8453)).toMatchObject({
      ok: false,
      error: { line: 1, reason: 'network', message: 'network mainnet proves blocks of chain 1, not of chain 8453' },
    });
  });

  it('anchors a hash as the block it proves and no other: a proven hash asked about as another number is not anchored (was: "proven")', () => {
    const hashes = anchoredHashes(TEXT, MAINNET_CHECKPOINT, 1);
    if (!hashes.ok) throw new Error(hashes.error.message);
    const [pre, post] = [hashes.value.blocks[0]!, hashes.value.blocks[1]!];
    expect(hashes.value.unproven(post.number, post.hash, 1)).toBeNull();
    expect(hashes.value.unproven(Number(post.number), post.hash, 1)).toBeNull();
    // Its hash under the neighbour's number, and under the other proven block's number: each is refused, naming both.
    for (const number of [post.number + 1n, post.number - 1n, pre.number])
      expect(hashes.value.unproven(number, post.hash, 1)).toBe(
        `block ${number}'s hash 0x${bytesToHex(post.hash)} is the hash of block ${post.number}, as the anchor proof proves it, not of block ${number}`,
      );
    expect(hashes.value.unproven(post.number, pre.hash, 1)).toMatch(
      /is the hash of block 14764013, as the anchor proof proves it, not of block 17034870$/,
    );
  });

  it('refuses a file of another chain by its first line, before any record is verified (a user check: a mainnet file relabelled sepolia was refused at line 2, state-branch)', () => {
    const sepolia = TEXT.replace('"network":"mainnet"', '"network":"sepolia"');
    expect(sepolia).not.toBe(TEXT);
    expect(anchoredHashes(sepolia, MAINNET_CHECKPOINT, 1)).toEqual({
      ok: false,
      error: { line: 1, reason: 'network', message: 'network sepolia proves blocks of chain 11155111, not of chain 1' },
    });
    // Another checkpoint too: the chain is told first, and the head's own line is named.
    expect(anchoredHashes(`\n${sepolia}`, hexToBytes(`0x${'11'.repeat(32)}`), 1)).toMatchObject({
      ok: false,
      error: { line: 2, reason: 'network', message: 'network sepolia proves blocks of chain 11155111, not of chain 1' },
    });
    // Its own chain, or none named: the file is verified, and a mainnet file named sepolia does not verify.
    for (const chainId of [11155111, null])
      expect(anchoredHashes(sepolia, MAINNET_CHECKPOINT, chainId)).toMatchObject({
        ok: false,
        error: { line: 2, reason: 'state-branch' },
      });
  });

  it('refuses a pre-merge block on any network but mainnet: the accumulator is mainnet’s', () => {
    for (const network of ['sepolia', 'holesky', 'hoodi']) {
      const other = [
        formatAnchorHead({ network, checkpoint: MAINNET_CHECKPOINT }),
        formatAnchorRecord(RECORDS[1]!),
      ].join('\n');
      expect(verifyAnchorProof(other, MAINNET_CHECKPOINT)).toMatchObject({
        ok: false,
        error: { line: 2, reason: 'block-branch', message: expect.stringContaining(`not in ${network}'s`) },
      });
    }
  });

  it('a block proof’s slot and list index are JSON integers, as anchor prove writes them: a string is refused naming it', () => {
    const block = JSON.parse(formatAnchorRecord(RECORDS[3]!));
    const expected = 'expected a non-negative integer (a JSON number, as anchor prove writes it)';
    const asString = { ...block, proof: { ...block.proof, slot: String(block.proof.slot) } };
    expect(readAnchorRecord(JSON.stringify(asString), 5)).toEqual({
      ok: false,
      error: { line: 5, path: '$.proof.slot', message: expected },
    });
    const index = { ...block, proof: { ...block.proof, summary: { ...block.proof.summary, index: '1' } } };
    expect(readAnchorRecord(JSON.stringify(index), 5)).toMatchObject({
      ok: false,
      error: { path: '$.proof.summary.index', message: expected },
    });
    // 6209538.0 is the JSON number 6209538 (JSON has one number type): read as the integer it is.
    const text = JSON.stringify(block).replace(`"slot":${block.proof.slot}`, `"slot":${block.proof.slot}.0`);
    expect(readAnchorRecord(text, 5)).toMatchObject({ ok: true, value: { proof: { slot: block.proof.slot } } });
  });

  it('names the member a malformed line gets wrong', () => {
    const block = JSON.parse(formatAnchorRecord(RECORDS[3]!));
    block.proof.summary.branch.pop();
    expect(readAnchorRecord(JSON.stringify(block), 5)).toEqual({
      ok: false,
      error: { line: 5, path: '$.proof.summary.branch', message: 'expected 25 nodes, found 24' },
    });
    delete block.proof.era;
    expect(readAnchorRecord(JSON.stringify(block), 5)).toMatchObject({ ok: false, error: { path: '$.proof.era' } });
    expect(readAnchorRecord('{"kind":"block"', 7)).toMatchObject({
      ok: false,
      error: { line: 7, message: expect.stringMatching(/^not a JSON value; an anchor proof file is JSON Lines/) },
    });
    expect(readAnchorRecord('{"kind":"other"}', 7)).toMatchObject({ ok: false, error: { path: '$.kind' } });
  });
});

/** Every byte string of a record, with a way to put a changed copy back: the places a forger could touch. */
function byteFields(record: AnchorRecord): Array<(flip: (bytes: Uint8Array) => Uint8Array) => AnchorRecord> {
  const json = JSON.parse(formatAnchorRecord(record));
  const paths: (string | number)[][] = [];
  const walk = (value: unknown, path: (string | number)[]): void => {
    if (typeof value === 'string' && value.startsWith('0x')) paths.push(path);
    else if (Array.isArray(value)) value.forEach((item, i) => walk(item, [...path, i]));
    else if (typeof value === 'object' && value !== null)
      for (const [key, item] of Object.entries(value)) walk(item, [...path, key]);
  };
  walk(json, []);
  return paths.map((path) => (flip) => {
    const copy = JSON.parse(JSON.stringify(json));
    let at = copy;
    for (const key of path.slice(0, -1)) at = at[key];
    const last = path.at(-1)!;
    at[last] = '0x' + bytesToHex(flip(hexToBytes(at[last])));
    const read = readAnchorRecord(JSON.stringify(copy), 2);
    if (!read.ok) throw new Error(read.error.message);
    return read.value;
  });
}

describe('forgery', () => {
  it('refuses the file when any byte of any record changes', () => {
    const places = RECORDS.flatMap((record, index) => byteFields(record).map((put) => ({ index, put })));
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: places.length - 1 }),
        fc.nat(),
        fc.integer({ min: 1, max: 255 }),
        (place, at, mask) => {
          const { index, put } = places[place]!;
          const changed = put((bytes) => {
            const copy = Uint8Array.from(bytes);
            copy[at % copy.length]! ^= mask;
            return copy;
          });
          const records = RECORDS.map((record, i) => (i === index ? changed : record));
          expect(verifyAnchorProof(fileOf(records), MAINNET_CHECKPOINT).ok).toBe(false);
        },
      ),
      { numRuns: runs(300) },
    );
  });

  it('refuses a block moved to another slot or summary index', () => {
    const record = RECORDS[3]! as AnchorRecord & { kind: 'block' };
    if (record.proof.era !== 'historical-summaries') throw new Error('expected a summaries record');
    const moved = { ...record, proof: { ...record.proof, slot: record.proof.slot + 1 } };
    expect(verifyAnchorProof(fileOf([RECORDS[0]!, moved]), MAINNET_CHECKPOINT).ok).toBe(false);
    const shifted = {
      ...record,
      proof: { ...record.proof, summary: { ...record.proof.summary, index: record.proof.summary.index + 1 } },
    };
    expect(verifyAnchorProof(fileOf([RECORDS[0]!, shifted]), MAINNET_CHECKPOINT).ok).toBe(false);
  });
});

describe('light-client steps in an anchor proof file (real mainnet, across the Electra fork)', () => {
  const LC_TEXT = readFileSync(
    new URL('../fixtures/anchor/mainnet-light-client-1421-1422.jsonl', import.meta.url),
    'utf8',
  );
  const LC_RECORDS = electraRecords();
  const lcHead = formatAnchorHead({ network: 'mainnet', checkpoint: ELECTRA_CHECKPOINT });
  const lcFile = (records: readonly AnchorRecord[]): string => [lcHead, ...records.map(formatAnchorRecord)].join('\n');

  it('is what its sources build', () => {
    expect(LC_TEXT).toBe(electraAnchorFile());
  });

  it('moves trust from the checkpoint to the Electra header that update 1422 finalizes, proving each step’s block', () => {
    const verdict = verifyAnchorProof(LC_TEXT, ELECTRA_CHECKPOINT);
    if (!verdict.ok) throw new Error(verdict.error.message);
    expect(verdict.value.blocks.map((block) => [block.number, block.via, block.slot])).toEqual([
      [22423006n, 'light-client', 11640864],
      [22423066n, 'light-client', 11640928],
      [22432991n, 'light-client', 11651008],
    ]);
    expect(bytesToHex(verdict.value.blocks[2]!.hash)).toMatch(/^d4c1a04e15667a6a/);
    expect(verdict.value.newest?.slot).toBe(11651008n);
  });

  it('refuses an update without its bootstrap, a second bootstrap, and steps out of order', () => {
    const [bootstrap, update1421, update1422] = LC_RECORDS as [AnchorRecord, AnchorRecord, AnchorRecord];
    expect(verifyAnchorProof(lcFile([update1421]), ELECTRA_CHECKPOINT)).toMatchObject({
      ok: false,
      error: { line: 2, reason: 'light-client', message: 'an update before the bootstrap it builds on' },
    });
    expect(verifyAnchorProof(lcFile([bootstrap, bootstrap]), ELECTRA_CHECKPOINT)).toMatchObject({
      ok: false,
      error: { line: 3, reason: 'light-client' },
    });
    // Period 1422's committee is only known once update 1421 gave it.
    expect(verifyAnchorProof(lcFile([bootstrap, update1422]), ELECTRA_CHECKPOINT)).toMatchObject({
      ok: false,
      error: { line: 3, reason: 'light-client' },
    });
  });

  it('refuses a bootstrap that is not the checkpoint’s, and a fork name its data contradicts', () => {
    const other = formatAnchorHead({ network: 'mainnet', checkpoint: MAINNET_CHECKPOINT });
    expect(
      verifyAnchorProof([other, ...LC_RECORDS.map(formatAnchorRecord)].join('\n'), MAINNET_CHECKPOINT),
    ).toMatchObject({
      ok: false,
      error: { line: 2, reason: 'light-client' },
    });
    const misnamed = { ...LC_RECORDS[2]!, fork: 'deneb' } as AnchorRecord;
    expect(verifyAnchorProof(lcFile([LC_RECORDS[0]!, LC_RECORDS[1]!, misnamed]), ELECTRA_CHECKPOINT)).toMatchObject({
      ok: false,
      error: { line: 4, reason: 'light-client', message: expect.stringContaining('electra') },
    });
  });

  it('proves nothing else when a byte of a light-client step changes', () => {
    const original = verifyAnchorProof(LC_TEXT, ELECTRA_CHECKPOINT);
    if (!original.ok) throw new Error(original.error.message);
    const ORIGINAL = original.value;
    let stillValid = 0;
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 }), fc.nat(), fc.integer({ min: 1, max: 255 }), (index, at, mask) => {
        const records = LC_RECORDS.map((record, i) => {
          if (i !== index || record.kind === 'block' || record.kind === 'beacon-header') return record;
          const ssz = Uint8Array.from(record.ssz);
          ssz[at % ssz.length]! ^= mask;
          return { ...record, ssz };
        });
        const verdict = verifyAnchorProof(lcFile(records), ELECTRA_CHECKPOINT);
        // Only `signature_slot` is outside what the signature and branches cover: a change there may still
        // verify, but it can never make the file prove anything else.
        if (verdict.ok) {
          stillValid++;
          expect(verdict.value.blocks).toEqual(ORIGINAL.blocks);
        }
      }),
      { numRuns: runs(25) },
    );
    // Eight bytes of 80,000 are unsigned: nearly every change must be refused.
    expect(stillValid).toBeLessThanOrEqual(1);
  });
});

describe('blocks from the merge to Capella, through historical_roots (the state branch made here)', () => {
  // No public source gives a mainnet state's branch to `historical_roots`; everything below the list's root is
  // real (the Portal proofs, mainnet's frozen list), and a state holding that root at its generalized index is
  // made here, with a header naming it as the checkpoint.
  const roots = bytes32Vector(
    new Uint8Array(readFileSync(new URL('../fixtures/anchor/portal-mainnet/historical_roots.ssz', import.meta.url))),
  );
  const listRoot = mixInLength(merkleize(roots, 24), roots.length);
  const stateLeaves = Array.from({ length: 32 }, (_, i) =>
    i === 7 ? listRoot : Uint8Array.of(i, ...new Uint8Array(31)),
  );
  const stateRoot = merkleize(stateLeaves, 5);
  const header = {
    slot: 11635710n,
    proposerIndex: 1n,
    parentRoot: new Uint8Array(32),
    stateRoot,
    bodyRoot: new Uint8Array(32),
  };
  const checkpoint = beaconBlockHeaderRoot(header);
  const state: AnchorRecord = {
    kind: 'beacon-header',
    header,
    historicalRoots: { root: listRoot, branch: branchOf(stateLeaves, 7, 5) },
  };
  const blockRecord = (number: number): AnchorRecord => {
    const { header: rlp, proof } = headerWithProof(
      contentValueOf(new URL(`../fixtures/anchor/portal/headers_with_proof/${number}.yaml`, import.meta.url).pathname),
    );
    const decoded = decodePostMergeProof(MAINNET, proof);
    if (!decoded.ok) throw new Error(decoded.error);
    const { slot, beaconBlockRoot, beaconBlockProof, executionBlockProof } = decoded.value;
    const { index } = historicalEntryOf(MAINNET, slot);
    return {
      kind: 'block',
      header: rlp,
      proof: {
        era: 'historical-roots',
        slot,
        beaconBlockRoot,
        executionBranch: executionBlockProof,
        blockRootsBranch: beaconBlockProof,
        batch: { index, root: roots[index]!, branch: listEntryBranch(roots, index, 24) },
      },
    };
  };
  const file = (records: readonly AnchorRecord[]) =>
    [formatAnchorHead({ network: 'mainnet', checkpoint }), ...records.map(formatAnchorRecord)].join('\n');

  it.each([15537394, 15547621, 17034869])('block %i is proven through its period’s HistoricalBatch', (number) => {
    const verdict = verifyAnchorProof(file([state, blockRecord(number)]), checkpoint);
    if (!verdict.ok) throw new Error(verdict.error.message);
    expect(verdict.value.blocks.map((block) => [Number(block.number), block.via])).toEqual([
      [number, 'historical-roots'],
    ]);
    expect(`0x${bytesToHex(verdict.value.blocks[0]!.hash)}`).toBe(servedHash(number));
  });

  it('refuses a historical_roots proof for a Capella block, a wrong batch and a missing state', () => {
    const capella = blockRecord(15537394) as AnchorRecord & { kind: 'block' };
    if (capella.proof.era !== 'historical-roots') throw new Error('expected historical-roots');
    const wrongBatch = { ...capella, proof: { ...capella.proof, batch: { ...capella.proof.batch, index: 0 } } };
    expect(verifyAnchorProof(file([state, wrongBatch]), checkpoint).ok).toBe(false);
    expect(verifyAnchorProof(file([blockRecord(15537394)]), checkpoint)).toMatchObject({
      ok: false,
      error: { reason: 'no-state' },
    });
    const summariesOnly: AnchorRecord = {
      kind: 'beacon-header',
      header,
      historicalSummaries: state.historicalRoots!,
    };
    expect(verifyAnchorProof(file([summariesOnly]), checkpoint)).toMatchObject({
      ok: false,
      error: { reason: 'state-branch' },
    });
  });
});
