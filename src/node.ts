/**
 * The Node-only parts, for embedding: the live-service and JSON-RPC lineage
 * sources, bundle recording and writing, and the verifier service itself.
 * The package root (`evm-integrity`) stays free of I/O.
 */
export { BundleRecorder, ServiceSource, writeBundle, type ServiceSourceOptions } from './lineage/service-source.js';
export { RpcBlockSource, type RpcBlockSourceOptions } from './lineage/rpc-source.js';
export { createApp, type AppOptions } from './server/app.js';
export { ENDPOINTS, type Endpoint } from './server/endpoints.js';
export { ConfigError, DEFAULT_CONFIG, parseConfig, type ServerConfig } from './server/config.js';
export { openStore, startServer, type RunningServer } from './server/serve.js';
export { MemoryStore } from './server/store/memory-store.js';
export { SqliteStore } from './server/store/sqlite-store.js';
export { StoreError, type Store, type StoreErrorCode } from './server/store/types.js';
