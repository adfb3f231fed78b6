/**
 * Lineage bundles built from a real block (fixtures/blocks/mainnet-19426587.json):
 * the WETH ERC-20 record (0201), whose genesis holds its name/symbol/decimals
 * results and a real WETH Transfer log, and a Uniswap-V2 pair's reserve snapshot
 * (0301) whose genesis holds the pair's real Sync log of that block and a
 * consistent getReserves result; the WETH record is its parent.
 */
import { bytesToHex, defaultKeccak256 } from '../../packages/core/src/index.js';
import type { Bundle } from '../../packages/core/src/bundle/bundle-source.js';
import { encodeFunctionOutput } from './abi-encode.js';
import { loadFixture } from './fixtures.js';

const id = (label: string) => bytesToHex(defaultKeccak256(new TextEncoder().encode(label))).slice(0, 36);
export const WETH_RECORD = id('weth erc-20 record');
export const PAIR_RECORD = id('pair reserves record');
export const WETH = 'c02aaa39b223fe8d0a0e5c4f27ead9083c756cc2';
export const PAIR = '515d459555f8c1fcf2791ded819b73b60a80b8e3';
const BLOCK = 19426587;
const SELECTOR = { name: '06fdde03', symbol: '95d89b41', decimals: '313ce567', getReserves: '0902f1ac' };

const strip = (hex: string) => hex.replace(/^0x/, '').toLowerCase();
const hexOut = (name: string, value: unknown) => {
  const out = encodeFunctionOutput(name, value as never);
  return typeof out === 'string' ? strip(out) : bytesToHex(out);
};

export function buildBundle(): Bundle {
  const fixture = loadFixture('mainnet-19426587');
  const receipts = fixture.receipts as Array<{
    transactionIndex: string;
    logs: Array<{ address: string; topics: string[]; data: string }>;
  }>;
  const tx9 = receipts.find((r) => Number(r.transactionIndex) === 9)!;
  const blockTime = new Date(Number(fixture.header.timestamp) * 1000).toISOString();
  const genesisLog = (logIndex: number) => {
    const log = tx9.logs[logIndex]!;
    // No tx_hash: the fixture block gives no transaction hashes, so one could not be compared (log.tx_hash).
    return {
      block_number: BLOCK,
      tx_index: 9,
      log_index: logIndex,
      contract_address: strip(log.address),
      topics: log.topics.map(strip),
      data: strip(log.data),
      block_time: blockTime,
    };
  };
  const sync = genesisLog(4);
  const reserve0 = BigInt(`0x${sync.data.slice(0, 64)}`).toString();
  const reserve1 = BigInt(`0x${sync.data.slice(64)}`).toString();
  const timestampLast = Number(fixture.header.timestamp) % 2 ** 32;

  const wethRecord = {
    chain_id: 1,
    address: WETH,
    block_number: BLOCK,
    block_time: blockTime,
    tx_index: 9,
    log_index: 3,
    name: 'Wrapped Ether',
    symbol: 'WETH',
    decimals: 18,
    tracing_id: WETH_RECORD,
    genesis_tracing_ids: [id('weth transfer log'), id('weth name'), id('weth symbol'), id('weth decimals')],
    parent_tracing_ids: [],
  };
  const pairRecord = {
    chain_id: 1,
    address: PAIR,
    pool_uid: PAIR.padStart(64, '0'),
    exchange_id: 1,
    block_number: BLOCK,
    block_time: blockTime,
    tx_index: 9,
    log_index: 4,
    reserves: [reserve0, reserve1],
    current_tick: null,
    current_sqrt_price: null,
    current_bin: null,
    _tracing_id: PAIR_RECORD,
    _genesis_tracing_ids: [id('pair sync log'), id('pair getReserves')],
    _parent_tracing_ids: [WETH_RECORD],
  };
  const result = (contract: string, name: keyof typeof SELECTOR, value: unknown, decoded: unknown) => ({
    contract,
    selector: SELECTOR[name],
    decoded_name: name,
    output: hexOut(name, value),
    decoded_output: decoded,
  });

  return {
    base_url: 'https://example.invalid/v1',
    exchanges: [
      {
        method: 'POST',
        path: '/evm/lineage/record',
        body: { chain_id: 1, tracing_id: PAIR_RECORD },
        status: 200,
        response: { chain_id: 1, data: { dataset: 'svc_evm.b0301_liquidity_pools_reserves_v1', record: pairRecord } },
      },
      {
        method: 'POST',
        path: '/evm/lineage/genesis',
        body: { chain_id: 1, _tracing_id: PAIR_RECORD, limit: 1 },
        status: 200,
        response: {
          chain_id: 1,
          data: { dataset: '0301', _tracing_id: PAIR_RECORD, genesis: { logs: [sync], function_results: [] } },
          cursor: 'page-2',
          count: 1,
        },
      },
      {
        method: 'POST',
        path: '/evm/lineage/genesis',
        body: { chain_id: 1, tracing_id: PAIR_RECORD, cursor: 'page-2', limit: 1 },
        status: 200,
        response: {
          chain_id: 1,
          data: {
            dataset: '0301',
            _tracing_id: PAIR_RECORD,
            genesis: {
              logs: [],
              function_results: [
                result(
                  PAIR,
                  'getReserves',
                  { reserve0, reserve1, block_timestamp_last: timestampLast },
                  { reserve0, reserve1, block_timestamp_last: timestampLast },
                ),
              ],
            },
          },
          cursor: null,
          page_count: 1,
        },
      },
      {
        method: 'POST',
        path: '/evm/lineage/record',
        body: { chain_id: 1, tracing_id: WETH_RECORD },
        status: 200,
        response: { chain_id: 1, data: { dataset: '0201', record: wethRecord } },
      },
      {
        method: 'POST',
        path: '/evm/lineage/genesis',
        body: { chain_id: 1, tracing_id: WETH_RECORD },
        status: 200,
        response: {
          chain_id: 1,
          data: {
            dataset: '0201',
            _tracing_id: WETH_RECORD,
            genesis: {
              logs: [genesisLog(3)],
              function_results: [
                result(WETH, 'name', 'Wrapped Ether', { value: 'Wrapped Ether' }),
                result(WETH, 'symbol', 'WETH', { value: 'WETH' }),
                result(WETH, 'decimals', 18, { value: 18 }),
              ],
            },
          },
          cursor: null,
          count: 4,
        },
      },
      {
        method: 'POST',
        path: '/evm/raw/blocks',
        body: { chain_id: 1, block_numbers: [BLOCK] },
        status: 200,
        response: {
          chain_id: 1,
          data: [
            {
              block_number: BLOCK,
              block_hash: strip(fixture.header.hash!),
              receipt_root: strip(fixture.header.receiptsRoot!),
            },
          ],
          cursor: null,
          count: 1,
        },
      },
    ],
    blocks: [{ chain_id: 1, header: fixture.header, receipts: fixture.receipts }],
  };
}

/** The record answer of a tracing id in the bundle (mutable, for tampering). */
export function recordOf(bundle: Bundle, tracingId: string): Record<string, any> {
  const exchange = bundle.exchanges.find(
    (e) => e.path === '/evm/lineage/record' && (e.body.tracing_id ?? e.body._tracing_id) === tracingId,
  )!;
  return (exchange.response as any).data.record;
}

/**
 * The pair's reserve snapshot alone, claiming only what its genesis holds to the chain: no WETH parent (whose name,
 * symbol and decimals rest only on function results), no pool_uid and exchange_id (held by no artifact). Every field
 * it keeps is held to the chain: the one lineage here that passes.
 */
export function buildHeldBundle(): Bundle {
  const bundle = buildBundle();
  const record = recordOf(bundle, PAIR_RECORD);
  delete record.pool_uid;
  delete record.exchange_id;
  record._parent_tracing_ids = [];
  return bundle;
}

/**
 * Forges an ERC-20 function result of WETH's record (`name`, `symbol`, `decimals`) to `value`, its output and
 * decoded_output re-encoded so that both agree, and the record changed to match: everything is consistent but the
 * chain never returned it.
 */
export function forgeErc20Result(bundle: Bundle, member: 'name' | 'symbol' | 'decimals', value: string | number) {
  const genesis = bundle.exchanges.find(
    (e) => e.path === '/evm/lineage/genesis' && (e.body.tracing_id ?? e.body._tracing_id) === WETH_RECORD,
  )!;
  const result = (genesis.response as any).data.genesis.function_results.find(
    (r: { decoded_name: string }) => r.decoded_name === member,
  );
  result.output = hexOut(member, value);
  result.decoded_output = { value };
  recordOf(bundle, WETH_RECORD)[member] = value;
}

/** Forges the pair's getReserves result to other reserves, output and decoded_output agreeing, the record to match. */
export function forgeGetReserves(bundle: Bundle, reserve0: bigint, reserve1: bigint) {
  const page = bundle.exchanges.find((e) => e.path === '/evm/lineage/genesis' && e.body.cursor === 'page-2')!;
  const result = (page.response as any).data.genesis.function_results[0];
  const decoded = {
    reserve0: String(reserve0),
    reserve1: String(reserve1),
    block_timestamp_last: result.decoded_output.block_timestamp_last,
  };
  result.output = hexOut('getReserves', decoded);
  result.decoded_output = decoded;
  recordOf(bundle, PAIR_RECORD).reserves = [decoded.reserve0, decoded.reserve1];
}

/** The USDC/WETH pair of block 19426586, which emits a Sync in transaction 14 (log 2) and again in 73 (log 3). */
export const USDC_WETH = 'b4e16d0168e52d35cacd2c6185b44281ec28c9dc';
export const SYNC_RECORD = id('usdc-weth reserves record');

/**
 * A reserve snapshot of the USDC/WETH pair at transaction 73, log 4 of the real block 19426586 (no parent, no
 * pool_uid): its genesis holds the logs of that block at `places` (transaction, log), its reserves are those of the
 * Sync at `reservesOf`.
 */
export function buildSyncBundle(places: Array<[number, number]>, reservesOf: [number, number]): Bundle {
  const fixture = loadFixture('mainnet-19426586');
  const block = Number(fixture.header.number);
  const blockTime = new Date(Number(fixture.header.timestamp) * 1000).toISOString();
  const receipts = fixture.receipts as Array<{
    transactionIndex: string;
    logs: Array<{ address: string; topics: string[]; data: string }>;
  }>;
  const logAt = ([tx, index]: [number, number]) =>
    receipts.find((r) => Number(r.transactionIndex) === tx)!.logs[index]!;
  const data = strip(logAt(reservesOf).data);
  const record = {
    chain_id: 1,
    address: USDC_WETH,
    block_number: block,
    block_time: blockTime,
    tx_index: 73,
    log_index: 4,
    reserves: [BigInt(`0x${data.slice(0, 64)}`).toString(), BigInt(`0x${data.slice(64)}`).toString()],
    tracing_id: SYNC_RECORD,
    // One genesis id for each artifact, as the service lists them.
    genesis_tracing_ids: places.map(([tx, index]) => id(`sync bundle log ${tx}/${index}`)),
    parent_tracing_ids: [],
  };
  const logs = places.map(([tx, index]) => {
    const log = logAt([tx, index]);
    return {
      block_number: block,
      tx_index: tx,
      log_index: index,
      contract_address: strip(log.address),
      topics: log.topics.map(strip),
      data: strip(log.data),
      block_time: blockTime,
    };
  });
  return {
    exchanges: [
      {
        method: 'POST',
        path: '/evm/lineage/record',
        body: { chain_id: 1, tracing_id: SYNC_RECORD },
        status: 200,
        response: { chain_id: 1, data: { dataset: '0301', record } },
      },
      {
        method: 'POST',
        path: '/evm/lineage/genesis',
        body: { chain_id: 1, tracing_id: SYNC_RECORD },
        status: 200,
        response: { chain_id: 1, data: { dataset: '0301', genesis: { logs } }, cursor: null },
      },
    ],
    blocks: [{ chain_id: 1, header: fixture.header, receipts: fixture.receipts }],
  };
}
