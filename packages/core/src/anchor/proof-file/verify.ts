/**
 * Verifies an anchor proof file against the checkpoint the user trusts, one line at a time: every
 * record must stand on roots already trusted (the checkpoint, then what earlier records proved), and
 * the first record that does not refuses the whole file, naming its line. A verdict lists every
 * execution block the file proves; nothing in it rests on a hash the file merely states.
 */
import { checkBytes, HASH_BYTES, isBytes } from '../../bytes/check-bytes.js';
import { bytesEqual, prefixedHex } from '../../bytes/hex.js';
import { InvalidHeaderError } from '../../errors.js';
import { decodeHeader } from '../../header/header-decoding.js';
import { defaultKeccak256 } from '../../keccak/keccak.js';
import { err, ok, type Result } from '../../result.js';
import { kindOf } from '../../json/show.js';
import { epochOf, trustEpochRoot, verifyPreMergeHeader } from '../accumulator.js';
import { blockHashGindex, historicalEntryOf, verifyPostMergeBlock } from '../beacon-block-proof.js';
import { isValidBranch, parentOf, type Node } from '../merkle-branch.js';
import { verifyBootstrap } from '../light-client/bootstrap.js';
import { isLightClientFork, type LightClientHeader } from '../light-client/containers.js';
import { decodeBootstrap, decodeUpdate, sszDataFork } from '../light-client/decode-ssz.js';
import type { LightClientState } from '../light-client/state.js';
import { applyUpdate } from '../light-client/update.js';
import { BEACON_NETWORKS, beaconNetwork, forkAtSlot, MAINNET, slotTimestamp, type BeaconNetwork } from '../networks.js';
import { beaconBlockHeaderRoot, type BeaconBlockHeader } from '../ssz.js';
import { historicalRootsGindex, historicalSummariesGindex } from '../state-proof.js';
import {
  checkLine,
  readAnchorHead,
  readAnchorRecord,
  type AnchorFormatProblem,
  type AnchorProofHead,
  type AnchorRecord,
  type BeaconHeaderRecord,
  type BlockRecord,
  type LightClientRecord,
  type StateField,
} from './records.js';

/** How a proven block's hash reached the checkpoint; `light-client`: the execution block of a header a light-client step proved. */
export type ProvenVia = 'pre-merge' | 'beacon-block' | 'historical-summaries' | 'historical-roots' | 'light-client';

/** An execution block the file proves: its number and hash, and the record that proved it. */
export interface ProvenBlock {
  readonly number: bigint;
  readonly hash: Node;
  readonly via: ProvenVia;
  /** The beacon slot of the block, after the merge. */
  readonly slot?: number;
  readonly line: number;
}

/** What a whole file proves. */
export interface AnchorVerdict {
  readonly network: string;
  /** The execution chain the network's blocks are of: the only chain whose blocks the verdict proves. */
  readonly chainId: number;
  readonly checkpoint: Node;
  /** The newest trusted beacon header: the checkpoint's, or a light-client step's; `undefined` when no record gave one. */
  readonly newest?: BeaconBlockHeader;
  readonly blocks: readonly ProvenBlock[];
}

/** The kinds of refusal, so a caller can tell a malformed file from a false one. */
export type AnchorRefusalReason =
  | 'format'
  | 'checkpoint'
  | 'network'
  | 'untrusted-header'
  | 'state-branch'
  | 'no-state'
  | 'header'
  | 'block-branch'
  | 'light-client'
  | 'empty';

/** Why a file is refused: its line (1 is the head), the reason, and a message naming what failed. */
export interface AnchorRefusal {
  readonly line: number;
  readonly reason: AnchorRefusalReason;
  readonly message: string;
}

/** A trusted list's root; its length is the last sibling of every entry's branch. */
interface TrustedList {
  readonly root: Node;
}

/** Entries of `historical_summaries` and `historical_roots`: limit 2^24, so 24 levels above the data's leaves. */
const LIST_DEPTH = 24;

/** The little-endian length in a list's length chunk. */
function lengthOf(chunk: Node): number {
  const view = new DataView(chunk.buffer, chunk.byteOffset, 32);
  return view.getUint32(0, true) + view.getUint32(4, true) * 2 ** 32;
}

/** U+FEFF, the byte order mark an editor may write before a file's text. */
const BYTE_ORDER_MARK = 0xfeff;

/**
 * A line that carries nothing: white space alone, but never a byte order mark, which `trim` takes for white space: one
 * is allowed only before the file's text, and a line of one is refused as the reader names it.
 */
function isBlankLine(text: string): boolean {
  return text.trim() === '' && !text.includes('\uFEFF');
}

/**
 * Streaming verification: `start` with the file's first line and the checkpoint the caller trusts,
 * `push` each later line, then `finish`. After a refusal every call returns it.
 * @example
 * const started = AnchorProofVerifier.start(lines[0], checkpoint);
 * if (!started.ok) throw new Error(started.error.message);
 * const verifier = started.value;
 * for (const [i, line] of lines.slice(1).entries()) verifier.push(line, i + 2);
 * const verdict = verifier.finish();
 */
export class AnchorProofVerifier {
  readonly #network: BeaconNetwork;
  readonly #checkpoint: Node;
  /** Trusted beacon block roots (hex), each with its header once a record has shown it. */
  readonly #trusted = new Map<string, BeaconBlockHeader | undefined>();
  #newest: BeaconBlockHeader | undefined;
  #summaries: TrustedList | undefined;
  #roots: TrustedList | undefined;
  readonly #blocks: ProvenBlock[] = [];
  #lightClient: LightClientState | undefined;
  #refusal: AnchorRefusal | undefined;

  private constructor(network: BeaconNetwork, checkpoint: Node) {
    this.#network = network;
    this.#checkpoint = checkpoint;
    this.#trusted.set(prefixedHex(checkpoint), undefined);
  }

  /**
   * A verifier for the file whose first line that is not blank is `headLine`, line `line` (1 unless blank lines come
   * before it), when it hangs from `checkpoint`.
   * @throws TypeError when `checkpoint` is not a Uint8Array (hex text among others), RangeError when it is not 32 bytes:
   * a root the caller holds wrong is no file's fault, and is not refused as one; TypeError naming `headLine` when it is
   * not a string, TypeError or RangeError naming `line` when it is no line number (1 or more).
   */
  static start(headLine: string, checkpoint: Node, line = 1): Result<AnchorProofVerifier, AnchorRefusal> {
    checkLine(headLine, 'headLine', line);
    checkBytes(checkpoint, 'checkpoint', HASH_BYTES);
    const head = readAnchorHead(headLine, line);
    if (!head.ok) return err({ line, reason: 'format', message: `${head.error.path}: ${head.error.message}` });
    const network = beaconNetwork(head.value.network);
    if (network === undefined)
      return err({
        line,
        reason: 'network',
        message: `network "${head.value.network}" is not one the anchor knows (${[...BEACON_NETWORKS.keys()].join(', ')})`,
      });
    if (!bytesEqual(head.value.checkpoint, checkpoint))
      return err({
        line,
        reason: 'checkpoint',
        message: `the file hangs from checkpoint ${prefixedHex(head.value.checkpoint)}, not the trusted ${prefixedHex(checkpoint)}`,
      });
    return ok(new AnchorProofVerifier(network, checkpoint));
  }

  /**
   * Verifies one record line; a proven block is returned as it is proven.
   * @throws TypeError naming `text` when it is not a string, TypeError or RangeError naming `line` when it is no line
   * number (1 or more).
   */
  push(text: string, line: number): Result<ProvenBlock | undefined, AnchorRefusal> {
    checkLine(text, 'text', line);
    if (this.#refusal) return err(this.#refusal);
    // Blank lines carry nothing: JSON Lines tools leave one at the end, people between records.
    if (isBlankLine(text)) return ok(undefined);
    const record = readAnchorRecord(text, line);
    const outcome = record.ok
      ? this.#apply(record.value, line)
      : err<AnchorRefusal>({ line, reason: 'format', message: `${record.error.path}: ${record.error.message}` });
    if (!outcome.ok) this.#refusal = outcome.error;
    return outcome;
  }

  /** The verdict once every line is pushed, or the refusal. */
  finish(): Result<AnchorVerdict, AnchorRefusal> {
    if (this.#refusal) return err(this.#refusal);
    if (this.#blocks.length === 0 && this.#newest === undefined)
      return err({ line: 1, reason: 'empty', message: 'the file proves nothing: it has no records' });
    return ok({
      network: this.#network.name,
      chainId: this.#network.executionChainId,
      checkpoint: this.#checkpoint,
      ...(this.#newest ? { newest: this.#newest } : {}),
      blocks: this.#blocks,
    });
  }

  #apply(record: AnchorRecord, line: number): Result<ProvenBlock | undefined, AnchorRefusal> {
    switch (record.kind) {
      case 'beacon-header':
        return this.#beaconHeader(record, line);
      case 'block':
        return this.#block(record, line);
      case 'bootstrap':
      case 'update':
        return this.#lightClientStep(record, line);
    }
  }

  /**
   * A bootstrap (once, first, for the checkpoint itself) or an update after it: each verified header
   * becomes trusted, and its execution block is proven through its execution branch.
   */
  #lightClientStep(record: LightClientRecord, line: number): Result<ProvenBlock, AnchorRefusal> {
    const refuse = (message: string): Result<never, AnchorRefusal> => err({ line, reason: 'light-client', message });
    const fork = record.fork;
    if (!isLightClientFork(fork)) return refuse(`fork "${fork}" has no light-client objects (capella on)`);
    const dataFork = sszDataFork(this.#network, record.ssz);
    if (!dataFork.ok) return refuse(`${record.kind}: ${dataFork.error.field}: expected ${dataFork.error.expected}`);
    if (dataFork.value !== fork)
      return refuse(`the ${record.kind} is named ${fork}, but its header's slot is in ${dataFork.value}`);
    let state: Result<LightClientState, { message: string }>;
    if (record.kind === 'bootstrap') {
      if (this.#lightClient !== undefined) return refuse('a second bootstrap: a file has one, before its updates');
      const bootstrap = decodeBootstrap(fork, record.ssz);
      if (!bootstrap.ok) return refuse(`bootstrap: ${bootstrap.error.field}: expected ${bootstrap.error.expected}`);
      state = verifyBootstrap(this.#network, this.#checkpoint, bootstrap.value);
    } else {
      if (this.#lightClient === undefined) return refuse('an update before the bootstrap it builds on');
      const update = decodeUpdate(fork, record.ssz);
      if (!update.ok) return refuse(`update: ${update.error.field}: expected ${update.error.expected}`);
      state = applyUpdate(this.#network, this.#lightClient, update.value);
    }
    if (!state.ok) return refuse(state.error.message);
    this.#lightClient = state.value;
    return this.#trustLightClientHeader(state.value.finalizedHeader, line);
  }

  #trustLightClientHeader(header: LightClientHeader, line: number): Result<ProvenBlock, AnchorRefusal> {
    this.#trustHeader(prefixedHex(beaconBlockHeaderRoot(header.beacon)), header.beacon);
    if (this.#newest === undefined || header.beacon.slot >= this.#newest.slot) this.#newest = header.beacon;
    return this.#proven({
      number: header.execution.blockNumber,
      hash: header.execution.blockHash,
      via: 'light-client',
      slot: Number(header.beacon.slot),
      line,
    });
  }

  /**
   * A trusted header, known now: its parent's root is trusted as well (the header's root commits to it),
   * so a file may walk back from the checkpoint one `beacon-header` at a time.
   */
  #trustHeader(root: string, header: BeaconBlockHeader): void {
    this.#trusted.set(root, header);
    const parent = prefixedHex(header.parentRoot);
    if (!this.#trusted.has(parent)) this.#trusted.set(parent, undefined);
  }

  #beaconHeader(record: BeaconHeaderRecord, line: number): Result<undefined, AnchorRefusal> {
    const root = prefixedHex(beaconBlockHeaderRoot(record.header));
    if (!this.#trusted.has(root))
      return err({
        line,
        reason: 'untrusted-header',
        message: `beacon header ${root} (slot ${record.header.slot}) is neither the checkpoint, nor a header an earlier record proved, nor the parent of one`,
      });
    this.#trustHeader(root, record.header);
    if (this.#newest === undefined || record.header.slot >= this.#newest.slot) this.#newest = record.header;
    const fork = forkAtSlot(this.#network, Number(record.header.slot));
    const stateRoot = record.header.stateRoot;
    const proven = (field: StateField, gindex: number, name: string): Result<TrustedList, AnchorRefusal> => {
      if (!isValidBranch(field.root, field.branch, gindex, stateRoot))
        return err({
          line,
          reason: 'state-branch',
          message: `${name} does not reach the state root of slot ${record.header.slot} (generalized index ${gindex}, ${fork})`,
        });
      return ok({ root: field.root });
    };
    if (record.historicalSummaries) {
      const gindex = historicalSummariesGindex(fork);
      if (gindex === undefined)
        return err({ line, reason: 'state-branch', message: `a ${fork} state has no historical_summaries` });
      const summaries = proven(record.historicalSummaries, gindex, 'historical_summaries');
      if (!summaries.ok) return summaries;
      this.#summaries = summaries.value;
    }
    if (record.historicalRoots) {
      const roots = proven(record.historicalRoots, historicalRootsGindex(fork), 'historical_roots');
      if (!roots.ok) return roots;
      this.#roots = roots.value;
    }
    return ok(undefined);
  }

  #block(record: BlockRecord, line: number): Result<ProvenBlock, AnchorRefusal> {
    let number: bigint;
    let timestamp: bigint;
    try {
      ({ number, timestamp } = decodeHeader(record.header));
    } catch (error) {
      if (!(error instanceof InvalidHeaderError)) throw error;
      return err({ line, reason: 'header', message: `$.header: ${error.message}` });
    }
    const hash = defaultKeccak256(record.header);
    const refuse = (message: string): Result<never, AnchorRefusal> =>
      err({ line, reason: 'block-branch', message: `block ${number}: ${message}` });
    const { proof } = record;
    switch (proof.era) {
      case 'pre-merge': {
        // The accumulator EIP-7643 fixes is mainnet's: another network's old blocks have other hashes.
        if (this.#network !== MAINNET)
          return refuse(`a pre-merge proof ends in mainnet's accumulator (EIP-7643), not in ${this.#network.name}'s`);
        const epoch = epochOf(Number(number));
        const trusted = trustEpochRoot(epoch, proof.epochRoot, proof.epochBranch);
        if (!trusted.ok) return refuse(trusted.error);
        const proven = verifyPreMergeHeader({ header: record.header }, proof.branch, trusted.value);
        if (!proven.ok) return refuse(proven.error.message);
        return this.#proven({ number, hash, via: 'pre-merge', line });
      }
      case 'beacon-block': {
        const root = prefixedHex(proof.beaconBlockRoot);
        const header = this.#trusted.get(root);
        if (header === undefined)
          return refuse(
            this.#trusted.has(root)
              ? `beacon block ${root} is trusted but its header is not known: give it in a beacon-header record first`
              : `beacon block ${root} is not trusted`,
          );
        if (BigInt(proof.slot) !== header.slot)
          return refuse(`the proof says slot ${proof.slot}, the header ${header.slot}`);
        if (BigInt(slotTimestamp(this.#network, proof.slot)) !== timestamp)
          return refuse(`its timestamp ${timestamp} is not that of slot ${proof.slot}`);
        if (
          !isValidBranch(hash, proof.executionBranch, blockHashGindex(this.#network, proof.slot), proof.beaconBlockRoot)
        )
          return refuse('its hash does not reach the beacon block root through the execution branch');
        return this.#proven({ number, hash, via: 'beacon-block', slot: proof.slot, line });
      }
      case 'historical-summaries':
      case 'historical-roots': {
        const summaries = proof.era === 'historical-summaries';
        const list = summaries ? this.#summaries : this.#roots;
        const name = summaries ? 'historical_summaries' : 'historical_roots';
        if (list === undefined)
          return err({
            line,
            reason: 'no-state',
            message: `block ${number}: no earlier record proved a state's ${name}`,
          });
        const entry = summaries ? proof.summary : proof.batch;
        const leaf = summaries
          ? parentOf(proof.summary.blockSummaryRoot, proof.summary.stateSummaryRoot)
          : proof.batch.root;
        if (!isValidBranch(leaf, entry.branch, 2 * 2 ** LIST_DEPTH + entry.index, list.root))
          return refuse(`${name} entry ${entry.index} does not reach the list's root through its branch`);
        const length = lengthOf(entry.branch[LIST_DEPTH]!);
        if (entry.index >= length) return refuse(`${name} has ${length} entries, none at ${entry.index}`);
        const expected = historicalEntryOf(this.#network, proof.slot);
        if (expected.list !== name) return refuse(`slot ${proof.slot} is proven through ${expected.list}, not ${name}`);
        const proven = verifyPostMergeBlock(
          this.#network,
          { hash, timestamp },
          {
            beaconBlockProof: proof.blockRootsBranch,
            beaconBlockRoot: proof.beaconBlockRoot,
            executionBlockProof: proof.executionBranch,
            slot: proof.slot,
          },
          { list: name, index: entry.index, root: summaries ? proof.summary.blockSummaryRoot : proof.batch.root },
        );
        if (!proven.ok) {
          const why = proven.error;
          return refuse(
            why.kind === 'branch'
              ? `the ${why.branch} branch does not reach its root`
              : why.kind === 'slot-time'
                ? `its timestamp ${why.timestamp} is not that of slot ${why.slot}`
                : why.kind === 'wrong-entry'
                  ? `slot ${proof.slot} belongs to ${why.expected.list} entry ${why.expected.index}, not ${entry.index}`
                  : `slot ${why.slot} is before the merge`,
          );
        }
        return this.#proven({ number, hash, via: proof.era, slot: proof.slot, line });
      }
    }
  }

  #proven(block: ProvenBlock): Result<ProvenBlock, AnchorRefusal> {
    this.#blocks.push(block);
    return ok(block);
  }
}

/** What a file of no text, or of blank lines alone, is refused with: there is no line to name but the first. */
const EMPTY_FILE = 'the file is empty (blank lines alone, or nothing): it has no head line and no records';

/**
 * Where a file's head is in its text: the first line with text, line `line` (blank lines before it keep their
 * numbers), from `start` to `end`. One leading byte order mark is the file's encoding, not its text: it is skipped, as
 * every JSON file the command line and the service read may start with one; a second is left to the head's reader,
 * which names it.
 */
function headSpan(text: string): { start: number; end: number; line: number } {
  const lineEnd = (from: number): number => {
    const end = text.indexOf('\n', from);
    return end === -1 ? text.length : end;
  };
  let line = 1;
  let start = text.charCodeAt(0) === BYTE_ORDER_MARK ? 1 : 0;
  let end = lineEnd(start);
  // Blank lines are skipped wherever they stand, before the head line too: the head is the first line with text.
  while (end < text.length && isBlankLine(text.slice(start, end))) {
    start = end + 1;
    end = lineEnd(start);
    line++;
  }
  return { start, end, line };
}

/**
 * The head of a whole file held as text, found as {@link verifyAnchorProof} finds it (after one byte order mark and
 * any blank lines), and its line: what a caller reads before verifying anything, such as the network and so the chain.
 * @example readAnchorFileHead(text) // { line: 1, head: { ok: true, value: { network: 'mainnet', checkpoint } } }
 */
export function readAnchorFileHead(text: string): {
  line: number;
  head: Result<AnchorProofHead, AnchorFormatProblem>;
} {
  checkAnchorText(text);
  const { start, end, line } = headSpan(text);
  if (isBlankLine(text.slice(start, end))) return { line: 1, head: err({ line: 1, path: '$', message: EMPTY_FILE }) };
  // A problem names the file's line, blank lines before the head counted.
  return { line, head: readAnchorHead(text.slice(start, end), line) };
}

/**
 * Holds the text of an anchor proof file to a string: the file's bytes in its place (a Buffer `readFileSync` gave
 * without an encoding) are a TypeError naming `text`, not JavaScript's own error from deep in the reader.
 */
export function checkAnchorText(text: unknown): asserts text is string {
  if (typeof text !== 'string')
    throw new TypeError(
      `text must be a string (the file's text, read as UTF-8), got ${isBytes(text) ? 'a Uint8Array' : kindOf(text)}`,
    );
}

/**
 * Verifies a whole anchor proof file held as text against the trusted `checkpoint` root. The text may start with one
 * byte order mark (U+FEFF), as a file an editor saved.
 * @throws TypeError or RangeError naming `checkpoint` when it is not 32 bytes, as {@link AnchorProofVerifier.start};
 * TypeError naming `text` when it is not a string (the file's bytes among others).
 * @example
 * const verdict = verifyAnchorProof(readFileSync('proof.jsonl', 'utf8'), hexToBytes(checkpoint));
 * if (verdict.ok) for (const block of verdict.value.blocks) console.log(block.number, prefixedHex(block.hash));
 */
export function verifyAnchorProof(text: string, checkpoint: Node): Result<AnchorVerdict, AnchorRefusal> {
  checkAnchorText(text);
  // Line by line in place: an array of the lines would hold something for each one, blank ones too.
  const lineEnd = (from: number): number => {
    const end = text.indexOf('\n', from);
    return end === -1 ? text.length : end;
  };
  const head = headSpan(text);
  if (isBlankLine(text.slice(head.start, head.end))) return err({ line: 1, reason: 'empty', message: EMPTY_FILE });
  let line = head.line;
  const started = AnchorProofVerifier.start(text.slice(head.start, head.end), checkpoint, line);
  if (!started.ok) return started;
  for (let from = head.end + 1; from < text.length;) {
    const end = lineEnd(from);
    const pushed = started.value.push(text.slice(from, end), ++line);
    if (!pushed.ok) return pushed;
    from = end + 1;
  }
  return started.value.finish();
}
