/**
 * Converts a block of coinbase/chainstorage's "native" fixtures (internal/utils/fixtures/parser/<chain>/…/
 * native_block_<n>.json: the block as its protobuf's JSON form) into this repository's fixture form (JSON-RPC
 * members, `chain_id`, a source). The conversion changes only the form of what it keeps: every member the header's
 * hash, receipts root or bloom covers, and the receipts' and logs' hashes, numbers and places. Members no hash covers
 * (a receipt's `from`, `to`, `contractAddress`, fee members, `depositNonce` before Canyon (from Canyon on, where
 * `depositReceiptVersion` is present, both are kept); the header's transaction
 * list, `totalDifficulty`, `size`) are left out.
 * - Numbers are decimal strings there and hex quantities here; the header's timestamp is an RFC 3339 instant there.
 * - Proto3's JSON leaves out members at their zero value (0, "", false, an empty list). A header's `difficulty`,
 *   a receipt's `status`, `type` and `transactionIndex`, a log's `logIndex` and `transactionIndex`, an empty
 *   `logs` and a block without transactions are restored as zero or empty.
 * - The receipts are the transactions' `receipt` members, in the block's order.
 * Whether the conversion is faithful is for the verifier to show: the header must hash to its `hash`, and the
 * receipts must give its receipts root and bloom (test/evidence.test.ts holds every fixture to its claims).
 *
 * Run: `npx tsc -p tsconfig.scripts.json && node dist-scripts/scripts/chainstorage-to-rpc.js NATIVE_JSON CHAIN_ID
 * CHAIN_NAME COMMIT PATH > fixtures/blocks/<chain>-<number>.json`.
 */
import { readFileSync } from 'node:fs';

type Json = Record<string, unknown>;

const [nativeFile, chainId, chainName, commit, path] = process.argv.slice(2);
if (path === undefined) {
  process.stderr.write('usage: chainstorage-to-rpc NATIVE_JSON CHAIN_ID CHAIN_NAME COMMIT PATH\n');
  process.exit(2);
}

/** A decimal string (absent: zero) as a hex quantity. */
const quantity = (value: unknown) => `0x${BigInt((value as string | undefined) ?? '0').toString(16)}`;
/** An RFC 3339 instant as a hex quantity of seconds. */
const seconds = (value: unknown) => `0x${(Date.parse(value as string) / 1000).toString(16)}`;

const native = JSON.parse(readFileSync(nativeFile!, 'utf8')) as { ethereum: { header: Json; transactions?: Json[] } };
const h = native.ethereum.header;

const header: Json = {
  parentHash: h.parentHash,
  sha3Uncles: h.sha3Uncles,
  miner: h.miner,
  stateRoot: h.stateRoot,
  transactionsRoot: h.transactionsRoot,
  receiptsRoot: h.receiptsRoot,
  logsBloom: h.logsBloom,
  difficulty: quantity(h.difficulty),
  number: quantity(h.number),
  gasLimit: quantity(h.gasLimit),
  gasUsed: quantity(h.gasUsed),
  timestamp: seconds(h.timestamp),
  extraData: h.extraData ?? '0x',
  mixHash: h.mixHash,
  nonce: h.nonce,
  ...(h.baseFeePerGas !== undefined && { baseFeePerGas: quantity(h.baseFeePerGas) }),
  ...(h.withdrawalsRoot !== undefined && { withdrawalsRoot: h.withdrawalsRoot }),
  ...(h.blobGasUsed !== undefined && { blobGasUsed: quantity(h.blobGasUsed) }),
  ...(h.excessBlobGas !== undefined && { excessBlobGas: quantity(h.excessBlobGas) }),
  ...(h.parentBeaconBlockRoot !== undefined && { parentBeaconBlockRoot: h.parentBeaconBlockRoot }),
  hash: h.hash,
};

const receipts = (native.ethereum.transactions ?? []).map((transaction) => {
  const r = transaction.receipt as Json;
  return {
    type: quantity(r.type),
    status: quantity(r.status),
    cumulativeGasUsed: quantity(r.cumulativeGasUsed),
    gasUsed: quantity(r.gasUsed),
    // An OP Stack deposit's nonce and receipt version are in its consensus encoding from Canyon on (where the
    // version is present); before Canyon the nonce is not, and it is left out as before.
    ...(r.depositReceiptVersion !== undefined && {
      depositNonce: quantity(r.depositNonce),
      depositReceiptVersion: quantity(r.depositReceiptVersion),
    }),
    logsBloom: r.logsBloom,
    logs: ((r.logs as Json[] | undefined) ?? []).map((log) => ({
      address: log.address,
      topics: log.topics ?? [],
      data: log.data ?? '0x',
      logIndex: quantity(log.logIndex),
      transactionIndex: quantity(log.transactionIndex),
      transactionHash: log.transactionHash,
      blockHash: log.blockHash,
      blockNumber: quantity(log.blockNumber),
    })),
    transactionHash: r.transactionHash,
    transactionIndex: quantity(r.transactionIndex),
    blockHash: r.blockHash,
    blockNumber: quantity(r.blockNumber),
  };
});

const number = BigInt(h.number as string);
process.stdout.write(
  `${JSON.stringify(
    {
      id: `${chainName}-${number}`,
      chain: chainName,
      chain_id: Number(chainId),
      real: true,
      source: {
        repository: 'coinbase/chainstorage',
        license: 'Apache-2.0',
        commit,
        files: `${path} (its native form, converted by scripts/chainstorage-to-rpc.ts)`,
      },
      note: "Converted from chainstorage's native form: decimal to hex, the members proto3 leaves out at zero restored; every member a hash or root covers kept, members none covers left out.",
      header_hash_recomputable: true,
      header,
      receipts,
    },
    null,
    1,
  )}\n`,
);
