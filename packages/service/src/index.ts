/**
 * `@evm-integrity/service`: the verifier service (a Hono app over the core's endpoint operations,
 * with API keys, compute units, rate limits and the error envelope), its stores, and the
 * `evm-integrity` command line. The checks themselves are the `evm-integrity` package.
 */
export { createApp, type AppOptions } from './server/app.js';
export type { Env } from './server/env.js';
export { ENDPOINTS, type Endpoint } from './endpoints/endpoints.js';
export { ConfigError, DEFAULT_CONFIG, parseConfig, type ServerConfig } from './server/config/config.js';
export { openStore, startServer, type RunningServer } from './server/start-server.js';
export { MemoryStore, type LoggedRequest } from './store/memory-store.js';
export { SqliteStore } from './store/sqlite/sqlite-store.js';
export { PostgresStore, type PostgresStoreOptions } from './store/postgres/postgres-store.js';
export { StoreError } from './store/store-error.js';
export { instrumentStore } from './store/store-metrics.js';
export {
  type Account,
  type AccountInput,
  type AuthResult,
  type Entitlements,
  type KeyRecord,
  type RateToken,
  type RequestRecord,
  type Reservation,
  type ReserveResult,
  type SettleResult,
  type Store,
  type StoreOptions,
  type Usage,
} from './store/store.js';
export type { ServiceErrorCode, StoreErrorCode } from './error-codes.js';
