/** Where an audit's blocks come from, and what checks the hosted service's datasets against them. */
import { BundleSource, SourceError } from 'evm-integrity/audit';
import {
  nodeFetching,
  recordedServiceCrossCheck,
  RpcBlockSource,
  serviceBaseUrl,
  serviceCrossCheck,
  type BundleRecorder,
} from 'evm-integrity/node';
import type { AuditFlags } from './audit-options.js';
import { bundleFaultLine, readBundleFile } from '../io/bundle-file.js';
import { InputError } from '../io/usage-error.js';
import { serviceApiKey } from '../flags.js';

/** How a node is asked: `--batch` calls per request and `--concurrency` requests at once (nodeFetching, as a queue worker). */
function fetching(options: AuditFlags) {
  const { batch, connections } = nodeFetching(options);
  return { batch, connections, maxAnswerBytes: options.maxAnswerBytes };
}

/** The blocks fetched ahead of the audit: from a node, as nodeFetching says; from a bundle, `--concurrency`. */
export function fetchWindow(options: AuditFlags): number {
  return options.bundle === undefined ? nodeFetching(options).window : options.concurrency;
}

/**
 * The live sources: blocks from --rpc, else from the service's JSON-RPC proxy; the service's datasets when --service is
 * given. Their requests, in flight or waiting to be retried, are abandoned once `signal` aborts (Ctrl-C).
 */
export function liveSources(
  options: AuditFlags,
  env: NodeJS.ProcessEnv,
  recorder: BundleRecorder | undefined,
  signal: AbortSignal,
) {
  const recording = recorder && { recorder };
  const node = { keepMiscountedReceipts: true, ...fetching(options), ...recording, signal };
  if (options.service === undefined) return { source: new RpcBlockSource({ url: options.rpc!, ...node }) };
  const apiKey = serviceApiKey(env);
  const crossCheck = serviceCrossCheck({ url: options.service, apiKey, ...recording, signal });
  const rpc =
    options.rpc === undefined
      ? { url: `${serviceBaseUrl(options.service)}/evm/rpc`, headers: { Authorization: `Bearer ${apiKey}` } }
      : { url: options.rpc };
  return { source: new RpcBlockSource({ ...rpc, ...node }), crossCheck };
}

/** A bundle's blocks, and its recorded dataset pages when the live audit had --service; a faulty bundle named. */
export function recordedSources(file: string) {
  const bundle = openBundle(file);
  return { source: bundle, ...(bundle.hasRawPages && { crossCheck: recordedServiceCrossCheck(bundle) }) };
}

/** The bundle in `file`, checked; an InputError naming the file and the faulty member otherwise. */
function openBundle(file: string): BundleSource {
  try {
    return new BundleSource(readBundleFile(file));
  } catch (error) {
    if (error instanceof SourceError) throw new InputError(bundleFaultLine(file, error));
    throw error;
  }
}
