import { bytesEqual, bytesToHex } from '../bytes/hex.js';
import { logsBloom } from '../bloom/bloom.js';
import { parseLogsBloomRequest } from '../input/requests/logs-bloom-request.js';
import type { HashOptions } from '../keccak/keccak.js';
import { badRequest, type OperationContext, type OperationResult } from './envelope.js';

/** `data[0]` of a logs-bloom answer. */
export interface LogsBloomResult {
  expected_bloom: string;
  computed_bloom: string;
  is_identical: boolean;
}

/**
 * `POST /v1/evm/verify/logs-bloom`: folds the logs' addresses and topics into a
 * 2048-bit bloom and compares it bit for bit with `expected_bloom`.
 *
 * @example
 * verifyLogsBloomOperation({ expected_bloom: '00'.repeat(256), logs: [] }).body
 * // { chain_id: null, block_number: null, data: [{ …, is_identical: true }], count: 1 }
 */
export function verifyLogsBloomOperation(body: unknown, context: OperationContext & HashOptions = {}): OperationResult {
  const parsed = parseLogsBloomRequest(body);
  if (!parsed.ok)
    return { status: 400, verdict: 'invalid', body: badRequest(parsed.error.problems, parsed.error.count, context) };
  const { chainId, blockNumber, expectedBloom, logs } = parsed.value;
  const computed = logsBloom(logs, context);
  const isIdentical = bytesEqual(computed, expectedBloom);
  const result: LogsBloomResult = {
    expected_bloom: bytesToHex(expectedBloom),
    computed_bloom: bytesToHex(computed),
    is_identical: isIdentical,
  };
  return {
    status: 200,
    verdict: isIdentical ? 'identical' : 'different',
    body: { chain_id: chainId, block_number: blockNumber, data: [result], count: 1 },
  };
}
