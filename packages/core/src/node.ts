/**
 * `evm-integrity/node`: the lineage sources that reach the network (the hosted data service,
 * a JSON-RPC node) and the recording of what they answered into a bundle. Node 20 or newer
 * (fetch, node:fs). The verifier service and the CLI are the `@evm-integrity/service` package.
 */
export { BundleRecorder, ServiceSource, writeBundle, type RecordedBundle, type ServiceSourceOptions } from './lineage/service-source.js';
export { RpcBlockSource, type RpcBlockSourceOptions } from './lineage/rpc-source.js';
export { serviceCrossCheck, ServiceDatasets, type RawDataset, type ServiceDatasetsOptions } from './audit/service-datasets.js';
// The hosted service's raw-dataset checks are pure; they are here with the cross-check that fetches their records.
export { checkServiceBlock, SERVICE_BLOCK_CHECKS } from './audit/service-block.js';
export { checkServiceLogs, SERVICE_LOGS_CHECKS } from './audit/service-logs.js';
export type { AuditCheckName, AuditFailure, AuditVerdict, BlockTruth, CrossCheck } from './audit/types.js';
