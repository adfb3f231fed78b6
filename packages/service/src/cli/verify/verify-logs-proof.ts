/**
 * `verify logs-proof`: a complete-log proof checked as it streams in, from the head hash alone; its
 * logs are released (as NDJSON) only once the whole proof holds.
 */
import { parseArgs } from 'node:util';
import { bytesToHex, ChainRegistry, hexToBytes } from 'evm-integrity';
import { LogsProofVerifier, type LogsProofRefusal, type LogsProofVerifyOptions } from 'evm-integrity/proof';
import { blockRef, hashValue } from '../flags.js';
import { addedChains, CHAIN_OPTIONS, chainValue } from '../chain-flag.js';
import { inputName } from '../io/read-input.js';
import { InputError, UsageError } from '../io/usage-error.js';
import type { CliIo } from '../io/streams.js';
import { describeSummary, filterOfFlags } from '../logs/logs-range.js';
import { describeRefusal, proofChunks } from '../logs/proof-file.js';
import { outputFile, TempFile } from '../io/temp-output.js';
import { anchoringJson } from 'evm-integrity/api';
import { ANCHOR_OPTIONS, anchorProofFlags } from '../anchor/anchor-flags.js';
import { authenticLine, provenByAnchor, requireAnchorChain } from '../anchor/anchor-proof.js';

/** Refusals that are no verdict (exit 2): bytes that are no proof, or a range whose era cannot be proven. */
const NO_VERDICT: ReadonlySet<LogsProofRefusal['reason']> = new Set(['malformed', 'not-verifiable']);

/** A block of the range asked for, given to `flag`: a number (no tag: there is no node to resolve one). */
function askedBlock(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const block = blockRef(flag, value);
  if (typeof block === 'string')
    throw new UsageError(`${flag}: "${value}" is a tag, which names no block without a node; give the block number`);
  return block;
}

/**
 * The range and filter the flags ask the proof to be of (`--from`, `--to`; `--address`…, `--topic0`…, which together
 * make the filter `prove logs` makes of them), or undefined when none is given.
 */
function expectedRange(values: {
  from?: string;
  to?: string;
  address?: string[];
  topic0?: string[];
}): LogsProofVerifyOptions['expected'] {
  const fromBlock = askedBlock('--from', values.from);
  const toBlock = askedBlock('--to', values.to);
  if (fromBlock !== undefined && toBlock !== undefined && toBlock < fromBlock)
    throw new UsageError(`--to (${toBlock}) must not be before --from (${fromBlock})`);
  const filtered = values.address !== undefined || values.topic0 !== undefined;
  const expected = {
    ...(fromBlock !== undefined && { fromBlock }),
    ...(toBlock !== undefined && { toBlock }),
    ...(filtered && { filter: filterOfFlags(values) }),
  };
  return Object.keys(expected).length > 0 ? expected : undefined;
}

/**
 * `verify logs-proof FILE|- (--head-hash H | --anchor-proof F --checkpoint R) [--chain C] [--add-chain ID:R]…
 * [--from N] [--to M] [--address A]… [--topic0 T]… [--out LOGS.ndjson]`: exit 0 with the proven logs as NDJSON and a summary on stderr, 1 when the proof does not
 * hold (its first fault named on stderr; with an anchor proof, also a head the anchor proof does not prove, or an
 * anchor proof refused), 2 when the input is no proof, cannot be read, or its range cannot be proven.
 */
export async function runVerifyLogsProof(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      'head-hash': { type: 'string' },
      ...ANCHOR_OPTIONS,
      ...CHAIN_OPTIONS,
      from: { type: 'string' },
      to: { type: 'string' },
      address: { type: 'string', multiple: true },
      topic0: { type: 'string', multiple: true },
      out: { type: 'string' },
      // The logs are NDJSON with or without it.
      json: { type: 'boolean' },
    },
  });
  const [file, extra] = positionals;
  if (file === undefined) throw new UsageError('verify logs-proof needs the proof: FILE, or - for standard input');
  if (extra !== undefined) throw new UsageError(`unexpected argument "${extra}": verify logs-proof reads one FILE`);
  const anchorFlags = anchorProofFlags(values, { '--head-hash': values['head-hash'] });
  if (values['head-hash'] === undefined && anchorFlags === undefined)
    throw new UsageError(
      "--head-hash is required: the hash of the range's last block, from a source you trust (or --anchor-proof F --checkpoint R)",
    );
  if (file === '-' && anchorFlags?.file === '-')
    throw new UsageError('standard input holds the logs proof: give --anchor-proof a FILE');
  // The anchor proof first: a file that is refused stops the command before the logs proof is read.
  const chainId = values.chain === undefined ? undefined : chainValue('--chain', values.chain);
  // Without --chain, the proof's own chain is only known once it is read: the head check holds the file to it.
  const anchored = anchorFlags === undefined ? undefined : provenByAnchor(anchorFlags, chainId ?? null);
  const headHash =
    anchored === undefined
      ? hexToBytes(hashValue('--head-hash', values['head-hash']!))
      : (block: number, hash: Uint8Array, chain: number) => anchored.unproven(block, hash, chain);
  const registry = new ChainRegistry(addedChains(values['add-chain']));
  const expected = expectedRange(values);
  const spool = new TempFile(outputFile(values.out), '--out');
  try {
    const verifier = new LogsProofVerifier({
      headHash,
      registry,
      ...(chainId !== undefined && { chainId }),
      ...(expected !== undefined && { expected }),
    });
    // Without --chain, the preamble names the proof's chain: an anchor proof of another is refused then, as with --chain.
    let chainKnown = chainId !== undefined || anchored === undefined;
    // Logs the temporary file could not take (a full disk, a file size limit) stop only the logs: the proof is still
    // checked to its end, since one that does not hold is a verdict with nothing to write. Told only if it holds.
    let unspooled: InputError | undefined;
    for await (const chunk of proofChunks(file)) {
      const step = verifier.write(chunk);
      if (!chainKnown && verifier.range !== null) {
        requireAnchorChain(anchorFlags!, anchored!, verifier.range.chainId);
        chainKnown = true;
      }
      if (!step.ok) break;
      if (step.value.length === 0 || unspooled !== undefined) continue;
      try {
        spool.write(step.value.map((log) => `${JSON.stringify(log)}\n`).join(''));
      } catch (error) {
        if (!(error instanceof InputError)) throw error;
        unspooled = error;
      }
    }
    const verdict = verifier.end();
    if (!verdict.ok) {
      // No verdict (exit 2) is worded as none: the input is no proof, or its range cannot be proven.
      const noVerdict = NO_VERDICT.has(verdict.error.reason);
      const what = noVerdict ? 'no verdict' : 'the proof does not hold';
      io.stderr(`evm-integrity: ${inputName(file)}: ${what}: ${describeRefusal(verdict.error)}\n`);
      return noVerdict ? 2 : 1;
    }
    if (unspooled !== undefined) throw unspooled;
    await spool.commit();
    io.stderr(`evm-integrity: the proof holds: ${describeSummary(verdict.value, registry)}\n`);
    const head = anchored?.proving(verdict.value.headHash);
    if (head !== undefined)
      io.stderr(`evm-integrity: ${authenticLine(anchoringJson(anchored!, head), bytesToHex(head.hash))}\n`);
    return 0;
  } finally {
    spool.remove();
  }
}
