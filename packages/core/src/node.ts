/**
 * `evm-integrity/node`: the lineage sources that reach the network (the hosted data service,
 * a JSON-RPC node) and the recording of what they answered into a bundle; the range audit's
 * cross-check of the hosted service's raw datasets (`serviceCrossCheck`). Node 20 or newer
 * (fetch, node:fs). The verifier service and the CLI are the `@evm-integrity/service` package.
 */
export { BundleRecorder, ServiceSource, writeBundle, type RecordedBundle, type ServiceSourceOptions } from './lineage/service-source.js';
export { RpcBlockSource, type RpcBlockSourceOptions } from './lineage/rpc-source.js';
export { serviceBaseUrl } from './lineage/service-client.js';
export {
  recordedServiceCrossCheck,
  serviceCrossCheck,
  ServiceDatasets,
  type RawDataset,
  type RawPages,
  type ServiceDatasetsOptions,
} from './audit/service-datasets.js';
