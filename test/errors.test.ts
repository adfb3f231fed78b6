/**
 * One error family: every error class the package exports is an EvmIntegrityError whose `code`
 * names the situation, thrown here by the real code paths that raise it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as root from '../packages/core/src/index.js';
import * as api from '../packages/core/src/api/index.js';
import * as lineage from '../packages/core/src/lineage/index.js';
import * as node from '../packages/core/src/node.js';
import * as service from '../packages/service/src/index.js';
import * as errors from '../packages/core/src/errors.js';
import { UsageError } from '../packages/service/src/cli/io/usage-error.js';
import { WrongChainError } from '../packages/service/src/queue/chunk-audit.js';
import { AnchorProveError } from '../packages/service/src/cli/anchor/prove-error.js';
import { fixtureChain, startLoopbackNode } from './helpers/loopback-rpc.js';
import { loadFixture } from './helpers/fixtures.js';

/** What `attempt` throws; fails the test when it returns. */
function thrown(attempt: () => unknown): unknown {
  try {
    attempt();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

const receipt: root.Receipt = { type: 0, status: 1, cumulativeGasUsed: 1n, logs: [] };

/** What a promise rejects with; fails the test when it resolves. */
async function rejected(attempt: () => Promise<unknown>): Promise<unknown> {
  return attempt().then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error,
  );
}

/** A node of chain 1 on loopback, asked whether it serves chain 5. */
async function askedForAnotherChain(): Promise<unknown> {
  const node1 = await startLoopbackNode(1, fixtureChain(1_000_001, 1_000_001));
  try {
    return await rejected(() => new node.RpcBlockSource({ url: node1.url }).checkChain(5));
  } finally {
    await node1.close();
  }
}

/** One real throw of each exported error class (the root is abstract), and the code it must carry. */
const RAISED: Record<string, { error: () => unknown; code: root.EvmIntegrityErrorCode | service.ServiceErrorCode }> = {
  ChainMismatchError: { error: askedForAnotherChain, code: 'SOURCE_CHAIN_MISMATCH' },
  UnknownReceiptTypeError: {
    error: () => thrown(() => root.encodeReceipt({ ...receipt, type: 0x99 })),
    code: 'RECEIPT_TYPE_UNKNOWN',
  },
  InvalidReceiptError: {
    error: () => thrown(() => root.encodeReceipt({ ...receipt, root: new Uint8Array(32) })),
    code: 'RECEIPT_INVALID',
  },
  InvalidHeaderError: {
    error: () => thrown(() => root.decodeHeader(Uint8Array.of(0xff, 0x00))),
    code: 'HEADER_INVALID',
  },
  SourceError: { error: () => thrown(() => new lineage.BundleSource([])), code: 'SOURCE_INPUT_INVALID' },
  StoreError: {
    error: () => rejected(() => new service.MemoryStore().revokeKey('nobody', new Date())),
    code: 'STORE_NOT_FOUND',
  },
  ChainConflictError: {
    error: () =>
      thrown(() => new root.ChainRegistry([{ chainId: 137, name: 'mine', rules: 'polygon', verifiable: true }])),
    code: 'CHAIN_CONFLICT',
  },
  EvidenceError: {
    error: () =>
      thrown(
        () =>
          new root.ChainRegistry([], {
            evidence: [
              {
                chainId: 999_999,
                block: 1,
                receipts: [],
                logs: false,
                forkFields: { present: [], absent: [] },
                vouch: { blockHash: '0x', vouchedBy: 'a', vouchedAt: 'b', file: 'f' },
              },
            ],
          }),
      ),
    code: 'EVIDENCE_REFUSED',
  },
  ConfigError: { error: () => thrown(() => service.parseConfig({ port: 'eighty' })), code: 'CONFIG_INVALID' },
  DuplicateMemberError: { error: () => thrown(() => root.parseJson('{"a":1,"a":2}')), code: 'JSON_DUPLICATE_MEMBER' },
};

const isErrorClass = (value: unknown): value is abstract new (...args: never[]) => Error =>
  typeof value === 'function' && (value === Error || value.prototype instanceof Error);

describe('the error family', () => {
  const entries = {
    'evm-integrity': root,
    'evm-integrity/api': api,
    'evm-integrity/lineage': lineage,
    'evm-integrity/node': node,
    '@evm-integrity/service': service,
  };
  const exported = Object.entries(entries).flatMap(([entry, members]) =>
    Object.entries(members)
      .filter(([, value]) => isErrorClass(value))
      .map(([name, value]) => ({ entry, name, value: value as abstract new (...args: never[]) => Error })),
  );

  it('every exported error class extends EvmIntegrityError', () => {
    const strays = exported.filter(
      ({ value }) => value !== root.EvmIntegrityError && !(value.prototype instanceof root.EvmIntegrityError),
    );
    expect(strays.map(({ entry, name }) => `${entry}: ${name}`)).toEqual([]);
  });

  it('each one, raised by the code that raises it, carries its typed code', async () => {
    const names = [...new Set(exported.map(({ name }) => name))].filter((name) => name !== 'EvmIntegrityError');
    expect(names.sort()).toEqual(Object.keys(RAISED).sort());
    for (const [name, { error, code }] of Object.entries(RAISED)) {
      const raised = await error();
      expect(raised, name).toBeInstanceOf(root.EvmIntegrityError);
      expect(raised, name).toMatchObject({ name, code });
    }
  });

  it("a source's fault without an input member is SOURCE_FAILED, one with a member SOURCE_INPUT_INVALID", () => {
    expect(new lineage.SourceError('the service is down').code).toBe('SOURCE_FAILED');
    const problem = { path: 'exchanges', reason: 'missing', expected: 'an array' } as const;
    expect(new lineage.SourceError('exchanges: expected an array', problem)).toMatchObject({
      code: 'SOURCE_INPUT_INVALID',
      details: { problem },
    });
  });

  it('every error class of the library is defined in errors.ts, none beside it', () => {
    const CORE = new URL('../packages/core/src/', import.meta.url);
    const family = new Set([
      'Error',
      ...Object.keys(errors).filter((name) => isErrorClass(errors[name as keyof typeof errors])),
    ]);
    const strays = readdirSync(CORE, { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts') && file !== 'errors.ts')
      .flatMap((file) =>
        [...readFileSync(new URL(file, CORE), 'utf8').matchAll(/\bclass (\w+) extends (\w+)/g)]
          .filter(([, , base]) => family.has(base!))
          .map(([, name]) => `${file}: ${name}`),
      );
    expect(strays).toEqual([]);
  });

  it('the errors no entry exports are of the family too, each with its code', () => {
    expect(new errors.ReceiptNotPlainlyValid('receipts[3]')).toMatchObject({
      name: 'ReceiptNotPlainlyValid',
      code: 'RECEIPT_NOT_PLAINLY_VALID',
      details: { path: 'receipts[3]' },
    });
    expect(new errors.NotReadFromTape()).toMatchObject({ name: 'NotReadFromTape', code: 'NOT_READ_FROM_TAPE' });
    expect(new errors.AnswerTooLargeError('too large', 1024)).toMatchObject({ code: 'SOURCE_FAILED', maxBytes: 1024 });
    expect(new errors.JsonRpcError('refused', -32601, 'method not found')).toMatchObject({ code: 'SOURCE_FAILED' });
    expect(new errors.RlpShapeError('no bytes')).toMatchObject({
      name: 'RlpShapeError',
      code: 'RLP_INVALID',
      details: { expected: 'canonical RLP' },
    });
    const wrongChain = new WrongChainError('node serves chain 5, not chain 1');
    expect(wrongChain).toBeInstanceOf(root.EvmIntegrityError);
    expect(wrongChain).toMatchObject({ name: 'WrongChainError', code: 'AUDIT_WRONG_CHAIN' });
    const anchorProve = new AnchorProveError('not-provable', 'block 16000000 is between the merge and Capella');
    expect(anchorProve).toBeInstanceOf(root.EvmIntegrityError);
    expect(anchorProve).toMatchObject({
      name: 'AnchorProveError',
      code: 'ANCHOR_PROVE',
      details: { reason: 'not-provable' },
    });
  });

  it("the CLI's usage error is one too", () => {
    expect(new UsageError('lineage needs a TRACING_ID')).toMatchObject({
      code: 'CLI_USAGE',
      message: 'lineage needs a TRACING_ID',
    });
    expect(new UsageError('x')).toBeInstanceOf(root.EvmIntegrityError);
  });

  it("the service's errors carry codes the library does not list: the family is extended, not edited", () => {
    const serviceCodes: service.ServiceErrorCode[] = [
      'STORE_NOT_FOUND',
      'STORE_KEY_LIMIT',
      'STORE_CONFLICT',
      'STORE_INVALID',
      'CLI_USAGE',
      'CONFIG_INVALID',
      'EVIDENCE_DIR',
      'AUDIT_QUEUE',
      'AUDIT_WRONG_CHAIN',
      'ANCHOR_PROVE',
    ];
    // @ts-expect-error a service code is not one of the library's
    const asLibraryCode: root.EvmIntegrityErrorCode = serviceCodes[0]!;
    expect(asLibraryCode).toBe('STORE_NOT_FOUND');
    expect(new service.StoreError('STORE_CONFLICT', 'taken')).toBeInstanceOf(root.EvmIntegrityError);
  });

  it('each class narrows the code to its own (compile-time)', async () => {
    const code: 'HEADER_INVALID' = (RAISED.InvalidHeaderError!.error() as root.InvalidHeaderError).code;
    const store: service.StoreErrorCode = ((await RAISED.StoreError!.error()) as service.StoreError).code;
    expect([code, store]).toEqual(['HEADER_INVALID', 'STORE_NOT_FOUND']);
  });
});

describe('an argument outside a function\'s contract is a RangeError or TypeError naming it (docs/library.md "Results and errors")', () => {
  const block = loadFixture('mainnet-1000001');
  const names = root.RULE_SET_NAMES.join(', ');

  it('verifyBlock: a rules option that names no rule set, listing the names (was: "reading \'layouts\'")', () => {
    for (const rules of ['Ethereum', 'bogus', ''])
      expect(() => root.verifyBlock(block, { rules: rules as root.RuleSetName })).toThrow(
        new RangeError(`context.rules must name a rule set, one of ${names}; got ${JSON.stringify(rules)}`),
      );
    expect(() => root.verifyBlock(block, { rules: 1 as unknown as root.RuleSetName })).toThrow(
      new TypeError(`context.rules must name a rule set, one of ${names}; got the number 1`),
    );
    fc.assert(
      fc.property(
        fc.string().filter((s) => !(root.RULE_SET_NAMES as string[]).includes(s)),
        (rules) => {
          expect(() => root.verifyBlock(block, { rules: rules as root.RuleSetName })).toThrow(RangeError);
          expect(() => root.verifyRpcBlock({} as root.RpcBlock, { rules: rules as root.RuleSetName })).toThrow(
            /^context\.rules must name a rule set/,
          );
        },
      ),
    );
    // Every name is one.
    for (const rules of root.RULE_SET_NAMES) expect(root.verifyBlock(block, { rules }).ok).toBe(true);
  });

  it('verifyBlock: a registry that is not a ChainRegistry, and a null context (was: "verifiability is not a function", "reading … of null")', () => {
    expect(() => root.verifyBlock(block, { registry: {} as root.ChainRegistry })).toThrow(
      new TypeError('context.registry must be a ChainRegistry, got an object'),
    );
    expect(() => root.verifyBlock(block, null as unknown as root.BlockVerifyContext)).toThrow(
      new TypeError('context must be an object (or absent), got null'),
    );
    expect(root.verifyBlock(block, { registry: new root.ChainRegistry() }).ok).toBe(true);
  });

  it('ChainRegistry: a chain or era naming no rule set or header layout is refused when added, naming it (was: accepted, and a TypeError at the first block)', () => {
    const chain = { chainId: 5_000_001, name: 'x', verifiable: true };
    expect(() => new root.ChainRegistry([{ ...chain, rules: 'Ethereum' as root.RuleSetName }])).toThrow(
      new RangeError(`extra[0].rules must name a rule set, one of ${names}; got "Ethereum"`),
    );
    const eras = [
      { name: 'one', from: 0, rules: 'optimism' as const },
      { name: 'two', from: 9, header: 'aur' },
    ];
    expect(() => new root.ChainRegistry([{ ...chain, rules: 'ethereum', eras } as unknown as root.ChainInfo])).toThrow(
      new RangeError('extra[0].eras[1].header must name a header layout, one of ethereum, aura, avalanche; got "aur"'),
    );
    expect(
      () => new root.ChainRegistry([{ ...chain, chainId: '5', rules: 'ethereum' } as unknown as root.ChainInfo]),
    ).toThrow(new TypeError('extra[0].chainId must be a number, got a string'));
    fc.assert(
      fc.property(
        fc.string().filter((s) => !(root.RULE_SET_NAMES as string[]).includes(s)),
        (rules) => {
          expect(() => new root.ChainRegistry([{ ...chain, rules: rules as root.RuleSetName }])).toThrow(
            /^extra\[0\]\.rules must name a rule set/,
          );
        },
      ),
    );
    const added = new root.ChainRegistry([{ ...chain, rules: 'optimism' }]);
    expect(added.verifiability(5_000_001, 1)).toMatchObject({ status: 'verifiable', rules: root.RULE_SETS.optimism });
  });

  it('verifiability: a chain id that is not a number is a TypeError naming chainId (was: "chain 1 is not in the chain registry")', () => {
    expect(() => root.defaultRegistry.verifiability('1' as unknown as number, 5)).toThrow(
      new TypeError('chainId must be a number, got a string'),
    );
    expect(() => root.defaultRegistry.verifiability(-1, 5)).toThrow(
      new RangeError('chainId must be a non-negative integer, got -1'),
    );
    expect(() => root.defaultRegistry.verifiability(1.5, 5)).toThrow(RangeError);
    expect(root.defaultRegistry.verifiability(1, 5).status).toBe('verifiable');
  });

  it('ChainRegistry: eras that do not cover a chain from block 0 in block order are refused, naming extra[0].eras (was: a TypeError at the first block, or a block outside every era verified)', () => {
    const chain = { chainId: 999_001, name: 'x', rules: 'ethereum' as const, verifiable: true };
    const registry = (eras: unknown) => new root.ChainRegistry([{ ...chain, eras } as unknown as root.ChainInfo]);
    expect(() => registry([])).toThrow(
      new RangeError('extra[0].eras must hold at least one era, the first from block 0; got none (omit eras for none)'),
    );
    expect(() => registry([{ name: 'late', from: 5 }])).toThrow(
      new RangeError('extra[0].eras[0].from must be 0: the eras must cover the chain from its first block; got 5'),
    );
    expect(() =>
      registry([
        { name: 'one', from: 0 },
        { name: 'back', from: 0 },
      ]),
    ).toThrow(new RangeError('extra[0].eras[1].from must be after the era before (0): eras are in block order; got 0'));
    expect(() =>
      registry([
        { name: 'one', from: 0 },
        { name: 'two', from: '9' },
      ]),
    ).toThrow(new TypeError('extra[0].eras[1].from must be a number, got a string'));
    expect(() => registry([{ name: 'one', from: -1 }])).toThrow(
      new RangeError('extra[0].eras[0].from must be a block number (a non-negative integer), got -1'),
    );
    const covered = registry([
      { name: 'one', from: 0 },
      { name: 'two', from: 9 },
    ]);
    expect(covered.verifiability(999_001, 1)).toMatchObject({ status: 'verifiable', era: { name: 'one' } });
    expect(covered.verifiability(999_001, 9)).toMatchObject({ status: 'verifiable', era: { name: 'two' } });
  });

  it('verifiability: a block number that is not a non-negative integer is a TypeError or RangeError naming blockNumber (was: verifiable)', () => {
    expect(() => root.defaultRegistry.verifiability(1, -1)).toThrow(
      new RangeError('blockNumber must be a non-negative integer, got -1'),
    );
    expect(() => root.defaultRegistry.verifiability(1, 1.5)).toThrow(
      new RangeError('blockNumber must be a non-negative integer, got 1.5'),
    );
    expect(() => root.defaultRegistry.verifiability(1, -5n)).toThrow(
      new RangeError('blockNumber must be a non-negative integer, got -5'),
    );
    expect(() => root.defaultRegistry.verifiability(1, '5' as unknown as number)).toThrow(
      new TypeError('blockNumber must be a number or a bigint, got a string'),
    );
    // A header's number is a bigint, of any size a header can hold.
    expect(root.defaultRegistry.verifiability(1, 5n).status).toBe('verifiable');
    expect(root.defaultRegistry.verifiability(1, 2n ** 64n - 1n).status).toBe('verifiable');
  });

  it('logsBloom and blockBloom: an address that is not 20 bytes or a topic not 32, naming the item (was: a bloom, silently)', () => {
    const log = { address: new Uint8Array(20), topics: [new Uint8Array(32)], data: new Uint8Array(0) };
    expect(() => root.logsBloom([{ address: new Uint8Array(3), topics: [], data: new Uint8Array(0) }])).toThrow(
      new RangeError('logs[0].address must be 20 bytes, got 3'),
    );
    expect(() => root.logsBloom([log, { ...log, topics: [new Uint8Array(32), new Uint8Array(31)] }])).toThrow(
      new RangeError('logs[1].topics[1] must be 32 bytes, got 31'),
    );
    expect(() =>
      root.blockBloom([
        { ...receipt, logs: [log] },
        { ...receipt, logs: [{ ...log, address: new Uint8Array(21) }] },
      ]),
    ).toThrow(new RangeError('receipts[1].logs[0].address must be 20 bytes, got 21'));
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 64 }).filter((n) => n !== 20),
        fc.integer({ min: 0, max: 64 }).filter((n) => n !== 32),
        (addressBytes, topicBytes) => {
          expect(() => root.logsBloom([{ ...log, address: new Uint8Array(addressBytes) }])).toThrow(
            /^logs\[0\]\.address/,
          );
          expect(() => root.logsBloom([{ ...log, topics: [new Uint8Array(topicBytes)] }])).toThrow(
            /^logs\[0\]\.topics\[0\]/,
          );
        },
      ),
    );
    // A receipt's encoding still names its own faulty log, as the receipt's.
    expect(() => root.encodeReceipt({ ...receipt, logs: [{ ...log, address: new Uint8Array(3) }] })).toThrow(
      root.InvalidReceiptError,
    );
    expect(root.logsBloom([log])).toEqual(root.blockBloom([{ ...receipt, logs: [log] }]));
  });
});
