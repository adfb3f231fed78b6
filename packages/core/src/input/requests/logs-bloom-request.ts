import { BLOOM_BYTES } from '../../bloom/bloom.js';
import type { Log } from '../../receipts/receipt.js';
import { isObject } from '../values/json-values.js';
import { err, ok, type Result } from '../../result.js';
import { bodyNotAnObject, Problems, type InvalidInput } from '../values/problems.js';
import { BLOOM_LOG } from './receipt-root-request.js';
import { arrayOf, hex, ignored, integer, object } from '../values/schema.js';
import { refuseUntakenMembers } from './untaken-members.js';

/** A validated `POST /v1/evm/verify/logs-bloom` body. */
export interface LogsBloomRequest {
  chainId: number | null;
  blockNumber: number | null;
  expectedBloom: Uint8Array;
  logs: Log[];
}

/** The logs-bloom request body: `chain_id` and `block_number` are optional context, echoed. */
export const LOGS_BLOOM_BODY = object(
  {
    chain_id: {
      spec: integer({ min: 0, description: 'Optional context, echoed.', expected: 'chain id as a JSON integer' }),
      nullable: true,
    },
    block_number: {
      spec: integer({ min: 0, description: 'Optional context, echoed.', expected: 'block number as a JSON integer' }),
      nullable: true,
    },
    expected_bloom: {
      spec: hex({
        bytes: BLOOM_BYTES,
        description: 'The 2048-bit bloom to compare with, 512 hex characters.',
        expected: '2048-bit bloom as 512 hex characters',
      }),
      required: true,
    },
    logs: {
      spec: arrayOf(BLOOM_LOG, {
        description: 'The logs, in any order (may be empty).',
        expected: 'an array of logs (may be empty)',
      }),
      required: true,
    },
    limit: { spec: ignored('Accepted; one result per request.') },
    cursor: { spec: ignored('Accepted; reserved for future pagination.') },
  },
  { description: 'POST /v1/evm/verify/logs-bloom', expected: 'a JSON object' },
);

/** Validates a logs-bloom body; `logs[].data` is accepted and ignored. */
export function parseLogsBloomRequest(body: unknown): Result<LogsBloomRequest, InvalidInput> {
  if (!isObject(body)) return err(bodyNotAnObject(body));
  const problems = new Problems();
  const values = LOGS_BLOOM_BODY.read(body, '', problems)!;
  refuseUntakenMembers(body, 'logs-bloom', problems);
  if (!problems.empty) return err(problems.invalidInput());
  return ok({
    chainId: values.chain_id ?? null,
    blockNumber: values.block_number ?? null,
    expectedBloom: values.expected_bloom!,
    logs: values.logs!.map((log) => ({ address: log.contract_address!, topics: log.topics!, data: new Uint8Array(0) })),
  });
}
