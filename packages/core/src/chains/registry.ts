import {
  checkRuleSetName,
  POLYGON_BEFORE_STATE_SYNC_TRANSACTIONS,
  RULE_SETS,
  STATE_SYNC_TX_TYPE,
  type RuleSet,
  type RuleSetName,
} from '../receipts/rules.js';
import { ChainConflictError, EvidenceError } from '../errors.js';
import { HEADER_LAYOUTS, type HeaderLayout } from '../header/layouts.js';
import { kindOf, show } from '../json/show.js';
import { checkBlockNumber, checkChainId } from './chain-arguments.js';
import { BUILTIN_CHAIN_IDS, builtinChain, builtinChains } from './builtin.js';
import {
  CHECK_NAMES,
  type ChainInfo,
  type CheckName,
  type Era,
  type EraEvidence,
  type EvidenceBlock,
  type EvidenceKind,
  type ForkFieldEvidence,
  type ReceiptKind,
  type RegistryEntry,
  type StateSyncRule,
  type Vouch,
} from './chain-info.js';

export { CHECK_NAMES };
export type {
  ChainInfo,
  CheckName,
  Era,
  EraEvidence,
  EvidenceBlock,
  EvidenceKind,
  ForkActivation,
  ForkFieldEvidence,
  ReceiptKind,
  RegistryEntry,
  StateSyncRule,
  Vouch,
} from './chain-info.js';

/**
 * Whether a check of a block is claimed: on the real blocks that show it, on the operator's word
 * (a chain added in the configuration), or not, and why. `evidence` holds the chain's own blocks
 * (shipped, or vouched for by an operator); `registry`, for a chain a registry declares a standard
 * member of its rule set's family, the entry and the family's shipped blocks.
 */
export type CheckClaim =
  | {
      verified: true;
      evidence: readonly EvidenceBlock[] | 'configured';
      registry?: { entry: RegistryEntry; evidence: readonly EvidenceBlock[] };
    }
  | { verified: false; reason: string };

/** A block of a built-in chain that an operator vouched for and that reproduced under its rules (`admitEvidence`). */
export interface OperatorEvidence {
  chainId: number;
  block: number;
  /** The kinds of receipts it holds. */
  receipts: readonly ReceiptKind[];
  /** Whether it holds a log. */
  logs: boolean;
  /** The fork fields of its header's layout it has and lacks: what it shows of its chain's forks. */
  forkFields: { present: readonly string[]; absent: readonly string[] };
  vouch: Vouch;
}

/** Which kind of evidence a claim stands on (after `claimFor` has narrowed it to one block). */
export function evidenceKindOf(claim: Extract<CheckClaim, { verified: true }>): EvidenceKind {
  if (claim.evidence === 'configured') return 'configured';
  if (claim.evidence.some((e) => e.operator !== undefined)) return 'operator';
  return claim.registry === undefined ? 'shipped' : 'registry';
}

/**
 * Whether `verifiability` is of a block whose chain the registry does not know, or that names none (undefined): such a
 * block is verified under the caller's rule set (verifyBlock's `rules`, `--rules`) where one is given.
 */
export const outsideRegistry = (
  verifiability: Verifiability | undefined,
): verifiability is undefined | (NotVerifiable & { chain?: undefined }) =>
  verifiability === undefined || (verifiability.status === 'not_verifiable' && verifiability.chain === undefined);

/**
 * The rule set a block of `verifiability` is verified under, whose nodes' members that repeat the block (a receipt's
 * `timestamp`, its `gasUsed` step, one transaction hash a receipt) it is held to (docs/chains.md): its verifiable era's
 * (a built-in chain, or one added with its rule set); for a chain outside the registry, or a block that names none,
 * `rules`, the one the caller names (`--rules`), where given, as it is then verified under them; none for a chain or era
 * that cannot be verified, which no block shows how its nodes write them (Hedera's relay lists one transaction twice).
 */
export function verifiedUnder(
  verifiability: Verifiability | undefined,
  rules: RuleSetName | undefined,
): RuleSetName | undefined {
  if (verifiability?.status === 'verifiable') return verifiability.rules.name;
  return outsideRegistry(verifiability) ? rules : undefined;
}

/** An era with its block range spelled out. */
export interface EraSpan {
  name: string;
  firstBlock: number;
  /** null for the era the chain is in now. */
  lastBlock: number | null;
}

/** What the registry says about verifying one block of a chain. */
export type Verifiability =
  | {
      status: 'verifiable';
      chain: ChainInfo;
      rules: RuleSet;
      /** The layout the era's headers hash in. */
      header: HeaderLayout;
      era: EraSpan | null;
      stateSync: StateSyncRule | null;
      /** Which of the block's checks are claimed, on what evidence. */
      checks: Readonly<Record<CheckName, CheckClaim>>;
    }
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
      /**
       * The one check that cannot be run on this block, where its chain and era can be verified: the block holds
       * receipts (or logs) of a kind no real block of its era has shown ({@link uncheckable}).
       */
      check?: CheckName;
      /** What the client can do, where what cannot be verified is the block's own data (a member a node left out). */
      hint?: string;
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
  return span.lastBlock === null
    ? `blocks from ${formatBlock(span.firstBlock)}`
    : `blocks ${formatBlock(span.firstBlock)}-${formatBlock(span.lastBlock)}`;
}

/**
 * Whether the cause is the chain rather than the block: a chain outside the registry, or one no block of which can be
 * verified (no era, or one era for all its blocks). Then no block number is named as the cause.
 */
export function isChainWide(subject: NotVerifiable): boolean {
  const { chain, era } = subject;
  if (chain === undefined) return true;
  return subject.check === undefined && (era === null || (era.firstBlock === 0 && era.lastBlock === null));
}

/** Why a block of a chain cannot be verified, in one sentence or two. */
export function describeNotVerifiable(subject: NotVerifiable, blockNumber?: bigint): string {
  const { chainId, chain, era, reason } = subject;
  if (chain === undefined) return `Chain ${chainId} is not in the chain registry.`;
  if (subject.check !== undefined) {
    const block = blockNumber === undefined ? 'This block' : `Block ${formatBlock(Number(blockNumber))}`;
    return `${block} of ${chain.name} (chain ${chainId}) cannot be verified, although the chain can: ${reason}`;
  }
  // era === null is chain-wide too; said again for the compiler.
  if (era === null || isChainWide(subject)) return `Chain ${chainId} (${chain.name}) cannot be verified: ${reason}`;
  const block = blockNumber === undefined ? 'This block' : `Block ${formatBlock(Number(blockNumber))}`;
  return `${block} of ${chain.name} (chain ${chainId}) is in its ${era.name} era (${describeSpan(era)}), which cannot be verified: ${reason}`;
}

/** The rule set of an era: its own, else (before Madhugiri, Polygon knows no 0x7f type) the chain's. */
function eraRules(chain: ChainInfo, era: Era): RuleSet {
  if (era.rules !== undefined) return RULE_SETS[era.rules];
  return era.stateSync === 'receipt-outside-root' ? POLYGON_BEFORE_STATE_SYNC_TRANSACTIONS : RULE_SETS[chain.rules];
}

/** Why a check of an era is not claimed, when no real block has shown it and the era says nothing more. */
const NO_EVIDENCE = "no real block of this era in the project's fixtures has shown it yet";

/** A rule set's family: eras that encode receipts by the same rules (and era of them) and hash the same header layout. */
const familyOf = (chain: ChainInfo, era: Era) => {
  const rules = eraRules(chain, era);
  return `${rules.name}/${rules.era ?? ''}/${era.header ?? 'ethereum'}`;
};

/**
 * The shipped blocks of each rule set's family, per check: the evidence of every built-in era that stands on blocks of
 * its own. A chain a registry declares standard borrows them for the kinds they show. Made at the first call, as it
 * makes every built-in chain.
 */
function familyEvidence(): ReadonlyMap<string, Record<CheckName, EvidenceBlock[]>> {
  if (families !== undefined) return families;
  const made = new Map<string, Record<CheckName, EvidenceBlock[]>>();
  for (const chain of builtinChains())
    for (const era of chain.eras ?? []) {
      if (era.notVerifiable !== undefined || era.evidence === undefined) continue;
      const name = familyOf(chain, era);
      const family = made.get(name) ?? { block_hash: [], receipts_root: [], logs_bloom: [] };
      made.set(name, family);
      for (const check of CHECK_NAMES) {
        const blocks = era.evidence[check];
        if (typeof blocks !== 'string') family[check].push(...blocks);
      }
    }
  return (families = made);
}

let families: ReadonlyMap<string, Record<CheckName, EvidenceBlock[]>> | undefined;

/**
 * Each check of an era: claimed on its own blocks (shipped, then the operator's), on its registry entry with the
 * family's blocks, or not and why; an era without evidence is an operator's, taken on its word.
 */
function eraChecks(chain: ChainInfo, era: Era | undefined): Readonly<Record<CheckName, CheckClaim>> {
  if (era?.evidence === undefined) return CONFIGURED;
  // Made once an era: verifiability() asks for them on every block. An era is never changed; an operator's block
  // makes a new one.
  let checks = ERA_CHECKS.get(era);
  if (checks === undefined) ERA_CHECKS.set(era, (checks = claimsOf(chain, era, era.evidence)));
  return checks;
}

const CONFIGURED: Readonly<Record<CheckName, CheckClaim>> = {
  block_hash: { verified: true, evidence: 'configured' },
  receipts_root: { verified: true, evidence: 'configured' },
  logs_bloom: { verified: true, evidence: 'configured' },
};

const ERA_CHECKS = new WeakMap<Era, Readonly<Record<CheckName, CheckClaim>>>();

/** The claims of an era with evidence (see {@link eraChecks}). */
function claimsOf(chain: ChainInfo, era: Era, evidenceOf: EraEvidence): Record<CheckName, CheckClaim> {
  const claim = (check: CheckName): CheckClaim => {
    const own = evidenceOf[check];
    // A block that reproduced under the era's rules shows all three checks.
    const evidence = [...(typeof own === 'string' ? [] : own), ...(era.vouched ?? [])];
    // The family's blocks beside the era's own: an era that is its family alone borrows nothing.
    const borrowed = era.registry === undefined ? [] : (familyEvidence().get(familyOf(chain, era))?.[check] ?? []);
    const family = borrowed.filter((e) => typeof own === 'string' || !own.includes(e));
    if (family.length > 0) return { verified: true, evidence, registry: { entry: era.registry!, evidence: family } };
    if (evidence.length > 0) return { verified: true, evidence };
    return { verified: false, reason: typeof own === 'string' ? own : NO_EVIDENCE };
  };
  return Object.fromEntries(CHECK_NAMES.map((check) => [check, claim(check)])) as Record<CheckName, CheckClaim>;
}

function whyEraMatters(chain: ChainInfo, eras: readonly Era[]): { why: string; decidesVerifiability: boolean } {
  const spans = eras.map((_, i) => spanOf(eras, i));
  // Whether the receipts of an era can be verified at all: it is open, and its receipts root is claimed.
  const closed = spans.filter(
    (_, i) => eras[i]!.notVerifiable !== undefined || !eraChecks(chain, eras[i]).receipts_root.verified,
  );
  if (closed.length > 0) {
    const list = closed.map((span) => `${describeSpan(span)} (${span.name})`).join(' and ');
    return {
      why: `the receipts of ${chain.name} ${list} cannot be verified, those of other blocks can`,
      decidesVerifiability: true,
    };
  }
  const list = spans.map((span) => `${describeSpan(span)} (${span.name})`).join(', ');
  return { why: `${chain.name} has eras with rules of their own: ${list}`, decidesVerifiability: false };
}

/**
 * A block whose check is not claimed (by its era, or as `claim` narrows it to the block), as a
 * refusal of that check (the receipt-root endpoint's 422): why, and the first later block whose
 * era claims it. Null when the check is claimed.
 */
export function uncheckable(
  verifiability: Extract<Verifiability, { status: 'verifiable' }>,
  check: CheckName,
  claim: CheckClaim = verifiability.checks[check],
): NotVerifiable | null {
  if (claim.verified) return null;
  const { chain, era } = verifiability;
  const eras = chain.eras ?? [];
  const at = eras.findIndex((e) => e.from === era?.firstBlock);
  const later = eras.slice(at + 1).find((e) => e.notVerifiable === undefined && eraChecks(chain, e)[check].verified);
  const reason = `its ${check.replace('_', ' ')} rule is unproven: ${claim.reason}`;
  return {
    status: 'not_verifiable',
    chainId: chain.chainId,
    chain,
    reason,
    era,
    firstVerifiableBlock: later?.from ?? null,
    // Only this block's receipts keep the era's claim from it.
    ...(verifiability.checks[check].verified && { check }),
  };
}

/**
 * A chain's header-field evidence with an operator's block added: each fork field it has shows the field from its block
 * on, each it lacks shows the field absent through it. A block that says otherwise than the chain's other blocks is
 * refused (EvidenceError): a field once appended stays, so no real block of the chain can.
 */
function vouchedFields(
  known: Readonly<Record<string, ForkFieldEvidence>>,
  evidence: OperatorEvidence,
  shown: EvidenceBlock,
): Record<string, ForkFieldEvidence> {
  const fields: Record<string, ForkFieldEvidence> = { ...known };
  const { chainId, block, vouch } = evidence;
  const refuse = (field: string, other: EvidenceBlock, has: string) => {
    throw new EvidenceError(
      `${vouch.file}: block ${block} ${has} ${field}, which block ${other.block} (${other.fixture}) of the chain contradicts: a field once appended stays`,
      { file: vouch.file, chainId, block },
    );
  };
  for (const field of evidence.forkFields.present) {
    const { presentFrom, absentThrough } = fields[field] ?? {};
    if (absentThrough !== undefined && absentThrough.block >= block) refuse(field, absentThrough, 'has');
    if (presentFrom === undefined || presentFrom.block > block)
      fields[field] = { ...fields[field], presentFrom: shown };
  }
  for (const field of evidence.forkFields.absent) {
    const { presentFrom, absentThrough } = fields[field] ?? {};
    if (presentFrom !== undefined && presentFrom.block <= block) refuse(field, presentFrom, 'lacks');
    if (absentThrough === undefined || absentThrough.block < block)
      fields[field] = { ...fields[field], absentThrough: shown };
  }
  return fields;
}

/**
 * Holds a chain added to a registry (`extra[i]`, named `path`) to what the registry reads of it: its id, and the rule
 * sets and header layouts it and its eras name, so that a misspelt one is refused here, naming it, rather than failing
 * at the first block verified.
 */
function checkAddedChain(chain: ChainInfo, path: string): void {
  if (typeof chain !== 'object' || chain === null) throw new TypeError(`${path} must be a chain, got ${kindOf(chain)}`);
  checkChainId(chain.chainId, `${path}.chainId`);
  checkRuleSetName(chain.rules, `${path}.rules`);
  if (chain.eras !== undefined) checkEraStarts(chain.eras, `${path}.eras`);
  chain.eras?.forEach((era, i) => {
    if (era.rules !== undefined) checkRuleSetName(era.rules, `${path}.eras[${i}].rules`);
    if (era.header !== undefined && !Object.hasOwn(HEADER_LAYOUTS, era.header))
      throw new RangeError(
        `${path}.eras[${i}].header must name a header layout, one of ${Object.keys(HEADER_LAYOUTS).join(', ')}; got ${show(era.header)}`,
      );
  });
}

/**
 * Holds a chain's eras to what the lookup of a block's era reads: at least one, the first from block 0 (as every
 * built-in chain's), each later one starting after the one before. Else a block would fall in no era, or in the wrong
 * one, and be verified under rules no era declared for it.
 */
function checkEraStarts(eras: readonly Era[], path: string): void {
  const given: unknown = eras;
  if (!Array.isArray(given)) throw new TypeError(`${path} must be an array of eras, got ${kindOf(given)}`);
  if (eras.length === 0)
    throw new RangeError(`${path} must hold at least one era, the first from block 0; got none (omit eras for none)`);
  eras.forEach((era, i) => {
    const from: unknown = (era as Partial<Era> | null)?.from;
    if (typeof from !== 'number') throw new TypeError(`${path}[${i}].from must be a number, got ${kindOf(from)}`);
    if (!Number.isSafeInteger(from) || from < 0)
      throw new RangeError(`${path}[${i}].from must be a block number (a non-negative integer), got ${from}`);
  });
  if (eras[0]!.from !== 0)
    throw new RangeError(
      `${path}[0].from must be 0: the eras must cover the chain from its first block; got ${eras[0]!.from}`,
    );
  eras.forEach((era, i) => {
    if (i > 0 && era.from <= eras[i - 1]!.from)
      throw new RangeError(
        `${path}[${i}].from must be after the era before (${eras[i - 1]!.from}): eras are in block order; got ${era.from}`,
      );
  });
}

/** Chain id → chain, with the rule set resolved. */
export class ChainRegistry {
  /** The chains added (`extra`) and the built-in chains an operator's blocks were added to; the others are built in. */
  readonly #chains = new Map<number, ChainInfo>();

  /**
   * The built-in chains plus `extra` (an operator's devnets), with `options.evidence`: blocks of built-in chains that
   * operators vouched for (`admitEvidence`), each added to its era. An extra chain with a built-in chain's id, or
   * given twice, is refused (ChainConflictError): replacing a built-in chain would drop its eras, and with them what
   * can be verified and how. Evidence of a chain that is not built in, or of an era that cannot be verified, is
   * refused (EvidenceError). A chain whose id, rule set or era's rule set or header layout is none (`rules: 'Ethereum'`),
   * or whose eras do not cover it from block 0 in block order (`eras: []`), is a TypeError or RangeError naming it
   * (`extra[0].rules`, `extra[0].eras`).
   *
   * @example
   * new ChainRegistry([], { evidence: [admitted] }).verifiability(8453, 30_000_000)
   */
  constructor(extra: readonly ChainInfo[] = [], options: { evidence?: readonly OperatorEvidence[] } = {}) {
    const given: unknown = extra;
    if (!Array.isArray(given)) throw new TypeError(`extra must be an array of chains, got ${kindOf(given)}`);
    extra.forEach((chain, i) => checkAddedChain(chain, `extra[${i}]`));
    for (const chain of extra) {
      const builtIn = builtinChain(chain.chainId);
      if (builtIn !== undefined || this.#chains.has(chain.chainId)) {
        const what =
          builtIn === undefined
            ? 'is given twice'
            : `is built in (${builtIn.name}, rules ${builtIn.rules}${builtIn.eras ? ', with its eras' : ''})`;
        throw new ChainConflictError(`chain ${chain.chainId} ${what}: an added chain needs an id of its own`, {
          chainId: chain.chainId,
        });
      }
      this.#chains.set(chain.chainId, chain);
    }
    for (const evidence of options.evidence ?? []) this.#vouch(evidence);
  }

  /** Adds an operator's block to its era of a built-in chain (a copy of the chain: the built-in one is shared). */
  #vouch(evidence: OperatorEvidence): void {
    const { chainId, block, vouch } = evidence;
    const chain = this.get(chainId);
    const details = { file: vouch.file, chainId, block };
    const eras = chain?.eras;
    if (chain === undefined || eras === undefined || !chain.verifiable)
      throw new EvidenceError(`${vouch.file}: chain ${chainId} is not a built-in chain that can be verified`, details);
    let i = eras.length - 1;
    while (i > 0 && eras[i]!.from > block) i--;
    const era = eras[i]!;
    if (era.notVerifiable !== undefined)
      throw new EvidenceError(
        `${vouch.file}: block ${block} is in ${chain.name}'s ${era.name} era: ${era.notVerifiable}`,
        details,
      );
    const shown: EvidenceBlock = {
      fixture: vouch.file,
      block,
      receipts: evidence.receipts,
      logs: evidence.logs,
      operator: vouch,
    };
    const withBlock = { ...era, vouched: [...(era.vouched ?? []), shown] };
    const headerFields = vouchedFields(chain.headerFields ?? {}, evidence, shown);
    this.#chains.set(chainId, { ...chain, eras: eras.map((e, j) => (j === i ? withBlock : e)), headerFields });
  }

  get(chainId: number): ChainInfo | undefined {
    return this.#chains.get(chainId) ?? builtinChain(chainId);
  }

  /** Rule set of a known chain. */
  rulesOf(chain: ChainInfo): RuleSet {
    return RULE_SETS[chain.rules];
  }

  /**
   * Whether block `blockNumber` of chain `chainId` can be verified, under which rules,
   * and in which era; without a block number, a chain with eras answers `era_unknown`. A `chainId` that is not a
   * non-negative integer, or a `blockNumber` that is not a non-negative integer (a safe one, or a bigint), is a
   * TypeError or RangeError naming it.
   *
   * @example
   * defaultRegistry.verifiability(42161, 1_000).status // 'not_verifiable' (Arbitrum classic)
   * defaultRegistry.verifiability(42161, 22_207_817).status // 'verifiable'
   */
  verifiability(chainId: number, blockNumber?: number | bigint): Verifiability {
    // A chain id of another type would be "not in the registry", and false: it was never looked up.
    checkChainId(chainId, 'chainId');
    if (blockNumber !== undefined) checkBlockNumber(blockNumber, 'blockNumber');
    const chain = this.get(chainId);
    if (chain === undefined) {
      return {
        status: 'not_verifiable',
        chainId,
        reason: `chain ${chainId} is not in the chain registry`,
        era: null,
        firstVerifiableBlock: null,
      };
    }
    if (!chain.verifiable) {
      const reason = chain.reason ?? 'its receipts root is not a Patricia root of its receipts';
      return { status: 'not_verifiable', chainId, chain, reason, era: null, firstVerifiableBlock: null };
    }
    const eras = chain.eras;
    if (eras === undefined) {
      return {
        status: 'verifiable',
        chain,
        rules: RULE_SETS[chain.rules],
        header: HEADER_LAYOUTS.ethereum,
        era: null,
        stateSync: null,
        checks: eraChecks(chain, undefined),
      };
    }
    if (blockNumber === undefined && eras.length > 1)
      return { status: 'era_unknown', chain, rules: RULE_SETS[chain.rules], ...whyEraMatters(chain, eras) };

    let i = eras.length - 1;
    if (blockNumber !== undefined) while (i > 0 && BigInt(eras[i]!.from) > BigInt(blockNumber)) i--;
    const era = eras[i]!;
    const span = spanOf(eras, i);
    if (era.notVerifiable !== undefined) {
      const firstVerifiableBlock = eras.slice(i + 1).find((later) => later.notVerifiable === undefined)?.from ?? null;
      return { status: 'not_verifiable', chainId, chain, reason: era.notVerifiable, era: span, firstVerifiableBlock };
    }
    return {
      status: 'verifiable',
      chain,
      rules: eraRules(chain, era),
      header: HEADER_LAYOUTS[era.header ?? 'ethereum'],
      era: span,
      stateSync: era.stateSync ?? null,
      checks: eraChecks(chain, era),
    };
  }

  list(): ChainInfo[] {
    const ids = new Set([...BUILTIN_CHAIN_IDS, ...this.#chains.keys()]);
    return [...ids].sort((a, b) => a - b).map((chainId) => this.get(chainId)!);
  }
}

/** A real block that evidence stands on, as reports and `GET /v1/chains` show it. */
export interface EvidenceBlockDescription {
  /** A shipped fixture's name, or the operator's evidence file. */
  fixture: string;
  block: number;
  source: 'shipped' | 'operator';
  receipts?: ReceiptKind[];
  logs?: boolean;
  /** An operator's block: the hash vouched for, by whom and when. */
  block_hash?: string;
  vouched_by?: string;
  vouched_at?: string;
}

/** A registry entry as reports show it, with the family's shipped blocks a claim borrows. */
export interface RegistryDescription {
  repository: string;
  path: string;
  commit: string;
  declares: string;
  evidence: EvidenceBlockDescription[];
}

/** A check's claim as `GET /v1/chains` shows it: verified on its evidence, or not and why. */
export type ClaimDescription =
  | { verified: true; evidence: EvidenceBlockDescription[] | 'configured'; registry?: RegistryDescription }
  | { verified: false; reason: string };

/** The evidence a check of one block stood on, as its report names it. */
export interface EvidenceUsed {
  kind: EvidenceKind;
  /** The chain's own blocks it used (none for a registry claim that borrowed the family's, nor a configured one). */
  blocks: EvidenceBlockDescription[];
  registry?: RegistryDescription;
}

/** An era as `GET /v1/chains` lists it. */
export interface EraDescription {
  name: string;
  first_block: number;
  last_block: number | null;
  verifiable: boolean;
  reason?: string;
  rules: string;
  header: string;
  state_sync?: StateSyncRule;
  /** Each check's claim; absent for an era that cannot be verified at all. */
  checks?: Record<CheckName, ClaimDescription>;
}

/** A chain as `GET /v1/chains` lists it. */
export interface ChainDescription {
  chain_id: number;
  name: string;
  rules: string;
  verifiable: boolean;
  reason?: string;
  /** The chain's eras (built-in chains). */
  eras?: EraDescription[];
  /** The checks of a chain an operator added: every one `configured`. */
  checks?: Record<CheckName, ClaimDescription>;
}

function describeBlock(e: EvidenceBlock): EvidenceBlockDescription {
  return {
    fixture: e.fixture,
    block: e.block,
    source: e.operator === undefined ? 'shipped' : 'operator',
    ...(e.receipts !== undefined && { receipts: [...e.receipts] }),
    ...(e.logs !== undefined && { logs: e.logs }),
    ...(e.operator !== undefined && {
      block_hash: e.operator.blockHash,
      vouched_by: e.operator.vouchedBy,
      vouched_at: e.operator.vouchedAt,
    }),
  };
}

function describeRegistry(registry: NonNullable<Extract<CheckClaim, { verified: true }>['registry']>) {
  return { ...registry.entry, evidence: registry.evidence.map(describeBlock) };
}

function describeClaim(claim: CheckClaim): ClaimDescription {
  if (!claim.verified) return { verified: false, reason: claim.reason };
  if (claim.evidence === 'configured') return { verified: true, evidence: 'configured' };
  return {
    verified: true,
    evidence: claim.evidence.map(describeBlock),
    ...(claim.registry !== undefined && { registry: describeRegistry(claim.registry) }),
  };
}

/** The evidence a claim narrowed to one block (`claimFor`) stands on, as a report names it. */
export function describeEvidenceUsed(claim: Extract<CheckClaim, { verified: true }>): EvidenceUsed {
  const kind = evidenceKindOf(claim);
  if (claim.evidence === 'configured') return { kind, blocks: [] };
  return {
    kind,
    blocks: claim.evidence.map(describeBlock),
    ...(claim.registry !== undefined && { registry: describeRegistry(claim.registry) }),
  };
}

const describeChecks = (chain: ChainInfo, era: Era | undefined) =>
  Object.fromEntries(
    Object.entries(eraChecks(chain, era)).map(([check, claim]) => [check, describeClaim(claim)]),
  ) as Record<CheckName, ClaimDescription>;

/**
 * A chain as `GET /v1/chains` lists it: per era, its rules, header layout and which checks are
 * verified on what evidence. A chain an operator added has no eras: its checks are `configured`.
 */
export function describeChain(chain: ChainInfo): ChainDescription {
  const description: ChainDescription = {
    chain_id: chain.chainId,
    name: chain.name,
    rules: chain.rules,
    verifiable: chain.verifiable,
  };
  if (chain.reason !== undefined) description.reason = chain.reason;
  if (chain.eras === undefined) {
    if (chain.verifiable) description.checks = describeChecks(chain, undefined);
    return description;
  }
  description.eras = chain.eras.map((era, i, eras) => {
    const span = spanOf(eras, i);
    return {
      name: era.name,
      first_block: span.firstBlock,
      last_block: span.lastBlock,
      verifiable: era.notVerifiable === undefined,
      ...(era.notVerifiable !== undefined && { reason: era.notVerifiable }),
      rules: era.rules ?? chain.rules,
      header: era.header ?? 'ethereum',
      ...(era.stateSync !== undefined && { state_sync: era.stateSync }),
      ...(era.notVerifiable === undefined && { checks: describeChecks(chain, era) }),
    };
  });
  return description;
}

/** The registry of built-in chains only. */
export const defaultRegistry = new ChainRegistry();
