/**
 * An operator's evidence directory: one file a vouched block (`<chain id>-<number>.json`, the core's evidence record).
 * Every file is admitted again when the directory is read, so a file whose block no longer reproduces stops the run
 * with its name and reason: an evidence directory never counts for less, or more, than the operator thinks.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  ChainRegistry,
  DuplicateMemberError,
  evidenceFileName,
  EvmIntegrityError,
  parseJson,
  readEvidenceRecord,
  type ChainInfo,
  type EvidenceRecord,
  type OperatorEvidence,
} from 'evm-integrity';
import { readFailure, writeFailure } from '../files/file-failures.js';

/** An evidence directory that cannot be read, or a file in it that is refused, named with the reason. */
export class EvidenceDirError extends EvmIntegrityError<{ path: string }, 'EVIDENCE_DIR'> {
  override name = 'EvidenceDirError';
  override readonly code = 'EVIDENCE_DIR';
}

/**
 * The evidence of every `*.json` file of `dir`, each admitted again against the built-in chains and `chains`; throws
 * EvidenceDirError naming the directory or the first file refused. A file must be named as `evidence add` names it
 * (`CHAIN-NUMBER.json`), so that what a directory holds can be read off its listing.
 */
export function readEvidenceDir(dir: string, chains: readonly ChainInfo[] = []): OperatorEvidence[] {
  if (dir === '') throw new EvidenceDirError('evidence directory: the path is empty; give a directory', { path: dir });
  let names: string[];
  try {
    // A link is followed (a dangling one is refused when read); a directory is no evidence file.
    names = readdirSync(dir, { withFileTypes: true })
      .filter((entry) => (entry.isFile() || entry.isSymbolicLink()) && entry.name.endsWith('.json'))
      .map((entry) => entry.name);
  } catch (error) {
    throw new EvidenceDirError(`evidence directory ${dir}: ${writeFailure(error)}`, { path: dir });
  }
  const registry = new ChainRegistry(chains);
  return names.sort().map((name) => {
    const path = join(dir, name);
    const refuse = (why: string) => new EvidenceDirError(`evidence file in ${dir}: ${why}`, { path });
    let value: unknown;
    try {
      // A byte order mark, as some editors save one, is no part of the JSON.
      value = parseJson(readFileSync(path, 'utf8').replace(/^\uFEFF/, ''));
    } catch (error) {
      throw refuse(
        `${name}: ${error instanceof SyntaxError || error instanceof DuplicateMemberError ? `not JSON: ${error.message}` : readFailure(error)}`,
      );
    }
    // Reports (and GET /v1/chains) name the file by its name in the directory, not by a path on this machine.
    const read = readEvidenceRecord(value, name, { registry });
    if (!read.ok) throw refuse(read.error.reason);
    const expected = evidenceFileName(read.value.chainId, read.value.block);
    if (name !== expected)
      throw refuse(
        `${name}: holds block ${read.value.block} of chain ${read.value.chainId}, which is kept as ${expected}`,
      );
    return read.value;
  });
}

/**
 * Writes `record` into `dir` (made if missing) under its file name, whole or not at all (a temporary file renamed into
 * place); its path, and whether it replaced a file of the same block.
 */
export function writeEvidence(dir: string, record: EvidenceRecord): { path: string; replaced: boolean } {
  if (dir === '') throw new EvidenceDirError('evidence directory: the path is empty; give a directory', { path: dir });
  if (existsSync(dir) && !statSync(dir).isDirectory())
    throw new EvidenceDirError(`evidence directory ${dir}: it is not a directory`, { path: dir });
  const path = join(dir, evidenceFileName(record.chain_id, record.block_number));
  const temporary = `${path}.${process.pid}.tmp`;
  try {
    mkdirSync(dir, { recursive: true });
    const replaced = existsSync(path);
    writeFileSync(temporary, `${JSON.stringify(record, null, 2)}\n`);
    renameSync(temporary, path);
    return { path, replaced };
  } catch (error) {
    // Not at all: no part of the record is left beside the directory's files.
    rmSync(temporary, { force: true });
    throw new EvidenceDirError(`evidence directory ${dir}: cannot write ${path}: ${writeFailure(error)}`, {
      path: dir,
    });
  }
}
