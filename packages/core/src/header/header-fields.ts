/**
 * The block header's fields in RLP order, per header layout. Ethereum's layout has the 15
 * Frontier fields, then the fields forks appended, each present exactly from its fork on
 * (sources: Yellow Paper section 4.3; EIP-1559, EIP-4895, EIP-4844, EIP-4788, EIP-7685). A header
 * is hashed with the fields it has; whether its block should have more is told by the chain's real
 * blocks (chains/absent-fork-fields.ts). Chains whose headers differ have layouts of their own
 * (header/layouts.ts).
 */

/** How a field is encoded: fixed-size byte strings, canonical integers, or free bytes. */
export type HeaderFieldKind = 'hash' | 'address' | 'bloom' | 'nonce' | 'quantity' | 'bytes';

export const FIXED_SIZES: Readonly<Record<'hash' | 'address' | 'bloom' | 'nonce', number>> = {
  hash: 32,
  address: 20,
  bloom: 256,
  nonce: 8,
};

export interface HeaderFieldSpec {
  /** JSON-RPC name. */
  name: keyof BlockHeader;
  /** Other JSON-RPC names clients give it (Nethermind's `step` for erigon's `auraStep`); given together, they must agree. */
  aliases?: readonly string[];
  kind: HeaderFieldKind;
  /** Fork that appended the field; absent for the fields every header of the layout has. */
  fork?: string;
}

export const HEADER_FIELDS: readonly HeaderFieldSpec[] = [
  { name: 'parentHash', kind: 'hash' },
  { name: 'sha3Uncles', kind: 'hash' },
  // OpenEthereum and Nethermind also call it `author`.
  { name: 'miner', kind: 'address', aliases: ['author'] },
  { name: 'stateRoot', kind: 'hash' },
  { name: 'transactionsRoot', kind: 'hash' },
  { name: 'receiptsRoot', kind: 'hash' },
  { name: 'logsBloom', kind: 'bloom' },
  { name: 'difficulty', kind: 'quantity' },
  { name: 'number', kind: 'quantity' },
  { name: 'gasLimit', kind: 'quantity' },
  { name: 'gasUsed', kind: 'quantity' },
  { name: 'timestamp', kind: 'quantity' },
  { name: 'extraData', kind: 'bytes' },
  // ethers v6 (and the Engine API since the Merge) call it `prevRandao`.
  { name: 'mixHash', kind: 'hash', aliases: ['prevRandao'] },
  { name: 'nonce', kind: 'nonce' },
  { name: 'baseFeePerGas', kind: 'quantity', fork: 'London' },
  { name: 'withdrawalsRoot', kind: 'hash', fork: 'Shanghai' },
  { name: 'blobGasUsed', kind: 'quantity', fork: 'Cancun' },
  { name: 'excessBlobGas', kind: 'quantity', fork: 'Cancun' },
  { name: 'parentBeaconBlockRoot', kind: 'hash', fork: 'Cancun' },
  { name: 'requestsHash', kind: 'hash', fork: 'Prague' },
];

/** Number of fields every Ethereum header has (Frontier). */
export const FRONTIER_FIELD_COUNT = 15;

/**
 * A block header's consensus fields. Which of them a header has, and in which order they are
 * hashed, is its layout's (header/layouts.ts); Ethereum's fork fields are present from their
 * fork on.
 */
export interface BlockHeader {
  parentHash: Uint8Array;
  sha3Uncles: Uint8Array;
  miner: Uint8Array;
  stateRoot: Uint8Array;
  transactionsRoot: Uint8Array;
  receiptsRoot: Uint8Array;
  logsBloom: Uint8Array;
  difficulty: bigint;
  number: bigint;
  gasLimit: bigint;
  gasUsed: bigint;
  timestamp: bigint;
  extraData: Uint8Array;
  /** Absent in an AuRa header, which has `auraStep` and `auraSeal` in its place. */
  mixHash?: Uint8Array;
  nonce?: Uint8Array;
  baseFeePerGas?: bigint;
  withdrawalsRoot?: Uint8Array;
  blobGasUsed?: bigint;
  excessBlobGas?: bigint;
  parentBeaconBlockRoot?: Uint8Array;
  requestsHash?: Uint8Array;
  /** AuRa's seal: the step of the authority that sealed the block, and its signature. */
  auraStep?: bigint;
  auraSeal?: Uint8Array;
  /** Avalanche C-Chain (coreth): the hash of the block's atomic transactions, and the fields its upgrades appended. */
  extDataHash?: Uint8Array;
  extDataGasUsed?: bigint;
  blockGasCost?: bigint;
  timestampMilliseconds?: bigint;
  minDelayExcess?: bigint;
  targetExponent?: bigint;
  minPriceExponent?: bigint;
  settledHeight?: bigint;
  settledGasUnix?: bigint;
  settledGasNumerator?: bigint;
  settledExcess?: bigint;
}
