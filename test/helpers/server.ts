import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';
import { DEFAULT_CONFIG, type ServerConfig } from '../../packages/service/src/server/config/config.js';

/** A pino logger whose lines are kept in `lines`, for assertions on what is logged. */
export function capturingLogger(): { logger: Logger; lines: Array<Record<string, unknown>>; text: () => string } {
  const raw: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      raw.push(String(chunk));
      done();
    },
  });
  const logger = pino({ base: null }, stream);
  return {
    logger,
    get lines() {
      return raw
        .join('')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>);
    },
    text: () => raw.join(''),
  };
}

/** The one account most server tests use: a pro plan with room to spare, every endpoint and chain, one key. */
export function auditorAccount(key: string, label: string): NonNullable<ServerConfig['accounts']>[number] {
  return {
    id: 'auditor',
    name: 'Auditor',
    plan: 'pro',
    cuLimit: 100_000,
    rateLimitRps: 10_000,
    entitlements: null,
    keys: [{ label, key }],
  };
}

/** A server configuration for tests: the defaults, a memory store, any free port, then `over`. */
export function testConfig(over: Partial<ServerConfig> = {}): ServerConfig {
  return { ...DEFAULT_CONFIG, store: 'memory', port: 0, ...over };
}
