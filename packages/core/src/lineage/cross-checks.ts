/**
 * A record against its genesis artifacts, for the datasets whose derivation is known:
 * ERC-20 tokens (0201) and Uniswap-V2-style reserves (0301).
 */
import { bytesToHex, hexText } from '../bytes/hex.js';
import { claims, isObject, type JsonObject } from '../input/values/json-values.js';
import { defaultKeccak256 } from '../keccak/keccak.js';
import { oneValue } from './abi.js';
import { exactInteger, INTEGER_FORM } from './sources/integers.js';
import { hexOf, type GenesisLog } from './onchain.js';
import { check, type Check } from './lineage-report.js';
import { show } from '../json/show.js';
import type { Log } from '../receipts/receipt.js';

type Json = JsonObject;

/** Our decoding of the record's own function result of that name, or undefined when there is none that decodes. */
export type Decoded = (name: string) => unknown;
/** The contract of a function result of that name called on another contract than the record's; undefined if none. */
export type Foreign = (name: string) => unknown;

/**
 * A dataset check, and the record's fields it showed equal to an artifact, with what holds each: a genesis log (held
 * to the chain by its own checks) or only a function result (checked against nothing but itself).
 */
export interface DatasetCheck {
  check: Check;
  fields: Record<string, 'log' | 'function_result'>;
}

/** keccak("Sync(uint112,uint112)"): the reserves event of Uniswap-V2-style pairs. */
const SYNC_TOPIC = bytesToHex(defaultKeccak256(new TextEncoder().encode('Sync(uint112,uint112)')));

type Position = readonly [number, number, number];
const notAfter = (a: Position, b: Position) =>
  a[0] < b[0] || (a[0] === b[0] && (a[1] < b[1] || (a[1] === b[1] && a[2] <= b[2])));
/** Where a genesis log stands, its index counted within its transaction (`logIndex`: as its proven block shows it). */
const positionOf = (log: GenesisLog, logIndex = log.log_index): Position => [log.block_number, log.tx_index, logIndex];
/** `block 1, transaction 2, log 3`, leaving out a member the record does not give (Infinity). */
const placeText = ([block, tx, log]: Position) =>
  [`block ${block}`, Number.isFinite(tx) && `transaction ${tx}`, Number.isFinite(log) && `log ${log}`]
    .filter(Boolean)
    .join(', ');
/**
 * A record's optional position member: its integer, Infinity when absent (after every log of the block), null when
 * malformed.
 */
const positionMember = (v: unknown) => (!claims(v) ? Infinity : Number.isSafeInteger(v) ? (v as number) : null);

/** ERC-20 (0201): name, symbol and decimals equal the decoded function results, which are all that hold them. */
export function erc20Check(record: Json, decoded: Decoded, subject: string, foreign: Foreign): DatasetCheck {
  const members = [
    ['name', decoded('name')],
    ['symbol', decoded('symbol')],
    ['decimals', decoded('decimals')],
  ] as const;
  const present = members.filter(([, v]) => v !== undefined);
  if (present.length === 0) {
    // Results of these names called on another contract say nothing of this token: say so, not that there are none.
    const elsewhere = members.map(([m]) => [m, foreign(m)] as const).filter(([, contract]) => contract !== undefined);
    return {
      check: check(
        'record.erc20',
        'skipped',
        subject,
        elsewhere.length > 0
          ? `the ${elsewhere.map(([m]) => m).join(', ')} ${elsewhere.length === 1 ? 'result is' : 'results are'} of another contract (${show(elsewhere[0]![1])}), not of the record's address ${show(record.address)}`
          : 'no decodable name, symbol or decimals result among the artifacts',
      ),
      fields: {},
    };
  }
  // The decoded results are one-value outputs: read by the same rule as the service's decoded_output.
  const valueOf = (v: unknown) => {
    const one = oneValue(v);
    return one.ok ? one.value.value : undefined;
  };
  const text = (v: unknown) => (typeof v === 'string' || typeof v === 'number' ? String(v) : undefined);
  // A member the record leaves out or gives as null claims nothing (lineage.md): only what it claims is compared.
  const compared = present.filter(([member]) => claims(record[member]));
  if (compared.length === 0)
    return {
      check: check(
        'record.erc20',
        'skipped',
        subject,
        `the record gives none of ${present.map(([m]) => m).join(', ')} (absent or null: it claims nothing), which the function results hold`,
      ),
      fields: {},
    };
  const wrong = compared.find(
    ([member, v]) => text(record[member]) === undefined || text(valueOf(v)) !== text(record[member]),
  );
  if (wrong !== undefined)
    return {
      check: check(
        'record.erc20',
        'fail',
        subject,
        `${wrong[0]} is ${show(record[wrong[0]])} but the function result decodes to ${show(valueOf(wrong[1]))}`,
      ),
      fields: {},
    };
  const agree = `${compared.map(([m]) => m).join(', ')} ${compared.length === 1 ? 'equals the decoded function result' : 'equal the decoded function results'}`;
  // A member the record gives that no result holds is checked by nothing: say so, not pass on the others.
  const unheld = members.filter(([m, v]) => v === undefined && claims(record[m]));
  return {
    check:
      unheld.length === 0
        ? check('record.erc20', 'pass', subject, agree)
        : check(
            'record.erc20',
            'skipped',
            subject,
            `not verifiable: no decodable ${unheld.map(([m]) => m).join(', ')} result of the record's address among the artifacts (${agree})`,
          ),
    fields: Object.fromEntries(compared.map(([m]) => [m, 'function_result'])),
  };
}

/** The receipts of the record's own block, where that block is proven (its receipts reproduce its roots). */
export type ProvenReceipts = ReadonlyArray<{ logs: readonly Log[] }>;

/** The last Sync of `pool` in a block's receipts at or before (tx, log): its place and reserves. */
function lastSyncIn(receipts: ProvenReceipts, pool: string, tx: number, log: number) {
  let found: { tx: number; log: number; reserves: [bigint, bigint] | null } | undefined;
  for (const [t, receipt] of receipts.entries()) {
    for (const [i, l] of receipt.logs.entries()) {
      if (t > tx || (t === tx && i > log)) return found;
      if (l.topics[0] === undefined || bytesToHex(l.topics[0]) !== SYNC_TOPIC || bytesToHex(l.address) !== pool)
        continue;
      found = { tx: t, log: i, reserves: syncReserves(l.data) };
    }
  }
  return found;
}

/** The two reserves a Sync's data holds (two words), or null when it is not two words. */
function syncReserves(data: Uint8Array): [bigint, bigint] | null {
  if (data.length !== 64) return null;
  return [BigInt(`0x${bytesToHex(data.subarray(0, 32))}`), BigInt(`0x${bytesToHex(data.subarray(32))}`)];
}

/**
 * Uniswap-V2-style reserves (0301): the reserves of the last Sync event of the
 * record's own pool at or before its position, and of getReserves where present.
 * That Sync is the last one only as the record's proven block shows it (`provenBlock`):
 * a genesis that omits a later Sync of the pool in that block fails, and a Sync
 * that no proven block shows to be the last (the record's block not proven, or
 * the Sync in an earlier block) holds nothing.
 */
export function reservesCheck(
  record: Json,
  logs: ReadonlyArray<{ log: GenesisLog; subject: string; failed?: boolean; logIndex?: number }>,
  decoded: Decoded,
  subject: string,
  provenBlock?: ProvenReceipts,
  foreign: Foreign = () => undefined,
): DatasetCheck {
  const unheld = (c: Check): DatasetCheck => ({ check: c, fields: {} });
  // A getReserves result called on another contract says nothing of this pool: said, never counted.
  const elsewhere = foreign('getReserves');
  const notOwn =
    elsewhere === undefined
      ? ''
      : ` (the getReserves result is of another contract, ${show(elsewhere)}, not of the record's address ${show(record.address)})`;
  const reserves = record.reserves;
  if (!Array.isArray(reserves) || reserves.length !== 2)
    return unheld(check('record.reserves', 'skipped', subject, 'not a two-token reserves record'));
  const pool = hexText(record.address);
  // Without an integer position the record cannot be placed among the Sync logs; getReserves still counts.
  const [block, tx, log] = [
    Number.isSafeInteger(record.block_number) ? (record.block_number as number) : null,
    positionMember(record.tx_index),
    positionMember(record.log_index),
  ];
  const at: Position | null = block === null || tx === null || log === null ? null : [block, tx, log];
  let last: (typeof logs)[number] | undefined;
  let later: (typeof logs)[number] | undefined;
  for (const entry of at === null ? [] : logs) {
    const p = positionOf(entry.log, entry.logIndex);
    if (hexText(entry.log.topics[0]) !== SYNC_TOPIC || hexText(entry.log.contract_address) !== pool) continue;
    if (!notAfter(p, at!)) later ??= entry;
    else if (last === undefined || notAfter(positionOf(last.log, last.logIndex), p)) last = entry;
  }
  // The record's own genesis has its pool's Sync only after it: no artifact shows the reserves at its position, and
  // getReserves alone would let a record placed before its Sync pass.
  if (last === undefined && later !== undefined)
    return unheld(
      check(
        'record.reserves',
        'skipped',
        subject,
        `the pool's Sync in the genesis (${later.subject}) comes after the record's position (block ${at![0]}, transaction ${at![1]}, log ${at![2]}): no log shows the reserves there`,
      ),
    );
  // The Sync the reserves rest on failed its own check (log.position): that check names the tampering, this one is
  // skipped rather than failed a second time for it.
  if (last?.failed === true)
    return unheld(
      check('record.reserves', 'skipped', subject, `its Sync, ${last.subject}, is not in its block as given`),
    );
  // The record's proven block shows which Sync of the pool is the last at or before the record: the genesis must hold
  // that one (a stale Sync with a later one left out would show reserves the pool no longer had).
  const onChain =
    at === null || provenBlock === undefined || pool === null ? undefined : lastSyncIn(provenBlock, pool, at[1], at[2]);
  if (
    onChain !== undefined &&
    !(
      last !== undefined &&
      last.log.block_number === at![0] &&
      last.log.tx_index === onChain.tx &&
      (last.logIndex ?? last.log.log_index) === onChain.log
    )
  )
    return unheld(
      check(
        'record.reserves',
        'fail',
        subject,
        `the genesis omits the pool's last Sync at or before the record's position: block ${at![0]}, transaction ${onChain.tx}, log ${onChain.log}${last === undefined ? '' : ` (the genesis's last is ${last.subject}, block ${last.log.block_number}, transaction ${last.log.tx_index}, log ${last.log.log_index})`}`,
      ),
    );
  const sources: Array<[string, [bigint, bigint]]> = [];
  const synced = last === undefined ? null : syncReserves(hexOf(last.log.data)!);
  if (synced !== null) sources.push([`the Sync at ${last!.subject}`, synced]);
  const get = decoded('getReserves');
  if (isObject(get)) sources.push(['getReserves', [BigInt(String(get.reserve0)), BigInt(String(get.reserve1))]]);
  if (sources.length === 0)
    return unheld(
      check(
        'record.reserves',
        'skipped',
        subject,
        `no Sync log of pool ${show(pool)} at or before the record, and no getReserves result of it${notOwn}`,
      ),
    );
  const [r0, r1] = [exactInteger(reserves[0]), exactInteger(reserves[1])];
  if (r0 === null || r1 === null)
    return unheld(
      check(
        'record.reserves',
        'fail',
        subject,
        `reserves[${r0 === null ? 0 : 1}] is ${show(reserves[r0 === null ? 0 : 1])}, not ${INTEGER_FORM}`,
      ),
    );
  const claimed: [bigint, bigint] = [r0, r1];
  const wrong = sources.find(([, r]) => r[0] !== claimed[0] || r[1] !== claimed[1]);
  if (wrong !== undefined)
    return unheld(
      check(
        'record.reserves',
        'fail',
        subject,
        `reserves [${claimed.join(', ')}] differ from ${wrong[0]}: [${wrong[1].join(', ')}]`,
      ),
    );
  // They equal the genesis's Sync, but no proven block shows it to be the pool's last before the record.
  if (synced !== null && onChain === undefined)
    return unheld(
      check(
        'record.reserves',
        'skipped',
        subject,
        provenBlock === undefined
          ? `the record's block ${at![0]} is not proven, so a later Sync of the pool before the record (${placeText(at!)}) cannot be ruled out`
          : `the pool's Sync at ${last!.subject} is in block ${last!.log.block_number}, before the record's block ${at![0]}: a later Sync in between cannot be ruled out`,
      ),
    );
  return {
    check: check(
      'record.reserves',
      'pass',
      subject,
      `reserves equal ${sources.map(([s]) => s).join(' and ')}${notOwn}`,
    ),
    // Without a Sync that gives them (two words of data), getReserves alone holds them.
    fields: { reserves: sources[0]![0] === 'getReserves' ? 'function_result' : 'log' },
  };
}
