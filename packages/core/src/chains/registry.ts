import { POLYGON_BEFORE_STATE_SYNC_TRANSACTIONS, RULE_SETS, STATE_SYNC_TX_TYPE, type RuleSet } from '../receipts/rules.js';
import { ChainConflictError } from '../errors.js';
import { BUILTIN_CHAINS } from './builtin.js';
import type { ChainInfo, Era, StateSyncRule } from './chain-info.js';

export { BUILTIN_CHAINS };
export type { ChainInfo, Era, StateSyncRule } from './chain-info.js';

/** An era with its block range spelled out. */
export interface EraSpan {
  name: string;
  firstBlock: number;
  /** null for the era the chain is in now. */
  lastBlock: number | null;
}

/** What the registry says about verifying one block of a chain. */
export type Verifiability =
  | { status: 'verifiable'; chain: ChainInfo; rules: RuleSet; era: EraSpan | null; stateSync: StateSyncRule | null }
  | {
      status: 'not_verifiable';
      chainId: number;
      /** Absent for a chain outside the registry. */
      chain?: ChainInfo;
      reason: string;
      /** The era the block is in, when only that era of the chain cannot be verified. */
      era: EraSpan | null;
      /** The first block after the era that can be verified, if any. */
      firstVerifiableBlock: number | null;
    }
  | {
      /** The chain has eras and no block number was given. */
      status: 'era_unknown';
      chain: ChainInfo;
      /** The chain's own rule set, whatever the era. */
      rules: RuleSet;
      /** Why the block number is needed, for a problem's `expected`. */
      why: string;
      /** Whether the era decides if the block can be verified at all (not only how state sync is treated). */
      decidesVerifiability: boolean;
    };

/** A chain, or a block of one, that cannot be verified, and why. */
export type NotVerifiable = Extract<Verifiability, { status: 'not_verifiable' }>;

/**
 * Whether receipts hash differently from one era of a chain to another: one naming its
 * transaction may be Bor's state-sync receipt (left out before Madhugiri), and type 0x7f
 * exists only from Madhugiri on. Other receipts hash alike in every era.
 */
export function eraChangesHashing(receipts: { namesTransactions: boolean; types: readonly number[] }): boolean {
  return receipts.namesTransactions || receipts.types.includes(STATE_SYNC_TX_TYPE);
}

/**
 * Whether a block of a chain with eras needs its number to be verified: when the era
 * decides whether it can be verified at all, or changes how its receipts hash.
 * Otherwise every era gives the same answer and none is guessed.
 */
export function eraMatters(
  verifiability: Extract<Verifiability, { status: 'era_unknown' }>,
  receipts: { namesTransactions: boolean; types: readonly number[] },
): boolean {
  return verifiability.decidesVerifiability || eraChangesHashing(receipts);
}

/** Block numbers as people write them: 22,207,817. */
export function formatBlock(n: number): string {
  return n.toLocaleString('en-US');
}

function spanOf(eras: readonly Era[], i: number): EraSpan {
  const next = eras[i + 1];
  return { name: eras[i]!.name, firstBlock: eras[i]!.from, lastBlock: next === undefined ? null : next.from - 1 };
}

/** "blocks 0-22,207,816" or "blocks from 105,235,063". */
export function describeSpan(span: EraSpan): string {
  return span.lastBlock === null ? `blocks from ${formatBlock(span.firstBlock)}` : `blocks ${formatBlock(span.firstBlock)}-${formatBlock(span.lastBlock)}`;
}

/** Why a block of a chain cannot be verified, in one sentence or two. */
export function describeNotVerifiable(subject: NotVerifiable, blockNumber?: bigint): string {
  const { chainId, chain, era, reason } = subject;
  if (chain === undefined) return `Chain ${chainId} is not in this server's chain registry.`;
  if (era === null) return `Chain ${chainId} (${chain.name}) cannot be verified: ${reason}`;
  const block = blockNumber === undefined ? 'This block' : `Block ${formatBlock(Number(blockNumber))}`;
  return `${block} of ${chain.name} (chain ${chainId}) is in its ${era.name} era (${describeSpan(era)}), which cannot be verified: ${reason}`;
}

/** The rule set of an era: before Madhugiri, Polygon knows no 0x7f type. */
function eraRules(chain: ChainInfo, era: Era): RuleSet {
  return era.stateSync === 'receipt-outside-root' ? POLYGON_BEFORE_STATE_SYNC_TRANSACTIONS : RULE_SETS[chain.rules];
}

function whyEraMatters(chain: ChainInfo, eras: readonly Era[]): { why: string; decidesVerifiability: boolean } {
  const spans = eras.map((_, i) => spanOf(eras, i));
  const closed = spans.filter((_, i) => eras[i]!.notVerifiable !== undefined);
  if (closed.length > 0) {
    const list = closed.map((span) => `${describeSpan(span)} (${span.name})`).join(' and ');
    return { why: `${chain.name} ${list} cannot be verified, later blocks can`, decidesVerifiability: true };
  }
  const list = spans.map((span) => `${describeSpan(span)} (${span.name})`).join(', ');
  return { why: `${chain.name} treats Bor's state sync differently in ${list}`, decidesVerifiability: false };
}

/** Chain id → chain, with the rule set resolved. */
export class ChainRegistry {
  readonly #chains = new Map<number, ChainInfo>();

  /**
   * The built-in chains plus `extra` (an operator's devnets). An extra chain with a built-in
   * chain's id, or given twice, is refused (ChainConflictError): replacing a built-in chain would
   * drop its eras, and with them what can be verified and how.
   */
  constructor(extra: readonly ChainInfo[] = []) {
    for (const chain of BUILTIN_CHAINS) this.#chains.set(chain.chainId, chain);
    for (const chain of extra) {
      const known = this.#chains.get(chain.chainId);
      if (known !== undefined) {
        const what = BUILTIN_CHAINS.includes(known)
          ? `is built in (${known.name}, rules ${known.rules}${known.eras ? ', with its eras' : ''})`
          : 'is given twice';
        throw new ChainConflictError(`chain ${chain.chainId} ${what}: an added chain needs an id of its own`, { chainId: chain.chainId });
      }
      this.#chains.set(chain.chainId, chain);
    }
  }

  get(chainId: number): ChainInfo | undefined {
    return this.#chains.get(chainId);
  }

  /** Rule set of a known chain. */
  rulesOf(chain: ChainInfo): RuleSet {
    return RULE_SETS[chain.rules];
  }

  /**
   * Whether block `blockNumber` of chain `chainId` can be verified, under which rules,
   * and in which era; without a block number, a chain with eras answers `era_unknown`.
   *
   * @example
   * defaultRegistry.verifiability(42161, 1_000).status // 'not_verifiable' (Arbitrum classic)
   * defaultRegistry.verifiability(42161, 22_207_817).status // 'verifiable'
   */
  verifiability(chainId: number, blockNumber?: number | bigint): Verifiability {
    const chain = this.get(chainId);
    if (chain === undefined) {
      return { status: 'not_verifiable', chainId, reason: `chain ${chainId} is not in the chain registry`, era: null, firstVerifiableBlock: null };
    }
    if (!chain.verifiable) {
      const reason = chain.reason ?? 'its receipts root is not a Patricia root of its receipts';
      return { status: 'not_verifiable', chainId, chain, reason, era: null, firstVerifiableBlock: null };
    }
    const eras = chain.eras;
    if (eras === undefined) return { status: 'verifiable', chain, rules: RULE_SETS[chain.rules], era: null, stateSync: null };
    if (blockNumber === undefined) return { status: 'era_unknown', chain, rules: RULE_SETS[chain.rules], ...whyEraMatters(chain, eras) };

    const n = BigInt(blockNumber);
    let i = eras.length - 1;
    while (i > 0 && BigInt(eras[i]!.from) > n) i--;
    const era = eras[i]!;
    const span = spanOf(eras, i);
    if (era.notVerifiable !== undefined) {
      const firstVerifiableBlock = eras.slice(i + 1).find((later) => later.notVerifiable === undefined)?.from ?? null;
      return { status: 'not_verifiable', chainId, chain, reason: era.notVerifiable, era: span, firstVerifiableBlock };
    }
    return { status: 'verifiable', chain, rules: eraRules(chain, era), era: span, stateSync: era.stateSync ?? null };
  }

  list(): ChainInfo[] {
    return [...this.#chains.values()].sort((a, b) => a.chainId - b.chainId);
  }
}

/** A chain as `GET /v1/chains` lists it; `eras` only for chains that have them. */
export function describeChain(chain: ChainInfo) {
  return {
    chain_id: chain.chainId,
    name: chain.name,
    rules: chain.rules,
    verifiable: chain.verifiable,
    ...(chain.reason !== undefined && { reason: chain.reason }),
    ...(chain.eras !== undefined && {
      eras: chain.eras.map((era, i, eras) => {
        const span = spanOf(eras, i);
        return {
          name: era.name,
          first_block: span.firstBlock,
          last_block: span.lastBlock,
          verifiable: era.notVerifiable === undefined,
          ...(era.notVerifiable !== undefined && { reason: era.notVerifiable }),
          ...(era.stateSync !== undefined && { state_sync: era.stateSync }),
        };
      }),
    }),
  };
}

/** The registry of built-in chains only. */
export const defaultRegistry = new ChainRegistry();
