/** A log's address and topic sizes, in bytes. */
export const ADDRESS_BYTES = 20;
export const TOPIC_BYTES = 32;

/** A log as consensus hashes it: emitting address, 0-4 topics, data. */
export interface Log {
  /** 20 bytes. */
  address: Uint8Array;
  /** 32 bytes each, topic 0 first. */
  topics: Uint8Array[];
  data: Uint8Array;
}

/**
 * A transaction receipt's consensus fields.
 * Exactly one of `status` (Byzantium and later) and `root` (the 32-byte
 * post-state root of pre-Byzantium receipts) is set.
 */
export interface Receipt {
  /** EIP-2718 transaction type; 0 for legacy. */
  type: number;
  status?: 0 | 1;
  root?: Uint8Array;
  cumulativeGasUsed: bigint;
  logs: Log[];
  /** OP-stack deposits (0x7e) since Regolith. Hashed only together with `depositReceiptVersion`. */
  depositNonce?: bigint;
  /** OP-stack deposits since Canyon. When set, nonce and version are part of the consensus encoding. */
  depositReceiptVersion?: bigint;
}
