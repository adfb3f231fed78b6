import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseJsonBody, verifyBlockBytes, verifyBlockText } from '../packages/core/src/api/index.js';
import { verifyBlockTextFrom } from '../packages/core/src/api/block-operation.js';
import { tapeBlock } from '../packages/core/src/input/json-rpc/tape-block.js';
import { scanJson } from '../packages/core/src/json/scan/json-tape.js';
import { logMembers } from '../packages/core/src/input/values/log-list.js';
import { TapeLog } from '../packages/core/src/input/json-rpc/tape-log.js';
import { TapeHex } from '../packages/core/src/input/values/tape-hex.js';
import { verifyBlock, verifyBlockStreamed, type BlockVerifyContext } from '../packages/core/src/verify/verify-block.js';
import { fullNodeAnswer } from '../bench/node-answer.js';
import { fixtureNames, loadFixture } from './helpers/fixtures.js';
import { runs } from './helpers/runs.js';

/**
 * A block verified from its JSON text (verifyBlockText: the scanner's tape, its plain logs left on it) against the
 * same text parsed and verified (parseJsonBody, then verifyBlock), its oracle: the same report or refusal, on every
 * fixture block as written, compact and as a node answers, and on texts changed where the tape's reading differs from
 * JSON.parse's (the logs, their hex, a receipt's own bloom, a member named twice).
 */

/** The answer of the path the tape replaces. */
function parsedAnswer(text: string, context?: BlockVerifyContext) {
  const parsed = parseJsonBody(text);
  return parsed.ok
    ? verifyBlock(parsed.value, context)
    : { ok: false, error: { kind: 'invalid', problems: [parsed.error], count: 1 } };
}

/** The text's answer off the tape, whatever its length, is the parsed text's. */
function expectAsParsed(text: string, context: BlockVerifyContext = {}): void {
  expect(verifyBlockTextFrom(text, context, 0)).toEqual(parsedAnswer(text, context));
}

/** The block `text` holds, read off the scanner's tape; undefined where it is not. */
function blockOffTape(text: string) {
  const tape = scanJson(text);
  return tape === undefined ? undefined : tapeBlock(tape);
}

/** Whether the text's report comes off the tape (not from a second reading of the text), and its logs with it. */
function fromTape(text: string): boolean {
  const block = blockOffTape(text);
  return block !== undefined && verifyBlockStreamed(block) !== undefined;
}

const BIG = ['mainnet-15537394', 'mainnet-22869878', 'mainnet-15573637'];

describe('a block verified from its JSON text', () => {
  it('gives the parsed text’s answer on every fixture block, as written and compact, off the tape where parsed would', () => {
    for (const name of fixtureNames) {
      const fixture = loadFixture(name);
      const compact = JSON.stringify(fixture);
      for (const text of [JSON.stringify(fixture, null, 2), compact]) expectAsParsed(text);
      // The tape's block takes the streamed way wherever the parsed one does (a block with raw receipts does not).
      expect([name, fromTape(compact)]).toEqual([name, verifyBlockStreamed(JSON.parse(compact)) !== undefined]);
    }
  });

  it.each(BIG)('reads %s’s logs off the tape, as written and as a node answers them', (name) => {
    const fixture = loadFixture(name);
    const compact = JSON.stringify({ chain_id: fixture.chain_id, header: fixture.header, receipts: fixture.receipts });
    const logs = (text: string) => (blockOffTape(text)!.receipts as Array<{ logs: unknown[] }>).flatMap((r) => r.logs);
    expect(logs(compact).every((log) => log instanceof TapeLog)).toBe(true);
    expect(fromTape(compact)).toBe(true);
    expectAsParsed(compact);
    const answer = fullNodeAnswer(fixture);
    // A node's log restates its block: on the tape, and built only where a reader asks for it.
    const tapeLogs = logs(answer);
    expect(tapeLogs.every((log) => log instanceof TapeLog && TapeLog.reading.names(log).includes('blockHash'))).toBe(
      true,
    );
    expect(tapeLogs.every((log) => !Object.hasOwn(log as object, 'blockHash'))).toBe(true);
    expect(tapeLogs.every((log) => logMembers(log as TapeLog).blockHash === fixture.header.hash)).toBe(true);
    expect(fromTape(answer)).toBe(true);
    expectAsParsed(answer);
  });

  it('takes a log’s shape from the log before only where its names are the same, in the same order', () => {
    const answer = JSON.parse(fullNodeAnswer(loadFixture('mainnet-22869878')));
    const receipts = answer.receipts as Array<{ logs: Array<Record<string, unknown>> }>;
    // Every third log with two members' places swapped: as many members as its neighbours, in another order.
    const swaps = [
      ['transactionIndex', 'logIndex'],
      ['blockHash', 'transactionHash'],
      ['address', 'data'],
      ['topics', 'removed'],
    ];
    let k = 0;
    for (const receipt of receipts)
      receipt.logs = receipt.logs.map((log) => {
        if (k++ % 3 !== 0) return log;
        const [a, b] = swaps[((k / 3) % swaps.length) | 0]!;
        const order = Object.keys(log).map((name) => (name === a ? b : name === b ? a : name)) as string[];
        return Object.fromEntries(order.map((name) => [name, log[name]]));
      });
    const text = JSON.stringify(answer);
    const parsedLogs = (JSON.parse(text).receipts as typeof receipts).flatMap((r) => r.logs);
    const tapeLogs = (blockOffTape(text)!.receipts as Array<{ logs: TapeLog[] }>).flatMap((r) => r.logs);
    expect(tapeLogs.length).toBe(parsedLogs.length);
    tapeLogs.forEach((log, i) => {
      const parsed = parsedLogs[i]!;
      const others = Object.keys(parsed).filter((name) => !['address', 'topics', 'data'].includes(name));
      expect([i, TapeLog.reading.names(log)]).toEqual([i, others]);
      const built = logMembers(log) as Record<string, unknown>;
      expect([i, others.map((name) => built[name])]).toEqual([i, others.map((name) => parsed[name])]);
    });
    // Each log's address, topics and data read where they are: off the tape, the block identical.
    expect(fromTape(text)).toBe(true);
    expect(verifyBlockText(text)).toMatchObject({ ok: true, value: { verdict: 'identical' } });
    expectAsParsed(text);
  });

  /**
   * One change of a node's log, at the text, to a member it restates (compared on the tape where it is as a node writes
   * it, built and read by the parsed way's rules where not).
   */
  const NODE_LOG_CHANGES: Record<string, (log: Record<string, unknown>) => void> = {
    'blockHash another hash': (log) => (log.blockHash = `0x${'ab'.repeat(32)}`),
    'blockHash in capitals': (log) => (log.blockHash = `0x${(log.blockHash as string).slice(2).toUpperCase()}`),
    'blockHash null': (log) => (log.blockHash = null),
    'blockHash a number': (log) => (log.blockHash = 1),
    'blockNumber one more': (log) => (log.blockNumber = `0x${(BigInt(log.blockNumber as string) + 1n).toString(16)}`),
    'blockNumber a JSON number': (log) => (log.blockNumber = Number(log.blockNumber)),
    'blockNumber with a leading zero': (log) => (log.blockNumber = `0x0${(log.blockNumber as string).slice(2)}`),
    'blockNumber in capitals': (log) => (log.blockNumber = (log.blockNumber as string).toUpperCase()),
    'blockNumber not hex': (log) => (log.blockNumber = '0xzz'),
    'a blockTimestamp': (log) => (log.blockTimestamp = '0x1'),
    'transactionHash another hash': (log) => (log.transactionHash = `0x${'cd'.repeat(32)}`),
    'transactionHash absent': (log) => delete log.transactionHash,
    'transactionIndex another': (log) => (log.transactionIndex = '0x7777'),
    'logIndex one more': (log) => (log.logIndex = `0x${(BigInt(log.logIndex as string) + 1n).toString(16)}`),
    'logIndex a JSON number': (log) => (log.logIndex = Number(log.logIndex)),
    'logIndex given twice': (log) => (log.logIndex_twice = true),
    'a transactionLogIndex': (log) => (log.transactionLogIndex = '0x5'),
    'removed true': (log) => (log.removed = true),
    'removed null': (log) => (log.removed = null),
    'removed a string': (log) => (log.removed = 'false'),
    'type mined': (log) => (log.type = 'mined'),
    'type pending': (log) => (log.type = 'pending'),
    'blockHash of another spelling': (log) => (log.BlockHash = log.blockHash),
    'an unknown member, an object': (log) => (log.note = { blockHash: 1 }),
    // As many members as the logs around it (whose shape the reader takes where the names are the same), one twice.
    'logIndex twice, in place of removed': (log) => (delete log.removed, (log.logIndex_twice = true)),
    'data twice, in place of removed': (log) => (delete log.removed, (log.data_twice = true)),
    'address twice, in place of removed': (log) => (delete log.removed, (log.address_twice = true)),
    'its members in another order': (log) => {
      const members = Object.entries(log).reverse();
      for (const [name] of members) delete log[name];
      for (const [name, value] of members) log[name] = value;
    },
  };

  it.each(Object.keys(NODE_LOG_CHANGES))('gives the parsed text’s answer on a node’s log with %s', (change) => {
    for (const name of ['mainnet-22869878', 'mainnet-1000023']) {
      const answer = JSON.parse(fullNodeAnswer(loadFixture(name)));
      const logs = (answer.receipts as Array<{ logs: Array<Record<string, unknown>> }>).flatMap((r) => r.logs);
      expect(logs.length).toBeGreaterThan(0);
      NODE_LOG_CHANGES[change]!(logs[logs.length >> 1]!);
      const text = JSON.stringify(answer).replace(/"(\w+)_twice":true/, (_, name: string) => `"${name}":"0x0"`);
      expect(text).not.toBe(fullNodeAnswer(loadFixture(name)));
      expectAsParsed(text);
    }
  });

  it('gives the parsed text’s answer where receipts asked by transaction are known by their logs’ hash', () => {
    const answer = JSON.parse(fullNodeAnswer(loadFixture('mainnet-22869878')));
    answer.receipts_by_transaction = true;
    answer.header.transactions = (answer.receipts as Array<{ transactionHash: string }>).map((r) => r.transactionHash);
    const receipt = (answer.receipts as Array<Record<string, unknown> & { logs: Array<Record<string, unknown>> }>).find(
      (r) => r.logs.length > 0,
    )!;
    delete receipt.transactionHash;
    expectAsParsed(JSON.stringify(answer));
    // Its logs naming another transaction than the one asked: a conflict, found off the tape as parsed.
    for (const log of receipt.logs) log.transactionHash = `0x${'ef'.repeat(32)}`;
    const text = JSON.stringify(answer);
    expect(verifyBlockTextFrom(text, {}, 0)).toMatchObject({ ok: false, error: { kind: 'invalid' } });
    expectAsParsed(text);
  });

  it('gives bytes the answer their text gets, and refuses bytes that are not UTF-8 as before', () => {
    const text = JSON.stringify(loadFixture('mainnet-22869878'));
    expect(verifyBlockBytes(new TextEncoder().encode(text))).toEqual(parsedAnswer(text));
    expect(verifyBlockBytes(Uint8Array.of(0x7b, 0xff, 0x7d))).toMatchObject({
      ok: false,
      error: { kind: 'invalid', problems: [{ name: 'body', reason: 'invalid_format' }] },
    });
  });

  it('finds an altered log different, off the tape', () => {
    const fixture = loadFixture('mainnet-22869878');
    const receipt = fixture.receipts.find((r) => (r.logs as unknown[]).length > 0)! as {
      logs: Array<{ data: string }>;
    };
    receipt.logs[0]!.data = receipt.logs[0]!.data.replace(/.$/, (d) => (d === '0' ? '1' : '0'));
    const text = JSON.stringify(fixture);
    expect(fromTape(text)).toBe(true);
    const result = verifyBlockText(text);
    expect(text.length).toBeGreaterThan(64 * 1024);
    expect(result.ok && result.value.verdict).toBe('different');
    expectAsParsed(text);
  });

  /** One change of a receipt's logs, at the text, where the tape's reading and JSON.parse's could part. */
  const LOG_CHANGES: Record<string, (log: Record<string, unknown>) => void> = {
    'data of an odd count of digits': (log) => (log.data = `${log.data as string}0`),
    'data empty': (log) => (log.data = '0x'),
    'data without 0x': (log) => (log.data = (log.data as string).slice(2)),
    'data 0X': (log) => (log.data = `0X${(log.data as string).slice(2)}`),
    'data in capitals': (log) => (log.data = `0x${(log.data as string).slice(2).toUpperCase()}`),
    'data not hex': (log) => (log.data = '0xzz'),
    'data a number': (log) => (log.data = 7),
    'data absent': (log) => delete log.data,
    'data null': (log) => (log.data = null),
    'an address of 19 bytes': (log) => (log.address = (log.address as string).slice(0, -2)),
    'an address of 21 bytes': (log) => (log.address = `${log.address as string}00`),
    'an address in capitals': (log) => (log.address = `0x${(log.address as string).slice(2).toUpperCase()}`),
    'five topics': (log) =>
      (log.topics = [...(log.topics as string[]), ...Array(5).fill(`0x${'11'.repeat(32)}`)].slice(0, 5)),
    'no topics': (log) => (log.topics = []),
    'a topic of 31 bytes': (log) => (log.topics = [`0x${'11'.repeat(31)}`]),
    'a topic a number': (log) => (log.topics = [1]),
    'topics an object': (log) => (log.topics = {}),
    'topics absent': (log) => delete log.topics,
    'a member a node adds': (log) => (log.removed = false),
    'a member a node adds, in conflict': (log) => (log.removed = true),
    'a member of another spelling': (log) => (log.Address = log.address),
    'an unknown member': (log) => (log.note = 'x'),
    'a member named __proto__': (log) => Object.defineProperty(log, '__proto__', { value: {}, enumerable: true }),
    'a member named decode': (log) => (log.decode = 1),
    'a member named constructor': (log) => (log['constructor'] = 'x'),
  };

  it.each(Object.keys(LOG_CHANGES))('gives the parsed text’s answer on a log with %s', (change) => {
    for (const name of ['mainnet-22869878', 'mainnet-1000023']) {
      const fixture = loadFixture(name);
      const logs = fixture.receipts.flatMap((r) => r.logs as Array<Record<string, unknown>>);
      LOG_CHANGES[change]!(logs[logs.length >> 1]!);
      expectAsParsed(JSON.stringify(fixture));
    }
  });

  it('reads a node’s receipts’ own blooms off the tape', () => {
    const answer = fullNodeAnswer(loadFixture('mainnet-22869878'));
    const receipts = blockOffTape(answer)!.receipts as Array<{ logsBloom: unknown }>;
    expect(receipts.length).toBeGreaterThan(0);
    expect(receipts.every((receipt) => receipt.logsBloom instanceof TapeHex)).toBe(true);
    const report = verifyBlockStreamed(blockOffTape(answer)!);
    expect(report?.ok && report.value.receipt_blooms).toEqual({
      count: receipts.length,
      matches: true,
      first_mismatch: null,
    });
  });

  /** One change of a receipt's own bloom, at the text, where the tape's reading and JSON.parse's could part. */
  const BLOOM_CHANGES: Record<string, (bloom: string) => unknown> = {
    'a digit changed': (bloom) => bloom.replace(/.$/, (d) => (d === '0' ? '1' : '0')),
    'a digit fewer': (bloom) => bloom.slice(0, -1),
    'a digit more': (bloom) => `${bloom}0`,
    'a byte fewer': (bloom) => bloom.slice(0, -2),
    'a byte more': (bloom) => `${bloom}00`,
    'no 0x': (bloom) => bloom.slice(2),
    '0X': (bloom) => `0X${bloom.slice(2)}`,
    'in capitals': (bloom) => `0x${bloom.slice(2).toUpperCase()}`,
    'a character not hex': (bloom) => bloom.replace(/.$/, 'g'),
    'empty hex': () => '0x',
    'a number': () => 7,
    null: () => null,
    'an object': () => ({}),
  };

  it.each(Object.keys(BLOOM_CHANGES))('gives the parsed text’s answer on a receipt’s own bloom with %s', (change) => {
    const answer = JSON.parse(fullNodeAnswer(loadFixture('mainnet-22869878'))) as {
      receipts: Array<{ logsBloom: string; logs: unknown[] }>;
    };
    // A receipt with logs (its bloom not all zeros), and the last, whose bloom the trie takes last.
    for (const receipt of [answer.receipts.find((r) => r.logs.length > 0)!, answer.receipts.at(-1)!]) {
      const changed = structuredClone(answer);
      changed.receipts[answer.receipts.indexOf(receipt)]!.logsBloom = BLOOM_CHANGES[change]!(
        receipt.logsBloom,
      ) as string;
      expectAsParsed(JSON.stringify(changed));
    }
  });

  it('gives the parsed text’s answer on a member named twice, in a log, a receipt or the block', () => {
    const text = JSON.stringify(loadFixture('mainnet-22869878'));
    const twice = [
      text.replace('"data":', '"data":"0x","data":'),
      text.replace('"address":', '"address":"0x00","address":'),
      text.replace('"cumulativeGasUsed":', '"cumulativeGasUsed":"0x1","cumulativeGasUsed":'),
      text.replace('"receipts":', '"receipts":[],"receipts":'),
    ];
    for (const changed of twice) {
      expect(changed).not.toBe(text);
      expect(verifyBlockTextFrom(changed, {}, 0)).toMatchObject({
        ok: false,
        error: { problems: [{ reason: 'duplicate' }] },
      });
      expectAsParsed(changed);
    }
  });

  it('gives the parsed text’s answer on a block whose header, receipt or log has a member set, removed or renamed', () => {
    const answers = ['mainnet-1000023', 'mainnet-3000026', 'mainnet-19426587', 'base-2000000'].flatMap((name) => {
      const fixture = loadFixture(name);
      const { chain_id, header, receipts } = fixture;
      return [fullNodeAnswer(fixture), JSON.stringify({ chain_id, header, receipts })];
    });
    // Values of every kind a member may be given, right or wrong for it: quantities, hashes, addresses, hex of other
    // sizes and cases, and what no member takes.
    const value = fc.constantFrom<unknown>(
      ...[null, 0, 1, -1, 1.5, true, '', '0x', '0x0', '0x1', '0x00', '0X1', '0xg', '1', 'abc', [], {}, ['0x1']],
      ...['a', 'A'].flatMap((digit) => [`0x${digit.repeat(40)}`, `0x${digit.repeat(64)}`, `0x${digit.repeat(63)}`]),
      `0x${'0'.repeat(512)}`,
    );
    const change = fc.record({
      which: fc.nat(answers.length - 1),
      place: fc.constantFrom('header', 'receipt', 'log'),
      index: fc.nat(),
      member: fc.nat(),
      how: fc.constantFrom('set', 'remove', 'rename', 'add'),
      value,
      added: fc.constantFrom('status', 'root', 'type', 'logsBloom', 'transactionHash', 'blockHash', 'logIndex', 'foo'),
    });
    fc.assert(
      fc.property(change, ({ which, place, index, member, how, value, added }) => {
        const block = JSON.parse(answers[which]!) as {
          header: Record<string, unknown>;
          receipts: Array<Record<string, unknown> & { logs: Array<Record<string, unknown>> }>;
        };
        const receipt = block.receipts[index % block.receipts.length]!;
        const target =
          place === 'header'
            ? block.header
            : place === 'log' && receipt.logs.length > 0
              ? receipt.logs[index % receipt.logs.length]!
              : receipt;
        const names = Object.keys(target);
        const name = names[member % names.length]!;
        if (how === 'set') target[name] = value;
        else if (how === 'remove') delete target[name];
        else if (how === 'rename') [target[`${name}s`], target[name]] = [target[name], undefined];
        else target[added] = value;
        expectAsParsed(JSON.stringify(block));
      }),
      { numRuns: runs(500) },
    );
  });

  it('gives the parsed text’s answer on texts changed a character at a time', () => {
    const texts = [
      ...['mainnet-1000023', 'mainnet-3000026', 'base-2000000'].map((name) => JSON.stringify(loadFixture(name))),
      // A node's answer: its logs' restated members are compared on the tape.
      fullNodeAnswer(loadFixture('mainnet-1000023')),
    ];
    const alphabet = fc.constantFrom(...'{}[],:"0123456789abcdefxX \\'.split(''));
    fc.assert(
      fc.property(fc.nat(texts.length - 1), fc.nat(), fc.nat(2), alphabet, (which, at, how, char) => {
        const text = texts[which]!;
        const i = at % text.length;
        const changed =
          how === 0
            ? text.slice(0, i) + char + text.slice(i)
            : how === 1
              ? text.slice(0, i) + text.slice(i + 1)
              : text.slice(0, i) + char + text.slice(i + 1);
        expectAsParsed(changed);
      }),
      { numRuns: runs(300) },
    );
  });
});
