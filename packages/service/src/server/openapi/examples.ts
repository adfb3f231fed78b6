import { defaultRegistry, describeChain } from 'evm-integrity';
import type { JsonSchema } from 'evm-integrity/api';
import { LOGS_PROOF_EXAMPLES } from './logs-proof-example.js';
import { ANCHOR_EXAMPLES, ANCHORED_RECEIPT_PROOF_EXAMPLE } from './anchor-example.js';

/**
 * Examples of the OpenAPI document: a real mainnet receipt (block 19426587, its second
 * transaction) taken as a one-receipt list, and a real lineage bundle's exchanges, so each request
 * example, sent as it is, gets the response example back (test/openapi-document.test.ts checks that).
 */

const LOG = {
  contract_address: 'd37bbe5744d730a1d98d8dc97c42f0ca46ad7146',
  topics: [
    'a9cd03aa3c1b4515114539cd53d22085129d495cb9e9f9af77864526240f1bf7',
    '00000000000000000000000065c2036a5606179f9eb52ff97ff474e5d24891e5',
    '0000000000000000000000004ade6ae5d64226f450dd19b99672311002ac2737',
  ],
  data: '0x000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000002328c3ce0460400000000000000000000000000000000000000000000000000000000000000006000000000000000000000000000000000000000000000000000000000000000444f55543a3833313533444138454134323737353034304231323944463731363045423239394543433132453945423243383030433744433630453034463338374139324600000000000000000000000000000000000000000000000000000000',
};
const ROOT = '5b19167a10767c8d1577f898c627232b1a425ee4ac385b3198ea72d3390aea25';
const BLOOM =
  '00000000000000010000010000000000000000000000000000000000000000000000000000000000000001000000000400001000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000100001000000000000000000000040000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000004000000000000000000200000000000000000000000000000000000000022000000000000000000000000000000000000000000000000000';

/** A named example of a media type: `{ name: { summary, value } }`. */
export type Examples = Record<string, { summary: string; value: unknown }>;

/**
 * A lineage request: the recorded exchanges of fixtures/lineage/pair-reserves-19426587.bundle.json (a
 * Uniswap V2 pair's reserves record and its parent, WETH's ERC-20 record), without its block, so the
 * example stays small. Every check that needs no block runs; those that do are skipped, so the
 * verdict is not_verifiable. The answer is the server's own (test/openapi-document.test.ts sends it).
 */
const LINEAGE_REQUEST = {
  chain_id: 1,
  tracing_id: '6de20aaa369add444ef78f3be513ba51ecc2',
  bundle: {
    base_url: 'https://example.invalid/v1',
    exchanges: [
      {
        method: 'POST',
        path: '/evm/lineage/record',
        body: { chain_id: 1, tracing_id: '6de20aaa369add444ef78f3be513ba51ecc2' },
        status: 200,
        response: {
          chain_id: 1,
          data: {
            dataset: 'svc_evm.b0301_liquidity_pools_reserves_v1',
            record: {
              chain_id: 1,
              address: '515d459555f8c1fcf2791ded819b73b60a80b8e3',
              pool_uid: '000000000000000000000000515d459555f8c1fcf2791ded819b73b60a80b8e3',
              exchange_id: 1,
              block_number: 19426587,
              block_time: '2024-03-13T13:55:35.000Z',
              tx_index: 9,
              log_index: 4,
              reserves: ['964438474543038460112265', '438480034574878924551'],
              current_tick: null,
              current_sqrt_price: null,
              current_bin: null,
              _tracing_id: '6de20aaa369add444ef78f3be513ba51ecc2',
              _genesis_tracing_ids: ['f1c0da3b50ece86e6e0028122c5e2aa652fa', '29bd2a891d59dbd4767422a1e94907d9acdb'],
              _parent_tracing_ids: ['94b362611582c6404400973604faca81bc51'],
            },
          },
        },
      },
      {
        method: 'POST',
        path: '/evm/lineage/genesis',
        body: { chain_id: 1, _tracing_id: '6de20aaa369add444ef78f3be513ba51ecc2', limit: 1 },
        status: 200,
        response: {
          chain_id: 1,
          data: {
            dataset: '0301',
            _tracing_id: '6de20aaa369add444ef78f3be513ba51ecc2',
            genesis: {
              logs: [
                {
                  block_number: 19426587,
                  tx_index: 9,
                  log_index: 4,
                  contract_address: '515d459555f8c1fcf2791ded819b73b60a80b8e3',
                  topics: ['1c411e9a96e071241c2f21f7726b17ae89e3cab4c78be50e062b03a9fffbbad1'],
                  data: '00000000000000000000000000000000000000000000cc3a5080dedbcda4ad89000000000000000000000000000000000000000000000017c522044770a85f07',
                  block_time: '2024-03-13T13:55:35.000Z',
                },
              ],
              function_results: [],
            },
          },
          cursor: 'page-2',
          count: 1,
        },
      },
      {
        method: 'POST',
        path: '/evm/lineage/genesis',
        body: { chain_id: 1, tracing_id: '6de20aaa369add444ef78f3be513ba51ecc2', cursor: 'page-2', limit: 1 },
        status: 200,
        response: {
          chain_id: 1,
          data: {
            dataset: '0301',
            _tracing_id: '6de20aaa369add444ef78f3be513ba51ecc2',
            genesis: {
              logs: [],
              function_results: [
                {
                  contract: '515d459555f8c1fcf2791ded819b73b60a80b8e3',
                  selector: '0902f1ac',
                  decoded_name: 'getReserves',
                  output:
                    '00000000000000000000000000000000000000000000cc3a5080dedbcda4ad89000000000000000000000000000000000000000000000017c522044770a85f070000000000000000000000000000000000000000000000000000000065f1b057',
                  decoded_output: {
                    reserve0: '964438474543038460112265',
                    reserve1: '438480034574878924551',
                    block_timestamp_last: 1710338135,
                  },
                },
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
        body: { chain_id: 1, tracing_id: '94b362611582c6404400973604faca81bc51' },
        status: 200,
        response: {
          chain_id: 1,
          data: {
            dataset: '0201',
            record: {
              chain_id: 1,
              address: 'c02aaa39b223fe8d0a0e5c4f27ead9083c756cc2',
              block_number: 19426587,
              block_time: '2024-03-13T13:55:35.000Z',
              tx_index: 9,
              log_index: 3,
              name: 'Wrapped Ether',
              symbol: 'WETH',
              decimals: 18,
              tracing_id: '94b362611582c6404400973604faca81bc51',
              genesis_tracing_ids: [
                '967d859b9fa9e4a2764d043dc6bd8996298b',
                '9c2492c4185c612c2cd922039e2fed21ec76',
                '3be152dc4b33ac9a972b54cbd571ddb55c63',
                'cc1f9a00d2a2c7051d7a9b6233b4492191ef',
              ],
              parent_tracing_ids: [],
            },
          },
        },
      },
      {
        method: 'POST',
        path: '/evm/lineage/genesis',
        body: { chain_id: 1, tracing_id: '94b362611582c6404400973604faca81bc51' },
        status: 200,
        response: {
          chain_id: 1,
          data: {
            dataset: '0201',
            _tracing_id: '94b362611582c6404400973604faca81bc51',
            genesis: {
              logs: [
                {
                  block_number: 19426587,
                  tx_index: 9,
                  log_index: 3,
                  contract_address: 'c02aaa39b223fe8d0a0e5c4f27ead9083c756cc2',
                  topics: [
                    'ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef',
                    '000000000000000000000000515d459555f8c1fcf2791ded819b73b60a80b8e3',
                    '0000000000000000000000003fc91a3afd70395cd496c647d5a6cc9d4b2b7fad',
                  ],
                  data: '0000000000000000000000000000000000000000000000000e58b2348e088503',
                  block_time: '2024-03-13T13:55:35.000Z',
                },
              ],
              function_results: [
                {
                  contract: 'c02aaa39b223fe8d0a0e5c4f27ead9083c756cc2',
                  selector: '06fdde03',
                  decoded_name: 'name',
                  output:
                    '0000000000000000000000000000000000000000000000000000000000000020000000000000000000000000000000000000000000000000000000000000000d5772617070656420457468657200000000000000000000000000000000000000',
                  decoded_output: { value: 'Wrapped Ether' },
                },
                {
                  contract: 'c02aaa39b223fe8d0a0e5c4f27ead9083c756cc2',
                  selector: '95d89b41',
                  decoded_name: 'symbol',
                  output:
                    '000000000000000000000000000000000000000000000000000000000000002000000000000000000000000000000000000000000000000000000000000000045745544800000000000000000000000000000000000000000000000000000000',
                  decoded_output: { value: 'WETH' },
                },
                {
                  contract: 'c02aaa39b223fe8d0a0e5c4f27ead9083c756cc2',
                  selector: '313ce567',
                  decoded_name: 'decimals',
                  output: '0000000000000000000000000000000000000000000000000000000000000012',
                  decoded_output: { value: 18 },
                },
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
        body: { chain_id: 1, block_numbers: [19426587] },
        status: 200,
        response: {
          chain_id: 1,
          data: [
            {
              block_number: 19426587,
              block_hash: 'f8e2f40d98fe5862bc947c8c83d34799c50fb344d7445d020a8a946d891b62ee',
              receipt_root: '59c3691e83e0ddeafeedd07f5e30850cc6c963e85327aa1201fbe1f731ff3dbc',
            },
          ],
          cursor: null,
          count: 1,
        },
      },
    ],
    blocks: [],
  },
};

/** What the server answers LINEAGE_REQUEST. */
const LINEAGE_RESPONSE = {
  chain_id: 1,
  data: [
    {
      chain_id: 1,
      tracing_id: '6de20aaa369add444ef78f3be513ba51ecc2',
      verdict: 'not_verifiable',
      reason:
        'block.available (block 19426587): the source has no such block (give a bundle with blocks, or a block source: the blocks option, --rpc on the command line)',
      assurance: 'consistent',
      summary: {
        pass: 19,
        fail: 0,
        skipped: 7,
      },
      warnings: [],
      records: [
        {
          tracing_id: '6de20aaa369add444ef78f3be513ba51ecc2',
          dataset: '0301',
          checks: [
            {
              check: 'shape.tracing_id',
              status: 'pass',
              subject: '6de20aaa369add444ef78f3be513ba51ecc2',
              reason: '36 hex characters, matching the record (legacy _tracing_id)',
            },
            {
              check: 'shape.id_lists',
              status: 'pass',
              subject: '6de20aaa369add444ef78f3be513ba51ecc2',
              reason: 'genesis and parent ids are lists of 36-hex tracing ids',
            },
            {
              check: 'shape.dataset',
              status: 'pass',
              subject: '6de20aaa369add444ef78f3be513ba51ecc2',
              reason: 'dataset 0301 (svc_evm.b0301_liquidity_pools_reserves_v1)',
            },
            {
              check: 'block.available',
              status: 'skipped',
              subject: 'block 19426587',
              reason:
                'the source has no such block (give a bundle with blocks, or a block source: the blocks option, --rpc on the command line)',
            },
            {
              check: 'log.position',
              status: 'skipped',
              subject: 'genesis.logs[0]',
              reason: 'block 19426587 is not available',
            },
            {
              check: 'function_result.selector',
              status: 'pass',
              subject: 'genesis.function_results[0]',
              reason: 'selector 0902f1ac is getReserves()',
            },
            {
              check: 'function_result.decoded_output',
              status: 'pass',
              subject: 'genesis.function_results[0]',
              reason: 'decoded_output equals output decoded as getReserves() returns (uint112,uint112,uint32)',
            },
            {
              check: 'record.reserves',
              status: 'skipped',
              subject: '6de20aaa369add444ef78f3be513ba51ecc2',
              reason:
                "the record's block 19426587 is not proven, so a later Sync of the pool before the record (block 19426587, transaction 9, log 4) cannot be ruled out",
            },
            {
              check: 'record.not_older',
              status: 'pass',
              subject: '6de20aaa369add444ef78f3be513ba51ecc2',
              reason: "block 19426587 is at or after every artifact's block",
            },
            {
              check: 'record.fields',
              status: 'skipped',
              subject: '6de20aaa369add444ef78f3be513ba51ecc2',
              reason: 'not verifiable: nothing checked holds pool_uid, exchange_id, block_time, reserves to the chain',
            },
            {
              check: 'genesis.complete',
              status: 'pass',
              subject: '6de20aaa369add444ef78f3be513ba51ecc2',
              reason: 'the 2 genesis artifacts delivered account for the 2 genesis tracing ids the record lists',
            },
          ],
        },
        {
          tracing_id: '94b362611582c6404400973604faca81bc51',
          dataset: '0201',
          checks: [
            {
              check: 'shape.tracing_id',
              status: 'pass',
              subject: '94b362611582c6404400973604faca81bc51',
              reason: '36 hex characters, matching the record',
            },
            {
              check: 'shape.id_lists',
              status: 'pass',
              subject: '94b362611582c6404400973604faca81bc51',
              reason: 'genesis and parent ids are lists of 36-hex tracing ids',
            },
            {
              check: 'shape.dataset',
              status: 'pass',
              subject: '94b362611582c6404400973604faca81bc51',
              reason: 'dataset 0201 (svc_evm.b0201_erc20_tokens_v1)',
            },
            {
              check: 'block.available',
              status: 'skipped',
              subject: 'block 19426587',
              reason:
                'the source has no such block (give a bundle with blocks, or a block source: the blocks option, --rpc on the command line)',
            },
            {
              check: 'log.position',
              status: 'skipped',
              subject: 'genesis.logs[0]',
              reason: 'block 19426587 is not available',
            },
            {
              check: 'function_result.selector',
              status: 'pass',
              subject: 'genesis.function_results[0]',
              reason: 'selector 06fdde03 is name()',
            },
            {
              check: 'function_result.decoded_output',
              status: 'pass',
              subject: 'genesis.function_results[0]',
              reason: 'decoded_output equals output decoded as name() returns string',
            },
            {
              check: 'function_result.selector',
              status: 'pass',
              subject: 'genesis.function_results[1]',
              reason: 'selector 95d89b41 is symbol()',
            },
            {
              check: 'function_result.decoded_output',
              status: 'pass',
              subject: 'genesis.function_results[1]',
              reason: 'decoded_output equals output decoded as symbol() returns string',
            },
            {
              check: 'function_result.selector',
              status: 'pass',
              subject: 'genesis.function_results[2]',
              reason: 'selector 313ce567 is decimals()',
            },
            {
              check: 'function_result.decoded_output',
              status: 'pass',
              subject: 'genesis.function_results[2]',
              reason: 'decoded_output equals output decoded as decimals() returns uint8',
            },
            {
              check: 'record.erc20',
              status: 'pass',
              subject: '94b362611582c6404400973604faca81bc51',
              reason: 'name, symbol, decimals equal the decoded function results',
            },
            {
              check: 'record.not_older',
              status: 'pass',
              subject: '94b362611582c6404400973604faca81bc51',
              reason: "block 19426587 is at or after every artifact's block",
            },
            {
              check: 'record.fields',
              status: 'skipped',
              subject: '94b362611582c6404400973604faca81bc51',
              reason:
                "not verifiable: name, symbol, decimals rest only on function results, which cannot be verified offline (a contract call's output is in no block header or receipt); nothing checked holds block_time to the chain",
            },
            {
              check: 'genesis.complete',
              status: 'pass',
              subject: '94b362611582c6404400973604faca81bc51',
              reason: 'the 4 genesis artifacts delivered account for the 4 genesis tracing ids the record lists',
            },
          ],
        },
      ],
    },
  ],
  count: 1,
};

/**
 * A real receipt proof: the first receipt of mainnet block 47,218 (fixtures/blocks/mainnet-47218.json), as `evm-integrity
 * prove receipt` writes it.
 */
const RECEIPT_PROOF = {
  format: 'evm-integrity/receipt-proof',
  version: 1,
  chain_id: 1,
  block_number: 47218,
  block_hash: '0x889c421abc62a48641eee140519e6da8c9dc01d85d8f5c4fbc3c13e3c6e4cb3e',
  header_rlp:
    '0xf90218a0fc1dd3249585b593ad18822a95873c75779ccbe8a420b457be380b977fc38e87a01dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347949746c7e1ef2bd21ff3997fa467593a89cb852bd0a0ab6d1b109c04c1f43f86da33ece31689d9ba1c44ea809d0979c05057a0703c28a0def39a3afcfb55fabd16d7d5a19d8b078cb95a117ea9596af289525eb8592982a0f0afaf08454f89092907f820c40db77afbd0270f179166907dc110f9723972d7b9010000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000860153fcba3c4a82b87282a46582a4108455c46cdd9b476574682f76312e302e312f77696e646f77732f676f312e342e32a0fa4ab37bc8ef9ca8e95ca2c92135d5e5c4451b25040e454b6deb422c5f48e58688faa1e51d379b21f7',
  index: 0,
  receipt_root: '0xf0afaf08454f89092907f820c40db77afbd0270f179166907dc110f9723972d7',
  proof: [
    '0xf851a05971f4bf1e8ed0ec25faf3c5dc632edb737b975799fe5837ad018b007a961fa880808080808080a0fa2ce330dd1232d4b1f8843de041cf7d5acd7992d7fbe5b75245d4d8af89941b8080808080808080',
    '0xf9012f30b9012bf90128a084b952d52dbac02d64869d9f980219ebd7777a9c9e9944d183700b8a98fe967c825208b9010000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000c0',
  ],
};

/** The receipt RECEIPT_PROOF holds: a pre-Byzantium transfer, with its post-state root and no logs. */
const PROVEN_RECEIPT = {
  blockHash: '0x889c421abc62a48641eee140519e6da8c9dc01d85d8f5c4fbc3c13e3c6e4cb3e',
  blockNumber: '0xb872',
  transactionIndex: '0x0',
  type: '0x0',
  root: '0x84b952d52dbac02d64869d9f980219ebd7777a9c9e9944d183700b8a98fe967c',
  cumulativeGasUsed: '0x5208',
  logsBloom: `0x${'00'.repeat(256)}`,
  logs: [],
};

/** Request and 200 examples of each verify endpoint, by endpoint path. */
export const VERIFY_EXAMPLES: Record<string, { request: Examples; response: Examples }> = {
  '/evm/verify/receipt-root': {
    request: {
      oneReceipt: {
        summary: 'A one-receipt list and its root',
        value: {
          chain_id: 1,
          receipt_root: ROOT,
          transactions: [{ index: 0, status: 1, cumulative_gas_used: 369987, logs: [LOG] }],
        },
      },
    },
    response: {
      identical: {
        summary: 'The recomputed root is the one sent',
        value: {
          chain_id: 1,
          data: [
            {
              block_number: null,
              block_hash: null,
              parent_block_hash: null,
              receipt_root: ROOT,
              computed_receipt_root: ROOT,
              is_identical: true,
              header_verified: null,
              computed_logs_bloom: BLOOM,
              logs_bloom_matches_header: null,
              transaction_count: 1,
              excluded_receipts: [],
            },
          ],
          cursor: null,
          count: 1,
        },
      },
    },
  },
  '/evm/verify/receipt-proof': {
    request: {
      firstReceipt: { summary: 'The proof of the first receipt of mainnet block 47,218', value: RECEIPT_PROOF },
      anchored: ANCHORED_RECEIPT_PROOF_EXAMPLE.request,
    },
    response: {
      valid: {
        summary: 'The proof holds: the receipt it proves',
        value: {
          chain_id: 1,
          data: [
            {
              is_valid: true,
              reason: null,
              node: null,
              message: null,
              block_number: 47218,
              block_hash: '889c421abc62a48641eee140519e6da8c9dc01d85d8f5c4fbc3c13e3c6e4cb3e',
              transaction_index: 0,
              receipt: PROVEN_RECEIPT,
              anchoring: null,
              // The document sends no expected_block_hash: its block hash is its own word.
              block_hash_held_to: null,
            },
          ],
          cursor: null,
          count: 1,
        },
      },
      anchored: ANCHORED_RECEIPT_PROOF_EXAMPLE.response,
    },
  },
  '/evm/verify/lineage': {
    request: {
      pairReserves: { summary: "A pool's reserves record and its parent, without blocks", value: LINEAGE_REQUEST },
    },
    response: {
      notVerifiable: {
        summary: 'Every check that needs no block passes; the on-chain ones are skipped',
        value: LINEAGE_RESPONSE,
      },
    },
  },
  '/evm/verify/logs-bloom': {
    request: {
      oneLog: { summary: 'One log and its bloom', value: { chain_id: 1, expected_bloom: BLOOM, logs: [LOG] } },
    },
    response: {
      identical: {
        summary: 'The folded bloom is the one sent',
        value: {
          chain_id: 1,
          block_number: null,
          data: [{ expected_bloom: BLOOM, computed_bloom: BLOOM, is_identical: true }],
          count: 1,
        },
      },
    },
  },
  '/evm/verify/logs-proof': LOGS_PROOF_EXAMPLES,
  '/evm/verify/anchor': ANCHOR_EXAMPLES,
};

/** A 400 answer: what every error envelope looks like. */
export const BAD_REQUEST_EXAMPLE = (docsUrl: string): Examples => ({
  missingMembers: {
    summary: 'Two required members missing',
    value: {
      error: {
        code: 'BAD_REQUEST',
        http_status: 400,
        message: '2 invalid parameters.',
        hint: 'Fix every parameter listed in details.invalid_parameters and send the request again.',
        severity: 'error',
        retryable: false,
        details: {
          invalid_parameters: [
            {
              name: 'receipt_root',
              location: 'body',
              reason: 'missing',
              expected: '32-byte hex string (64 hex characters)',
            },
            {
              name: 'transactions',
              location: 'body',
              reason: 'missing',
              expected: 'the complete receipt list of the block (may be empty)',
            },
          ],
        },
        docs_url: `${docsUrl}#error-bad_request`,
      },
    },
  },
});

/** `GET /usage`, `GET /chains`, `GET /health`, `GET /ready` answers. */
export const INFO_EXAMPLES: Record<'usage' | 'chains' | 'health' | 'ready', JsonSchema> = {
  usage: {
    plan: 'pro',
    cu_limit: 1000000,
    cu_used: 3,
    cu_remaining: 999997,
    cu_held: 0,
    cu_reset_at: '2026-04-01T00:00:00.000Z',
    rate_limit_rps: 25,
    cu_by_endpoint: { 'verify/logs-bloom': 1, 'verify/receipt-root': 2 },
    billing_period: { start: '2026-03-01T00:00:00.000Z', end: '2026-04-01T00:00:00.000Z' },
  },
  // What the registry answers for two of its chains, so that the example cannot drift from it.
  chains: { data: [describeChain(defaultRegistry.get(100)!), describeChain(defaultRegistry.get(324)!)], count: 2 },
  health: { status: 'ok' },
  ready: { status: 'ready' },
};
