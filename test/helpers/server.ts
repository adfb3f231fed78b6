import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';
import { DEFAULT_CONFIG, type ServerConfig } from '../../packages/service/src/server/config.js';

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

export function testConfig(over: Partial<ServerConfig> = {}): ServerConfig {
  return { ...DEFAULT_CONFIG, store: 'memory', port: 0, ...over };
}
