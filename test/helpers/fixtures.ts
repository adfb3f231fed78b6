import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const FIXTURES_DIR = fileURLToPath(new URL('../../fixtures/blocks/', import.meta.url));
/** Real headers without their receipts: evidence of a chain's block hash alone. */
export const HEADERS_DIR = fileURLToPath(new URL('../../fixtures/headers/', import.meta.url));
/** Real blocks of chains registered as not verifiable, which Ethereum's rules do not reproduce. */
export const UNVERIFIABLE_DIR = fileURLToPath(new URL('../../fixtures/unverifiable/', import.meta.url));

/** A fixture file as published in fixtures/README.md. */
export interface FixtureBlock {
  id: string;
  chain: string;
  chain_id: number | null;
  real: boolean;
  /** Where the data was published (fixtures/SOURCES.md). */
  source: { repository: string; license?: string; commit?: string; files: string };
  header_hash_recomputable: boolean;
  header: Record<string, string>;
  /** Absent in fixtures/headers/. */
  receipts: Array<Record<string, unknown>>;
  raw_receipts?: string[];
}

const jsonFiles = (dir: string) =>
  readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort();

/** The blocks with their complete receipts. */
export const fixtureNames: string[] = jsonFiles(FIXTURES_DIR);
/** The headers alone. */
export const headerNames: string[] = jsonFiles(HEADERS_DIR);
/** The blocks of chains that cannot be verified. */
export const unverifiableNames: string[] = jsonFiles(UNVERIFIABLE_DIR);

/** A fixture of fixtures/blocks/, fixtures/headers/ or fixtures/unverifiable/, by its name. */
export function loadFixture(name: string): FixtureBlock {
  const file = name.endsWith('.json') ? name : `${name}.json`;
  const dir = fixtureNames.includes(file) ? FIXTURES_DIR : headerNames.includes(file) ? HEADERS_DIR : UNVERIFIABLE_DIR;
  return JSON.parse(readFileSync(join(dir, file), 'utf8')) as FixtureBlock;
}

/**
 * The fixture as a block `verify block` reads: a header alone (fixtures/headers/) is given no receipts, and so is
 * without its list of transactions, which would name receipts the block does not have.
 */
export function asBlock(fixture: FixtureBlock): FixtureBlock {
  if (fixture.receipts !== undefined) return fixture;
  const { transactions: _, ...header } = fixture.header;
  return { ...fixture, header, receipts: [] };
}

/**
 * A fixture whose receipts keep only their consensus fields (type, status or root, cumulativeGasUsed, logs), as a
 * client that drops the rest sends them: no transactionHash, gasUsed or block members.
 */
export function consensusFieldsOnly(name: string): FixtureBlock {
  const fixture = loadFixture(name);
  const kept = ['type', 'status', 'root', 'cumulativeGasUsed', 'logs'];
  const receipts = fixture.receipts.map((receipt) =>
    Object.fromEntries(Object.entries(receipt).filter(([member]) => kept.includes(member))),
  );
  return { ...fixture, receipts };
}

/** Chain id of the generated hive chain, which no registry knows (a devnet). */
export const HIVE_CHAIN_ID = 3503995874084926;
