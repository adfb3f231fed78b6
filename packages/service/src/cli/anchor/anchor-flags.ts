/**
 * The flags of an anchor proof (`--anchor-proof FILE --checkpoint ROOT`, or `anchor verify FILE`), and the file read:
 * the two flags together or neither, never beside a flag that gives the trusted hash itself. Apart from
 * anchor-proof.ts, which verifies the file, so that a command that only parses its flags (every `verify` process)
 * loads none of the anchor's code.
 */
import { hashValue } from '../flags.js';
import { inputName, notUtf8Message, readInput } from '../io/read-input.js';
import { InputError, UsageError } from '../io/usage-error.js';

/** The flags, as parseArgs reads them. */
export const ANCHOR_OPTIONS = {
  'anchor-proof': { type: 'string' },
  checkpoint: { type: 'string' },
} as const;

/** An anchor proof to verify: its file (`-`: standard input) and the checkpoint root it must hang from (0x hex). */
export interface AnchorProofFlags {
  file: string;
  checkpoint: string;
}

/** The checkpoint flag's value: a beacon block root, 0x and lower case. */
export const checkpointValue = (value: string): string => hashValue('--checkpoint', value, 'a beacon block root');

/**
 * `--anchor-proof FILE --checkpoint ROOT`, both or neither; `trusted` holds the command's flags that give a trusted
 * hash (`--block-hash`, `--head-hash`…), none of which may come with them. Undefined when neither is given.
 * @example anchorProofFlags(values, { '--block-hash': values['block-hash'] }) // { file: 'anchor.jsonl', checkpoint: '0x5ab5…' }
 */
export function anchorProofFlags(
  values: { 'anchor-proof'?: string | undefined; checkpoint?: string | undefined },
  trusted: Readonly<Record<string, unknown>>,
): AnchorProofFlags | undefined {
  const file = values['anchor-proof'];
  const root = values.checkpoint;
  if (file === undefined && root === undefined) return undefined;
  if (file === undefined)
    throw new UsageError('--checkpoint ROOT goes with --anchor-proof FILE: the anchor proof that hangs from it');
  if (root === undefined)
    throw new UsageError(
      '--anchor-proof FILE needs --checkpoint ROOT: the root of a finalized beacon block you trust, which the file hangs from',
    );
  if (file === '') throw new InputError('--anchor-proof: the path is empty; give a file name');
  const clash = Object.keys(trusted).find((flag) => trusted[flag] !== undefined);
  if (clash !== undefined)
    throw new UsageError(`--anchor-proof proves the hash that ${clash} gives: give one of them, not both`);
  return { file, checkpoint: checkpointValue(root) };
}

/** The most bytes read as one anchor proof's text: V8's string length limit, 2^29 - 24 UTF-16 units. */
const MAX_TEXT_BYTES = 2 ** 29 - 24;

/** The text of an anchor proof file (standard input for `-`); an InputError naming it when it cannot be read or is not UTF-8. */
export function readAnchorText(file: string, read: (file: string) => Uint8Array = readInput): string {
  const bytes = read(file);
  // V8's longest string: a larger file cannot be held as text at all, which is not a fault of its bytes.
  if (bytes.byteLength > MAX_TEXT_BYTES)
    throw new InputError(
      `${inputName(file)}: ${bytes.byteLength.toLocaleString('en')} bytes, more than the ${MAX_TEXT_BYTES.toLocaleString('en')} the command line reads as one anchor proof: split its blocks over several files`,
    );
  try {
    // A byte order mark is kept: the core's reader skips one before the file's text, as the library and the service do.
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch (error) {
    if (error instanceof InputError) throw error;
    throw new InputError(`${inputName(file)}: ${notUtf8Message(bytes, 'an anchor proof is JSON Lines')}`);
  }
}
