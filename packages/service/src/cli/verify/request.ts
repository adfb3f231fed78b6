/**
 * `request receipt-root|logs-bloom [FILE|-]`: the body of POST /v1/evm/verify/receipt-root (or
 * logs-bloom) for a block in the JSON-RPC format `verify block` reads (`chain_id`, `header`, the
 * complete `receipts`). The block is read by the reader `verify block` uses and the body built by
 * the library's builders (receiptRootBody, logsBloomBody): no second copy of either rule. Every
 * receipt the block sent is in the body (a receipt-root body carries one its chain leaves out of the
 * root by its tx_hash), or no body is built (a logs-bloom body cannot carry one); so is none for a
 * block with a claim its verification finds false that the body does not carry (refuseWhatNoBodyCarries).
 */
import { parseArgs } from 'node:util';
import {
  bytesToHex,
  ChainRegistry,
  encodeHeader,
  Problems,
  readRpcBlock,
  type InvalidInput,
  type RpcBlock,
  verifyRpcBlock,
  verifyRpcBlockReceipts,
} from 'evm-integrity';
import { logsBloomBody, receiptRootBody } from 'evm-integrity/api';
import { InputError, UsageError } from '../io/usage-error.js';
import { inputName, readInput } from '../io/read-input.js';
import type { CliIo } from '../io/streams.js';
import { notALine, parseInputJson } from '../io/json-input.js';
import { addedChains, CHAIN_OPTIONS, chainValue, withChainId } from '../chain-flag.js';

/** What verify block makes of the block: the body is built only of a block it does not refuse as input. */
type BlockVerdict = ReturnType<typeof verifyRpcBlock>;

/** The bodies this command builds, by the name of their endpoint. */
const BUILDERS = {
  'receipt-root': receiptRootRequest,
  'logs-bloom': logsBloomRequest,
} as const;

type BodyName = keyof typeof BUILDERS;

/** A header member the body cannot do without, or an InputError naming it in the file. */
function required<T>(value: T | undefined, file: string | undefined, member: string, why: string): T {
  if (value === undefined) throw new InputError(`${inputName(file)}: ${member} is missing; ${why}`);
  return value;
}

/**
 * The receipt-root body of a block: its chain, root and receipts, with its number, hash and
 * header RLP when it has them (so the server checks the header too, as `verify block` does).
 */
function receiptRootRequest(block: RpcBlock, file: string | undefined): unknown {
  const { fields, hash, complete, layout } = block.header;
  return receiptRootBody({
    chainId: required(
      block.chainId ?? undefined,
      file,
      'chain_id',
      'the body names its chain (add "chain_id" to the block, or give --chain ID)',
    ),
    receiptRoot: required(
      fields.receiptsRoot,
      file,
      'header.receiptsRoot',
      'it is the root the receipts are checked against',
    ),
    receipts: block.receipts,
    excludedReceipts: block.excludedReceipts,
    typesGiven: block.typesGiven,
    ...(fields.number !== undefined && { blockNumber: Number(fields.number) }),
    ...(hash !== undefined && { blockHash: hash }),
    ...(complete !== undefined && { headerRlp: encodeHeader(complete, layout) }),
  });
}

/**
 * A block with a receipt its chain leaves out of the root and bloom (Bor's state-sync receipt), refused: a logs-bloom
 * body is a bare list of logs, with no member to carry that receipt, and dropped the answer would not say so.
 */
function refuseExcludedReceipt(block: RpcBlock, file: string | undefined): void {
  const [excluded] = block.excludedReceipts;
  if (excluded === undefined) return;
  throw new InputError(
    `${inputName(file)}: the receipt of transaction ${excluded.index} (0x${bytesToHex(excluded.txHash)}) is left out of the logs bloom (${excluded.reason.replace(/\.$/, '')}), and a logs-bloom body cannot carry it; request receipt-root carries it, verify block reports it`,
  );
}

/**
 * A block holding a system transaction's receipt (no type, no gas) with logs, refused where verify block does not claim
 * its bloom: whether those logs count is the chain's rule (Bor's state-sync receipt, not told apart without its
 * transactionHash, counts none), and a bare list of logs cannot show the server which they are.
 */
function refuseUnclaimedSystemLogs(block: RpcBlock, report: BlockVerdict, file: string | undefined): void {
  const system = block.receipts.some((r) => r.type === 0 && r.cumulativeGasUsed === 0n && r.logs.length > 0);
  if (!system) return;
  if (!report.ok || report.value.logs_bloom.matches !== null) return;
  throw new InputError(
    `${inputName(file)}: verify block cannot verify this block's logs bloom (${report.value.logs_bloom.reason}), and a logs-bloom body, a bare list of logs, would not show why`,
  );
}

/** The logs-bloom body of a block: its header's bloom and the logs of its receipts, in order. */
function logsBloomRequest(block: RpcBlock, file: string | undefined, report: BlockVerdict): unknown {
  refuseExcludedReceipt(block, file);
  refuseUnclaimedSystemLogs(block, report, file);
  const { fields } = block.header;
  return logsBloomBody({
    expectedBloom: required(fields.logsBloom, file, 'header.logsBloom', 'it is the bloom the logs are checked against'),
    logs: block.receipts.flatMap((receipt) => receipt.logs),
    ...(block.chainId !== null && { chainId: block.chainId }),
    ...(fields.number !== undefined && { blockNumber: Number(fields.number) }),
  });
}

/** A claim of the block that its verification checks: the header's three commitments, the receipts' own, and the withdrawals. */
type Claim = 'receipts_root' | 'logs_bloom' | 'block_hash' | 'receipt_blooms' | 'raw_receipts' | 'withdrawals';

/**
 * The claims a body carries, by the body: the server checks these again. A receipt-root body carries the root, and
 * with header_rlp (a header with every field) the header's bloom and hash; a logs-bloom body, the bloom alone. No body
 * carries the receipts' own blooms or raw encodings (the server recomputes both from the fields).
 */
const CARRIED: Record<BodyName, (block: RpcBlock) => readonly Claim[]> = {
  'receipt-root': (block) =>
    block.header.complete === undefined ? ['receipts_root'] : ['receipts_root', 'logs_bloom', 'block_hash'],
  'logs-bloom': () => ['logs_bloom'],
};

/** The claims the report finds false, each with the line that names it, in the order they are named. */
function falseClaims(block: RpcBlock, report: Extract<BlockVerdict, { ok: true }>['value']): [Claim, string][] {
  const { receipt_blooms: blooms, raw_receipts: raw, withdrawals } = report;
  // A commitment the header does not give is no claim (verifyRpcBlockReceipts compares it as not matching).
  const fails = (c: { expected: string | null; matches: boolean | null }) => c.expected !== null && c.matches === false;
  const found: [Claim, string | false][] = [
    [
      'receipt_blooms',
      blooms?.matches === false &&
        `the logsBloom of the receipt of transaction ${blooms.first_mismatch} is not the bloom of its logs`,
    ],
    [
      'raw_receipts',
      raw?.matches === false &&
        (raw.first_mismatch === null
          ? `raw_receipts holds ${raw.count} receipts, not one for each of the ${block.receipts.length} receipts of the block`
          : `raw_receipts[${raw.first_mismatch}] is not the consensus encoding of the receipt of transaction ${raw.first_mismatch}`),
    ],
    [
      'withdrawals',
      withdrawals?.matches === false &&
        `header.withdrawals do not hash to header.withdrawalsRoot (they give 0x${withdrawals.computed})`,
    ],
    [
      'receipts_root',
      fails(report.receipts_root) &&
        `header.receiptsRoot is not the root of the block's receipts (they give 0x${report.receipts_root.computed})`,
    ],
    [
      'logs_bloom',
      fails(report.logs_bloom) && "header.logsBloom is not the bloom of the block's logs (they give another bloom)",
    ],
    [
      'block_hash',
      fails(report.block_hash) &&
        `header.hash is not the hash of the header's fields (they give 0x${report.block_hash.computed})`,
    ],
  ];
  return found.filter((entry): entry is [Claim, string] => entry[1] !== false);
}

/**
 * A block with a claim that its verification finds false (verify block's report, or verifyRpcBlockReceipts' for a
 * header that claims no hash) and that the body does not carry, refused: the server would not check it, so the body
 * would pass what the block's verification finds different. One rule for every claim and body: the withdrawals, the receipts' own blooms
 * and raw encodings, which no body carries; the header's bloom and hash, which a receipt-root body without header_rlp
 * does not carry; the header's root and hash, which a logs-bloom body does not. A claim that holds is redundant, and
 * leaving it out loses nothing.
 */
function refuseWhatNoBodyCarries(
  what: BodyName,
  block: RpcBlock,
  report: BlockVerdict,
  file: string | undefined,
): void {
  if (!report.ok) return;
  const carried = CARRIED[what](block);
  const uncarried = falseClaims(block, report.value).find(([claim]) => !carried.includes(claim));
  if (uncarried === undefined) return;
  const [claim, line] = uncarried;
  const body =
    claim === 'receipt_blooms' || claim === 'raw_receipts' || claim === 'withdrawals'
      ? 'no request body carries it'
      : what === 'receipt-root'
        ? 'a receipt-root body without header_rlp (the header lacks fields it hashes) does not carry it'
        : 'a logs-bloom body does not carry it';
  // verify block refuses a header that claims no hash: what finds the claim false there is its receipts' verification.
  const verdict =
    block.header.hash === undefined
      ? 'its receipts, verified alone (the header claims no hash), are different'
      : 'verify block reports the block different';
  throw new InputError(`${inputName(file)}: ${line}, and ${body}; ${verdict}`);
}

/** The one line that says why a file is not a block: its first problem's path and what was expected there. */
const notABlock = (file: string | undefined, invalid: InvalidInput) =>
  new InputError(notALine(file, 'a block', invalid));

/** The block of FILE (standard input for `-` or none), read as `verify block` reads it. */
function readBlock(
  bytes: Uint8Array,
  file: string | undefined,
  registry: ChainRegistry,
  chainId: number | undefined,
): RpcBlock {
  const problems = new Problems();
  // A chain whose rules are unknown makes a body its block's verification would refuse (chain_not_supported): what only
  // those rules can check (Nitro's members) is refused, not carried unchecked to a server that knows them.
  const input = withChainId(parseInputJson(bytes, file), chainId, file);
  const block = readRpcBlock(input, problems, { registry, refuseUnchecked: true });
  if (block === undefined) throw notABlock(file, problems.invalidInput());
  return block;
}

/**
 * `request receipt-root|logs-bloom [FILE|-]` (argv after `request`): prints the request body
 * for the block in FILE and returns 0; a file that cannot be read or is not a block is one line, exit 2.
 * @example runRequest(['receipt-root', 'fixtures/blocks/mainnet-22869878.json'], io) // 0, the body on stdout
 */
export function runRequest(argv: string[], io: CliIo): number {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      pretty: { type: 'boolean' },
      // The body is JSON with or without it.
      json: { type: 'boolean' },
      ...CHAIN_OPTIONS,
    },
  });
  const [what, file, extra] = positionals;
  if (what === undefined) throw new UsageError('request needs which body to build: receipt-root or logs-bloom');
  if (!Object.hasOwn(BUILDERS, what))
    throw new UsageError(`cannot build a "${what}" body: expected receipt-root or logs-bloom`);
  if (extra !== undefined) throw new UsageError(`unexpected argument "${extra}": request ${what} reads one FILE`);
  const registry = new ChainRegistry(addedChains(values['add-chain']));
  const chainId = values.chain === undefined ? undefined : chainValue('--chain', values.chain);
  const block = readBlock((io.read ?? readInput)(file), file, registry, chainId);
  // A block that claims its hash and that verify block refuses as input (a header without a field it hashes, or with
  // one its fork lacks) is refused here too: built without its header_rlp, the body would echo that hash and be checked
  // on its receipts alone, passing what is not the block. A header of the commitments alone, claiming no hash (geth's
  // t8n output), still makes a body of its receipts, verified alone: the header's commitments and the receipts' own
  // claims (blooms, raw receipts) too, each refused where found false and not carried (refuseWhatNoBodyCarries).
  const claimsHash = block.header.hash !== undefined;
  const report = (claimsHash ? verifyRpcBlock : verifyRpcBlockReceipts)(block, { registry });
  if (!report.ok && report.error.kind === 'invalid' && claimsHash) throw notABlock(file, report.error);
  refuseWhatNoBodyCarries(what as BodyName, block, report, file);
  const body = BUILDERS[what as BodyName](block, file, report);
  io.stdout(`${JSON.stringify(body, null, values.pretty ? 2 : undefined)}\n`);
  return 0;
}
