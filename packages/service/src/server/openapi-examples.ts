import { defaultRegistry, describeChain } from 'evm-integrity';
import type { JsonSchema } from 'evm-integrity/api';

/**
 * Examples of the OpenAPI document: a real mainnet receipt (block 19426587, its second
 * transaction) taken as a one-receipt list, so each request example, sent as it is, gets
 * the response example back (test/openapi-lint.test.ts checks that).
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

/** Request and 200 examples of each verify endpoint, by endpoint path. */
export const VERIFY_EXAMPLES: Record<string, { request: Examples; response: Examples }> = {
  '/evm/verify/receipt-root': {
    request: {
      oneReceipt: {
        summary: 'A one-receipt list and its root',
        value: { chain_id: 1, receipt_root: ROOT, transactions: [{ index: 0, status: 1, cumulative_gas_used: 369987, logs: [LOG] }] },
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
  '/evm/verify/logs-bloom': {
    request: { oneLog: { summary: 'One log and its bloom', value: { chain_id: 1, expected_bloom: BLOOM, logs: [LOG] } } },
    response: {
      identical: {
        summary: 'The folded bloom is the one sent',
        value: { chain_id: 1, block_number: null, data: [{ expected_bloom: BLOOM, computed_bloom: BLOOM, is_identical: true }], count: 1 },
      },
    },
  },
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
            { name: 'receipt_root', location: 'body', reason: 'missing', expected: '32-byte hex string (64 hex characters)' },
            { name: 'transactions', location: 'body', reason: 'missing', expected: 'the complete receipt list of the block (may be empty)' },
          ],
        },
        docs_url: `${docsUrl}#error-bad_request`,
      },
    },
  },
});

/** `GET /usage`, `GET /chains`, `GET /health` answers. */
export const INFO_EXAMPLES: Record<'usage' | 'chains' | 'health', JsonSchema> = {
  usage: {
    plan: 'pro',
    cu_limit: 1000000,
    cu_used: 3,
    cu_remaining: 999997,
    cu_reset_at: '2026-04-01T00:00:00.000Z',
    rate_limit_rps: 25,
    cu_by_endpoint: { 'verify/logs-bloom': 1, 'verify/receipt-root': 2 },
    billing_period: { start: '2026-03-01T00:00:00.000Z', end: '2026-04-01T00:00:00.000Z' },
  },
  // What the registry answers for two of its chains, so that the example cannot drift from it.
  chains: { data: [describeChain(defaultRegistry.get(100)!), describeChain(defaultRegistry.get(324)!)], count: 2 } as unknown as JsonSchema,
  health: { status: 'ok' },
};
