/** Where an audit's blocks come from, what checks the hosted service's datasets against them, and what records both. */
import { statSync } from 'node:fs';
import { BundleSource, SourceError } from 'evm-integrity/audit';
import { parseBundle, type Bundle } from 'evm-integrity/lineage';
import {
  BundleRecorder,
  nodeSource,
  recordedServiceCrossCheck,
  serviceBaseUrl,
  serviceCrossCheck,
} from 'evm-integrity/node';
import type { AuditFlags } from './audit-options.js';
import { bundleFaultLine, readBundleFile } from '../io/bundle-file.js';
import { InputError } from '../io/usage-error.js';
import { serviceApiKey } from '../flags.js';

/**
 * The live sources: blocks from --rpc, else from the service's JSON-RPC proxy; the service's datasets when --service is
 * given. Their requests, in flight or waiting to be retried, are abandoned once `signal` aborts (Ctrl-C). The node is
 * asked `--batch` calls a request (else as many as the answers' size allows) and `--concurrency` requests at once, with
 * the blocks ahead that fill them: nodeSource, as a queue worker asks.
 */
export function liveSources(
  options: AuditFlags,
  env: NodeJS.ProcessEnv,
  recorder: BundleRecorder | undefined,
  signal: AbortSignal,
) {
  const recording = recorder && { recorder };
  const apiKey = options.service === undefined ? undefined : serviceApiKey(env);
  const rpc =
    options.service === undefined || options.rpc !== undefined
      ? { url: options.rpc! }
      : { url: `${serviceBaseUrl(options.service)}/evm/rpc`, headers: { Authorization: `Bearer ${apiKey}` } };
  const node = { keepMiscountedReceipts: true, maxAnswerBytes: options.maxAnswerBytes, ...recording, signal };
  const { source, window } = nodeSource(options, { ...rpc, ...node });
  return {
    source,
    window,
    ...(options.service !== undefined && {
      crossCheck: serviceCrossCheck({ url: options.service, apiKey: apiKey!, ...recording, signal }),
    }),
  };
}

/**
 * A bundle's blocks, `window` of them read ahead (`--concurrency`), and its recorded dataset pages when the live audit
 * had --service; a faulty bundle named.
 */
export function recordedSources(file: string, window: number) {
  const bundle = checkedBundle(file, '--bundle', (json) => new BundleSource(json));
  return {
    source: bundle,
    window: () => window,
    ...(bundle.hasRawPages && { crossCheck: recordedServiceCrossCheck(bundle) }),
  };
}

/** The base URL a recording names: the service's, or '' for a node alone. */
export const recordingBaseUrl = (options: AuditFlags): string =>
  options.service === undefined ? '' : serviceBaseUrl(options.service);

/**
 * What `--record FILE` records into. With `--resume`, the recording FILE already holds is taken up again: the resumed
 * run fetches only the blocks from where its checkpoint stopped, and a recording of those alone would replace the
 * blocks of the runs before. A FILE that is no bundle of this audit's chain and source is refused, naming it.
 */
export function auditRecorder(options: AuditFlags): BundleRecorder | undefined {
  const { record, resume, chainId } = options;
  if (record === undefined) return undefined;
  const recorder = new BundleRecorder();
  if (!resume || statSync(record, { throwIfNoEntry: false })?.isFile() !== true) return recorder;
  const refuse = (why: string) =>
    new InputError(`--record ${record} ${why}; --resume adds to the recording it holds: give another file`);
  let recorded: Bundle;
  try {
    recorded = checkedBundle(record, '--record', parseBundle);
  } catch (error) {
    if (error instanceof InputError) throw refuse(`cannot be read as a recording (${error.message})`);
    throw error;
  }
  const other = recorded.blocks.find((block) => block.chain_id !== chainId);
  if (other !== undefined) throw refuse(`holds blocks of chain ${other.chain_id}, not ${chainId}`);
  recorded.exchanges.forEach((exchange) => recorder.addExchange(exchange));
  recorded.blocks.forEach((block) => recorder.addBlock(block));
  return recorder;
}

/** The bundle in `file` (given to `flag`), checked by `read`; an InputError naming the file and the faulty member otherwise. */
function checkedBundle<T>(file: string, flag: string, read: (json: unknown) => T): T {
  const json = readBundleFile(file, flag);
  try {
    return read(json);
  } catch (error) {
    if (error instanceof SourceError) throw new InputError(bundleFaultLine(file, error, 'audit'));
    throw error;
  }
}
