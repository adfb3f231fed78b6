import {
  type JsonSchema,
  LINEAGE_BODY,
  LOGS_BLOOM_BODY,
  type OperationContext,
  type OperationResult,
  RECEIPT_ROOT_BODY,
  verifyLineage,
  verifyLogsBloom,
  verifyReceiptRoot,
} from 'evm-integrity/api';
import type { ChainRegistry } from 'evm-integrity';
import { LINEAGE_RESULT_SCHEMA, LOGS_BLOOM_RESULT_SCHEMA, RECEIPT_ROOT_RESULT_SCHEMA } from './result-schemas.js';

/** A metered endpoint: its name (for entitlements and usage), cost and operation. */
export interface Endpoint {
  name: string;
  path: string;
  cu: number;
  summary: string;
  /** JSON Schema of the request body: the same declaration that validates it. */
  requestSchema: JsonSchema;
  /** JSON Schema of `data[0]` of a 200 answer. */
  resultSchema: JsonSchema;
  operation: (body: unknown, context: OperationContext & { registry: ChainRegistry }) => OperationResult | Promise<OperationResult>;
}

/** The verify endpoints: each one an operation of the core, served as it is. */
export const ENDPOINTS: readonly Endpoint[] = [
  {
    name: 'verify/receipt-root',
    path: '/evm/verify/receipt-root',
    cu: 1,
    summary: 'Recompute the receipts root of a complete receipt list and compare it with receipt_root.',
    requestSchema: RECEIPT_ROOT_BODY.schema,
    resultSchema: RECEIPT_ROOT_RESULT_SCHEMA,
    operation: verifyReceiptRoot,
  },
  {
    name: 'verify/logs-bloom',
    path: '/evm/verify/logs-bloom',
    cu: 1,
    summary: 'Fold logs into the 2048-bit bloom and compare it with expected_bloom.',
    requestSchema: LOGS_BLOOM_BODY.schema,
    resultSchema: LOGS_BLOOM_RESULT_SCHEMA,
    operation: verifyLogsBloom,
  },
  {
    name: 'verify/lineage',
    path: '/evm/verify/lineage',
    cu: 1,
    summary: "Extension: audit a derived record's lineage against a bundle of the hosted service's answers and blocks.",
    requestSchema: LINEAGE_BODY.schema,
    resultSchema: LINEAGE_RESULT_SCHEMA,
    operation: verifyLineage,
  },
];
