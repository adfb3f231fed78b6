/**
 * BLS12-381 as the beacon chain uses it for sync committees (consensus-specs phase0 "BLS signatures":
 * the IETF draft's proof-of-possession ciphersuite, public keys in G1, signatures in G2), through
 * @noble/curves: `FastAggregateVerify` of the participants' keys over one message.
 */
import { bls12_381 } from '@noble/curves/bls12-381.js';
import { err, ok, type Result } from '../../result.js';

/** A decoded public key: a point of G1. */
export type PublicKeyPoint = ReturnType<typeof bls12_381.G1.Point.fromBytes>;

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
 * A sync committee's 512 public keys, decoded into points the first time a signature is checked against
 * them and kept. Decompressing and subgroup-checking 512 keys costs about 1.2 s of pure JavaScript, while
 * one aggregate verification costs about 80 ms; a committee signs every update of its period (and of the
 * period before, as the next committee), so decoding once per committee rather than once per update is
 * what makes following the chain affordable. The light-client state carries this object from one update
 * to the next, the next committee's becoming the current one's at a period's turn.
 */
export class CommitteeKeys {
  readonly #pubkeys: readonly Uint8Array[];
  #decoded: Result<readonly PublicKeyPoint[], number> | undefined;

  /** Keys to decode when first needed. */
  constructor(pubkeys: readonly Uint8Array[]) {
    this.#pubkeys = pubkeys;
  }

  /** Whether the keys have been decoded already (a decoding that failed counts). */
  get decoded(): boolean {
    return this.#decoded !== undefined;
  }

  /** The keys as points, or the index of the first key that is not a valid public key. */
  points(): Result<readonly PublicKeyPoint[], number> {
    if (this.#decoded === undefined) {
      const points: PublicKeyPoint[] = [];
      let bad = -1;
      for (const [index, bytes] of this.#pubkeys.entries()) {
        const point = validatedKey(bytes);
        if (point === undefined) {
          bad = index;
          break;
        }
        points.push(point);
      }
      this.#decoded = bad === -1 ? ok(points) : err(bad);
    }
    return this.#decoded;
  }
}

/**
 * The IETF `FastAggregateVerify`: whether `signature` (96 bytes, compressed G2) is the aggregate signature of
 * `keys` (validated points, at least one) over `message`. A signature that does not decode, is not in G2's
 * subgroup or is the identity, or keys that sum to the identity, verify as false.
 */
export function fastAggregateVerify(
  keys: readonly PublicKeyPoint[],
  message: Uint8Array,
  signature: Uint8Array,
): boolean {
  if (keys.length === 0) return false;
  try {
    const sig = bls12_381.longSignatures.Signature.fromBytes(signature);
    if (sig.is0()) return false;
    const aggregate = bls12_381.longSignatures.aggregatePublicKeys([...keys]);
    if (aggregate.is0()) return false;
    return bls12_381.longSignatures.verify(sig, bls12_381.longSignatures.hash(message, ETH2_DST), aggregate);
  } catch {
    // A malformed point: not a signature of these keys.
    return false;
  }
}
