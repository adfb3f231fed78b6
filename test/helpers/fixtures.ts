import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const FIXTURES_DIR = fileURLToPath(new URL('../../fixtures/blocks/', import.meta.url));

/** A fixture file as published in fixtures/README.md. */
export interface FixtureBlock {
  id: string;
  chain: string;
  chain_id: number | null;
  header_hash_recomputable: boolean;
  header: Record<string, string>;
  receipts: Array<Record<string, unknown>>;
  raw_receipts?: string[];
}

export const fixtureNames: string[] = readdirSync(FIXTURES_DIR)
  .filter((f) => f.endsWith('.json'))
  .sort();

export function loadFixture(name: string): FixtureBlock {
  const file = name.endsWith('.json') ? name : `${name}.json`;
  return JSON.parse(readFileSync(join(FIXTURES_DIR, file), 'utf8')) as FixtureBlock;
}

/** Chain id of the generated hive chain, which no registry knows (a devnet). */
export const HIVE_CHAIN_ID = 3503995874084926;
