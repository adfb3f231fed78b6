/**
 * An operator's evidence directory: one file a vouched block (`<chain id>-<number>.json`, the core's evidence record).
 * Every file is admitted again when the directory is read, so a file whose block no longer reproduces stops the run
 * with its name and reason: an evidence directory never counts for less, or more, than the operator thinks.
 */
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  ChainRegistry,
  evidenceFileName,
  EvmIntegrityError,
  readEvidenceRecord,
  type ChainInfo,
  type EvidenceRecord,
  type OperatorEvidence,
} from 'evm-integrity';

/** An evidence directory that cannot be read, or a file in it that is refused, named with the reason. */
export class EvidenceDirError extends EvmIntegrityError<{ path: string }, 'EVIDENCE_DIR'> {
  override name = 'EvidenceDirError';
  override readonly code = 'EVIDENCE_DIR';
}

const reason = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * The evidence of every `*.json` file of `dir`, each admitted again against the built-in chains and `chains`; throws
 * EvidenceDirError naming the directory or the first file refused.
 */
export function readEvidenceDir(dir: string, chains: readonly ChainInfo[] = []): OperatorEvidence[] {
  let names: string[];
  try {
    names = readdirSync(dir).filter((name) => name.endsWith('.json'));
  } catch (error) {
    throw new EvidenceDirError(`evidence directory ${dir}: ${reason(error)}`, { path: dir });
  }
  const registry = new ChainRegistry(chains);
  return names.sort().map((name) => {
    const path = join(dir, name);
    let value: unknown;
    try {
      value = JSON.parse(readFileSync(path, 'utf8'));
    } catch (error) {
      throw new EvidenceDirError(`evidence file ${path}: ${reason(error)}`, { path });
    }
    const read = readEvidenceRecord(value, path, { registry });
    if (!read.ok) throw new EvidenceDirError(`evidence file ${read.error.reason}`, { path });
    return read.value;
  });
}

/**
 * Writes `record` into `dir` (made if missing) under its file name, whole or not at all (a temporary file renamed into
 * place); returns its path.
 */
export function writeEvidence(dir: string, record: EvidenceRecord): string {
  const path = join(dir, evidenceFileName(record.chain_id, record.block_number));
  try {
    mkdirSync(dir, { recursive: true });
    const temporary = `${path}.${process.pid}.tmp`;
    writeFileSync(temporary, `${JSON.stringify(record, null, 2)}\n`);
    renameSync(temporary, path);
  } catch (error) {
    throw new EvidenceDirError(`evidence directory ${dir}: ${reason(error)}`, { path: dir });
  }
  return path;
}
