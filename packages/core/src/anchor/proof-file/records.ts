/**
 * The anchor proof file, version 1: JSON Lines, read one line at a time so a file of any length streams.
 * The first line names the format, the network and the checkpoint; each later line is one record:
 * - `beacon-header`: a beacon block header whose root is already trusted, with the state fields proven under it;
 * - `bootstrap` and `update`: light-client steps from the checkpoint to newer finalized headers;
 * - `block`: an execution block header and the proof that puts its hash under a trusted root.
 * docs/anchor.md describes every member; this file is the one reader of them.
 */
import { parseHex } from '../../bytes/hex.js';
import { AnchorFormatError, DuplicateMemberError } from '../../errors.js';
import { spelledAnotherWay, spellingRefusal } from '../../json/member-names.js';
import { parseJson } from '../../json/parse-json.js';
import { kindOf } from '../../json/show.js';
import { err, ok, type Result } from '../../result.js';
import type { Node } from '../merkle-branch.js';
import type { BeaconBlockHeader } from '../ssz.js';

/** The format's name and version, as the first line carries them. */
export const ANCHOR_PROOF_VERSION = 1;

/** The first line: which network, and the checkpoint (a finalized beacon block root) everything hangs from. */
export interface AnchorProofHead {
  readonly network: string;
  readonly checkpoint: Node;
}

/** A state field's root and its branch up to the state root. */
export interface StateField {
  readonly root: Node;
  readonly branch: readonly Node[];
}

/** A beacon block header whose root must already be trusted, and what its state holds. */
export interface BeaconHeaderRecord {
  readonly kind: 'beacon-header';
  readonly header: BeaconBlockHeader;
  readonly historicalSummaries?: StateField;
  readonly historicalRoots?: StateField;
}

/** A light-client object in its SSZ, with the fork whose layout it has. */
export interface LightClientRecord {
  readonly kind: 'bootstrap' | 'update';
  readonly fork: string;
  readonly ssz: Uint8Array;
}

/** A list entry's root and its 25-node branch (24 levels, then the list's length) to the list's root. */
export interface ListEntry {
  readonly index: number;
  readonly branch: readonly Node[];
}

/** How a block's hash is proven. */
export type BlockProof =
  | {
      /** Before the merge: the header's epoch record, then the accumulator. */
      readonly era: 'pre-merge';
      readonly branch: readonly Node[];
      readonly epochRoot: Node;
      readonly epochBranch: readonly Node[];
    }
  | {
      /** A beacon block whose root is trusted itself: the execution hash's branch to it. */
      readonly era: 'beacon-block';
      readonly slot: number;
      readonly beaconBlockRoot: Node;
      readonly executionBranch: readonly Node[];
    }
  | {
      /** Capella on: `block_roots` of a completed period, under its `historical_summaries` entry. */
      readonly era: 'historical-summaries';
      readonly slot: number;
      readonly beaconBlockRoot: Node;
      readonly executionBranch: readonly Node[];
      readonly blockRootsBranch: readonly Node[];
      readonly summary: ListEntry & { readonly blockSummaryRoot: Node; readonly stateSummaryRoot: Node };
    }
  | {
      /** Bellatrix to Capella: the `HistoricalBatch` under its `historical_roots` entry. */
      readonly era: 'historical-roots';
      readonly slot: number;
      readonly beaconBlockRoot: Node;
      readonly executionBranch: readonly Node[];
      readonly blockRootsBranch: readonly Node[];
      readonly batch: ListEntry & { readonly root: Node };
    };

/** An execution block header's RLP and the proof of its hash. */
export interface BlockRecord {
  readonly kind: 'block';
  readonly header: Uint8Array;
  readonly proof: BlockProof;
}

/** One record of the file after its first line. */
export type AnchorRecord = BeaconHeaderRecord | LightClientRecord | BlockRecord;

/** What is wrong with a line, naming the member and what was expected there. */
export interface AnchorFormatProblem {
  readonly line: number;
  readonly path: string;
  readonly message: string;
}

type Reader<T> = (value: unknown, path: string) => T;

/** Thrown inside the readers and caught once per line: the path and what was expected. */
const mismatch = (path: string, message: string): AnchorFormatError => new AnchorFormatError(message, { path });

const objectAt = (value: unknown, path: string): Record<string, unknown> => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw mismatch(path, 'expected an object');
  return value as Record<string, unknown>;
};

/** The members of each part of the format (constants: the spelling rule keeps its tables by list). */
const BEACON_HEADER_MEMBERS = ['slot', 'proposer_index', 'parent_root', 'state_root', 'body_root'];
const STATE_FIELD_MEMBERS = ['root', 'branch'];
const PRE_MERGE_MEMBERS = ['era', 'branch', 'epoch_root', 'epoch_branch'];
const SUMMARY_MEMBERS = ['index', 'block_summary_root', 'state_summary_root', 'branch'];
const BATCH_MEMBERS = ['index', 'root', 'branch'];
const BEACON_HEADER_RECORD_MEMBERS = ['kind', 'header', 'historical_summaries', 'historical_roots'];
const LIGHT_CLIENT_RECORD_MEMBERS = ['kind', 'fork', 'ssz'];
const BLOCK_RECORD_MEMBERS = ['kind', 'header', 'proof'];
const HEAD_MEMBERS = ['anchor_proof', 'network', 'checkpoint'];

/**
 * Holds `object` (at `path`) to the members its part of the format has: any other is a claim no check would read (a
 * block record's `block_hash` beside its header), so it is refused, named, as one spelled another way (`Slot` for
 * `slot`) is.
 */
function onlyMembers(object: Record<string, unknown>, path: string, names: readonly string[]): void {
  for (const name of Object.keys(object)) {
    if (names.includes(name)) continue;
    const known = spelledAnotherWay(object, name, names);
    throw mismatch(
      `${path}.${name}`,
      known === undefined
        ? `a member this part of an anchor proof file does not have (its members: ${names.join(', ')})`
        : spellingRefusal(object, name, known),
    );
  }
}

const hexAt =
  (length?: number): Reader<Uint8Array> =>
  (value, path) => {
    const bytes = typeof value === 'string' && value.startsWith('0x') ? parseHex(value) : null;
    if (bytes === null || (length !== undefined && bytes.length !== length))
      throw mismatch(path, length === undefined ? 'expected 0x-prefixed hex' : `expected ${length} bytes as 0x hex`);
    return bytes;
  };

const nodeAt = hexAt(32);

const branchAt =
  (...lengths: number[]): Reader<Node[]> =>
  (value, path) => {
    if (!Array.isArray(value)) throw mismatch(path, 'expected an array of 32-byte 0x hex nodes');
    if (!lengths.includes(value.length))
      throw mismatch(path, `expected ${lengths.join(' or ')} nodes, found ${value.length}`);
    return value.map((node, i) => nodeAt(node, `${path}[${i}]`));
  };

/**
 * A block proof's slot or list index: a JSON integer, as anchor prove writes it (a string, as the Beacon API writes a
 * slot, is what the format does not say: refused). 6209538.0 is the same JSON number as 6209538.
 */
const integerAt: Reader<number> = (value, path) => {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0)
    throw mismatch(path, 'expected a non-negative integer (a JSON number, as anchor prove writes it)');
  return value;
};

const uint64At: Reader<bigint> = (value, path) => {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
  if (typeof value === 'string' && /^(0|[1-9]\d{0,19})$/.test(value) && BigInt(value) < 2n ** 64n) return BigInt(value);
  throw mismatch(path, 'expected a 64-bit unsigned integer (a decimal string or a number)');
};

function member<T>(object: Record<string, unknown>, name: string, path: string, read: Reader<T>): T {
  if (!(name in object)) throw mismatch(`${path}.${name}`, 'missing');
  return read(object[name], `${path}.${name}`);
}

function optional<T>(object: Record<string, unknown>, name: string, path: string, read: Reader<T>): T | undefined {
  return object[name] === undefined ? undefined : read(object[name], `${path}.${name}`);
}

const beaconHeaderAt: Reader<BeaconBlockHeader> = (value, path) => {
  const header = objectAt(value, path);
  onlyMembers(header, path, BEACON_HEADER_MEMBERS);
  return {
    slot: member(header, 'slot', path, uint64At),
    proposerIndex: member(header, 'proposer_index', path, uint64At),
    parentRoot: member(header, 'parent_root', path, nodeAt),
    stateRoot: member(header, 'state_root', path, nodeAt),
    bodyRoot: member(header, 'body_root', path, nodeAt),
  };
};

/** State fields sit 5 levels under a state root to Deneb and 6 from Electra. */
const stateFieldAt: Reader<StateField> = (value, path) => {
  const field = objectAt(value, path);
  onlyMembers(field, path, STATE_FIELD_MEMBERS);
  return { root: member(field, 'root', path, nodeAt), branch: member(field, 'branch', path, branchAt(5, 6)) };
};

/** Execution hash branches: 11 nodes through Capella, 12 from Deneb. */
const executionBranchAt = branchAt(11, 12);
/** List entries of `historical_summaries` and `historical_roots`: 24 levels, then the length. */
const listBranchAt = branchAt(25);

/** The members of every post-merge proof, beside `era`: the slot, the beacon block root, the execution hash's branch. */
const IN_BEACON_BLOCK = ['era', 'slot', 'beacon_block_root', 'execution_branch'];
const SUMMARIES_PROOF_MEMBERS = [...IN_BEACON_BLOCK, 'block_roots_branch', 'summary'];
const ROOTS_PROOF_MEMBERS = [...IN_BEACON_BLOCK, 'block_roots_branch', 'batch'];

/** What every post-merge proof holds: the slot, the beacon block root, and the execution hash's branch to it. */
function inBeaconBlock(
  proof: Record<string, unknown>,
  path: string,
): { slot: number; beaconBlockRoot: Node; executionBranch: Node[] } {
  return {
    slot: member(proof, 'slot', path, integerAt),
    beaconBlockRoot: member(proof, 'beacon_block_root', path, nodeAt),
    executionBranch: member(proof, 'execution_branch', path, executionBranchAt),
  };
}

function blockProofAt(value: unknown, path: string): BlockProof {
  const proof = objectAt(value, path);
  const era = proof['era'];
  switch (era) {
    case 'pre-merge':
      onlyMembers(proof, path, PRE_MERGE_MEMBERS);
      return {
        era,
        branch: member(proof, 'branch', path, branchAt(15)),
        epochRoot: member(proof, 'epoch_root', path, nodeAt),
        epochBranch: member(proof, 'epoch_branch', path, branchAt(13)),
      };
    case 'beacon-block':
      onlyMembers(proof, path, IN_BEACON_BLOCK);
      return { era, ...inBeaconBlock(proof, path) };
    case 'historical-summaries': {
      onlyMembers(proof, path, SUMMARIES_PROOF_MEMBERS);
      const summary = objectAt(proof['summary'], `${path}.summary`);
      onlyMembers(summary, `${path}.summary`, SUMMARY_MEMBERS);
      return {
        era,
        ...inBeaconBlock(proof, path),
        blockRootsBranch: member(proof, 'block_roots_branch', path, branchAt(13)),
        summary: {
          index: member(summary, 'index', `${path}.summary`, integerAt),
          blockSummaryRoot: member(summary, 'block_summary_root', `${path}.summary`, nodeAt),
          stateSummaryRoot: member(summary, 'state_summary_root', `${path}.summary`, nodeAt),
          branch: member(summary, 'branch', `${path}.summary`, listBranchAt),
        },
      };
    }
    case 'historical-roots': {
      onlyMembers(proof, path, ROOTS_PROOF_MEMBERS);
      const batch = objectAt(proof['batch'], `${path}.batch`);
      onlyMembers(batch, `${path}.batch`, BATCH_MEMBERS);
      return {
        era,
        ...inBeaconBlock(proof, path),
        blockRootsBranch: member(proof, 'block_roots_branch', path, branchAt(14)),
        batch: {
          index: member(batch, 'index', `${path}.batch`, integerAt),
          root: member(batch, 'root', `${path}.batch`, nodeAt),
          branch: member(batch, 'branch', `${path}.batch`, listBranchAt),
        },
      };
    }
    default:
      throw mismatch(
        `${path}.era`,
        'expected "pre-merge", "beacon-block", "historical-summaries" or "historical-roots"',
      );
  }
}

function recordAt(value: unknown): AnchorRecord {
  const record = objectAt(value, '$');
  switch (record['kind']) {
    case 'beacon-header': {
      onlyMembers(record, '$', BEACON_HEADER_RECORD_MEMBERS);
      const historicalSummaries = optional(record, 'historical_summaries', '$', stateFieldAt);
      const historicalRoots = optional(record, 'historical_roots', '$', stateFieldAt);
      return {
        kind: 'beacon-header',
        header: member(record, 'header', '$', beaconHeaderAt),
        ...(historicalSummaries === undefined ? {} : { historicalSummaries }),
        ...(historicalRoots === undefined ? {} : { historicalRoots }),
      };
    }
    case 'bootstrap':
    case 'update': {
      onlyMembers(record, '$', LIGHT_CLIENT_RECORD_MEMBERS);
      const fork = member(record, 'fork', '$', (forkValue, path) => {
        if (typeof forkValue !== 'string' || forkValue === '') throw mismatch(path, 'expected a fork name');
        return forkValue;
      });
      return { kind: record['kind'], fork, ssz: member(record, 'ssz', '$', hexAt()) };
    }
    case 'block':
      onlyMembers(record, '$', BLOCK_RECORD_MEMBERS);
      return {
        kind: 'block',
        header: member(record, 'header', '$', hexAt()),
        proof: member(record, 'proof', '$', blockProofAt),
      };
    default:
      throw mismatch('$.kind', 'expected "beacon-header", "bootstrap", "update" or "block"');
  }
}

/** A line that is not JSON: the file's form named, since a pretty-printed JSON document (a block) fails here too. */
const NOT_A_JSON_LINE =
  'not a JSON value; an anchor proof file is JSON Lines, one whole JSON object a line, as anchor prove writes it';

/** A line that starts with a byte order mark: the reader of a whole file skips one before its text, and no other. */
const BYTE_ORDER_MARK_HERE = 'a byte order mark (U+FEFF): one is allowed, at the very start of the file';

function parsedLine(text: string, line: number): Result<unknown, AnchorFormatProblem> {
  if (text.charCodeAt(0) === 0xfeff) return err({ line, path: '$', message: BYTE_ORDER_MARK_HERE });
  try {
    return ok(parseJson(text));
  } catch (error) {
    // A member named twice could be read one way here and another way by the next reader of the file.
    if (error instanceof DuplicateMemberError)
      return err({ line, path: `$.${error.details.path}`, message: 'a member given twice in one object' });
    return err({ line, path: '$', message: text.trim() === '' ? 'a blank line' : NOT_A_JSON_LINE });
  }
}

function reading<T>(line: number, read: () => T): Result<T, AnchorFormatProblem> {
  try {
    return ok(read());
  } catch (error) {
    if (error instanceof AnchorFormatError) return err({ line, path: error.details.path, message: error.message });
    throw error;
  }
}

/**
 * Holds a line of an anchor proof file (`name`) to a string, and its number `line` to a line number (1 or more, as a
 * refusal names it): a TypeError or RangeError naming either, not an error from the reader nor a refusal of line -3.
 */
export function checkLine(text: unknown, name: string, line: unknown): asserts text is string {
  if (typeof text !== 'string')
    throw new TypeError(`${name} must be a string (a line of the file), got ${kindOf(text)}`);
  if (typeof line !== 'number') throw new TypeError(`line must be a number (the line's, from 1), got ${kindOf(line)}`);
  if (!Number.isSafeInteger(line) || line < 1)
    throw new RangeError(`line must be a line number, 1 or more, got ${line}`);
}

/**
 * The head of an anchor proof file, its first line with text, or what is wrong with it; `line` is the file's line it
 * stands on (1 unless blank lines come before it), which a problem names.
 */
export function readAnchorHead(text: string, line = 1): Result<AnchorProofHead, AnchorFormatProblem> {
  checkLine(text, 'text', line);
  const parsed = parsedLine(text, line);
  if (!parsed.ok) return parsed;
  return reading(line, () => {
    const head = objectAt(parsed.value, '$');
    onlyMembers(head, '$', HEAD_MEMBERS);
    if (head['anchor_proof'] !== ANCHOR_PROOF_VERSION)
      throw mismatch('$.anchor_proof', `expected ${ANCHOR_PROOF_VERSION}: not an anchor proof file of this version`);
    const network = member(head, 'network', '$', (value, path) => {
      if (typeof value !== 'string') throw mismatch(path, 'expected a network name');
      return value;
    });
    return { network, checkpoint: member(head, 'checkpoint', '$', nodeAt) };
  });
}

/** One record line (`line` counts from 1, the head being line 1), or what is wrong with it. */
export function readAnchorRecord(text: string, line: number): Result<AnchorRecord, AnchorFormatProblem> {
  checkLine(text, 'text', line);
  const parsed = parsedLine(text, line);
  if (!parsed.ok) return parsed;
  return reading(line, () => recordAt(parsed.value));
}
