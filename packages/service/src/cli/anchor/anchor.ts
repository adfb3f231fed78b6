/**
 * `anchor …`: the beacon-chain anchor's commands (docs/anchor.md), each loaded only when it runs. `verify` checks an
 * anchor proof file against a checkpoint; `prove` makes one from a beacon node.
 */
import type { CliIo } from '../io/streams.js';
import { UsageError } from '../io/usage-error.js';

/** `anchor verify|prove …` (argv after `anchor`); returns the exit status. */
export async function runAnchor(argv: string[], io: CliIo): Promise<number> {
  const [what, ...rest] = argv;
  if (what === 'verify') return (await import('./verify.js')).runAnchorVerify(rest, io);
  if (what === 'prove') return (await import('./prove.js')).runAnchorProve(rest, io);
  throw new UsageError(
    what === undefined
      ? 'anchor needs a command: verify or prove'
      : `no anchor command "${what}": expected verify or prove`,
  );
}
