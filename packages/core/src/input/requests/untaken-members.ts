/**
 * Members that bind a verify answer to what the caller trusts (a block hash, a checkpoint, an anchor proof), refused in
 * a body whose endpoint does not take them. Unknown members are otherwise ignored (forward compatibility), but one of
 * these, ignored, leaves the client believing the answer was bound to it: a receipt proof sent with a `checkpoint` would
 * be answered is_valid true against nothing but its own block hash.
 */
import { spelledAnotherWay } from '../../json/member-names.js';
import { claims, type JsonObject } from '../values/json-values.js';
import type { Problems } from '../values/problems.js';

/** A verify endpoint whose body the core reads, by its path under `/v1/evm/verify/`. */
export type VerifyEndpoint = 'receipt-root' | 'logs-bloom' | 'receipt-proof' | 'lineage' | 'logs-proof' | 'anchor';

/**
 * Each binding member, the endpoints whose bodies take it at their top level, and, where it helps, where else it
 * belongs. What each body's declaration takes: test/untaken-members.test.ts holds the two to each other.
 */
export const BINDING_MEMBERS: Readonly<Record<string, { takenBy: readonly VerifyEndpoint[]; note?: string }>> = {
  expected_block_hash: { takenBy: ['receipt-proof'] },
  head_hash: { takenBy: ['logs-proof'] },
  anchor: { takenBy: ['receipt-proof', 'logs-proof'] },
  checkpoint: { takenBy: ['anchor'], note: 'and inside the anchor member of the receipt-proof and logs-proof bodies' },
  tail_hash: { takenBy: [], note: 'a logs proof hangs from head_hash, its last block' },
  trusted_hash: {
    takenBy: [],
    note: 'a hash you trust is expected_block_hash (receipt-proof) or head_hash (logs-proof)',
  },
  anchor_proof: {
    takenBy: [],
    note: "an anchor proof file is sent as the anchor member's proof (receipt-proof, logs-proof) or as proof (anchor)",
  },
};

const BINDING_NAMES: readonly string[] = Object.keys(BINDING_MEMBERS);

const pathOf = (endpoint: VerifyEndpoint) => `POST /v1/evm/verify/${endpoint}`;

/** Which endpoints take `binding`, in words, for a refusal. */
function takers(binding: string): string {
  const { takenBy, note } = BINDING_MEMBERS[binding]!;
  const by = takenBy.length === 0 ? 'no endpoint takes it' : `${takenBy.map(pathOf).join(' and ')} takes it`;
  return note === undefined ? by : `${by} (${note})`;
}

/**
 * Names each member of `body` (a verify body of `endpoint`, at its top level) that is a binding member `endpoint` does
 * not take, in any spelling the body readers read as one member (case, `_` and `-` aside: json-values.ts'
 * spelledAnotherWay), as a problem. A spelling of one it does take is its reader's to refuse (a second spelling); null
 * claims nothing, as everywhere, and is let be.
 */
export function refuseUntakenMembers(body: JsonObject, endpoint: VerifyEndpoint, problems: Problems): void {
  for (const member in body) {
    const binding = Object.hasOwn(BINDING_MEMBERS, member) ? member : spelledAnotherWay(body, member, BINDING_NAMES);
    if (binding === undefined || BINDING_MEMBERS[binding]!.takenBy.includes(endpoint) || !claims(body[member]))
      continue;
    const spelled = member === binding ? `"${member}"` : `"${member}" (${binding} spelled another way)`;
    problems.add(
      member,
      'invalid_format',
      `no ${spelled} in a body of ${pathOf(endpoint)}: ${pathOf(endpoint)} does not take it, and would answer without binding to it; ${takers(binding)}`,
    );
  }
}
