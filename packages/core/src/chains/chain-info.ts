import type { HeaderLayoutName } from '../header/layouts.js';
import type { RuleSetName } from '../receipts/rules.js';

/** How a Polygon PoS era brings Bor's state sync into a block. */
export type StateSyncRule =
  /** Nodes return an extra receipt for it, which is in neither the receipts root nor the logs bloom. */
  | 'receipt-outside-root'
  /** A 0x7f transaction whose receipt is in the root. */
  | 'transaction';

/** The three commitments a block is checked against. */
export type CheckName = 'block_hash' | 'receipts_root' | 'logs_bloom';

export const CHECK_NAMES: readonly CheckName[] = ['block_hash', 'receipts_root', 'logs_bloom'];

/**
 * What a block's receipts ask to have been shown before its receipts root is claimed: receipts
 * of Ethereum's types (0-4, encoded as mainnet encodes them), each type of the chain's own
 * (`0x7e`, `0x6a`, … as a number), Bor's state-sync receipt left out of the root, and an untyped
 * receipt that used no gas (which no Ethereum transaction can: HyperEVM's system transactions).
 */
export type ReceiptKind = 'ethereum' | 'state-sync-outside-root' | 'untyped-without-gas' | 'deposit-versioned' | number;

/**
 * Where a check's evidence comes from:
 * - `shipped`: real blocks of the chain's era in the project's fixtures, each with its source;
 * - `registry`: the chain's entry in an authoritative registry that declares it a standard member of its rule set's
 *   family, cited by repository, path and commit, with the kinds of receipts shown by shipped blocks of other chains
 *   of that rule set;
 * - `operator`: a real block of the chain whose hash an operator vouched for, that reproduced under the rule set;
 * - `configured`: a chain an operator added, every check on the configuration's word.
 */
export type EvidenceKind = 'shipped' | 'registry' | 'operator' | 'configured';

/** An operator's word for a block: the hash they vouch for, who they are, when, and the file that records it. */
export interface Vouch {
  blockHash: string;
  vouchedBy: string;
  vouchedAt: string;
  /** The evidence file, as the operator's evidence directory names it. */
  file: string;
}

/** A real block that reproduces a check: kept in the repository's fixtures with its source, or vouched for by an operator. */
export interface EvidenceBlock {
  /**
   * Its fixture: `fixtures/blocks/<fixture>.json`, or `fixtures/headers/<fixture>.json` for a header alone (block
   * hash). For an operator's block, the evidence file.
   */
  fixture: string;
  block: number;
  /** Receipts root evidence: the kinds of receipts the block holds ([] for a block without receipts). */
  receipts?: readonly ReceiptKind[];
  /** Logs bloom evidence: whether the block holds a log. */
  logs?: boolean;
  /** Set for a block an operator vouched for; absent for a shipped fixture. */
  operator?: Vouch;
}

/**
 * A registry entry that declares a chain a standard member of its rule set's family, with its fork schedule: the
 * chain is built from the family's unmodified client code, so a kind of receipt that a real block of any chain of the
 * family shows is encoded on it alike.
 */
export interface RegistryEntry {
  /** GitHub owner/name. */
  repository: string;
  path: string;
  commit: string;
  /** What the entry declares, in the registry's own terms. */
  declares: string;
}

/**
 * What shows each check of an era: the real blocks that reproduce it, or, for a check no real
 * block has shown, why it is not verified. A check is claimed only on evidence, and the receipts
 * root and bloom only for blocks like the ones shown: a block holding a kind of receipt (or a log)
 * that no evidence block of its era holds is not claimed.
 */
export type EraEvidence = Readonly<Record<CheckName, readonly EvidenceBlock[] | string>>;

/**
 * What the real blocks of a chain show of a header field that a fork appended: the highest block of the project's
 * fixtures without it, and the lowest with it. A field once appended stays, so every block from `presentFrom` on has
 * it and none up to `absentThrough` has; of a block between the two, no real block tells.
 */
export interface ForkFieldEvidence {
  absentThrough?: EvidenceBlock;
  presentFrom?: EvidenceBlock;
}

/**
 * A fork of a chain and when it activates: at a block number (forks before the Merge) or at a block timestamp (from
 * Shanghai on). A fork that appends header fields names the Ethereum fork whose fields those are in `appends`, when it
 * goes by another name (OP Stack's Canyon appends Shanghai's `withdrawalsRoot`).
 */
export type ForkActivation = { fork: string; appends?: string } & (
  { block: number; timestamp?: never } | { timestamp: number; block?: never }
);

/** A block range of a chain with rules of its own; it runs from `from` to the block before the next era. */
export interface Era {
  name: string;
  /** First block of the era. */
  from: number;
  /** Why none of its blocks can be verified; absent when they can. */
  notVerifiable?: string;
  /** Polygon PoS: how state sync enters the block. */
  stateSync?: StateSyncRule;
  /** The era's receipt rule set, when it is not the chain's (OP Mainnet before Bedrock: Ethereum's). */
  rules?: RuleSetName;
  /** The era's header layout; Ethereum's when absent. */
  header?: HeaderLayoutName;
  /** What shows each check; required of the built-in chains (a test holds every claim to its fixtures). */
  evidence?: EraEvidence;
  /**
   * The registry entry that declares the chain a standard member of its rule set's family in this era: a check its own
   * blocks have not shown is claimed on it, for receipts of the kinds that real blocks of the family show.
   */
  registry?: RegistryEntry;
  /** Blocks of the era an operator vouched for, which reproduced under its rules; the registry adds them, never built in. */
  vouched?: readonly EvidenceBlock[];
}

/** A chain the verifier knows. */
export interface ChainInfo {
  chainId: number;
  name: string;
  /** Receipt rule set its receipts follow. */
  rules: RuleSetName;
  /** Whether any of its blocks can be verified (see `eras` for which, and which checks). */
  verifiable: boolean;
  /** Why not, when it is not verifiable. */
  reason?: string;
  /**
   * Its eras in block order, the first from block 0. Absent for a chain an operator adds (a
   * devnet): one era with Ethereum's header, every check taken on the configuration's word.
   */
  eras?: readonly Era[];
  /**
   * For each fork field of its eras' header layouts, what its real blocks show (chains/header-field-evidence.ts,
   * generated from fixtures/). Absent for a chain an operator adds: nothing shows its forks.
   */
  headerFields?: Readonly<Record<string, ForkFieldEvidence>>;
  /**
   * Its forks in activation order, the first at genesis, from its clients' configuration (chains/builtin.ts cites
   * each): a header has exactly the fork fields of the forks active at its number and timestamp. Absent for a chain
   * whose schedule is not known here: then only its real blocks tell (`headerFields`).
   */
  forks?: readonly ForkActivation[];
}
