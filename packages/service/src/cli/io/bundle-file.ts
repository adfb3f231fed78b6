import { readFileSync } from 'node:fs';
import type { SourceError } from 'evm-integrity/lineage';
import { InputError } from './usage-error.js';
import { readFailure } from '../../files/file-failures.js';
import { parseInputJson } from './json-input.js';

/**
 * A bundle's fault as one line naming the file, whichever command read it: `FILE: exchanges[3].status: expected …`
 * (the member's path and what was expected, as the endpoint's 400 names it), or `FILE: ` and the error's message (a
 * limit). A fault of the document itself or of a top-level member (another kind of file) also names the bundle the
 * command reads (one format, recorded by `audit --record` or `lineage --record`): `FILE: not an audit bundle (what
 * audit --record writes): exchanges: expected …`. A request the bundle holds no answer to is said as such (`FILE: the
 * bundle has no answer to lineage/record for tracing id … on chain 137`): the file is a bundle, one recorded for
 * another request.
 */
export function bundleFaultLine(file: string, error: SourceError, command: 'audit' | 'lineage'): string {
  const problem = error.details.problem;
  if (problem === undefined || problem.unanswered === true) return `${file}: ${error.message}`;
  const notABundle = /^\w*$/.test(problem.path)
    ? `not ${command === 'audit' ? 'an' : 'a'} ${command} bundle (what ${command} --record writes): `
    : '';
  return `${file}: ${notABundle}${problem.path === '' ? '' : `${problem.path}: `}expected ${problem.expected}`;
}

/**
 * A bundle file's JSON (`file`, given to `flag`), plain or gzip-compressed; its shape is checked by whoever reads it. Gzip is told by the first
 * bytes (1f 8b, which no JSON text starts with), whatever the name: `.gz` is what `--record` writes, not what a copy
 * must keep, and a plain bundle named `.json.gz` is read as JSON. Gzip members may follow one another (read as one
 * text, as gunzip does) and zero padding may end the file; other bytes after the gzip data are refused, named, where
 * gunzip ignores them as trailing garbage: a bundle is read whole or not at all.
 */
export function readBundleFile(file: string, flag: string): unknown {
  // Else told as a file not found under no name at all.
  if (file === '') throw new InputError(`${flag}: the path is empty; give a file name`);
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (error) {
    throw new InputError(`cannot read the bundle ${file}: ${readFailure(error)}`);
  }
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) {
    try {
      // zlib loaded only for a compressed bundle: it costs every other CLI process 1.5 ms of its start.
      bytes = process.getBuiltinModule('node:zlib').gunzipSync(bytes);
    } catch (error) {
      // The first member's header was told by its first bytes: a header not gzip's is one of bytes after the gzip data.
      const trailing = (error as Error).message === 'incorrect header check';
      throw new InputError(
        trailing
          ? `${file}: bytes follow its gzip data that are neither another gzip member nor zero padding (gunzip ignores them as trailing garbage; a bundle is read whole)`
          : `${file}: cannot be decompressed, as its first bytes (1f 8b, gzip) ask: ${(error as Error).message}`,
      );
    }
  }
  return parseInputJson(bytes, file);
}
