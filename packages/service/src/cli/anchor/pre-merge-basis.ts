/**
 * How the command line names what a pre-merge record's block rests on: the accumulator EIP-7643 fixes, which the
 * library holds, and not the checkpoint, which nothing checks for such a block. Apart from anchor-proof.ts so that
 * `audit` names it without loading the anchor's code.
 */
export const preMergeBasis = (network?: string): string =>
  `the pre-merge accumulator (EIP-7643, built in${network === undefined ? '' : `; ${network}`})`;
