/**
 * parseJson is JSON.parse but for an object that names a member twice, which it refuses, naming the
 * member's path: JSON parsers differ on which copy counts, so verifying one and handing the text on
 * would let a consumer read the other. Over the CLI, the HTTP server and a node's answers alike.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DuplicateMemberError } from '../packages/core/src/errors.js';
import { parseJson, parseJsonMeasured } from '../packages/core/src/json/parse-json.js';
import { tooDeep } from '../packages/core/src/json/depth.js';
import { decodeJsonBody, parseJsonBody } from '../packages/core/src/api/json-body.js';
import { verifyBlockText } from '../packages/core/src/api/block-operation.js';
import { startServer, type RunningServer } from '../packages/service/src/server/start-server.js';
import { auditorAccount, capturingLogger, testConfig } from './helpers/server.js';
import { loadFixture } from './helpers/fixtures.js';
import { runs } from './helpers/runs.js';

const CLI = new URL('../packages/service/bin/evm-integrity.js', import.meta.url).pathname;
const duplicateAt = (text: string) => {
  try {
    parseJson(text);
    return undefined;
  } catch (error) {
    if (error instanceof DuplicateMemberError) return error.details.path;
    throw error;
  }
};

describe('parseJson', () => {
  it.each([
    ['{"a":1,"a":1}', 'a'],
    ['{"a":1,"b":{"c":2,"c":3}}', 'b.c'],
    ['[{"x":1},{"y":[1,{"z":1 , "z" :2}]}]', '[1].y[1].z'],
    ['{"receipts":[{"status":"0x0","status":"0x1"}]}', 'receipts[0].status'],
    ['{"a\\u0062":1,"ab":2}', 'ab'],
    ['{"k":{},\n  "k":\t[]}', 'k'],
    // Colons in strings make the colons outnumber the members without a duplicate: the names are counted then.
    ['{"t":"12:00","t":"13:00"}', 't'],
    ['{"a":"::::","b":{"c":1,"c":2}}', 'b.c'],
  ])('%s: refused, naming %s', (text, path) => {
    expect(duplicateAt(text)).toBe(path);
  });

  it.each([
    '{"a":1,"b":{"a":2}}',
    '{"a\\"":1,"a\\\\":2,"b":"\\"c\\":"}',
    '{"k":"v:" , "k2" :  1, "x": ["a:", "b\\\\", {"a": ":"}]}',
    '{"t":"12:00","u":{"v":":","w":[":",{"x":"a:b:c"}]}}',
    '"just a string"',
    '[1,2,[3]]',
    '{}',
  ])('%s: read as JSON.parse reads it', (text) => {
    expect(parseJson(text)).toEqual(JSON.parse(text));
  });

  it('is JSON.parse on any JSON without duplicates (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.boolean(), (value, pretty) => {
        const text = JSON.stringify(value, null, pretty ? 2 : undefined);
        expect(parseJson(text)).toEqual(JSON.parse(text));
      }),
      { numRuns: runs(500) },
    );
  });

  it('measures the depth tooDeep bounds: deeper than k exactly where tooDeep(value, k) finds a path (property)', () => {
    expect(parseJsonMeasured('{"a":[[1]]}').depth).toBe(3);
    expect(parseJsonMeasured('"x"').depth).toBe(0);
    expect(parseJsonMeasured('[]').depth).toBe(1);
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 8 }), fc.integer({ min: 0, max: 9 }), (value, k) => {
        const text = JSON.stringify(value);
        const { value: read, depth } = parseJsonMeasured(text);
        expect(read).toEqual(JSON.parse(text));
        expect(depth > k).toBe(tooDeep(read, k) !== null);
      }),
      { numRuns: runs(500) },
    );
  });

  it('refuses any object given a copy of one of its members, at that member (property)', () => {
    const objectWithMember = fc
      .dictionary(fc.string(), fc.jsonValue(), { minKeys: 1 })
      .filter((o) => Object.keys(o).length > 0);
    fc.assert(
      fc.property(objectWithMember, fc.nat(), (object, pick) => {
        const keys = Object.keys(object);
        const key = keys[pick % keys.length]!;
        const text = JSON.stringify({ outer: [object] });
        // The member written a second time, last in its object.
        const inner = JSON.stringify(object);
        const doubled = `${inner.slice(0, -1)},${JSON.stringify(key)}:null}`;
        expect(duplicateAt(text.replace(inner, () => doubled))).toBe(`outer[0].${key}`);
      }),
      { numRuns: runs(300) },
    );
  });
});

describe('where JSON enters', () => {
  const block = loadFixture('mainnet-1000023');
  const text = JSON.stringify(block);
  // The real root last, an altered one first: JSON.parse would take the real one and say identical.
  const doubled = text.replace('"receiptsRoot":', `"receiptsRoot":"0x${'00'.repeat(32)}","receiptsRoot":`);
  const dir = mkdtempSync(join(tmpdir(), 'parse-json-'));
  let server: RunningServer;
  const KEY = 'evmi_parse-json-test-key-0123456789abcdefghijklmnopq';
  beforeAll(async () => {
    server = await startServer(testConfig({ host: '127.0.0.1', accounts: [auditorAccount(KEY, 'json')] }), {
      logger: capturingLogger().logger,
    });
  });
  afterAll(() => server?.close());

  it('the body reader: 400-style problem naming the member, reason duplicate', () => {
    const read = decodeJsonBody(new TextEncoder().encode(doubled));
    expect(read.ok).toBe(false);
    expect(!read.ok && read.error).toMatchObject({ name: 'header.receiptsRoot', reason: 'duplicate' });
  });

  it('verify block: exit 2, one line naming header.receiptsRoot, not identical', () => {
    const file = join(dir, 'doubled.json');
    writeFileSync(file, doubled);
    const run = spawnSync(process.execPath, [CLI, 'verify', 'block', file], { encoding: 'utf8' });
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/Invalid parameter header\.receiptsRoot: expected the member once in its object/);
    expect(run.stdout).not.toContain('"identical"');
  });

  // Each command that reads a request body or a block from a file names the member, from a file and standard input alike.
  it.each([
    ['verify', 'receipt-root'],
    ['verify', 'logs-bloom'],
    ['verify', 'receipt-proof'],
    ['prove', 'receipt', '--index', '0'],
    ['request', 'receipt-root'],
  ])('%s %s: exit 2, one line naming header.receiptsRoot', (...command) => {
    const file = join(dir, 'doubled.json');
    writeFileSync(file, doubled);
    const named = (from: string) =>
      `evm-integrity: ${from}: header.receiptsRoot: expected the member once in its object; it is given twice, and JSON parsers differ on which copy counts (JSON.parse takes the last, others the first)\n`;
    const fromFile = spawnSync(process.execPath, [CLI, ...command, file], { encoding: 'utf8' });
    expect([fromFile.status, fromFile.stdout, fromFile.stderr]).toEqual([2, '', named(file)]);
    const fromStdin = spawnSync(process.execPath, [CLI, ...command], { encoding: 'utf8', input: doubled });
    expect([fromStdin.status, fromStdin.stdout, fromStdin.stderr]).toEqual([2, '', named('standard input')]);
  });

  it('audit --bundle: exit 2 naming the member, no line', () => {
    const file = join(dir, 'bundle.json');
    writeFileSync(file, `{"exchanges":[],"blocks":[${doubled}]}`);
    const run = spawnSync(
      process.execPath,
      [CLI, 'audit', '--chain', '1', '--from', '1000023', '--to', '1000023', '--bundle', file],
      { encoding: 'utf8' },
    );
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(
      `evm-integrity: ${file}: blocks[0].header.receiptsRoot: expected the member once in its object; it is given twice, and JSON parsers differ on which copy counts (JSON.parse takes the last, others the first)\n`,
    );
  });

  it('the server: 400 naming the member, reason duplicate', async () => {
    const body = `{"chain_id":1,"receipt_root":"0x${'00'.repeat(32)}","receipt_root":"0x${'11'.repeat(32)}","transactions":[]}`;
    const res = await fetch(`${server.url}/v1/evm/verify/receipt-root`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${KEY}` },
      body,
    });
    expect(res.status).toBe(400);
    const { error } = (await res.json()) as { error: { details: { invalid_parameters: unknown[] } } };
    expect(error.details.invalid_parameters).toEqual([
      expect.objectContaining({ name: 'receipt_root', reason: 'duplicate' }),
    ]);
  });
});

describe('a body that holds far more arrays, objects, values or members than any request (a user check: 30 MB of nested arrays held a worker 13 s, an object of 2.5 million members 36 s, for free)', () => {
  const nested = (n: number) => `{"chain_id":1,"x":${'['.repeat(n)}${']'.repeat(n)}}`;
  const refusal = (what: string, free: string, characters: number, limit: string, length: string) => ({
    name: 'body',
    location: 'body',
    reason: 'out_of_range',
    expected: `at most one of the ${what} per ${characters} characters, past the first ${free}: a request's data holds far fewer, and reading more costs seconds; the body holds more than ${limit} in its ${length} characters`,
  });
  const containers = (limit: string, length: string) =>
    refusal('arrays and objects it opens', '250,000', 32, limit, length);
  const members = (limit: string, length: string) =>
    refusal('commas and colons (values and members)', '2,000,000', 12, limit, length);
  const read = (text: string) => parseJsonBody(text);

  it('refused before it is parsed: dense past the first 250,000 arrays and objects, nested or flat', () => {
    expect(read(nested(250_001))).toEqual({ ok: false, error: containers('250,000', '500,021') });
    const flat = `{"x":[${Array(2_000_000).fill('[]').join(',')}]}`;
    expect(read(flat)).toEqual({ ok: false, error: containers('250,000', '6,000,007') });
    expect(read(nested(15_000_000))).toEqual({ ok: false, error: containers('937,500', '30,000,019') });
  });

  it('refused before it is parsed: dense past the first two million values and members, in one object or an array', () => {
    const object = `{"chain_id":1,${Array.from({ length: 2_500_000 }, (_, i) => `"k${i}":0`).join(',')}}`;
    expect(read(object)).toEqual({ ok: false, error: members('2,615,742', '31,388,904') });
    const numbers = `{"x":[${Array(2_100_000).fill('0').join(',')}]}`;
    expect(read(numbers)).toEqual({ ok: false, error: members('2,000,000', '4,200,007') });
  });

  it('refused alike by verifyBlockText, whose scanner counts the marks as it reads (a text too deep for it counted apart)', () => {
    const refusedWith = (problem: unknown) => ({
      ok: false,
      error: { kind: 'invalid', problems: [problem], count: 1 },
    });
    const flat = `{"x":[${Array(2_000_000).fill('[]').join(',')}]}`;
    expect(verifyBlockText(flat)).toEqual(refusedWith(containers('250,000', '6,000,007')));
    // The marks in strings count as those outside them.
    const inStrings = `{"x":"${'['.repeat(300_000)}"}`;
    expect(read(inStrings)).toEqual({ ok: false, error: containers('250,000', '300,008') });
    expect(verifyBlockText(inStrings)).toEqual(refusedWith(containers('250,000', '300,008')));
    const numbers = `{"x":[${Array(2_100_000).fill('0').join(',')}]}`;
    expect(verifyBlockText(numbers)).toEqual(refusedWith(members('2,000,000', '4,200,007')));
    expect(verifyBlockText(nested(250_001))).toEqual(refusedWith(containers('250,000', '500,021')));
    // Under the bounds, a text is read: a block's problems, not the body's.
    const under = verifyBlockText(`{"x":[${Array(1_999_000).fill('0').join(',')}]}`);
    expect(under.ok || under.error.kind !== 'invalid' || under.error.problems[0]!.name).not.toBe('body');
  });

  it('read as before under the bounds: 250,000 nested, two million numbers, and real blocks however large', () => {
    expect(read(nested(250_000 - 1)).ok).toBe(true);
    expect(read(`{"x":[${Array(1_999_000).fill('0').join(',')}]}`).ok).toBe(true);
    // The densest real data: logs without topics or data, an array or object per 40 characters, a comma or colon per 13.5.
    const logs = Array.from({ length: 300_000 }, () => ({ address: `0x${'ab'.repeat(20)}`, topics: [], data: '0x' }));
    expect(read(JSON.stringify({ logs })).ok).toBe(true);
    for (const name of ['mainnet-15537394', 'mainnet-22869878'])
      expect(read(JSON.stringify(loadFixture(name))).ok, name).toBe(true);
  });
});
