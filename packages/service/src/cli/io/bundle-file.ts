import { readFileSync } from 'node:fs';
import type { SourceError } from 'evm-integrity/lineage';
import { parseJson } from 'evm-integrity';
import { InputError } from './usage-error.js';
import { readFailure } from '../../files/file-failures.js';

/**
 * A bundle's fault as one line naming the file, whichever command read it: `FILE: exchanges[3].status: expected …`
 * (the member's path and what was expected, as the endpoint's 400 names it), or `FILE: ` and the error's message.
 */
export function bundleFaultLine(file: string, error: SourceError): string {
  const problem = error.details.problem;
  if (problem === undefined) return `${file}: ${error.message}`;
  return `${file}: ${problem.path === '' ? '' : `${problem.path}: `}expected ${problem.expected}`;
}

/** A bundle file's JSON, plain or gzip-compressed (`.gz`); its shape is checked by whoever reads it. */
export function readBundleFile(file: string): unknown {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (error) {
    throw new InputError(`cannot read the bundle ${file}: ${readFailure(error)}`);
  }
  try {
    // zlib loaded only for a compressed bundle: it costs every other CLI process 1.5 ms of its start.
    const text = file.endsWith('.gz') ? process.getBuiltinModule('node:zlib').gunzipSync(bytes) : bytes;
    return parseJson(text.toString('utf8'));
  } catch (error) {
    throw new InputError(`${file} is not a JSON bundle: ${(error as Error).message}`);
  }
}
