/**
 * What a chain registry is built from beyond the built-in chains: the chains an operator added and the blocks an
 * operator vouched for. Plain data, so that worker threads build the same registry as the thread that started them.
 */
import { ChainRegistry, type ChainInfo, type OperatorEvidence } from 'evm-integrity';

/** The chains added (`--chain`, the configuration's `chains`) and the evidence of an evidence directory. */
export interface RegistrySetup {
  chains: readonly ChainInfo[];
  evidence: readonly OperatorEvidence[];
}

/**
 * A command's setup: the chains it adds and, given an evidence directory, its evidence, each file admitted again. The
 * directory's reader (node:fs, the admission) is loaded only then.
 */
export async function setupOf(chains: readonly ChainInfo[], evidenceDir: string | undefined): Promise<RegistrySetup> {
  if (evidenceDir === undefined) return { chains, evidence: [] };
  const { readEvidenceDir } = await import('./evidence-dir.js');
  return { chains, evidence: readEvidenceDir(evidenceDir, chains) };
}

/** The registry of a setup (the CLI, the server and each worker thread build the same one). */
export const registryOf = (setup: RegistrySetup): ChainRegistry =>
  new ChainRegistry(setup.chains, { evidence: setup.evidence });
