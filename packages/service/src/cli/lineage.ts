import { parseArgs } from 'node:util';
import { auditBundle } from 'evm-integrity/api';
import { type LineageReport, SourceError, walkLineage } from 'evm-integrity/lineage';
import { ChainRegistry } from 'evm-integrity';
import { inlineBlockVerifier } from 'evm-integrity/audit';
import { BundleRecorder, RpcBlockSource, ServiceSource, writeBundle } from 'evm-integrity/node';
import { bundleFaultLine, readBundleFile } from './io/bundle-file.js';
import { startBlockPool } from './block-pool.js';
import { rpcUrlOf, serviceApiKey, workersOption } from './flags.js';
import { addedChains, CHAIN_OPTIONS, chainValue } from './chain-flag.js';
import { cannotWrite, checkWritable } from './io/writable.js';
import { UsageError } from './io/usage-error.js';
import { ANCHOR_OPTIONS, anchorProofFlags } from './anchor/anchor-flags.js';
import { provenByAnchor } from './anchor/anchor-proof.js';
import { printable } from './io/printable.js';
import { LINEAGE_EXIT } from './exit.js';

const MARK = { pass: 'PASS', fail: 'FAIL', skipped: 'skip' } as const;
const VERDICT = { pass: 'PASS', fail: 'FAIL', not_verifiable: 'NOT VERIFIABLE' } as const;
/** A pass is 0, a failure 1; not verifiable is no verdict (2), as for `verify block`. */
/** What each assurance says of the blocks, on the report's second line. */
const ASSURANCE = {
  authentic: 'the anchor proof proves every block checked on chain',
  partly_authentic: "the anchor proof proves some of the blocks checked on chain; the others are the source's word",
  consistent:
    "each block checked on chain is consistent in itself, but its hash is the source's word: no anchor proof proves it the chain's (--anchor-proof FILE --checkpoint ROOT)",
} as const;

/**
 * The report as a readable table: one line a check, grouped by record. Every text the sources gave (ids, datasets,
 * subjects, reasons, warnings) is made printable: a control character in a bundle's dataset could drive the terminal and
 * overwrite the verdict.
 */
export function formatReport(report: LineageReport): string {
  const { pass, fail, skipped } = report.summary;
  const lines = [
    `lineage ${printable(report.tracing_id)} on chain ${report.chain_id}: ${VERDICT[report.verdict]} (${pass} passed, ${fail} failed, ${skipped} skipped)`,
  ];
  if (report.reason !== null)
    lines.push(`${report.verdict === 'fail' ? 'first failure' : 'why'}: ${printable(report.reason)}`);
  lines.push(`blocks: ${report.assurance.replace('_', ' ')}: ${ASSURANCE[report.assurance]}`);
  for (const record of report.records) {
    lines.push('', `record ${printable(record.tracing_id)} (dataset ${printable(record.dataset ?? 'unknown')})`);
    const checks = record.checks.map((c) => ({
      mark: MARK[c.status],
      check: printable(c.check),
      subject: printable(c.subject),
      reason: printable(c.reason),
    }));
    const width = Math.max(...checks.map((c) => c.check.length), 10);
    const subjectWidth = Math.max(...checks.map((c) => c.subject.length), 10);
    for (const c of checks)
      lines.push(`  ${c.mark}  ${c.check.padEnd(width)}  ${c.subject.padEnd(subjectWidth)}  ${c.reason}`);
  }
  for (const warning of report.warnings) lines.push(`warning: ${printable(warning)}`);
  return `${lines.join('\n')}\n`;
}

/**
 * `lineage …`: exit 0 when every check ran and passed, 1 when one fails, 2 when not verifiable, for bad input or an
 * unreachable source.
 */
export async function runLineage(
  argv: string[],
  io: { stdout(t: string): void; stderr(t: string): void },
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      ...CHAIN_OPTIONS,
      bundle: { type: 'string' },
      service: { type: 'string' },
      rpc: { type: 'string' },
      'rpc-url': { type: 'string' },
      record: { type: 'string' },
      json: { type: 'boolean' },
      workers: { type: 'string' },
      ...ANCHOR_OPTIONS,
    },
  });
  const [tracingId, ...extra] = positionals;
  if (tracingId === undefined) throw new UsageError('lineage needs a TRACING_ID');
  if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0]}": lineage takes one TRACING_ID`);
  if (!/^[0-9a-fA-F]{36}$/.test(tracingId))
    throw new UsageError(`a tracing id is 36 hex characters, got "${tracingId}"`);
  const chains = addedChains(values['add-chain']);
  const chainId = chainValue('--chain', values.chain);
  if ((values.bundle === undefined) === (values.service === undefined))
    throw new UsageError('give exactly one of --bundle FILE and --service URL');
  if (values.record !== undefined && values.bundle !== undefined)
    throw new UsageError('--record needs --service (a bundle is already a recording)');
  // Before the walk: a recording that cannot be written would otherwise be lost only at its end.
  if (values.record !== undefined) checkWritable('--record', values.record);
  // ETH_RPC_URL names the node only for a live audit: a bundle's own blocks are not replaced unasked.
  const rpcUrl = rpcUrlOf(values, values.service === undefined ? {} : env);

  // Verified before the walk: a proof that does not verify is refused (exit 1), one that is none is bad input (exit 2).
  const anchorFlags = anchorProofFlags(values, {});
  const anchors = anchorFlags === undefined ? undefined : provenByAnchor(anchorFlags, chainId);

  const workers = workersOption(values.workers) ?? 0;
  // The block checks on worker threads when asked (--workers N); inline by default.
  const pool = workers === 0 ? undefined : await startBlockPool(workers, undefined, { chains, evidence: [] });
  // A chain added with --add-chain is verified by a registry that has it; the built-in chains need none.
  const verify =
    pool?.verify ?? (chains.length > 0 ? inlineBlockVerifier({ registry: new ChainRegistry(chains) }) : undefined);
  let report: LineageReport;
  try {
    if (values.bundle !== undefined) {
      // The same code path as POST /v1/evm/verify/lineage: the same bundle gives the same answer.
      const json = readBundleFile(values.bundle, '--bundle');
      const rpc = rpcUrl === undefined ? undefined : new RpcBlockSource({ url: rpcUrl });
      const audit = await auditBundle({
        chainId,
        tracingId,
        bundle: json,
        ...(rpc && { blocks: rpc }),
        ...(verify && { verify }),
        ...(anchors && { anchors }),
      });
      // A fault of the bundle (`details.problem`: a member, a limit, an answer it lacks) is told as the endpoint's 400
      // tells it, naming the file, the member's path and what was expected. One without is a failure of the node --rpc
      // names (it cannot be reached, or gave a block that cannot be read), whose message names the node.
      if (!audit.ok)
        throw rpc !== undefined && audit.error.details.problem === undefined
          ? audit.error
          : new SourceError(bundleFaultLine(values.bundle, audit.error, 'lineage'));
      report = audit.value;
    } else {
      const apiKey = serviceApiKey(env);
      const recorder = values.record === undefined ? undefined : new BundleRecorder();
      const service = new ServiceSource({ baseUrl: values.service!, apiKey, ...(recorder && { recorder }) });
      const rpc = rpcUrl === undefined ? undefined : new RpcBlockSource({ url: rpcUrl, ...(recorder && { recorder }) });
      report = await walkLineage({
        chainId,
        tracingId,
        source: service,
        ...(rpc && { blocks: rpc }),
        ...(verify && { verify }),
        ...(anchors && { anchors }),
      });
      if (recorder !== undefined && values.record !== undefined)
        await writeBundle(values.record, recorder.toBundle(service.baseUrl)).catch((error: unknown) => {
          throw cannotWrite('--record', values.record!, error);
        });
    }
  } catch (error) {
    if (!(error instanceof SourceError)) throw error;
    io.stderr(`evm-integrity: ${printable(error.message)}\n`);
    return 2;
  } finally {
    await pool?.terminate();
  }
  io.stdout(values.json ? `${JSON.stringify(report, null, 2)}\n` : formatReport(report));
  return LINEAGE_EXIT[report.verdict];
}
