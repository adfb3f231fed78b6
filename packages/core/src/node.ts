/**
 * `evm-integrity/node`: the lineage sources that reach the network (the hosted data service,
 * a JSON-RPC node) and the recording of what they answered into a bundle; the range audit's
 * cross-check of the hosted service's raw datasets (`serviceCrossCheck`); a complete-log proof
 * built from a node (`NodeLogsProof`) and a node's `eth_getLogs` checked against one
 * (`NodeLogsCheck`); how an output file is put in place (`outputFileKind`, `outputTarget`). Node 22.12 or newer
 * (fetch, node:fs). The verifier service and the CLI are the `@evm-integrity/service` package.
 */
export { ServiceSource, type ServiceSourceOptions } from './live/service-source.js';
export {
  RpcBlockSource,
  type BlockReceipts,
  type RpcBlockSourceOptions,
  type RpcLogsFilter,
} from './live/rpc-block-source.js';
export { DEFAULT_BATCH, MAX_SIZED_BATCH } from './live/json-rpc-transport.js';
export { DEFAULT_CONCURRENCY, nodeFetching, nodeSource, type NodeFetching } from './live/node-fetching.js';
export { DEFAULT_MAX_ANSWER_BYTES, MAX_ANSWER_BYTES } from './live/http-client.js';
export {
  NodeLogsProof,
  rpcLogsFilter,
  type FetchedBlock,
  type NodeLogsProofOptions,
  type NodeProofBlock,
} from './live/node-logs-proof.js';
export { NodeLogsCheck, type NodeLogsCheckOptions, type NodeLogsTally } from './live/node-logs-check.js';
export { serviceBaseUrl } from './live/service-client.js';
export { BundleRecorder, type RecordedBundle } from './bundle/recorder.js';
export { writeBundle } from './bundle/write-bundle.js';
export { outputFileKind, outputTarget, type OutputFileKind } from './files/output-file.js';
export type { ExchangeRecorder } from './sources/exchange.js';
export {
  recordedServiceCrossCheck,
  serviceCrossCheck,
  ServiceDatasets,
  type RawDataset,
  type RawPages,
  type ServiceDatasetsOptions,
} from './audit/service-datasets.js';
