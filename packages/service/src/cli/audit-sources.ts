/** Where an audit's blocks come from, and what checks the hosted service's datasets against them. */
import { BundleSource } from 'evm-integrity/audit';
import {
  recordedServiceCrossCheck,
  RpcBlockSource,
  serviceBaseUrl,
  serviceCrossCheck,
  type BundleRecorder,
} from 'evm-integrity/node';
import type { AuditFlags } from './audit-options.js';
import { readBundleFile } from './bundle-file.js';
import { serviceApiKey } from './io.js';

/**
 * The live sources: blocks from --rpc, else from the service's JSON-RPC proxy; the service's datasets when --service is
 * given.
 */
export function liveSources(options: AuditFlags, env: NodeJS.ProcessEnv, recorder: BundleRecorder | undefined) {
  const recording = recorder && { recorder };
  if (options.service === undefined)
    return { source: new RpcBlockSource({ url: options.rpc!, keepMiscountedReceipts: true, ...recording }) };
  const apiKey = serviceApiKey(env);
  const crossCheck = serviceCrossCheck({ url: options.service, apiKey, ...recording });
  const rpc =
    options.rpc === undefined
      ? { url: `${serviceBaseUrl(options.service)}/evm/rpc`, headers: { Authorization: `Bearer ${apiKey}` } }
      : { url: options.rpc };
  return { source: new RpcBlockSource({ ...rpc, keepMiscountedReceipts: true, ...recording }), crossCheck };
}

/** A bundle's blocks, and its recorded dataset pages when the live audit had --service. */
export function recordedSources(file: string) {
  const bundle = new BundleSource(readBundleFile(file));
  return { source: bundle, ...(bundle.hasRawPages && { crossCheck: recordedServiceCrossCheck(bundle) }) };
}
