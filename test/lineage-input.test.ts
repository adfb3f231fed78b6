/**
 * Lineage input that cannot be audited is bad input, through every door: the endpoint's
 * operation, the app, real HTTP on loopback, `lineage --bundle` in-process and as a real
 * process. A file or body that is not a bundle, a hostile bundle (values nested 100k deep,
 * 200k genesis logs) and a bundle beyond LINEAGE_LIMITS get a 400 / exit 2 naming the member
 * or limit: never an audit verdict, a 500, a stack trace or a crash.
 */
import { spawnSync } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyLineageOperation } from '../packages/core/src/api/lineage-operation.js';
import { runLineage } from '../packages/service/src/cli/lineage.js';
import { LINEAGE_LIMITS } from '../packages/core/src/lineage/sources/input-limits.js';
import { createApp } from '../packages/service/src/server/app.js';
import { startServer, type RunningServer } from '../packages/service/src/server/start-server.js';
import { MemoryStore } from '../packages/service/src/store/memory-store.js';
import { loadFixture } from './helpers/fixtures.js';
import { buildBundle, buildHeldBundle, PAIR_RECORD, WETH_RECORD } from './helpers/lineage-bundles.js';
import { capturingLogger, testConfig, auditorAccount } from './helpers/server.js';

type Json = Record<string, any>;
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = fileURLToPath(new URL('../packages/service/bin/evm-integrity.js', import.meta.url));
const T = 'aa'.repeat(18);
const id = (n: number) => n.toString(16).padStart(36, '0');
const dir = mkdtempSync(join(tmpdir(), 'evm-integrity-lineage-input-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// ---------------------------------------------------------------------------
// Bundles

const recordExchange = (tracingId: string, record: Json = {}, status = 200): Json => ({
  method: 'POST',
  path: '/evm/lineage/record',
  body: { chain_id: 1, tracing_id: tracingId },
  status,
  response:
    status === 200
      ? {
          chain_id: 1,
          data: {
            dataset: '0103',
            record: { tracing_id: tracingId, parent_tracing_ids: [], genesis_tracing_ids: [], ...record },
          },
        }
      : { error: { code: 'NOT_FOUND' } },
});
const genesisExchange = (
  tracingId: string,
  logs: unknown[],
  cursor: string | null = null,
  next: string | null = null,
  results: unknown[] = [],
): Json => ({
  method: 'POST',
  path: '/evm/lineage/genesis',
  body: { chain_id: 1, tracing_id: tracingId, ...(cursor !== null && { cursor }) },
  status: 200,
  response: {
    chain_id: 1,
    data: { dataset: '0103', genesis: { logs, function_results: results } },
    cursor: next,
    count: logs.length + results.length,
  },
});
/** A genesis of `pages` pages of `perPage` placeholder logs (not real: each fails log.shape, which is cheap). */
const pagedGenesis = (tracingId: string, pages: number, perPage = 1) =>
  Array.from({ length: pages }, (_, p) =>
    genesisExchange(
      tracingId,
      Array.from({ length: perPage }, () => ({})),
      p === 0 ? null : `page-${p}`,
      p + 1 < pages ? `page-${p + 1}` : null,
    ),
  );

/** JSON text of `levels` nested arrays; built as text, since JSON.stringify itself overflows on it. */
const nestedText = (levels: number) => `${'['.repeat(levels)}"x"${']'.repeat(levels)}`;
/** A bundle's JSON text with the value at the placeholder "DEEP" replaced by `levels` nested arrays. */
const withDeep = (bundle: Json, levels = 100_000) => JSON.stringify(bundle).replace('"DEEP"', nestedText(levels));

/** A bad bundle: its JSON text, and the invalid parameter the endpoint must name. */
interface BadCase {
  text: string;
  name: string | RegExp;
  reason: 'missing' | 'invalid_format' | 'out_of_range' | 'conflict';
  /** What the message must say. */
  says: RegExp;
}
const bad = (bundle: unknown, name: string | RegExp, reason: BadCase['reason'], says: RegExp): BadCase => ({
  text: typeof bundle === 'string' ? bundle : JSON.stringify(bundle),
  name,
  reason,
  says,
});

const fixture = loadFixture('mainnet-19426587');
const good = () => buildBundle() as unknown as Json;

const NOT_BUNDLES: Array<[string, BadCase]> = [
  ['{}', bad({}, 'bundle.exchanges', 'missing', /the hosted service's recorded request\/response pairs \(an array\)/)],
  ['a block fixture', bad(fixture, 'bundle.exchanges', 'missing', /this is a block, not a bundle/)],
  [
    'a receipt-root request body',
    bad(
      { chain_id: 1, receipt_root: 'ab'.repeat(32), transactions: [] },
      'bundle.exchanges',
      'missing',
      /recorded request\/response pairs/,
    ),
  ],
  [
    'exchanges that are not exchanges',
    bad({ exchanges: [{}] }, 'bundle.exchanges[0].method', 'missing', /"POST" or "GET"/),
  ],
  [
    'an exchange body that is not an object',
    bad(
      { exchanges: [{ ...recordExchange(T), body: 'x' }] },
      'bundle.exchanges[0].body',
      'invalid_format',
      /an object\), got "x"/,
    ),
  ],
  // The value given, quoted (it was "got a string": a user check), shortened, control characters escaped.
  [
    'a method that is neither POST nor GET',
    bad(
      { exchanges: [{ ...recordExchange(T), method: 'PUT' }] },
      'bundle.exchanges[0].method',
      'invalid_format',
      /"POST" or "GET", got "PUT"/,
    ),
  ],
  [
    'a path without its leading slash',
    bad(
      { exchanges: [{ ...recordExchange(T), path: 'evm/lineage/record' }] },
      'bundle.exchanges[0].path',
      'invalid_format',
      /such as "\/evm\/lineage\/record", got "evm\/lineage\/record"/,
    ),
  ],
  [
    'a long method with a control character',
    bad(
      { exchanges: [{ ...recordExchange(T), method: `P\u0007${'O'.repeat(500)}` }] },
      'bundle.exchanges[0].method',
      'invalid_format',
      /got "P\\u0007O{40,60}\.\.\.(\n|$)/,
    ),
  ],
  [
    'a status that is not an integer',
    bad(
      { exchanges: [{ ...recordExchange(T), status: '200' }] },
      'bundle.exchanges[0].status',
      'invalid_format',
      /an integer 100-599/,
    ),
  ],
  [
    'an exchange without response',
    bad(
      { exchanges: [{ ...recordExchange(T), response: undefined }] },
      'bundle.exchanges[0].response',
      'missing',
      /the JSON the service answered/,
    ),
  ],
  [
    'a tracing id that is not a string',
    bad(
      { exchanges: [{ ...recordExchange(T), body: { chain_id: 1, tracing_id: 7 } }] },
      'bundle.exchanges[0].body.tracing_id',
      'invalid_format',
      /got the number 7/,
    ),
  ],
  [
    'a cursor that is not a string',
    bad(
      {
        exchanges: [recordExchange(T), { ...genesisExchange(T, []), body: { chain_id: 1, tracing_id: T, cursor: 42 } }],
      },
      'bundle.exchanges[1].body.cursor',
      'invalid_format',
      /a string\), or null/,
    ),
  ],
  [
    'a 200 record answer without a record',
    bad(
      { exchanges: [{ ...recordExchange(T), response: { chain_id: 1, data: { dataset: '0103' } } }] },
      'bundle.exchanges[0].response.data.record',
      'invalid_format',
      /the record \(an object\)/,
    ),
  ],
  [
    'a genesis page whose logs are not a list',
    bad(
      {
        exchanges: [
          recordExchange(T),
          { ...genesisExchange(T, []), response: { data: { genesis: { logs: {} } }, cursor: null } },
        ],
      },
      'bundle.exchanges[1].response.data.genesis.logs',
      'invalid_format',
      /an array of logs/,
    ),
  ],
  [
    'a block without chain_id',
    bad(
      { ...good(), blocks: [{ header: fixture.header, receipts: fixture.receipts }] },
      'bundle.blocks[0].chain_id',
      'missing',
      /chain id/,
    ),
  ],
  [
    'a block without a number',
    bad(
      { ...good(), blocks: [{ chain_id: 1, header: { ...fixture.header, number: 'latest' }, receipts: [] }] },
      'bundle.blocks[0].header.number',
      'invalid_format',
      /block number/,
    ),
  ],
  [
    'a bundle that does not answer the record asked for',
    bad(
      { exchanges: [], blocks: [] },
      'bundle.exchanges',
      'missing',
      /answer to lineage\/record for tracing id 6de2\w+ on chain 1/,
    ),
  ],
  [
    'a recorded 500 where the record is needed',
    bad(
      { exchanges: [recordExchange(PAIR_RECORD, {}, 500)] },
      'bundle.exchanges[0].status',
      'invalid_format',
      /200 or 404.*got the number 500/,
    ),
  ],
  [
    'a genesis cursor that leads nowhere',
    bad(
      { exchanges: [recordExchange(PAIR_RECORD), genesisExchange(PAIR_RECORD, [{}], null, 'gone')] },
      'bundle.exchanges[1].response.cursor',
      'invalid_format',
      /the cursor of a lineage\/genesis page in the bundle, or null; there is no page at "gone"/,
    ),
  ],
];

/** A bundle whose parent is not answered at all (a recorded 404 would be a missing record). */
const parentNotAnswered = good();
parentNotAnswered.exchanges = parentNotAnswered.exchanges.filter(
  (e: Json) => !(e.path === '/evm/lineage/record' && e.body.tracing_id === WETH_RECORD),
);
NOT_BUNDLES.push([
  'a bundle that does not answer a parent',
  bad(
    parentNotAnswered,
    'bundle.exchanges',
    'missing',
    new RegExp(`answer to lineage/record for tracing id ${WETH_RECORD}`),
  ),
]);

const [RESERVE0, RESERVE1] = good().exchanges[0].response.data.record.reserves as [string, string];
const INEXACT =
  /an integer as a decimal string \(JSON numbers above 2\^53-1 lose precision when read\), got the number 9\.644384745430385e\+23/;
// Exact integers in the text, rounded by JSON.parse: a true claim is refused as input, never failed (nor a false one
// passed) on the rounded value.
NOT_BUNDLES.push(
  [
    "the record's reserves as exact JSON numbers beyond 2^53-1",
    bad(
      JSON.stringify(good()).replace(
        `"reserves":["${RESERVE0}","${RESERVE1}"]`,
        `"reserves":[${RESERVE0},${RESERVE1}]`,
      ),
      'bundle.exchanges[0].response.data.record.reserves[0]',
      'invalid_format',
      INEXACT,
    ),
  ],
  [
    "a function result's decoded_output as an exact JSON number beyond 2^53-1",
    bad(
      JSON.stringify(good()).replace(`"reserve0":"${RESERVE0}"`, `"reserve0":${RESERVE0}`),
      'bundle.exchanges[2].response.data.genesis.function_results[0].decoded_output.reserve0',
      'invalid_format',
      INEXACT,
    ),
  ],
  [
    "a genesis log's block_number beyond 2^53-1",
    bad(
      JSON.stringify(good()).replace(
        '"block_number":19426587,"tx_index"',
        '"block_number":9007199254740993,"tx_index"',
      ),
      'bundle.exchanges[1].response.data.genesis.logs[0].block_number',
      'invalid_format',
      /an integer as a decimal string \(JSON numbers above 2\^53-1 lose precision when read\), got the number 9007199254740992/,
    ),
  ],
);

const deepRecord = (member: string) => ({
  exchanges: [recordExchange(PAIR_RECORD, { [member]: 'DEEP' }), genesisExchange(PAIR_RECORD, [])],
});
const HOSTILE: Array<[string, BadCase]> = [
  [
    'a request cursor nested 100k deep',
    bad(
      withDeep({
        exchanges: [
          recordExchange(PAIR_RECORD),
          { ...genesisExchange(PAIR_RECORD, []), body: { chain_id: 1, tracing_id: PAIR_RECORD, cursor: 'DEEP' } },
        ],
      }),
      'bundle.exchanges[1].body.cursor',
      'invalid_format',
      /got an array/,
    ),
  ],
  [
    "a genesis answer's cursor nested 100k deep",
    bad(
      withDeep({ exchanges: [recordExchange(PAIR_RECORD), genesisExchange(PAIR_RECORD, [{}], null, 'DEEP')] }),
      'bundle.exchanges[1].response.cursor',
      'invalid_format',
      /got an array/,
    ),
  ],
  [
    'a request tracing id nested 100k deep',
    bad(
      withDeep({ exchanges: [{ ...recordExchange(PAIR_RECORD), body: { chain_id: 1, tracing_id: 'DEEP' } }] }),
      'bundle.exchanges[0].body.tracing_id',
      'invalid_format',
      /got an array/,
    ),
  ],
  [
    "a record's tracing_id nested 100k deep",
    bad(
      withDeep(deepRecord('tracing_id')),
      /^bundle\.exchanges\[0\]\.response\.data\.record\.tracing_id\[0\]/,
      'out_of_range',
      /64 levels of JSON nesting/,
    ),
  ],
  [
    "a record's parent list nested 100k deep",
    bad(
      withDeep(deepRecord('parent_tracing_ids')),
      /^bundle\.exchanges\[0\]\.response\.data\.record\.parent_tracing_ids/,
      'out_of_range',
      /levels of JSON nesting/,
    ),
  ],
  [
    // A faulty member is named before the nesting below it: reserves[0] is no integer.
    "a record's reserves nested 100k deep",
    bad(
      withDeep(deepRecord('reserves')),
      'bundle.exchanges[0].response.data.record.reserves[0]',
      'invalid_format',
      /a non-negative integer: a JSON number, or a decimal string of digits, got \[\[\[/,
    ),
  ],
  [
    'a block header member nested 100k deep',
    bad(
      withDeep({ ...good(), blocks: [{ chain_id: 1, header: { ...fixture.header, extra: 'DEEP' }, receipts: [] }] }),
      /^bundle\.blocks\[0\]\.header\.extra/,
      'out_of_range',
      /levels of JSON nesting/,
    ),
  ],
  [
    '200k genesis logs',
    bad(
      {
        exchanges: [
          recordExchange(PAIR_RECORD),
          genesisExchange(
            PAIR_RECORD,
            Array.from({ length: 200_000 }, () => ({})),
          ),
        ],
      },
      'bundle.exchanges[1].response.data.genesis',
      'out_of_range',
      /10000 genesis artifacts \(logs and function results\) per record/,
    ),
  ],
];

/** The fixture bundle with `change` made to a copy of it. */
const changed = (change: (bundle: Json) => void): Json => {
  const bundle = good();
  change(bundle);
  return bundle;
};
/** A copy of the fixture block with one log's data altered. */
const alteredBlock = (): Json => {
  const block = structuredClone(good().blocks[0]);
  const log = block.receipts.find((r: Json) => r.logs.length > 0).logs[0];
  log.data = `0x${'ff'.repeat((log.data.length - 2) / 2)}`;
  return block;
};
/** Upper-cased hex: the same value to a reader of hashes, another JSON string. */
const flippedHex = (hex: string) => hex.replace(/^(0x)?([0-9a-f])/, (_m, x = '', c) => `${x}${c === 'a' ? 'b' : 'a'}`);

/** Two different versions of one block or one answer: which one is meant cannot be told. */
const CONFLICTS: Array<[string, BadCase]> = [
  [
    'a block given twice, the second copy altered',
    bad(
      changed((b) => b.blocks.push(alteredBlock())),
      'bundle.blocks[1]',
      'conflict',
      /the same as blocks\[0\] \(block 19426587 of chain 1, given twice, must be given identically\), got another version/,
    ),
  ],
  [
    'a block given twice, the first copy altered',
    bad(
      changed((b) => b.blocks.unshift(alteredBlock())),
      'bundle.blocks[1]',
      'conflict',
      /the same as blocks\[0\] \(block 19426587 of chain 1/,
    ),
  ],
  [
    'a record answered twice (the tracing id spelled otherwise), differently',
    bad(
      changed((b) => {
        const again = structuredClone(b.exchanges[0]);
        again.body = { chain_id: 1, _tracing_id: PAIR_RECORD.toUpperCase() };
        again.response.data.record.block_number -= 1;
        b.exchanges.push(again);
      }),
      'bundle.exchanges[6]',
      'conflict',
      new RegExp(
        `the same as exchanges\\[0\\] \\(the answer to lineage/record for tracing id ${PAIR_RECORD.toUpperCase()} on chain 1,`,
      ),
    ),
  ],
  [
    'a genesis page answered twice, differently',
    bad(
      changed((b) => {
        const again = structuredClone(b.exchanges[2]);
        again.response.cursor = null;
        again.response.count = 0;
        delete again.response.page_count;
        again.response.data.genesis.function_results = [];
        b.exchanges.push(again);
      }),
      'bundle.exchanges[6]',
      'conflict',
      /the same as exchanges\[2\] \(the answer to lineage\/genesis for tracing id \w+ on chain 1 after cursor page-2,/,
    ),
  ],
  [
    'a raw block record listed twice in one answer, differently',
    bad(
      changed((b) => {
        const data = b.exchanges[5].response.data;
        data.push({ ...data[0], block_hash: flippedHex(data[0].block_hash) });
      }),
      'bundle.exchanges[5].response.data[1]',
      'conflict',
      /the same as data\[0\] \(the record of block 19426587, given twice/,
    ),
  ],
  [
    'a raw block record answered twice, differently',
    bad(
      changed((b) => {
        const again = structuredClone(b.exchanges[5]);
        again.response.data[0].receipt_root = flippedHex(again.response.data[0].receipt_root);
        b.exchanges.push(again);
      }),
      'bundle.exchanges[6]',
      'conflict',
      /the same as exchanges\[5\] \(the raw record of block 19426587 on chain 1, given twice/,
    ),
  ],
  [
    'a page of a raw dataset by range answered twice, differently',
    bad(
      changed((b) => {
        const page = (data: unknown[]) => ({
          method: 'POST',
          path: '/evm/raw/logs',
          body: { chain_id: 1, from_block: 19426587, to_block: 19426587 },
          status: 200,
          response: { chain_id: 1, data, cursor: null },
        });
        b.exchanges.push(page([]), page([{ block_number: 19426587 }]));
      }),
      'bundle.exchanges[7]',
      'conflict',
      /the same as exchanges\[6\] \(the answer to evm\/raw\/logs for blocks 19426587-19426587 on chain 1,/,
    ),
  ],
];

// ---------------------------------------------------------------------------
// Doors

/** The endpoint's operation; the bundle parsed from its text, as the server does. */
async function viaOperation(text: string, tracingId = PAIR_RECORD) {
  return verifyLineageOperation(JSON.parse(`{"chain_id":1,"tracing_id":"${tracingId}","bundle":${text}}`));
}

/** `lineage --bundle FILE` in-process: exit code and what it printed. */
async function viaCli(text: string, args: string[] = []) {
  const file = join(dir, `bundle-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, text);
  const out = { stdout: '', stderr: '' };
  const code = await runLineage(
    [PAIR_RECORD, '--chain', '1', '--bundle', file, ...args],
    { stdout: (t) => (out.stdout += t), stderr: (t) => (out.stderr += t) },
    {},
  );
  return { code, ...out, file };
}

/** The first invalid parameter of a 400 body. */
const parameterOf = (body: unknown) =>
  (body as Json).error.details.invalid_parameters[0] as { name: string; reason: string; expected: string };

function expectNamed(parameter: { name: string; reason: string; expected: string }, c: BadCase) {
  if (typeof c.name === 'string') expect(parameter.name).toBe(c.name);
  else expect(parameter.name).toMatch(c.name);
  expect(parameter.reason).toBe(c.reason);
  expect(parameter.expected).toMatch(c.says);
}

async function expectBadInput(c: BadCase) {
  const result = await viaOperation(c.text);
  expect(result.status).toBe(400);
  expect(result.verdict).toBe('invalid');
  const parameter = parameterOf(result.body);
  expectNamed(parameter, c);
  // The bundle array case is refused by the body's own schema (bundle: an object), the rest by the bundle's reader.
  const cli = await viaCli(c.text);
  expect(cli.code).toBe(2);
  expect(cli.stdout).toBe('');
  expect(cli.stderr).toMatch(new RegExp(`^evm-integrity: ${cli.file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: `));
  expect(cli.stderr).toMatch(c.says);
  expect(cli.stderr.split('\n').filter(Boolean)).toHaveLength(1);
}

describe('a file or body that is not a lineage bundle is bad input: 400 naming the member, exit 2', () => {
  it.each(NOT_BUNDLES)('%s', async (_name, c) => expectBadInput(c));

  it('an array is not a bundle', async () => {
    const result = await viaOperation('[]');
    expect(parameterOf(result.body)).toMatchObject({ name: 'bundle', reason: 'invalid_format' });
    const cli = await viaCli('[]');
    expect(cli.code).toBe(2);
    expect(cli.stderr).toMatch(
      /\.json: not a lineage bundle \(what lineage --record writes\): expected a bundle: a JSON object \{base_url, exchanges, blocks\}, got an array/,
    );
  });

  it('a recorded 404 for a parent is a missing record (a failed audit), not bad input', async () => {
    const bundle = good();
    const exchange = bundle.exchanges.find(
      (e: Json) => e.path === '/evm/lineage/record' && e.body.tracing_id === WETH_RECORD,
    );
    Object.assign(exchange, { status: 404, response: { error: { code: 'NOT_FOUND' } } });
    const result = await viaOperation(JSON.stringify(bundle));
    expect(result.status).toBe(200);
    expect(result.verdict).toBe('different');
    expect((await viaCli(JSON.stringify(bundle))).code).toBe(1);
  });
});

describe('a bundle giving one block or answer twice: identically is accepted, differently is bad input', () => {
  it.each(CONFLICTS)('%s: 400 naming the second copy, exit 2', async (_name, c) => expectBadInput(c));

  it('a raw block record answered for several blocks that names none of them: 400 naming its block_number, exit 2', async () =>
    expectBadInput(
      bad(
        changed((b) => {
          const raw = b.exchanges[5];
          raw.body.block_numbers = [19426587, 19426588];
          raw.response.data[0].block_number = 19426589;
        }),
        'bundle.exchanges[5].response.data[0].block_number',
        'invalid_format',
        /one of the blocks asked in body\.block_numbers .*, got the number 19426589/,
      ),
    ));

  it('every exchange and block again (members in another order) is audited; that copy altered is refused', async () => {
    const reordered = (value: Json): Json =>
      JSON.parse(JSON.stringify(Object.fromEntries(Object.entries(value).reverse())));
    // The bundle whose lineage passes, so that a copy read twice could show in the verdict.
    const twice = buildHeldBundle() as unknown as Json;
    twice.exchanges.push(...twice.exchanges.map(reordered));
    twice.blocks.push(...twice.blocks.map(reordered));
    const result = await viaOperation(JSON.stringify(twice));
    expect(result.status).toBe(200);
    expect(result.verdict).toBe('identical');
    expect((await viaCli(JSON.stringify(twice))).code).toBe(0);
    twice.blocks[1] = alteredBlock();
    await expectBadInput(bad(twice, 'bundle.blocks[1]', 'conflict', /the same as blocks\[0\]/));
  });
});

/** The pair's record (exchange 0) with `change` made to it. */
const pairRecordChanged = (change: (record: Json) => void) =>
  changed((b) => change(b.exchanges[0].response.data.record));
const SPELLED_TWICE: Array<[string, BadCase]> = [
  [
    'a parent listed only under _parent_tracing_ids beside an empty parent_tracing_ids',
    bad(
      pairRecordChanged((r) => (r.parent_tracing_ids = [])),
      'bundle.exchanges[0].response.data.record._parent_tracing_ids',
      'conflict',
      /the same as parent_tracing_ids beside it \(parent_tracing_ids and _parent_tracing_ids are one member spelled two ways: given both, they must agree\), got \[".{36}"\] beside \[\]/,
    ),
  ],
  [
    'tracing_id beside another _tracing_id',
    bad(
      pairRecordChanged((r) => (r.tracing_id = 'bb'.repeat(18))),
      'bundle.exchanges[0].response.data.record._tracing_id',
      'conflict',
      /the same as tracing_id beside it/,
    ),
  ],
  [
    'genesis_tracing_ids beside other _genesis_tracing_ids',
    bad(
      pairRecordChanged((r) => (r.genesis_tracing_ids = [])),
      'bundle.exchanges[0].response.data.record._genesis_tracing_ids',
      'conflict',
      /the same as genesis_tracing_ids beside it/,
    ),
  ],
  [
    "a genesis function result's tracing_id beside another _tracing_id (one was used silently: a user re-check)",
    bad(
      changed((b) =>
        Object.assign(b.exchanges[2].response.data.genesis.function_results[0], {
          tracing_id: 'f1c0'.repeat(9),
          _tracing_id: '29bd'.repeat(9),
        }),
      ),
      'bundle.exchanges[2].response.data.genesis.function_results[0]._tracing_id',
      'conflict',
      /the same as tracing_id beside it/,
    ),
  ],
  [
    "a genesis log's tracing_id beside another _tracing_id",
    bad(
      changed((b) =>
        Object.assign(b.exchanges[1].response.data.genesis.logs[0], {
          tracing_id: 'f1c0'.repeat(9),
          _tracing_id: '29bd'.repeat(9),
        }),
      ),
      'bundle.exchanges[1].response.data.genesis.logs[0]._tracing_id',
      'conflict',
      /the same as tracing_id beside it/,
    ),
  ],
  [
    "a request body's tracing_id beside another _tracing_id",
    bad(
      changed((b) => (b.exchanges[1].body.tracing_id = 'bb'.repeat(18))),
      'bundle.exchanges[1].body._tracing_id',
      'conflict',
      /the same as tracing_id beside it/,
    ),
  ],
];

describe('a genesis page whose count its own lists contradict is bad input (a count of 0 ended paging early)', () => {
  it.each([
    ['count 0 beside the Sync, before a page holding getReserves', 1, 'count', 0, /got 0/],
    [
      'page_count 2 beside one getReserves',
      2,
      'page_count',
      2,
      /: 1 \(0 in data\.genesis\.logs, 1 in data\.genesis\.function_results\), got 2/,
    ],
  ] as const)('%s', async (_name, index, member, value, says) => {
    const bundle = changed((b) => (b.exchanges[index].response[member] = value));
    await expectBadInput(bad(bundle, `bundle.exchanges[${index}].response.${member}`, 'conflict', says));
  });

  it('under both names, each must hold: page_count 0 beside a right count is bad input too (it was taken: a user re-check)', async () => {
    const bundle = changed((b) => {
      const page = b.exchanges[1].response;
      page.page_count = 0;
      page.count = page.data.genesis.logs.length + (page.data.genesis.function_results ?? []).length;
    });
    await expectBadInput(bad(bundle, 'bundle.exchanges[1].response.page_count', 'conflict', /got 0/));
  });
});

describe('integers the walk reads: a JSON number or a decimal string, one rule for every member', () => {
  const held = () => buildHeldBundle() as unknown as Json;
  const asStrings = (bundle: Json) => {
    const record = bundle.exchanges[0].response.data.record;
    for (const member of ['chain_id', 'block_number', 'tx_index', 'log_index']) record[member] = String(record[member]);
    const log = bundle.exchanges[1].response.data.genesis.logs[0];
    for (const member of ['block_number', 'tx_index', 'log_index']) log[member] = String(log[member]);
    return bundle;
  };

  it("a record's and a genesis log's integers as decimal strings are read as the numbers: the same report", async () => {
    const numbers = await viaOperation(JSON.stringify(held()));
    const strings = await viaOperation(JSON.stringify(asStrings(held())));
    expect(numbers.verdict).toBe('identical');
    expect(strings).toEqual(numbers);
  });

  it("an ERC-20 record's decimals as a decimal string: the same report", async () => {
    const bundle = good();
    const weth = bundle.exchanges.find(
      (e: Json) => e.path === '/evm/lineage/record' && e.body.tracing_id === WETH_RECORD,
    );
    const before = await viaOperation(JSON.stringify(bundle), WETH_RECORD);
    weth.response.data.record.decimals = '18';
    expect(await viaOperation(JSON.stringify(bundle), WETH_RECORD)).toEqual(before);
  });

  const FORMS = /a non-negative integer: a JSON number, or a decimal string of digits, got /;
  it.each([
    ['record', 'block_number', '0x1286d1b'],
    ['record', 'tx_index', '9.0'],
    ['record', 'log_index', ' 4'],
    ['record', 'chain_id', '+1'],
    ['record', 'decimals', -1],
    ['genesis log', 'tx_index', '0x9'],
    ['genesis log', 'log_index', 4.5],
  ] as const)("a %s's %s of %j is bad input naming it", async (where, member, value) => {
    const bundle = held();
    const path =
      where === 'record' ? 'exchanges[0].response.data.record' : 'exchanges[1].response.data.genesis.logs[0]';
    const object =
      where === 'record' ? bundle.exchanges[0].response.data.record : bundle.exchanges[1].response.data.genesis.logs[0];
    object[member] = value;
    await expectBadInput(
      bad(
        bundle,
        `bundle.${path}.${member}`,
        'invalid_format',
        new RegExp(`${FORMS.source}${JSON.stringify(value).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`),
      ),
    );
  });

  it.each(['0xcc3a5080dedbcda4ad89', '964438474543038460112265.0'])(
    'reserves written %j (hex, a fraction) are bad input naming the item, no longer read as BigInt reads them',
    async (written) => {
      const bundle = held();
      bundle.exchanges[0].response.data.record.reserves[0] = written;
      await expectBadInput(
        bad(bundle, 'bundle.exchanges[0].response.data.record.reserves[0]', 'invalid_format', FORMS),
      );
    },
  );
});

describe('a member given in both spellings (name and legacy _name): differing is bad input naming both', () => {
  it.each(SPELLED_TWICE)('%s: 400, exit 2', async (_name, c) => expectBadInput(c));

  it('both spellings alike (ids in another case) are read as one: the parent is walked', async () => {
    const bundle = pairRecordChanged((r) => {
      r.tracing_id = r._tracing_id.toUpperCase();
      // A list of ids is a set: the same ids in another order agree (they were refused: a user re-check).
      r.genesis_tracing_ids = [...r._genesis_tracing_ids].reverse();
      r.parent_tracing_ids = r._parent_tracing_ids.map((p: string) => p.toUpperCase());
    });
    const result = await viaOperation(JSON.stringify(bundle));
    expect(result.status).toBe(200);
    expect((result.body as Json).data[0].records.map((r: Json) => r.tracing_id)).toEqual([
      PAIR_RECORD,
      WETH_RECORD.toUpperCase(),
    ]);
  });
});

describe('a spelling given as null beside the other claims nothing: read as the other alone (it was a conflict)', () => {
  it.each([
    ["a record's tracing_id", (b: Json) => (b.exchanges[0].response.data.record.tracing_id = null)],
    ["a record's parent_tracing_ids", (b: Json) => (b.exchanges[0].response.data.record.parent_tracing_ids = null)],
    ["a record's genesis_tracing_ids", (b: Json) => (b.exchanges[0].response.data.record.genesis_tracing_ids = null)],
    [
      "a genesis function result's tracing_id",
      (b: Json) => (b.exchanges[2].response.data.genesis.function_results[0].tracing_id = null),
    ],
    ["a request body's tracing_id", (b: Json) => (b.exchanges[1].body.tracing_id = null)],
  ])('%s null beside its _ spelling: the same report, by the endpoint and the CLI', async (_name, nulled) => {
    // The function result carries its id in the legacy spelling alone, so that the null one stands beside it.
    const alone = changed(
      (b) => (b.exchanges[2].response.data.genesis.function_results[0]._tracing_id = '29bd'.repeat(9)),
    );
    const both = structuredClone(alone);
    nulled(both);
    const expected = await viaOperation(JSON.stringify(alone));
    expect(expected.status).toBe(200);
    expect(await viaOperation(JSON.stringify(both))).toEqual(expected);
    const [cli, cliAlone] = [
      await viaCli(JSON.stringify(both), ['--json']),
      await viaCli(JSON.stringify(alone), ['--json']),
    ];
    expect([cli.code, cli.stdout, cli.stderr]).toEqual([cliAlone.code, cliAlone.stdout, cliAlone.stderr]);
  });
});

describe('hostile bundles are bad input, never a stack overflow, a 500 or a crash', () => {
  it.each(HOSTILE)('%s', async (_name, c) => expectBadInput(c));

  it('nesting up to the limit is audited', async () => {
    // bundle (1) > exchanges (2) > exchange (3) > response (4) > data (5) > record (6) > 58 arrays: level 64.
    const text = withDeep(deepRecord('details'), LINEAGE_LIMITS.jsonDepth - 6);
    const result = await viaOperation(text);
    expect(result.status).toBe(200);
    const deeper = await viaOperation(withDeep(deepRecord('details'), LINEAGE_LIMITS.jsonDepth - 5));
    expect(parameterOf(deeper.body)).toMatchObject({
      reason: 'out_of_range',
      name: expect.stringMatching(/^bundle\.exchanges\[0\]\.response\.data\.record\.details\[0\]/),
    });
  });
});

describe('LINEAGE_LIMITS: within them audited, beyond them 400 naming the limit', () => {
  const genesisOf = (pages: number) => ({
    exchanges: [recordExchange(PAIR_RECORD), ...pagedGenesis(PAIR_RECORD, pages)],
  });
  /** A record whose parents are `parents` records, each with `artifacts` placeholder logs. */
  const family = (parents: number, artifacts = 0) => ({
    exchanges: [
      recordExchange(PAIR_RECORD, { parent_tracing_ids: Array.from({ length: parents }, (_, i) => id(i + 1)) }),
      ...Array.from({ length: parents }, (_, i) => [
        recordExchange(id(i + 1)),
        ...(artifacts > 0
          ? [
              genesisExchange(
                id(i + 1),
                Array.from({ length: artifacts }, () => ({})),
              ),
            ]
          : []),
      ]).flat(),
    ],
  });
  /** A chain of `depth` parents below the record. */
  const chain = (depth: number) => ({
    exchanges: Array.from({ length: depth + 1 }, (_, i) =>
      recordExchange(i === 0 ? PAIR_RECORD : id(i), { parent_tracing_ids: i < depth ? [id(i + 1)] : [] }),
    ),
  });
  const expectLimit = async (bundle: unknown, name: string | RegExp, says: RegExp) =>
    expectBadInput(bad(bundle, name, 'out_of_range', says));
  const expectAudited = async (bundle: unknown) =>
    expect((await viaOperation(JSON.stringify(bundle))).status).toBe(200);

  it("genesis pages per record: the issue's 20,000 pages are refused", async () => {
    await expectLimit(
      genesisOf(20_000),
      `bundle.exchanges[${LINEAGE_LIMITS.genesisPages}].response.cursor`,
      /the genesis of 6de2\w+ has more than the limit of 1000 lineage\/genesis pages per record|at most 1000 lineage\/genesis pages per record; the genesis of 6de2\w+ has more/,
    );
  });

  it('genesis pages per record: exactly the limit is audited, one more page is refused', async () => {
    await expectAudited(genesisOf(LINEAGE_LIMITS.genesisPages));
    await expectLimit(
      genesisOf(LINEAGE_LIMITS.genesisPages + 1),
      /^bundle\.exchanges\[\d+\]\.response\.cursor$/,
      /1000 lineage\/genesis pages per record/,
    );
  });

  it('artifacts per record: exactly the limit is audited, one more is refused', async () => {
    const artifacts = (n: number) => ({
      exchanges: [
        recordExchange(PAIR_RECORD),
        genesisExchange(
          PAIR_RECORD,
          Array.from({ length: n - 1 }, () => ({})),
          null,
          null,
          [{}],
        ),
      ],
    });
    await expectAudited(artifacts(LINEAGE_LIMITS.recordArtifacts));
    await expectLimit(
      artifacts(LINEAGE_LIMITS.recordArtifacts + 1),
      'bundle.exchanges[1].response.data.genesis',
      /10000 genesis artifacts/,
    );
  });

  it('artifacts in one lineage: 10 parents of 10,000 are audited, 11 are refused', async () => {
    await expectAudited(
      family(LINEAGE_LIMITS.lineageArtifacts / LINEAGE_LIMITS.recordArtifacts, LINEAGE_LIMITS.recordArtifacts),
    );
    await expectLimit(
      family(LINEAGE_LIMITS.lineageArtifacts / LINEAGE_LIMITS.recordArtifacts + 1, LINEAGE_LIMITS.recordArtifacts),
      'bundle',
      /100000 genesis artifacts in one lineage/,
    );
  });

  it('records in one lineage: the record and 9,999 parents are audited, 10,000 parents are refused', async () => {
    await expectAudited(family(LINEAGE_LIMITS.records - 1));
    await expectLimit(family(LINEAGE_LIMITS.records), 'bundle', /10000 records in one lineage/);
  });

  it('levels of parents: 256 below the record are audited, 257 are refused', async () => {
    await expectAudited(chain(LINEAGE_LIMITS.parentDepth));
    await expectLimit(chain(LINEAGE_LIMITS.parentDepth + 1), 'bundle', /256 levels of parents/);
  });

  it('exchanges and blocks in a bundle', async () => {
    const exchanges = Array.from({ length: LINEAGE_LIMITS.bundleExchanges + 1 }, () => ({
      method: 'POST',
      path: '/evm/raw/logs',
      body: {},
      status: 200,
      response: null,
    }));
    await expectLimit(
      { exchanges },
      'bundle.exchanges',
      /the bundle \(100001 exchanges\) has more|100000 exchanges in a bundle/,
    );
    const blocks = Array.from({ length: LINEAGE_LIMITS.bundleBlocks + 1 }, (_, i) => ({
      chain_id: 1,
      header: { number: i },
      receipts: [],
    }));
    await expectLimit({ exchanges: [], blocks }, 'bundle.blocks', /10000 blocks in a bundle/);
  });
});

describe('a long audit does not hold the event loop', () => {
  it("timers (a server's other requests, such as health) run while a large lineage is walked", async () => {
    const text = JSON.stringify({
      exchanges: [
        recordExchange(PAIR_RECORD),
        genesisExchange(
          PAIR_RECORD,
          Array.from({ length: 5_000 }, () => ({})),
        ),
      ],
    });
    const order: string[] = [];
    const timer = new Promise<void>((resolve) => setTimeout(() => resolve(void order.push('timer')), 0));
    const audit = viaOperation(text).then((result) => void order.push(`audit ${result.status}`));
    await Promise.all([timer, audit]);
    expect(order).toEqual(['timer', 'audit 200']);
  });
});

describe('the endpoint and lineage --bundle give the same answer for the same bundle', () => {
  const tampered = good();
  tampered.blocks[0].receipts.pop();
  const cases: Array<[string, string]> = [
    ['a good bundle', JSON.stringify(good())],
    ['a bundle whose lineage passes', JSON.stringify(buildHeldBundle())],
    ['a tampered bundle', JSON.stringify(tampered)],
    ['not a bundle', '{}'],
    ['a hostile bundle', HOSTILE[1]![1].text],
    [
      'a bundle beyond a limit',
      JSON.stringify({
        exchanges: [recordExchange(PAIR_RECORD), ...pagedGenesis(PAIR_RECORD, LINEAGE_LIMITS.genesisPages + 1)],
      }),
    ],
  ];
  it.each(cases)('%s', async (_name, text) => {
    const result = await viaOperation(text);
    const cli = await viaCli(text, ['--json']);
    if (result.status === 200) {
      expect(cli.code).toBe({ identical: 0, different: 1, not_verifiable: 2 }[result.verdict as string]);
      expect(JSON.parse(cli.stdout)).toEqual((result.body as Json).data[0]);
    } else {
      expect(result.status).toBe(400);
      expect(cli.code).toBe(2);
      const parameter = parameterOf(result.body);
      expect(cli.stderr).toContain(parameter.name.replace(/^bundle\.?/, ''));
      expect(cli.stderr).toContain(parameter.expected.split(';')[0]);
    }
  });
});

// ---------------------------------------------------------------------------
// Over HTTP and as a real process

describe('over HTTP: the app, and the real server on loopback', () => {
  const KEY = 'evmi_lineage-input-test-key-0123456789abcdef';
  const config = testConfig({
    host: '127.0.0.1',
    port: 0,
    accounts: [auditorAccount(KEY, 'test')],
  });
  let server: RunningServer;
  beforeAll(async () => void (server = await startServer(config, { logger: capturingLogger().logger })));
  afterAll(() => server?.close());
  const body = (text: string) => `{"chain_id":1,"tracing_id":"${PAIR_RECORD}","bundle":${text}}`;
  const request = { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${KEY}` } };
  const cases: Array<[string, BadCase]> = [NOT_BUNDLES[0]!, HOSTILE[0]!, HOSTILE[1]!, HOSTILE[3]!, HOSTILE[7]!];

  it.each(cases)('%s: 400 from the app', async (_name, c) => {
    const store = new MemoryStore();
    const app = createApp({ config, store, logger: capturingLogger().logger });
    await store.createAccount(
      { id: 'a', name: 'A', plan: 'pro', cuLimit: 10, rateLimitRps: 100, entitlements: null },
      new Date(),
    );
    const { key } = await store.createKey('a', 'k', new Date());
    const res = await app.request('/v1/evm/verify/lineage', {
      ...request,
      headers: { ...request.headers, Authorization: `Bearer ${key}` },
      body: body(c.text),
    });
    expect(res.status).toBe(400);
    expectNamed(parameterOf(await res.json()), c);
  });

  it.each(cases)('%s: 400 over loopback, and the server still answers', async (_name, c) => {
    const res = await fetch(`${server.url}/v1/evm/verify/lineage`, { ...request, body: body(c.text) });
    expect(res.status).toBe(400);
    expectNamed(parameterOf(await res.json()), c);
    expect((await fetch(`${server.url}/v1/health`)).status).toBe(200);
  });

  it('tracing_id and _tracing_id differing: 400 naming both, over loopback (one was taken silently: a user check); alike, in any case, read as one', async () => {
    const send = (members: Json) =>
      fetch(`${server.url}/v1/evm/verify/lineage`, {
        ...request,
        body: JSON.stringify({ chain_id: 1, ...members, bundle: buildHeldBundle() }),
      });
    for (const members of [
      { tracing_id: PAIR_RECORD, _tracing_id: WETH_RECORD },
      { _tracing_id: WETH_RECORD, tracing_id: PAIR_RECORD },
    ]) {
      const res = await send(members);
      expect(res.status).toBe(400);
      const json = (await res.json()) as Json;
      expect(json.error.details.invalid_parameters).toEqual([
        {
          name: '_tracing_id',
          location: 'body',
          reason: 'conflict',
          expected: `the same as tracing_id beside it (tracing_id and _tracing_id are one member spelled two ways: given both, they must agree), got "${WETH_RECORD}" beside "${PAIR_RECORD}"`,
        },
      ]);
    }
    const alike = await send({ tracing_id: PAIR_RECORD, _tracing_id: PAIR_RECORD.toUpperCase() });
    expect(alike.status).toBe(200);
    expect(await alike.json()).toMatchObject({ data: [{ verdict: 'pass', tracing_id: PAIR_RECORD }] });
  });

  it('one spelling of the tracing id null says nothing, over loopback: the other is the tracing id (it was 400 naming the null one: a user re-check); both null or left out is 400 missing', async () => {
    const send = (members: Json) =>
      fetch(`${server.url}/v1/evm/verify/lineage`, {
        ...request,
        body: JSON.stringify({ chain_id: 1, ...members, bundle: buildHeldBundle() }),
      });
    for (const members of [
      { tracing_id: null, _tracing_id: PAIR_RECORD },
      { tracing_id: PAIR_RECORD, _tracing_id: null },
      { _tracing_id: null, tracing_id: PAIR_RECORD.toUpperCase() },
    ]) {
      const res = await send(members);
      expect(res.status).toBe(200);
      const [report] = ((await res.json()) as Json).data;
      expect(report).toMatchObject({ verdict: 'pass' });
      expect(report.tracing_id.toLowerCase()).toBe(PAIR_RECORD);
    }
    for (const members of [{ tracing_id: null, _tracing_id: null }, { tracing_id: null }, {}]) {
      const res = await send(members);
      expect(res.status).toBe(400);
      expect(((await res.json()) as Json).error.details.invalid_parameters).toEqual([
        { name: 'tracing_id', location: 'body', reason: 'missing', expected: 'a tracing id of 36 hex characters' },
      ]);
    }
    // A spelling that is given is read: one not a tracing id is still refused, naming it.
    const wrong = await send({ tracing_id: 7, _tracing_id: PAIR_RECORD });
    expect(wrong.status).toBe(400);
    expect(((await wrong.json()) as Json).error.details.invalid_parameters).toMatchObject([
      { name: 'tracing_id', reason: 'invalid_format' },
    ]);
  });

  it('a good bundle is still audited over loopback', async () => {
    const res = await fetch(`${server.url}/v1/evm/verify/lineage`, {
      ...request,
      body: body(JSON.stringify(buildHeldBundle())),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ data: [{ verdict: 'pass' }] });
  });
});

describe('evm-integrity lineage --bundle as a real process', () => {
  const inexact = NOT_BUNDLES.filter(([name]) => name.includes('2^53-1'));
  const cases: Array<[string, BadCase]> = [
    NOT_BUNDLES[0]!,
    NOT_BUNDLES[1]!,
    ...inexact,
    HOSTILE[1]!,
    HOSTILE[3]!,
    HOSTILE[7]!,
    CONFLICTS[0]!,
  ];
  it.each(cases)('%s: exit 2, one line naming what is wrong, no stack trace', (_name, c) => {
    const file = join(dir, 'process.json');
    writeFileSync(file, c.text);
    const result = spawnSync(process.execPath, [BIN, 'lineage', PAIR_RECORD, '--chain', '1', '--bundle', file], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    expect(result.status).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(c.says);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(result.stderr.split('\n').filter(Boolean)).toHaveLength(1);
  });
});

describe('evm-integrity lineage --bundle as a real process: a failing block', () => {
  it("receipts that do not give the block's root: the reason says the N receipts give it, in agreement", () => {
    const bundle = good();
    const receipt = bundle.blocks[0].receipts.find((r: Json) => r.logs.length > 0);
    receipt.logs[0].data = `0x${'ff'.repeat(32)}`;
    const file = join(dir, 'tampered.json');
    writeFileSync(file, JSON.stringify(bundle));
    const result = spawnSync(process.execPath, [BIN, 'lineage', PAIR_RECORD, '--chain', '1', '--bundle', file], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    expect(result.status).toBe(1);
    const count = bundle.blocks[0].receipts.length;
    expect(result.stdout).toMatch(
      new RegExp(
        `first failure: block\\.receipts_root \\(block \\d+\\): the ${count} receipts give [0-9a-f]{64}, not `,
      ),
    );
  });
});

describe('lineage --service: the live service gets the same limits', () => {
  it('a genesis that never ends: exit 2 naming the page limit, after exactly that many pages', async () => {
    let pages = 0;
    const service = createServer(async (req, res) => {
      let text = '';
      for await (const chunk of req) text += chunk;
      const sent = JSON.parse(text) as Json;
      const answer =
        req.url === '/v1/evm/lineage/record'
          ? recordExchange(sent.tracing_id).response
          : genesisExchange(sent.tracing_id, [{}], null, `page-${++pages}`).response;
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(answer));
    });
    await new Promise<void>((resolve) => service.listen(0, '127.0.0.1', resolve));
    try {
      const out = { stdout: '', stderr: '' };
      const url = `http://127.0.0.1:${(service.address() as AddressInfo).port}/v1`;
      const code = await runLineage(
        [PAIR_RECORD, '--chain', '1', '--service', url],
        { stdout: (t) => (out.stdout += t), stderr: (t) => (out.stderr += t) },
        { EVM_DATA_SERVICE_API_KEY: 'k' },
      );
      expect(code).toBe(2);
      expect(out.stderr).toBe(
        `evm-integrity: the genesis of ${PAIR_RECORD} has more than the limit of ${LINEAGE_LIMITS.genesisPages} lineage/genesis pages per record\n`,
      );
      expect(pages).toBe(LINEAGE_LIMITS.genesisPages);
    } finally {
      await new Promise((resolve) => service.close(resolve));
    }
  });
});
