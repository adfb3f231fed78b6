/**
 * The suite's global setup: one temporary directory for the run, under the system's, given to the tests and to every
 * process they start as TMPDIR (os.tmpdir() reads it), and removed when the run ends. The tests make hundreds of
 * directories there (a CLI's output files, bundles, PostgreSQL clusters of their own, Node's compile cache for the CLI
 * they start); not all remove theirs, and `bash .ci/run` left some 300 behind it in the system's directory.
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  const root = mkdtempSync(join(tmpdir(), 'evmi-tests-'));
  // Searchable by others: a private PostgreSQL cluster's directory in it belongs to the postgres user.
  chmodSync(root, 0o755);
  process.env.TMPDIR = root;
  return () => rmSync(root, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
}
