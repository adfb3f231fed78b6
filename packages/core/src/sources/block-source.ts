/** A block in the fixtures' JSON-RPC format: `{chain_id, header, receipts}` (see fixtures/README.md). */
export type BlockJson = { chain_id: number; header: Record<string, unknown>; receipts: unknown[] } & Record<
  string,
  unknown
>;

/** Where a block check gets a block's header and complete receipts, by chain and number. */
export interface BlockSource {
  /** Header and complete receipts of a block, or null when the source does not have it. */
  block(chainId: number, blockNumber: number): Promise<BlockJson | null>;
  /**
   * Where a block it gave stands in the input (a bundle's `blocks[3]`), to name a faulty member; absent for a live
   * source.
   */
  pathOf?(chainId: number, blockNumber: number): string | undefined;
  /**
   * Checks that the source serves chain `chainId` (a node's `eth_chainId`): ChainMismatchError when it serves another.
   */
  checkChain?(chainId: number): Promise<void>;
}
