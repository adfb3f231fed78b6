/**
 * BLS12-381 as the beacon chain uses it for sync committees (consensus-specs phase0 "BLS signatures":
 * the IETF draft's proof-of-possession ciphersuite, public keys in G1, signatures in G2), through
 * @noble/curves: `FastAggregateVerify` of the participants' keys over one message, their sum taken from the
 * committee's aggregate key.
 */
import { bls12_381 } from '@noble/curves/bls12-381.js';
import { err, ok, type Result } from '../../result.js';
import { isParticipant, type SyncCommittee } from './containers.js';

/** A decoded public key: a point of G1. */
export type PublicKeyPoint = ReturnType<typeof bls12_381.G1.Point.fromBytes>;

/** A committee key that is not a valid public key: a member's index, or the committee's `aggregate_pubkey`. */
export type CommitteeKeyIndex = number | 'aggregate';

/**
 * The ciphersuite's domain separation tag for hashing a message to G2. @noble/curves defaults to the basic
 * scheme's `_NUL_` tag; Ethereum signs with the proof-of-possession scheme, so the tag is named here.
 */
const ETH2_DST = 'BLS_SIG_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_';

/**
 * The IETF `KeyValidate` of one compressed key: a point of G1's subgroup that is not the identity, or
 * `undefined`. @noble/curves' `fromBytes` checks the encoding, the curve and the subgroup; the identity it
 * accepts, so it is refused here.
 */
function validatedKey(bytes: Uint8Array): PublicKeyPoint | undefined {
  try {
    const point = bls12_381.G1.Point.fromBytes(bytes);
    return point.is0() ? undefined : point;
  } catch {
    return undefined;
  }
}

/**
 * A sync committee's keys, decoded one at a time as signatures need them and kept. Decompressing and
 * subgroup-checking a key costs 2 to 3 ms of pure JavaScript (all 512, over a second), one aggregate
 * verification under 100 ms. The participants' sum is therefore taken from the committee's `aggregate_pubkey`
 * (the sum of its 512 keys) minus the keys of the members who did not sign: at least two thirds must sign, so
 * at most 170 keys are decoded, and on mainnet a handful. This is what the field is for: consensus-specs'
 * `get_next_sync_committee` says the aggregate "enables resource-constrained clients to save some computation
 * when verifying the sync committee's signature", and the annotated spec (ethereum/annotated-spec,
 * altair/beacon-chain.md, `SyncCommittee`) to "start with the sum and subtract out all the pubkeys that did not
 * participate".
 *
 * The aggregate is proven with the keys, under the same committee root (roots.ts `syncCommitteeRoot`), so it
 * is as trusted as they are; a key that repeats in the committee (the spec allows it) is counted once per seat
 * both in the aggregate and in what is subtracted, so the difference is still the sum of the signers' seats.
 * The signers' own keys are not decoded one by one: the state transition only admits keys that passed
 * `KeyValidate` (a deposit's signature is verified with its key), and their sum is the aggregate's point less
 * valid points, so it is in the subgroup. The light-client state carries this object from one update to the
 * next, the next committee's becoming the current one's at a period's turn, so the keys decoded for one
 * update serve the next ones of the committee.
 */
export class CommitteeKeys {
  readonly #committee: SyncCommittee;
  /** Each member's key, decoded or `null` if invalid; absent until first needed. */
  readonly #members = new Map<number, PublicKeyPoint | null>();
  #aggregate: PublicKeyPoint | null | undefined;

  /** The keys of `committee`, to decode when first needed. */
  constructor(committee: SyncCommittee) {
    this.#committee = committee;
  }

  /** How many member keys the committee has (512 in data that decoded; a hand-built committee may differ). */
  get size(): number {
    return this.#committee.pubkeys.length;
  }

  /** How many keys have been decoded so far (the aggregate counted, and a key that failed). */
  get decodedKeys(): number {
    return this.#members.size + (this.#aggregate === undefined ? 0 : 1);
  }

  /**
   * The sum of the keys of the members whose bit is set in `bits` (an SSZ bitvector, one bit per member): the
   * committee's aggregate key less the others' keys. A key among those decoded that is not a valid public key
   * (`KeyValidate`) gives its index, or `'aggregate'`. The sum may be the identity: the caller refuses it.
   */
  participantsAggregate(bits: Uint8Array): Result<PublicKeyPoint, CommitteeKeyIndex> {
    this.#aggregate ??= validatedKey(this.#committee.aggregatePubkey) ?? null;
    if (this.#aggregate === null) return err('aggregate');
    let sum = this.#aggregate;
    for (const [index, bytes] of this.#committee.pubkeys.entries()) {
      if (isParticipant(bits, index)) continue;
      let key = this.#members.get(index);
      if (key === undefined) {
        key = validatedKey(bytes) ?? null;
        this.#members.set(index, key);
      }
      if (key === null) return err(index);
      sum = sum.subtract(key);
    }
    return ok(sum);
  }
}

/**
 * The IETF `FastAggregateVerify` once the keys are summed: whether `signature` (96 bytes, compressed G2) is the
 * signature over `message` of the keys whose sum is `aggregate`. A signature that does not decode, is not in
 * G2's subgroup or is the identity, or keys that sum to the identity, verify as false.
 */
export function fastAggregateVerify(aggregate: PublicKeyPoint, message: Uint8Array, signature: Uint8Array): boolean {
  if (aggregate.is0()) return false;
  try {
    const sig = bls12_381.longSignatures.Signature.fromBytes(signature);
    if (sig.is0()) return false;
    return bls12_381.longSignatures.verify(sig, bls12_381.longSignatures.hash(message, ETH2_DST), aggregate);
  } catch {
    // A malformed point: not a signature of these keys.
    return false;
  }
}
