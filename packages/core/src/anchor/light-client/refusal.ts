/**
 * Why a bootstrap or an update is refused: one kind a rule of consensus-specs' `initialize_light_client_store`
 * and `validate_light_client_update` (or of this module's stricter offline use: finality only, a quorum,
 * one network), each with the values it judged and a sentence saying what was expected.
 */
import type { Fork } from '../networks.js';

/** A branch the light client checks. */
export type LightClientBranch = 'current-sync-committee' | 'next-sync-committee' | 'finality' | 'execution';

/** Which header a refusal is about. */
export type HeaderRole = 'bootstrap' | 'attested' | 'finalized';

/** A refusal of light-client data; `message` says it in a sentence. */
export type LightClientRefusal =
  /** The bootstrap's beacon header does not hash to the trusted checkpoint root. */
  | { readonly kind: 'checkpoint'; readonly message: string }
  /** The state was made on another network than the one the update is checked on. */
  | { readonly kind: 'network'; readonly expected: string; readonly actual: string; readonly message: string }
  /** A header of a fork before Capella (it carries no execution header), or a signature slot before Altair. */
  | {
      readonly kind: 'unsupported-fork';
      readonly header: HeaderRole | 'signature';
      readonly fork: Fork;
      readonly message: string;
    }
  /** A header that breaks a rule of its own: a slot past 2^53, blob fields set before Deneb. */
  | { readonly kind: 'header'; readonly header: HeaderRole; readonly message: string }
  /** A branch that does not lead its leaf to its root at the generalized index of the header's fork. */
  | {
      readonly kind: 'branch';
      readonly branch: LightClientBranch;
      readonly header: HeaderRole;
      readonly gindex: number;
      readonly message: string;
    }
  /** An optimistic update: no finalized header, which offline verification does not accept. */
  | { readonly kind: 'no-finality'; readonly message: string }
  /** Fewer than two thirds of the committee signed. */
  | {
      readonly kind: 'participation';
      readonly participants: number;
      readonly required: number;
      readonly message: string;
    }
  /** Not `signature_slot > attested slot >= finalized slot`. */
  | {
      readonly kind: 'slot-order';
      readonly signatureSlot: string;
      readonly attestedSlot: string;
      readonly finalizedSlot: string;
      readonly message: string;
    }
  /** A signature period that is neither the state's nor (the next committee known) the one after; or a finalized header of a period the state cannot reach. */
  | {
      readonly kind: 'period';
      readonly statePeriod: number;
      readonly updatePeriod: number;
      readonly nextCommitteeKnown: boolean;
      readonly message: string;
    }
  /** The update finalizes nothing newer than the state and brings no finalized next committee. */
  | { readonly kind: 'not-newer'; readonly message: string }
  /** The update's next sync committee differs from the one the state already holds for that period. */
  | { readonly kind: 'next-committee'; readonly message: string }
  /**
   * A key of the signing committee that the check decodes (a non-signer's, by index, or its `'aggregate'` key) is not a
   * valid BLS public key; or the committee has other than 512 keys (`index` then their count).
   */
  | { readonly kind: 'committee-key'; readonly index: number | 'aggregate'; readonly message: string }
  /** The aggregate signature is not the participants' over the attested header, in the domain of the fork version used. */
  | { readonly kind: 'signature'; readonly fork: Fork; readonly forkVersion: string; readonly message: string };
