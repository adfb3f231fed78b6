/**
 * The audit workers' Prometheus figures: chunks by outcome, blocks by verdict, failed checks. A
 * process running several workers (`--workers N`) keeps one registry and counts its children's
 * outcomes, which they send it.
 */
import { Counter, type Registry } from 'prom-client';
import type { ChunkOutcome } from './chunk-worker.js';

/** Registers the audit workers' counters in `registry`; returns what counts one chunk's outcome. */
export function auditWorkerMetrics(registry: Registry): (outcome: ChunkOutcome) => void {
  const chunks = new Counter({
    name: 'evm_integrity_audit_chunks_total',
    help:
      'Chunk jobs by outcome: done (lines stored), retried (node unreachable, tried again later), parked (given up), ' +
      'superseded (nothing written: the chunk was taken again or done since), handed_back (the worker stopped ' +
      'before the chunk was done and put it back on the queue, the attempt not counted)',
    labelNames: ['outcome'],
    registers: [registry],
  });
  const blocks = new Counter({
    name: 'evm_integrity_audit_blocks_total',
    help: 'Blocks audited in chunks done, by verdict (rate() of the sum is the blocks per second)',
    labelNames: ['verdict'],
    registers: [registry],
  });
  const failures = new Counter({
    name: 'evm_integrity_audit_failed_checks_total',
    help: 'Blocks failing each check, in chunks done',
    labelNames: ['check'],
    registers: [registry],
  });
  for (const outcome of ['done', 'retried', 'parked', 'superseded', 'handed_back']) chunks.inc({ outcome }, 0);
  return (outcome) => {
    chunks.inc({ outcome: outcome.outcome });
    for (const [verdict, n] of Object.entries(outcome.verdicts ?? {})) if (n > 0) blocks.inc({ verdict }, n);
    for (const [check, n] of Object.entries(outcome.failed_checks ?? {})) if (n > 0) failures.inc({ check }, n);
  };
}
