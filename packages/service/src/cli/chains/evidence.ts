/**
 * `evidence add|capture|list`: an operator vouches for a block's hash, and a block that hashes to it and reproduces
 * its receipts root and bloom under its chain's rules is kept in the evidence directory, as evidence of those rules on
 * that chain and era (docs/chains.md, "Evidence"). `verify`, `audit` and `serve` read the directory with `--evidence`.
 */
import { existsSync } from 'node:fs';
import { hostname, userInfo } from 'node:os';
import { parseArgs } from 'node:util';
import { admitEvidence, evidenceRecord, type OperatorEvidence, type Vouch } from 'evm-integrity';
import { RpcBlockSource } from 'evm-integrity/node';
import { readEvidenceDir, writeEvidence } from '../../evidence/evidence-dir.js';
import { hashValue, requiredBlockRef, rpcUrlOf } from '../flags.js';
import { InputError, UsageError } from '../io/usage-error.js';
import { inputName, readInput } from '../io/read-input.js';
import type { CliIo } from '../io/streams.js';
import { parseInputJson } from '../io/json-input.js';
import { printable } from '../io/printable.js';
import { EVIDENCE_EXIT } from '../exit.js';

/** Where evidence is kept when `--evidence-dir` is not given. */
export const DEFAULT_EVIDENCE_DIR = 'evidence';

/** Who vouches when `--vouched-by` is not given: the account that runs the command, on its host. */
const runner = () => `${userInfo().username}@${hostname()}`;

/** What an admitted block shows, in one line. */
function shownLine(evidence: OperatorEvidence, path: string): string {
  const kinds = evidence.receipts.length === 0 ? 'no receipts' : `receipts ${JSON.stringify(evidence.receipts)}`;
  return `evm-integrity: chain ${evidence.chainId} block ${evidence.block} admitted as evidence (${kinds}, ${evidence.logs ? 'with' : 'without'} logs): ${path}\n`;
}

/** An admitted block as `--json` prints it: the file that keeps it, what it shows, and who vouched. */
function evidenceJson(evidence: OperatorEvidence, file: string) {
  return {
    file,
    chain_id: evidence.chainId,
    block: evidence.block,
    block_hash: evidence.vouch.blockHash,
    vouched_by: evidence.vouch.vouchedBy,
    vouched_at: evidence.vouch.vouchedAt,
    receipts: evidence.receipts,
    logs: evidence.logs,
  };
}

/** Admits `block` vouched for with `vouch`, and keeps it in `dir`; exit 0, or the refusal's status naming why. */
function admit(
  block: unknown,
  vouch: Omit<Vouch, 'file'>,
  source: string,
  dir: string,
  io: CliIo,
  options: { json: boolean },
) {
  // Evidence counts only for the built-in chains: the default registry.
  const admitted = admitEvidence(block, { ...vouch, file: '' });
  if (!admitted.ok) {
    io.stderr(`evm-integrity: ${source}: not admitted as evidence: ${admitted.error.reason}\n`);
    return EVIDENCE_EXIT[admitted.error.kind];
  }
  const { path, replaced } = writeEvidence(dir, evidenceRecord(admitted.value, block, source));
  if (options.json) io.stdout(`${JSON.stringify({ ...evidenceJson(admitted.value, path), replaced })}\n`);
  else io.stdout(shownLine(admitted.value, replaced ? `${path} (replacing the one it held)` : path));
  return 0;
}

/**
 * `evidence add FILE --trusted-hash H`, `evidence capture --rpc URL --block N --trusted-hash H`, `evidence list`
 * (argv after `evidence`). Exit 0 when admitted (or every file of the directory is), 1 when the block does not
 * reproduce, 2 for a mistake in the command line, input that is no block, or a block that cannot be tried.
 * @example await runEvidence(['add', 'block.json', '--trusted-hash', '0x…'], io)
 */
export async function runEvidence(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      'trusted-hash': { type: 'string' },
      'evidence-dir': { type: 'string' },
      'vouched-by': { type: 'string' },
      rpc: { type: 'string' },
      'rpc-url': { type: 'string' },
      block: { type: 'string' },
      json: { type: 'boolean' },
    },
  });
  const [what, ...rest] = positionals;
  const dir = values['evidence-dir'] ?? DEFAULT_EVIDENCE_DIR;
  const json = values.json ?? false;
  const vouch = () => {
    const given = values['trusted-hash'];
    if (given === undefined)
      throw new UsageError('--trusted-hash is required: the block hash you vouch for, from a source you trust');
    const vouchedBy = values['vouched-by'] ?? runner();
    if (vouchedBy.trim() === '') throw new UsageError('--vouched-by: expected who vouches, not an empty string');
    return { blockHash: hashValue('--trusted-hash', given), vouchedBy, vouchedAt: new Date().toISOString() };
  };
  switch (what) {
    case 'add': {
      if (rest.length !== 1) throw new UsageError('evidence add reads one FILE: a block in JSON-RPC form');
      const [file] = rest;
      const block = parseInputJson((io.read ?? readInput)(file), file);
      return admit(block, vouch(), `file ${inputName(file)}`, dir, io, { json });
    }
    case 'capture': {
      if (rest.length > 0) throw new UsageError(`unexpected argument "${rest[0]}": evidence capture reads from --rpc`);
      const url = rpcUrlOf(values, process.env);
      if (url === undefined) throw new UsageError('--rpc is required: the JSON-RPC URL of your node (or ETH_RPC_URL)');
      const given = requiredBlockRef('--block', values.block);
      const vouched = vouch();
      const node = new RpcBlockSource({ url });
      const chainId = Number(await node.nodeChainId());
      const number = typeof given === 'number' ? given : await node.blockNumberOf(given);
      const block = await node.block(chainId, number);
      if (block === null) throw new InputError(`${url} has no block ${number}`);
      return admit(block, vouched, `node ${url}`, dir, io, { json });
    }
    case 'list': {
      if (rest.length > 0) throw new UsageError(`unexpected argument "${rest[0]}": evidence list reads --evidence-dir`);
      // No directory yet is no evidence yet (`add` and `capture` make it); one named by --evidence must exist.
      if (dir !== '' && !existsSync(dir)) {
        if (json) io.stdout('[]\n');
        io.stderr(`evm-integrity: no evidence yet: ${dir} does not exist (evidence add and capture make it)\n`);
        return 0;
      }
      const evidence = readEvidenceDir(dir);
      if (json) io.stdout(`${JSON.stringify(evidence.map((e) => evidenceJson(e, e.vouch.file)))}\n`);
      else
        for (const e of evidence)
          // The directory may be someone else's: its names are shown, never written to the terminal as they are.
          io.stdout(
            `${printable(`${e.vouch.file}: chain ${e.chainId} block ${e.block}, ${e.vouch.blockHash}, vouched by ${e.vouch.vouchedBy} at ${e.vouch.vouchedAt}; receipts ${JSON.stringify(e.receipts)}, ${e.logs ? 'with' : 'without'} logs`)}\n`,
          );
      io.stderr(
        `evm-integrity: ${evidence.length} evidence file${evidence.length === 1 ? '' : 's'} in ${dir}, each admitted again\n`,
      );
      return 0;
    }
    case undefined:
      throw new UsageError('evidence needs what to do: add, capture or list');
    default:
      throw new UsageError(`cannot do "evidence ${what}": expected add, capture or list`);
  }
}
