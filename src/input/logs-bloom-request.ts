import { BLOOM_BYTES } from '../bloom/bloom.js';
import type { Log } from '../receipts/types.js';
import { checkMisspelledMembers, isObject, MAX_SAFE, readArray, readHex, readInteger } from './fields.js';
import { bodyNotAnObject, Problems, type Parsed } from './problems.js';
import { readVerifyLog } from './receipt-root-request.js';

/** A validated `POST /v1/evm/verify/logs-bloom` body. */
export interface LogsBloomRequest {
  chainId: number | null;
  blockNumber: number | null;
  expectedBloom: Uint8Array;
  logs: Log[];
}

const BODY_MEMBERS = ['chain_id', 'block_number', 'expected_bloom', 'logs', 'limit', 'cursor'];

/**
 * Validates a logs-bloom body. `chain_id` and `block_number` are optional context;
 * `logs[].data` is accepted and ignored, since a bloom covers addresses and topics only.
 */
export function parseLogsBloomRequest(body: unknown): Parsed<LogsBloomRequest> {
  if (!isObject(body)) return bodyNotAnObject(body);
  const problems = new Problems();
  checkMisspelledMembers(body, '', BODY_MEMBERS, problems);
  const optionalInteger = (member: 'chain_id' | 'block_number', what: string): number | null | undefined =>
    body[member] === undefined || body[member] === null ? null : readInteger(body[member], member, problems, 0, MAX_SAFE, what);
  const chainId = optionalInteger('chain_id', 'chain id as a JSON integer');
  const blockNumber = optionalInteger('block_number', 'block number as a JSON integer');
  const expectedBloom = readHex(body.expected_bloom, 'expected_bloom', problems, BLOOM_BYTES, '2048-bit bloom as 512 hex characters');
  const list = readArray(body.logs, 'logs', problems, 'an array of logs (may be empty)');
  const logs = (list ?? []).map((log, i) => readVerifyLog(log, `logs[${i}]`, problems, false));
  if (!problems.empty) return { ok: false, problems: problems.list, count: problems.count };
  return { ok: true, value: { chainId: chainId!, blockNumber: blockNumber!, expectedBloom: expectedBloom!, logs: logs as Log[] } };
}
