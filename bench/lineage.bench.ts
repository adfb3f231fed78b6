/**
 * Lineage audits of large bundles through the endpoint's operation (the CLI's path too): a
 * genesis paged 20k times (the case, now refused at the page limit), 20k pages spread
 * over records within the limits, and the largest lineages the limits admit, by artifacts and
 * by records, every genesis log a real log of mainnet block 19426587 (so every on-chain check runs
 * and passes; the verdict is not_verifiable, since a raw-log record's dataset, 0103, is not
 * cross-checked). Milliseconds of one audit (median of 3), bundle size, checks.
 */
import { readFileSync } from 'node:fs';
import { verifyLineageOperation } from '../packages/core/src/api/lineage-operation.js';
import { LINEAGE_LIMITS } from '../packages/core/src/lineage/sources/input-limits.js';
import { timeMsAsync } from './timing.js';

const BLOCK = JSON.parse(readFileSync('fixtures/blocks/mainnet-19426587.json', 'utf8'));
const strip = (hex: string) => hex.replace(/^0x/, '').toLowerCase();
const blockTime = new Date(Number(BLOCK.header.timestamp) * 1000).toISOString();
/** Every log of the block as a genesis log, position within its transaction. */
const REAL_LOGS = (
  BLOCK.receipts as Array<{ logs: Array<{ address: string; topics: string[]; data: string }> }>
).flatMap((receipt, tx) =>
  receipt.logs.map((log, i) => ({
    block_number: Number(BLOCK.header.number),
    tx_index: tx,
    log_index: i,
    contract_address: strip(log.address),
    topics: log.topics.map(strip),
    data: strip(log.data),
    block_time: blockTime,
  })),
);
const realLog = (n: number) => REAL_LOGS[n % REAL_LOGS.length]!;
const id = (n: number) => n.toString(16).padStart(36, '0');

/**
 * A bundle of `records` records (the first asks for all others as parents), each with `pages` pages of `perPage` real
 * logs.
 */
function bundle(records: number, pages: number, perPage: number) {
  const exchanges: unknown[] = [];
  for (let r = 0; r < records; r++) {
    const parents = r === 0 ? Array.from({ length: records - 1 }, (_, p) => id(p + 1)) : [];
    const record = {
      tracing_id: id(r),
      genesis_tracing_ids: [],
      parent_tracing_ids: parents,
      block_number: Number(BLOCK.header.number),
    };
    exchanges.push({
      method: 'POST',
      path: '/evm/lineage/record',
      body: { chain_id: 1, tracing_id: id(r) },
      status: 200,
      response: { chain_id: 1, data: { dataset: '0103', record } },
    });
    for (let p = 0; p < pages; p++) {
      const logs = Array.from({ length: perPage }, (_, i) => realLog(p * perPage + i));
      const response = {
        chain_id: 1,
        data: { dataset: '0103', genesis: { logs, function_results: [] } },
        cursor: p + 1 < pages ? `page-${p + 1}` : null,
        count: perPage,
      };
      exchanges.push({
        method: 'POST',
        path: '/evm/lineage/genesis',
        body: { chain_id: 1, tracing_id: id(r), ...(p > 0 && { cursor: `page-${p}` }) },
        status: 200,
        response,
      });
    }
  }
  return { exchanges, blocks: [{ chain_id: 1, header: BLOCK.header, receipts: BLOCK.receipts }] };
}

const cases: Array<[string, ReturnType<typeof bundle>]> = [
  ['1 record, 20,000 genesis pages of 1 log (beyond the page limit: refused)', bundle(1, 20_000, 1)],
  ['20 records x 1,000 pages of 1 log (20,000 pages)', bundle(20, LINEAGE_LIMITS.genesisPages, 1)],
  [
    `10 records x 10,000 logs (the ${LINEAGE_LIMITS.lineageArtifacts.toLocaleString('en')}-artifact limit, 40 pages of 250)`,
    bundle(10, 40, 250),
  ],
  [
    `${LINEAGE_LIMITS.records.toLocaleString('en')} records x 10 logs (the record limit)`,
    bundle(LINEAGE_LIMITS.records, 1, 10),
  ],
];

console.log('| bundle | MB | status | checks | ms |');
console.log('|---|---:|---:|---:|---:|');
for (const [name, b] of cases) {
  const body = { chain_id: 1, tracing_id: id(0), bundle: b };
  const mb = (JSON.stringify(b).length / 1e6).toFixed(1);
  let result = await verifyLineageOperation(body);
  const ms = await timeMsAsync(async () => (result = await verifyLineageOperation(body)), 3);
  const data = (
    result.body as { data?: Array<{ verdict: string; summary: { pass: number; fail: number; skipped: number } }> }
  ).data?.[0];
  const checks =
    data === undefined ? '-' : `${data.summary.pass + data.summary.fail + data.summary.skipped} (${data.verdict})`;
  console.log(`| ${name} | ${mb} | ${result.status} | ${checks} | ${ms.toFixed(0)} |`);
}
