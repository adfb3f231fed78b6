import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { InputError, readFailure } from './io.js';

/** A bundle file's JSON, plain or gzip-compressed (`.gz`); its shape is checked by whoever reads it. */
export function readBundleFile(file: string): unknown {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (error) {
    throw new InputError(`cannot read the bundle ${file}: ${readFailure(error)}`);
  }
  try {
    return JSON.parse((file.endsWith('.gz') ? gunzipSync(bytes) : bytes).toString('utf8'));
  } catch (error) {
    throw new InputError(`${file} is not a JSON bundle: ${(error as Error).message}`);
  }
}
