import { queueUrl } from '../flags.js';
import { UsageError } from '../io/usage-error.js';

/** The audit id and the queue, from the command line of audit-status and audit-export. */
export function auditIdAndQueue(command: string, positionals: string[], queue: string | undefined) {
  if (positionals.length !== 1)
    throw new UsageError(`${command} takes one audit id (the last line \`audit --queue\` printed)`);
  if (queue === undefined) throw new UsageError('--queue is required: the PostgreSQL URL of the audit queue');
  return { id: positionals[0]!, queue: queueUrl('--queue', queue) };
}
