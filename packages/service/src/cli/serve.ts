import { parseArgs } from 'node:util';
import { type DestinationStream, pino } from 'pino';
import { ANONYMOUS_ACCOUNT } from '../server/env.js';
import { KeyNotShownError, openStore, startServer, type RunningServer } from '../server/start-server.js';
import { PostgresStore } from '../store/postgres/postgres-store.js';
import type { Store } from '../store/store.js';
import { CONFIG_OPTIONS, loadConfig, sameStoreCommand, shellWord } from './serve-config.js';
import { outputFailure, processIo, tryStderr } from './io/streams.js';
import { EXIT_OUTPUT_FAILED } from './exit.js';

/**
 * What `serve` says once when it starts on a store that already has accounts: no key is printed
 * then (a key is shown only when it is made), so it tells where the keys came from (the configuration's
 * `accounts[].keys` for the accounts it names, shown once when made for the others) and how to
 * make another for a lost one, with the command for this very store: the store flags `serve` was
 * given (`--config`, `--store`), and a SQLite store's data directory. A store named only by the
 * environment (`DATABASE_URL`) is the admin commands' too, in the same environment.
 */
function lostKeyHint(
  accountIds: readonly string[],
  configuredIds: ReadonlySet<string>,
  storeFlags: readonly string[],
): string {
  const account = accountIds.length === 1 ? accountIds[0]! : 'ACCOUNT_ID';
  const same = storeFlags.length > 0 ? `the same ${storeFlags.map(shellWord).join(' ')}` : 'the same environment';
  return (
    `This store already has ${accountIds.length === 1 ? `account "${accountIds[0]}"` : `accounts (${accountIds.join(', ')})`}; ${keysOrigin(accountIds, configuredIds)}. ` +
    `Lost one? Make another: ${sameStoreCommand(['keys', 'create', account], storeFlags)} (keys list and keys revoke take ${same})\n`
  );
}

/** Where the keys of the store's accounts came from: the configuration (its file or the environment) for those it names. */
function keysOrigin(accountIds: readonly string[], configuredIds: ReadonlySet<string>): string {
  const configured = accountIds.filter((id) => configuredIds.has(id));
  if (configured.length === 0) return 'its API keys were shown once, when made';
  if (configured.length === accountIds.length)
    return 'its API keys come from the configuration (accounts[].keys), or were shown once when made by keys create';
  return `the API keys of ${configured.join(', ')} come from the configuration (accounts[].keys); the others' were shown once, when made`;
}

/** The flags that name `serve`'s store to an admin command: its configuration file and store, a SQLite store's directory. */
function storeFlagsOf(values: { config?: string; store?: string }, config: { store: string; dataDir: string }) {
  return [
    ...(values.config === undefined ? [] : ['--config', values.config]),
    ...(values.store === undefined ? [] : ['--store', values.store]),
    ...(config.store === 'sqlite' ? ['--data-dir', config.dataDir] : []),
  ];
}

/** The accounts of a store a key can belong to (not the anonymous account of auth off). */
async function keyedAccounts(store: Store): Promise<string[]> {
  return (await store.listAccounts()).map((a) => a.id).filter((id) => id !== ANONYMOUS_ACCOUNT);
}

/**
 * Beyond this many bytes of log lines not yet taken by standard output's reader, new lines are dropped (each drop
 * told on standard error, at most one line a second) rather than held: a reader that stalls cannot grow the
 * server's memory.
 */
const MAX_UNWRITTEN_LOG_BYTES = 16 * 1024 * 1024;

/**
 * Standard output, written without the event loop's thread waiting on it: lines gather while a write is in progress
 * and go out together, off that thread (a line a request, written synchronously, cost the event loop more than
 * anything but its collections under load, and blocked it whenever the reader fell behind: bench/health.bench.ts).
 * What is gathered is written out when the process exits (pino's own exit handler).
 */
function requestLogDestination(): DestinationStream {
  const destination = pino.destination({ dest: 1, sync: false, maxLength: MAX_UNWRITTEN_LOG_BYTES });
  let toldAt = -Infinity;
  destination.on('drop', () => {
    if (performance.now() - toldAt < 1000) return;
    toldAt = performance.now();
    processIo.stderr('evm-integrity serve: standard output is not being read; log lines dropped\n');
  });
  return destination;
}

/** Writes the first start's key to standard error: why it could not be, in words, or undefined once written. */
async function showOnce(text: string): Promise<string | undefined> {
  const failure = await tryStderr(text);
  return failure && outputFailure('standard error', failure);
}

/** The first SIGINT or SIGTERM, as a promise; `remove` stops listening. */
function stopSignal(): { signal: Promise<string>; remove: () => void } {
  let remove = () => {};
  const signal = new Promise<string>((resolve) => {
    const on = (name: string) => resolve(name);
    process.once('SIGINT', on);
    process.once('SIGTERM', on);
    remove = () => {
      process.removeListener('SIGINT', on);
      process.removeListener('SIGTERM', on);
    };
  });
  return { signal, remove };
}

/**
 * `serve`: runs until SIGINT or SIGTERM, then shuts down, waiting at most shutdown_timeout_ms for requests in progress.
 */
export async function runServe(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: CONFIG_OPTIONS, allowPositionals: false });
  const config = loadConfig(values, process.env);
  const logger = pino({ base: null, timestamp: pino.stdTimeFunctions.isoTime }, requestLogDestination());
  // Listened for from the start: a signal that comes while the server starts (as soon as the key
  // is printed) stops it once it is up, gracefully, instead of killing the process; one that comes
  // while it waits for another replica's migration, however long, ends the wait and the start.
  const stop = stopSignal();
  try {
    const store = openStore(config);
    let starting = true;
    let signalled: string | undefined;
    void stop.signal.then((name) => {
      signalled = name;
      if (starting && store instanceof PostgresStore) store.stopWaiting();
    });
    let server: RunningServer;
    try {
      server = await startServer(config, { logger, store, print: showOnce });
    } catch (error) {
      // Told in the log, on standard output: standard error is what could not be written.
      if (error instanceof KeyNotShownError) return EXIT_OUTPUT_FAILED;
      if (signalled === undefined) throw error;
      logger.info({ signal: signalled }, 'stopped while starting');
      return 0;
    }
    starting = false;
    // Accounts before this start: no key was printed, and a lost one needs the hint.
    if (config.auth && server.storeHadAccounts)
      processIo.stderr(
        lostKeyHint(
          await keyedAccounts(store),
          new Set(config.accounts.map((a) => a.id)),
          storeFlagsOf(values, config),
        ),
      );
    const signal = await stop.signal;
    // The listener is closed first, so that the line is true when it is read.
    const closing = server.close();
    logger.info(
      { signal, shutdown_timeout_ms: config.shutdownTimeoutMs },
      'shutting down: finishing requests in progress',
    );
    await closing.catch((error: unknown) => logger.error({ err: error }, 'shutdown failed'));
  } finally {
    stop.remove();
  }
  logger.info('stopped');
  return 0;
}
