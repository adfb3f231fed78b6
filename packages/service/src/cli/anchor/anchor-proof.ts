/**
 * An anchor proof given on the command line (`--anchor-proof FILE --checkpoint ROOT`, or `anchor verify FILE`)
 * verified, the one step every command that takes one shares: the proven hashes, or the refusal told in one line: a
 * file that is no anchor proof is bad input (exit 2), one that does not verify a false verdict (exit 1). The flags and
 * the reading of the file: anchor-flags.ts.
 */
import { anchoredHashes, describeAnchorRefusal, type AnchoredHashes, type AnchorRefusal } from 'evm-integrity/anchor';
import { anchorRefusalVerdict, type AnchoringJson } from 'evm-integrity/api';
import { hexToBytes } from 'evm-integrity';
import { inputName } from '../io/read-input.js';
import { InputError, RefusedError } from '../io/usage-error.js';
import { readAnchorText, type AnchorProofFlags } from './anchor-flags.js';
import { preMergeBasis } from './pre-merge-basis.js';

/**
 * The hashes the anchor proof proves from the checkpoint, for blocks of chain `chainId` (null: the file's own, when
 * the chain is not known yet or the command only lists what the file proves). A file that is no anchor proof, of a
 * network the anchor does not know or of another chain, is an InputError (exit 2); one that does not verify a
 * RefusedError (exit 1); each one line naming the file, the line and why.
 */
export function provenByAnchor(
  flags: AnchorProofFlags,
  chainId: number | null,
  read?: (file: string) => Uint8Array,
): AnchoredHashes {
  const proven = anchoredHashes(readAnchorText(flags.file, read), hexToBytes(flags.checkpoint), chainId);
  if (proven.ok) return proven.value;
  throw refused(flags, proven.error);
}

/**
 * For a command that learns its chain from the proof it reads (`verify logs-proof` without --chain): the same refusal
 * as {@link provenByAnchor} given that chain, once it is known.
 */
export function requireAnchorChain(flags: AnchorProofFlags, anchored: AnchoredHashes, chainId: number): void {
  const refusal = anchored.chainRefusal(chainId);
  if (refusal !== null) throw refused(flags, refusal);
}

/** The refusal of an anchor proof in one line: exit 1 when it does not verify, else exit 2. */
function refused(flags: AnchorProofFlags, refusal: AnchorRefusal): Error {
  const name = inputName(flags.file);
  if (anchorRefusalVerdict(refusal.reason) === 'different')
    return new RefusedError(`${name}: the anchor proof is refused at ${describeAnchorRefusal(refusal)}`);
  return new InputError(`${name}: not an anchor proof the anchor can verify: ${describeAnchorRefusal(refusal)}`);
}

/**
 * The line a command prints when an anchor proof roots its block: `authentic: block N (0x…, via, slot S) is proven from
 * checkpoint 0x… (mainnet)`, or, before the merge, from the accumulator and not from the checkpoint, which nothing
 * checked. `blockHash` is hex without 0x, as answers give it.
 */
export function authenticLine(anchoring: AnchoringJson, blockHash: string): string {
  const slot = anchoring.slot === null ? '' : `, slot ${anchoring.slot}`;
  const basis =
    anchoring.checkpoint === null
      ? `${preMergeBasis(anchoring.network)}, not from the checkpoint`
      : `checkpoint 0x${anchoring.checkpoint} (${anchoring.network})`;
  return `authentic: block ${anchoring.block_number} (0x${blockHash}, ${anchoring.via}${slot}) is proven from ${basis}`;
}

/**
 * How many blocks an anchor proof proves and from what, in the words `anchor verify` and `anchor prove` both end with
 * (the core's {@link AnchoredHashes.tally}): the checkpoint, and for pre-merge records the accumulator, which does not
 * rest on the checkpoint (a file of those alone holds whatever checkpoint its head names); lines that prove a block
 * again are said, not counted.
 * @example provenFrom(anchored) // '7 blocks proven (mainnet): 6 from checkpoint 0x5ab5…, 1 from the pre-merge accumulator (EIP-7643, built in)'
 */
export function provenFrom(anchored: AnchoredHashes): string {
  const { blocks, fromCheckpoint, preMerge, repeats } = anchored.tally();
  const proven = `${blocks} block${blocks === 1 ? '' : 's'} proven`;
  const network = anchored.verdict.network;
  const from =
    preMerge === 0
      ? `${proven} from checkpoint ${anchored.checkpoint} (${network})`
      : `${proven} (${network}): ${fromCheckpoint === 0 ? 'none' : fromCheckpoint} from checkpoint ${anchored.checkpoint}, ${preMerge} from ${preMergeBasis()}`;
  return repeats === 0
    ? from
    : `${from}; ${repeats} line${repeats === 1 ? '' : 's'} prove${repeats === 1 ? 's' : ''} a block again`;
}
