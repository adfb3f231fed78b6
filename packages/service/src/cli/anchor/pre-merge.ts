/**
 * What a block before the merge is proven from: its epoch record (`epoch-record-NNNNN.ssz` in `--era-dir`, the
 * Portal Network's files: 8192 block hashes and total difficulties), the accumulator the package ships, and the
 * block's header from an execution node (`--rpc`). None of them is trusted: the accumulator must hash to the root
 * EIP-7643 fixes, the epoch record to the accumulator's root of its epoch, the header to the hash the record holds.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { encodeHeader, Problems, readRpcHeader } from 'evm-integrity';
import {
  EPOCH_SIZE,
  MERGE_BLOCK,
  preMergeBlockRecord,
  readAccumulator,
  readEpochRecord,
  SszShapeError,
  type BlockRecord,
  type EpochRecord,
  type TrustedEpochRoots,
} from 'evm-integrity/anchor';
import type { RpcBlockSource } from 'evm-integrity/node';
import { ACCUMULATOR_FILE } from '../accumulator-file.js';
import { InputError } from '../io/usage-error.js';
import { AnchorProveError } from './prove-error.js';

/** Mainnet's chain id: the accumulator holds mainnet's blocks, and the node must serve mainnet. */
const MAINNET_CHAIN_ID = 1;

/** The accumulator the package ships, held to the EIP-7643 root. */
export function shippedAccumulator(file = ACCUMULATOR_FILE): TrustedEpochRoots {
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(file);
  } catch (error) {
    throw new AnchorProveError(
      'source',
      `the package's accumulator ${file} cannot be read (${(error as Error).message}): reinstall`,
    );
  }
  const accumulator = readAccumulator(bytes);
  if (!accumulator.ok) throw new AnchorProveError('refused', `the package's accumulator ${file}: ${accumulator.error}`);
  return accumulator.value;
}

/** The name of epoch `epoch`'s record in `--era-dir`: `epoch-record-00122.ssz`, as the Portal Network names them. */
export function epochRecordName(epoch: number): string {
  return `epoch-record-${String(epoch).padStart(5, '0')}.ssz`;
}

/** Epoch `epoch`'s record from `dir`: a file missing or not an epoch record is an InputError naming it. */
export function readEpochRecordFile(dir: string, epoch: number): EpochRecord {
  const file = join(dir, epochRecordName(epoch));
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(file);
  } catch (error) {
    const first = epoch * EPOCH_SIZE;
    const last = Math.min(first + EPOCH_SIZE, MERGE_BLOCK) - 1;
    const why = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message;
    throw new InputError(
      `--era-dir: ${file}: ${why} (the epoch record of blocks ${first.toLocaleString('en-US')} to ${last.toLocaleString('en-US')})`,
    );
  }
  try {
    return readEpochRecord(bytes);
  } catch (error) {
    if (error instanceof SszShapeError) throw new InputError(`--era-dir: ${file}: ${error.message}`);
    throw error;
  }
}

/** Block `number`'s header from the execution node, as its RLP. */
async function headerRlp(rpc: RpcBlockSource, number: number): Promise<Uint8Array> {
  const json = await rpc.header(MAINNET_CHAIN_ID, number);
  if (json === null) throw new AnchorProveError('source', `the execution node has no block ${number}`);
  const problems = new Problems();
  const header = readRpcHeader(json, 'header', problems);
  if (header?.complete === undefined) {
    const problem = problems.list[0];
    throw new AnchorProveError(
      'source',
      `the execution node's block ${number} is not a whole header${problem === undefined ? '' : ` (${problem.name}: expected ${problem.expected})`}`,
    );
  }
  return encodeHeader(header.complete);
}

/** The `block` record of block `number`, before the merge. */
export async function preMergeRecord(
  number: number,
  record: EpochRecord,
  accumulator: TrustedEpochRoots,
  rpc: RpcBlockSource,
): Promise<BlockRecord> {
  const built = preMergeBlockRecord(await headerRlp(rpc, number), record, accumulator);
  if (!built.ok) throw new AnchorProveError('refused', `block ${number}: ${built.error}`);
  return built.value;
}
