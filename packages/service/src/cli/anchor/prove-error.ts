import { EvmIntegrityError } from 'evm-integrity';
import type { ServiceErrorCode } from '../../error-codes.js';

/**
 * Why `anchor prove` made no file, in one line (exit 2): `source` a beacon or execution node that cannot be
 * reached or answers what is not what was asked; `not-provable` a block the sources given cannot prove (before
 * Capella after the merge, after the checkpoint, in its current period); `refused` data that does not hash to the
 * root it must reach.
 */
export class AnchorProveError extends EvmIntegrityError<
  { reason: 'source' | 'not-provable' | 'refused' },
  ServiceErrorCode & 'ANCHOR_PROVE'
> {
  override name = 'AnchorProveError';
  override readonly code = 'ANCHOR_PROVE';

  constructor(reason: 'source' | 'not-provable' | 'refused', message: string) {
    super(message, { reason });
  }
}
