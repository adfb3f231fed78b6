/**
 * `chains`: the chains of the registry and the names `--chain` takes for them, so that a name can be looked up where
 * it is needed.
 */
import { parseArgs } from 'node:util';
import { chainNames } from '../chain-flag.js';
import { UsageError } from '../io/usage-error.js';
import type { CliIo } from '../io/streams.js';

/**
 * `chains [--json]` (argv after `chains`): one line a chain (its id, its names, its name, whether it can be verified),
 * or one JSON array; exit 0.
 * @example runChains([], io) // 0: "1  ethereum-mainnet, mainnet, ethereum  Ethereum Mainnet", …
 */
export function runChains(argv: string[], io: CliIo): number {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { json: { type: 'boolean' } },
  });
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}": chains takes only flags`);
  const chains = chainNames();
  if (values.json) {
    const json = chains.map(({ chain, names }) => ({
      chain_id: chain.chainId,
      names,
      name: chain.name,
      verifiable: chain.verifiable,
    }));
    io.stdout(`${JSON.stringify(json, null, 2)}\n`);
    return 0;
  }
  const idWidth = Math.max(...chains.map(({ chain }) => String(chain.chainId).length));
  const rows = chains.map(({ chain, names }) => [
    String(chain.chainId).padStart(idWidth),
    names.join(', '),
    chain.name,
  ]);
  const namesWidth = Math.max(...rows.map((row) => row[1]!.length));
  const lines = rows.map(
    ([id, names, name], i) =>
      `${id}  ${names!.padEnd(namesWidth)}  ${name}${chains[i]!.chain.verifiable ? '' : ' (not verifiable)'}`,
  );
  io.stdout(`${lines.join('\n')}\n`);
  return 0;
}
