/**
 * Client dialects (docs/chains.md, "Client dialects"): real JSON-RPC output of each client, built from a real fixture
 * block by the change that client makes, keeps its verdict. A real block is never invalid input for its dialect, a
 * block whose hashed fields a dialect leaves out is not verifiable rather than different, and a member that restates a
 * hashed field is refused as a conflict where it says another value.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  badRequest,
  receiptRootBody,
  verifyBlockBytes,
  verifyReceiptRootOperation,
} from '../packages/core/src/api/index.js';
import { AURA_HEADER, encodeHeader, Problems, readRpcBlock, verifyBlock } from '../packages/core/src/index.js';
import { runCliBytes } from './helpers/cli-process.js';
import { loadFixture } from './helpers/fixtures.js';

type Json = Record<string, unknown>;
type Block = { header: Json; receipts: Json[]; raw_receipts?: unknown } & Json;

const outcome = (input: unknown) => {
  const result = verifyBlock(input);
  if (result.ok) return result.value.verdict;
  return 'problems' in result.error ? result.error.problems.map((p) => [p.name, p.reason]) : result.error;
};
/** A receipt-root body of a pre-Byzantium block, the receipts `withStatus` picks giving a status and no root (reth's). */
const preByzantiumBody = (block: Block, withStatus: (index: number) => boolean) => ({
  chain_id: 1,
  block_number: Number(block.header['number']),
  receipt_root: block.header['receiptsRoot'],
  transactions: block.receipts.map((r, index) => ({
    index,
    ...(withStatus(index) ? { status: 1 } : { root: r['root'] }),
    cumulative_gas_used: Number(r['cumulativeGasUsed']),
    logs: (r['logs'] as Json[]).map((l) => ({
      contract_address: l['address'],
      topics: l['topics'],
      data: l['data'],
    })),
  })),
});

/** A deep copy of a fixture block, changed by `edit`. */
const variant = (name: string, edit: (block: Block) => void): Block => {
  const block = structuredClone(loadFixture(name)) as unknown as Block;
  edit(block);
  return block;
};
const eachReceipt = (edit: (receipt: Json) => void) => (block: Block) => block.receipts.forEach(edit);
const rlpShort = (hex: string) => `0x${(0x80 + (hex.length - 2) / 2).toString(16)}${hex.slice(2)}`;

describe('dialects that change nothing hashed: identical', () => {
  it.each<[string, string, (block: Block) => void]>([
    [
      'Nethermind/OpenEthereum sealFields on a PoW block',
      'mainnet-7000000',
      (b) => {
        b.header['sealFields'] = [rlpShort(b.header['mixHash'] as string), rlpShort(b.header['nonce'] as string)];
      },
    ],
    [
      'sealFields [] after the merge',
      'mainnet-22869878',
      (b) => {
        b.header['sealFields'] = [];
      },
    ],
    [
      'author = miner',
      'mainnet-22869878',
      (b) => {
        b.header['author'] = b.header['miner'];
      },
    ],
    [
      'totalDifficulty added (erigon, besu, nethermind)',
      'mainnet-22869878',
      (b) => {
        b.header['totalDifficulty'] = '0xc70d815d562d3cfa955';
      },
    ],
    [
      'totalDifficulty removed (geth >= 1.14, reth)',
      'bsc-26803',
      (b) => {
        delete b.header['totalDifficulty'];
      },
    ],
    [
      'size, uncles',
      'mainnet-22869878',
      (b) => {
        b.header['size'] = '0x1f6c5';
        b.header['uncles'] = [];
      },
    ],
    [
      'withdrawals [] before Shanghai',
      'mainnet-15537394',
      (b) => {
        b.header['withdrawals'] = [];
      },
    ],
    [
      'transactions as objects',
      'mainnet-14764013',
      (b) => {
        b.header['transactions'] = (b.header['transactions'] as string[]).map((hash, i) => ({
          hash,
          transactionIndex: `0x${i.toString(16)}`,
        }));
      },
    ],
    [
      'receipts without type (l2geth, types.Receipt.MarshalJSON)',
      'op-mainnet-10000',
      eachReceipt((r) => {
        delete r['type'];
      }),
    ],
    [
      'receipts without type, Byzantium',
      'mainnet-7000000',
      eachReceipt((r) => {
        delete r['type'];
      }),
    ],
    [
      'root "0x" beside status (types.Receipt.MarshalJSON)',
      'mainnet-22869878',
      eachReceipt((r) => {
        r['root'] = '0x';
      }),
    ],
    [
      'effectiveGasPrice removed (pre-London clients)',
      'hoodi-411443',
      eachReceipt((r) => {
        delete r['effectiveGasPrice'];
      }),
    ],
    [
      'blobGasUsed/blobGasPrice on blob receipts',
      'mainnet-19433903',
      eachReceipt((r) => {
        if (r['type'] === '0x3') Object.assign(r, { blobGasUsed: '0x20000', blobGasPrice: '0x1' });
      }),
    ],
    [
      'depositNonce decimal (indexers)',
      'op-mainnet-154497277',
      eachReceipt((r) => {
        if (r['depositNonce'] != null) r['depositNonce'] = BigInt(r['depositNonce'] as string).toString(10);
      }),
    ],
    [
      'l1Fee* with a Bedrock float l1FeeScalar (op-geth)',
      'base-2000000',
      eachReceipt((r) => {
        if (r['type'] !== '0x7e')
          Object.assign(r, { l1Fee: '0x1', l1GasPrice: '0x1', l1GasUsed: '0x640', l1FeeScalar: '0.684' });
      }),
    ],
    [
      'operatorFeeScalar (Isthmus)',
      'op-mainnet-154497277',
      eachReceipt((r) => {
        if (r['type'] !== '0x7e') Object.assign(r, { operatorFeeScalar: '0x0', operatorFeeConstant: '0x0' });
      }),
    ],
    [
      'timeboosted, multiGasUsed (nitro)',
      'arbitrum-one-150000000',
      eachReceipt((r) => {
        r['timeboosted'] = false;
        r['multiGasUsed'] = {};
      }),
    ],
  ])('%s [%s] is identical', (_, name, edit) => {
    expect(outcome(variant(name, edit))).toBe('identical');
  });
});

describe('dialects that once were refused or misjudged', () => {
  // go-ethereum core/types/gen_receipt_json.go (types.Receipt.MarshalJSON: `root` and `status` without omitempty, so a
  // pre-Byzantium receipt has its 32-byte root and status 0x0), and Nethermind's ReceiptForRpc before Status became null
  // beside Root (src/Nethermind/Nethermind.JsonRpc/Data/ReceiptForRpc.cs: `Status = receipt.StatusCode`).
  it('a pre-Byzantium root beside status (geth MarshalJSON, older Nethermind) is identical (was: invalid input)', () => {
    const block = variant('mainnet-1000010', (b) => {
      delete b.raw_receipts;
      b.receipts.forEach((r) => {
        delete r['type'];
        r['status'] = '0x0';
      });
    });
    expect(outcome(block)).toBe('identical');
  });

  // reth keeps a receipt's success flag only (alloy EthereumReceipt; crates/ethereum/consensus/src/validation.rs skips the
  // receipts root before Byzantium): its pre-Byzantium receipts have status, no root. The root cannot be reproduced from
  // them, which is no evidence of tampering: not_verifiable, not different.
  it('pre-Byzantium receipts with status and no root (reth) are not_verifiable, naming why (was: different)', () => {
    const block = variant('mainnet-1000010', (b) => {
      delete b.raw_receipts;
      b.receipts.forEach((r) => {
        delete r['root'];
        r['status'] = '0x1';
      });
    });
    expect(outcome(block)).toBe('not_verifiable');
    const report = verifyBlock(block);
    expect(report.ok && report.value.receipts_root.reason).toMatch(
      /before Byzantium a receipt's root is what is hashed/,
    );
    expect(report.ok && report.value.logs_bloom.matches).toBe(true);
  });

  // The same receipts sent as a receipt-root body (what `request receipt-root` builds from the block): the root cannot
  // be rebuilt either, so the answer is 422, naming the receipt, never a root that differs (found by a user check).
  it('a receipt-root body of a pre-Byzantium block with a status and no root is not verifiable, naming the receipt (was: different)', () => {
    const block = loadFixture('mainnet-1000010') as unknown as Block;
    const body = (withStatus: (index: number) => boolean) => preByzantiumBody(block, withStatus);
    expect(verifyReceiptRootOperation(body(() => false))).toMatchObject({ status: 200, verdict: 'identical' });
    const answer = verifyReceiptRootOperation(body(() => true));
    expect(answer).toMatchObject({
      status: 422,
      verdict: 'not_verifiable',
      body: { error: { code: 'CHAIN_NOT_SUPPORTED', details: { block_number: 1000010 } } },
    });
    expect(JSON.stringify(answer.body)).toMatch(
      /transactions\[0\] gives a status and no post-state root, and before Byzantium a receipt's root is what is hashed/,
    );
  });

  // A client's receipts of a block give a root on all or none: one receipt without it among others with it is no
  // client's output, and read as a root that cannot be rebuilt it made an altered block not verifiable (a user check).
  it('a pre-Byzantium block whose receipts mix roots and a status alone is refused as input, by verify block and the receipt-root body (it hid an altered log as not_verifiable)', () => {
    const mixed = variant('mainnet-1000023', (b) => {
      delete b.raw_receipts;
      delete b.receipts[3]!['root'];
      b.receipts[3]!['status'] = '0x1';
      const log = (b.receipts[1]!['logs'] as Json[])[0]!;
      log['data'] = `0x${'ff'.repeat(32)}`;
    });
    const report = verifyBlock(mixed);
    expect(report.ok).toBe(false);
    expect(!report.ok && report.error).toMatchObject({
      kind: 'invalid',
      problems: [
        {
          name: 'receipts[3].root',
          reason: 'missing',
          expected:
            "its post-state root, as receipts[0] of the same block gives one: a client's receipts before Byzantium give a root on all or none",
        },
      ],
    });
    const block = loadFixture('mainnet-1000010') as unknown as Block;
    const answer = verifyReceiptRootOperation(preByzantiumBody(block, (index) => index === 9));
    expect(answer).toMatchObject({
      status: 400,
      body: { error: { details: { invalid_parameters: [{ name: 'transactions[9].root', reason: 'missing' }] } } },
    });
  });

  // From Canyon on a deposit receipt hashes its nonce and version; a client that drops them leaves a root that cannot be
  // rebuilt, which is no sign of tampering (a user check: the block was different).
  it('an OP Mainnet block after Canyon whose deposits lack depositNonce and depositReceiptVersion is not verifiable, naming the receipt, by verify block and by the receipt-root body with its header', () => {
    const stripped = (keep: 'none' | 'nonce') => {
      const block = structuredClone(loadFixture('op-mainnet-154497277')) as unknown as Block;
      for (const receipt of block.receipts) {
        delete receipt['depositReceiptVersion'];
        if (keep === 'none') delete receipt['depositNonce'];
      }
      return block;
    };
    for (const keep of ['none', 'nonce'] as const) {
      const report = verifyBlock(stripped(keep));
      expect(report.ok && report.value.verdict).toBe('not_verifiable');
      expect(report.ok && report.value.receipts_root.reason).toBe(
        'not verifiable: receipts[0] is a deposit without its depositNonce or depositReceiptVersion, and from Canyon on a deposit receipt hashes both',
      );
    }
    const intact = verifyBlock(loadFixture('op-mainnet-154497277'));
    expect(intact.ok && intact.value.verdict).toBe('identical');
    // The body request receipt-root builds from the stripped block, with its header.
    const read = readRpcBlock(stripped('none'), new Problems())!;
    const body = receiptRootBody({
      chainId: 10,
      receiptRoot: read.header.fields.receiptsRoot!,
      receipts: read.receipts,
      blockNumber: Number(read.header.fields.number),
      blockHash: read.header.hash!,
      headerRlp: encodeHeader(read.header.complete!, read.header.layout),
    });
    const answer = verifyReceiptRootOperation(body);
    expect(answer).toMatchObject({ status: 422, verdict: 'not_verifiable' });
    expect(JSON.stringify(answer.body)).toContain(
      'transactions[0] is a deposit without its depositNonce or depositReceiptVersion, and from Canyon on a deposit receipt hashes both',
    );
  });

  // Without header_rlp the block's time is unknown: a root rebuilt without the deposits' nonce and version (as before
  // Canyon) that differs may be those members, never a mismatch; one that matches is the block's (a user check: a correct
  // OP Mainnet body without them was answered is_identical false, exit 1).
  it('a receipt-root body without header_rlp whose deposits lack depositNonce or depositReceiptVersion: 422 where the root differs (after Canyon), identical where it matches (before)', () => {
    const bodyOf = (name: string, strip: 'both' | 'version' | 'none') => {
      const read = readRpcBlock(loadFixture(name), new Problems())!;
      const receipts = read.receipts.map((receipt) => {
        const copy = { ...receipt };
        if (strip !== 'none') delete copy.depositReceiptVersion;
        if (strip === 'both') delete copy.depositNonce;
        return copy;
      });
      return receiptRootBody({
        chainId: Number(read.chainId),
        receiptRoot: read.header.fields.receiptsRoot!,
        receipts,
        blockNumber: Number(read.header.fields.number),
      });
    };
    for (const strip of ['both', 'version'] as const) {
      const answer = verifyReceiptRootOperation(bodyOf('op-mainnet-154497277', strip));
      expect(answer).toMatchObject({ status: 422, verdict: 'not_verifiable' });
      expect(JSON.stringify(answer.body)).toContain(
        "transactions[0] is a deposit without its depositNonce or depositReceiptVersion, and from Canyon on a deposit receipt hashes both; without header_rlp the block's time, which Canyon is counted in, is unknown",
      );
    }
    expect(verifyReceiptRootOperation(bodyOf('op-mainnet-154497277', 'none'))).toMatchObject({
      status: 200,
      verdict: 'identical',
    });
    // Base 2000000 is before Canyon: its deposits hash neither, and the root rebuilt so is the block's.
    expect(verifyReceiptRootOperation(bodyOf('base-2000000', 'both'))).toMatchObject({
      status: 200,
      verdict: 'identical',
    });
    // A receipt changed is still told apart where the deposits give both members.
    const changed = bodyOf('op-mainnet-154497277', 'none') as unknown as {
      transactions: Array<Record<string, unknown>>;
    };
    changed.transactions[1]!.status = changed.transactions[1]!.status === 1 ? 0 : 1;
    expect(verifyReceiptRootOperation(changed)).toMatchObject({ status: 200, verdict: 'different' });
  });

  // op-geth and op-reth give depositNonce and depositReceiptVersion on deposit receipts (0x7e) alone (no fixture has them
  // on another type), and no other receipt's encoding holds them: given there, they are a claim no hash covers.
  it('depositNonce or depositReceiptVersion on a receipt that is no deposit is refused naming it, as the receipt-root body refuses deposit_nonce (was: identical)', async () => {
    const cases = [
      ['base-2000000', 1, { depositNonce: '0x99', depositReceiptVersion: '0x1' }, 'depositNonce'],
      ['op-mainnet-154497277', 2, { depositReceiptVersion: '0x1' }, 'depositReceiptVersion'],
      ['mainnet-22869878', 0, { depositNonce: '0x99' }, 'depositNonce'],
    ] as const;
    for (const [name, index, members, named] of cases) {
      const block = variant(name, (b) => Object.assign(b.receipts[index]!, members));
      expect(outcome(block)).toEqual([[`receipts[${index}].${named}`, 'conflict']]);
      const refused = await runCliBytes(['verify', 'block', '-'], { input: Buffer.from(JSON.stringify(block)) });
      expect(refused.status).toBe(2);
      expect(`${refused.stdout.toString()}${refused.stderr}`).toContain(
        `receipts[${index}].${named}: expected absent: deposit fields belong only to OP-stack deposit receipts (type 126 = 0x7e)`,
      );
    }
    // The real deposit receipts, nonce and version and all, keep verifying.
    for (const name of ['op-mainnet-154497277', 'base-goerli-12399126', 'base-2000000'])
      expect(outcome(loadFixture(name))).toBe('identical');
  });

  // Nitro's receipt l1BlockNumber is DeserializeHeaderExtraInformation(header).L1BlockNumber (OffchainLabs/go-ethereum
  // internal/ethapi/api.go), as the header's l1BlockNumber is, which arbitrum-header.ts already compares.
  it('a Nitro receipt l1BlockNumber that contradicts mixHash is a conflict', () => {
    const block = variant(
      'arbitrum-one-150000000',
      eachReceipt((r) => {
        r['l1BlockNumber'] = '0x1';
      }),
    );
    expect(outcome(block)).toEqual(expect.arrayContaining([['receipts[0].l1BlockNumber', 'conflict']]));
  });

  it('prevRandao (the post-merge name of mixHash) is read as mixHash', () => {
    const block = variant('mainnet-22869878', (b) => {
      b.header['prevRandao'] = b.header['mixHash'];
      delete b.header['mixHash'];
    });
    expect(outcome(block)).toBe('identical');
  });

  it('prevRandao that contradicts mixHash is a conflict', () => {
    const block = variant('mainnet-22869878', (b) => {
      b.header['prevRandao'] = `0x${'66'.repeat(32)}`;
    });
    expect(outcome(block)).toEqual([['header.prevRandao', 'conflict']]);
  });
});

describe("AuRa's mixHash and nonce, which no AuRa header hashes", () => {
  const hex = (bytes: Uint8Array) => `0x${Buffer.from(bytes).toString('hex')}`;
  const nonZero = (length: number) =>
    fc.uint8Array({ minLength: length, maxLength: length }).filter((b) => b.some((byte) => byte !== 0));

  it("erigon's zeros, and no member at all (Nethermind), are identical; anything else is refused naming the field (was: identical, a claim no hash covers)", () => {
    for (const name of ['gnosis-0', 'gnosis-10000000']) expect(outcome(loadFixture(name))).toBe('identical');
    expect(outcome(loadFixture('gnosis-10226218'))).toBe('identical');
    const altered = variant('gnosis-10000000', (b) => (b.header['nonce'] = '0xdeadbeef00000000'));
    const result = verifyBlock(altered);
    expect(!result.ok && 'problems' in result.error && result.error.problems).toEqual([
      {
        name: 'header.nonce',
        location: 'body',
        reason: 'out_of_range',
        expected: 'zeros, as nodes give it: an aura header does not hash it, got 0xdeadbeef00000000',
      },
    ]);
    fc.assert(
      fc.property(
        fc.constantFrom('gnosis-0', 'gnosis-10000000', 'gnosis-10226218'),
        fc.oneof(
          nonZero(8).map((v) => ['nonce', v] as const),
          nonZero(32).map((v) => ['mixHash', v] as const),
          nonZero(32).map((v) => ['prevRandao', v] as const),
        ),
        (name, [field, value]) => {
          const block = variant(name, (b) => (b.header[field] = hex(value)));
          expect(outcome(block)).toEqual([[`header.${field}`, 'out_of_range']]);
          // The same block as bytes, as the CLI and the workers read it: invalid input, naming the field.
          const answered = verifyBlockBytes(new TextEncoder().encode(JSON.stringify(block)));
          expect(
            !answered.ok && answered.error.kind === 'invalid' && answered.error.problems.map((p) => p.name),
          ).toEqual([`header.${field}`]);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('prevRandao, mixHash by another name, is held to the same zeros, and each is read at its size (was: prevRandao never read, a 31-byte mixHash or 9-byte nonce of zeros identical)', () => {
    for (const name of ['gnosis-0', 'gnosis-10000000', 'gnosis-10226218']) {
      const zeros = variant(name, (b) => (b.header['prevRandao'] = `0x${'00'.repeat(32)}`));
      expect(outcome(zeros)).toBe('identical');
      const claimed = variant(name, (b) => (b.header['prevRandao'] = `0x${'11'.repeat(32)}`));
      expect(outcome(claimed)).toEqual([['header.prevRandao', 'out_of_range']]);
      for (const [field, bytes] of [
        ['mixHash', 31],
        ['prevRandao', 33],
        ['nonce', 9],
        ['nonce', 7],
      ] as const) {
        const malformed = variant(name, (b) => (b.header[field] = `0x${'00'.repeat(bytes)}`));
        expect(outcome(malformed)).toEqual([[`header.${field}`, 'invalid_format']]);
      }
    }
  });

  it('the command line refuses it too, naming the field (exit 2), and verifies the block as its node gave it (exit 0)', async () => {
    const altered = variant('gnosis-10000000', (b) => (b.header['nonce'] = '0xdeadbeef00000000'));
    const refused = await runCliBytes(['verify', 'block', '-'], { input: Buffer.from(JSON.stringify(altered)) });
    expect(refused.status).toBe(2);
    expect(`${refused.stdout.toString()}${refused.stderr}`).toContain(
      'header.nonce: expected zeros, as nodes give it: an aura header does not hash it, got 0xdeadbeef00000000',
    );
    const real = await runCliBytes(['verify', 'block', '-'], {
      input: Buffer.from(JSON.stringify(loadFixture('gnosis-10000000'))),
    });
    expect(real.status).toBe(0);
  });

  it('after the merge Gnosis hashes mixHash and nonce as Ethereum does: a changed one is a mismatch, never this refusal', () => {
    const block = variant('gnosis-30000000', (b) => (b.header['nonce'] = '0xdeadbeef00000000'));
    expect(outcome(block)).toBe('different');
  });
});

describe("Ethereum's fork fields that no AuRa header hashes", () => {
  // Gnosis and Chiado left AuRa before Shanghai: an AuRa header hashes baseFeePerGas (London) and nothing after it.
  const NEWER: Record<string, string> = {
    withdrawalsRoot: `0x${'11'.repeat(32)}`,
    blobGasUsed: '0x20000',
    excessBlobGas: '0x0',
    parentBeaconBlockRoot: `0x${'33'.repeat(32)}`,
    requestsHash: `0x${'22'.repeat(32)}`,
  };
  const APPENDED_BY: Record<string, string> = {
    withdrawalsRoot: 'Shanghai',
    blobGasUsed: 'Cancun',
    excessBlobGas: 'Cancun',
    parentBeaconBlockRoot: 'Cancun',
    requestsHash: 'Prague',
  };
  const refusal = (layout: string, field: string) =>
    `absent: ${/^[aeiou]/.test(layout) ? 'an' : 'a'} ${layout} header does not hash ${field} (Ethereum's ${APPENDED_BY[field]} appended it, no fork of this layout did): no block hash covers it`;
  // Real AuRa blocks in each dialect: erigon's (gnosis-0, gnosis-10000000), OpenEthereum's (gnosis-10226218), and
  // Nethermind's after London, with baseFeePerGas (gnosis-25233552, a header alone).
  const AURA = ['gnosis-0', 'gnosis-10000000', 'gnosis-10226218', 'gnosis-25233552'];
  const block = (name: string, edit: (block: Block) => void = () => {}) =>
    variant(name, (b) => {
      // A header alone is given no receipts, and so no list of transactions, which would name receipts it lacks.
      if (b.receipts === undefined) {
        b.receipts = [];
        delete b.header['transactions'];
      }
      edit(b);
    });
  const problemsOf = (input: unknown) => {
    const result = verifyBlock(input);
    return !result.ok && 'problems' in result.error ? result.error.problems : result;
  };

  it('real AuRa blocks, baseFeePerGas and all, keep verifying', () => {
    for (const name of ['gnosis-0', 'gnosis-10000000', 'gnosis-10226218'])
      expect(outcome(block(name))).toBe('identical');
    const london = verifyBlock(block('gnosis-25233552'));
    expect(london.ok && london.value.header_layout).toBe('aura');
    expect(london.ok && london.value.block_hash.matches).toBe(true);
  });

  it('each, with any value or form, is refused naming it (was: identical, a claim no hash covers)', () => {
    for (const name of AURA)
      for (const [field, value] of Object.entries(NEWER))
        for (const given of [value, 'zz', 12345]) {
          const altered = block(name, (b) => (b.header[field] = given));
          expect(problemsOf(altered), `${name} ${field}: ${given}`).toEqual([
            { name: `header.${field}`, location: 'body', reason: 'conflict', expected: refusal('aura', field) },
          ]);
          // The same block as bytes, as the CLI and the workers read it.
          const answered = verifyBlockBytes(new TextEncoder().encode(JSON.stringify(altered)));
          expect(
            !answered.ok && answered.error.kind === 'invalid' && answered.error.problems.map((p) => p.name),
          ).toEqual([`header.${field}`]);
        }
    // All of them at once (the user's check): each is named.
    const all = block('gnosis-10000000', (b) => Object.assign(b.header, NEWER));
    expect(outcome(all)).toEqual(Object.keys(NEWER).map((field) => [`header.${field}`, 'conflict']));
  });

  it('absent as JSON-RPC says it, null, is absent: the block verifies', () => {
    const nulls = block('gnosis-10226218', (b) => {
      for (const field of Object.keys(NEWER)) b.header[field] = null;
    });
    expect(outcome(nulls)).toBe('identical');
  });

  it('the library will not hash one into an AuRa header either: encodeHeader throws naming it', () => {
    const read = readRpcBlock(loadFixture('gnosis-10000000'), new Problems())!;
    const complete = read.header.complete!;
    expect(() => encodeHeader({ ...complete, requestsHash: new Uint8Array(32) }, AURA_HEADER)).toThrow(
      `Header field requestsHash is present, but an aura header does not hash requestsHash (Ethereum's Prague appended it, no fork of this layout did): no block hash covers it.`,
    );
  });

  it('the command line refuses it (exit 2), verify block and request receipt-root alike, naming the field', async () => {
    const altered = block('gnosis-10000000', (b) => Object.assign(b.header, NEWER));
    const input = Buffer.from(JSON.stringify(altered));
    const verified = await runCliBytes(['verify', 'block', '-'], { input });
    expect(verified.status).toBe(2);
    expect(`${verified.stdout.toString()}${verified.stderr}`).toContain(
      `header.withdrawalsRoot: expected ${refusal('aura', 'withdrawalsRoot')}`,
    );
    expect(verified.stdout.toString()).not.toContain('"verdict"');
    const requested = await runCliBytes(['request', 'receipt-root', '-'], { input });
    expect(requested.status).toBe(2);
    expect(`${requested.stdout.toString()}${requested.stderr}`).toContain(
      `header.withdrawalsRoot: expected ${refusal('aura', 'withdrawalsRoot')}`,
    );
  });

  it('the Avalanche C-Chain hashes no withdrawalsRoot nor requestsHash either (coreth HeaderSerializable): refused', () => {
    for (const field of ['withdrawalsRoot', 'requestsHash']) {
      const altered = block('avalanche-fuji-58119344', (b) => (b.header[field] = NEWER[field]));
      expect(problemsOf(altered)).toEqual([
        { name: `header.${field}`, location: 'body', reason: 'conflict', expected: refusal('avalanche', field) },
      ]);
    }
  });

  it('after the merge Gnosis hashes withdrawalsRoot as Ethereum does: a changed one is a mismatch, never this refusal', () => {
    const changed = block('gnosis-30000000', (b) => (b.header['withdrawalsRoot'] = NEWER['withdrawalsRoot']));
    expect(outcome(changed)).toBe('different');
  });
});

describe("members another layout hashes, or Nitro adds, in a header that hashes none of them (no fixture's header has one)", () => {
  const AURA = {
    auraStep: '0x12f3fe3f',
    auraSeal: `0x${'ab'.repeat(65)}`,
    step: '317980223',
    signature: `0x${'ab'.repeat(65)}`,
  };
  const AVALANCHE = {
    extDataHash: `0x${'11'.repeat(32)}`,
    extDataGasUsed: '0x0',
    blockGasCost: '0x0',
    blockExtraData: '0x',
  };
  const NITRO = { sendRoot: `0x${'22'.repeat(32)}`, sendCount: '0x1', l1BlockNumber: '0x2' };
  /** The real block (a header alone given no receipts), with `members` added to its header. */
  const withMembers = (name: string, members: Record<string, string>) =>
    variant(name, (b) => {
      if (b.receipts === undefined) {
        b.receipts = [];
        delete b.header['transactions'];
      }
      Object.assign(b.header, members);
    });
  const why = (layout: string, member: string, other: string, how = 'does') =>
    `absent: ${/^[aeiou]/.test(layout) ? 'an' : 'a'} ${layout} header does not hash ${member} (${/^[aeiou]/.test(other) ? 'an' : 'a'} ${other} header ${how}): no block hash covers it`;

  it("AuRa's seal, Avalanche's fields and Nitro's members in an Ethereum header, Avalanche's in an AuRa one, AuRa's in an Avalanche one: each refused naming it (was: identical)", () => {
    const cases: Array<[string, Record<string, string>, string, string]> = [
      ['gnosis-30000000', AURA, 'ethereum', 'aura'],
      ['mainnet-22869878', AURA, 'ethereum', 'aura'],
      ['mainnet-22869878', AVALANCHE, 'ethereum', 'avalanche'],
      ['gnosis-10000000', AVALANCHE, 'aura', 'avalanche'],
      ['avalanche-fuji-58119344', AURA, 'avalanche', 'aura'],
    ];
    for (const [name, members, layout, other] of cases)
      for (const [member, value] of Object.entries(members)) {
        const block = withMembers(name, { [member]: value });
        const result = verifyBlock(block);
        const how = member === 'blockExtraData' ? 'covers it through one of its fields' : 'does';
        expect(!result.ok && 'problems' in result.error && result.error.problems, `${name} ${member}`).toEqual([
          { name: `header.${member}`, location: 'body', reason: 'conflict', expected: why(layout, member, other, how) },
        ]);
      }
    for (const [member, value] of Object.entries(NITRO))
      expect(outcome(withMembers('mainnet-22869878', { [member]: value }))).toEqual([[`header.${member}`, 'conflict']]);
    const result = verifyBlock(withMembers('base-2000000', { sendRoot: NITRO.sendRoot }));
    expect(!result.ok && 'problems' in result.error && result.error.problems[0]!.expected).toBe(
      "absent: an optimism chain's header does not carry sendRoot (Arbitrum Nitro's does, repeating a field it hashes): no block hash covers it",
    );
  });

  it('where they are hashed or read they verify: the real AuRa, Avalanche and Nitro headers, and Nitro members on a chain outside the registry named arbitrum', () => {
    for (const name of ['gnosis-0', 'gnosis-10000000', 'gnosis-10226218', 'arbitrum-one-150000000'])
      expect(outcome(loadFixture(name))).toBe('identical');
    const fuji = verifyBlock(withMembers('avalanche-fuji-58119344', {}));
    expect(fuji.ok && fuji.value.block_hash.matches).toBe(true);
    const orbit = { ...structuredClone(loadFixture('arbitrum-one-150000000')), chain_id: 424242 };
    const named = verifyBlock(orbit, { rules: 'arbitrum' });
    expect(named.ok && named.value.verdict).toBe('identical');
  });

  it('the command line refuses them (exit 2), verify block and request receipt-root alike, naming the member', async () => {
    const input = Buffer.from(JSON.stringify(withMembers('gnosis-30000000', { auraStep: AURA.auraStep })));
    for (const args of [
      ['verify', 'block', '-'],
      ['request', 'receipt-root', '-'],
    ]) {
      const answer = await runCliBytes(args, { input });
      expect(answer.status).toBe(2);
      expect(`${answer.stdout.toString()}${answer.stderr}`).toContain(
        `header.auraStep: expected ${why('ethereum', 'auraStep', 'aura')}`,
      );
    }
  });
});

describe('messages of a refusal', () => {
  it('an AuRa header missing a hashed field is "an aura header" (was: "a aura header")', () => {
    const block = variant('gnosis-10000000', (b) => delete b.header['auraStep']);
    expect(outcome(block)).toEqual([['header.auraStep', 'missing']]);
    const result = verifyBlock(block);
    expect(!result.ok && 'problems' in result.error && result.error.problems[0]!.expected).toBe(
      'present: an aura header hashes auraStep into the block hash',
    );
  });

  it("a node's whole answer where its result was expected, and chainId for chain_id, are named as such (a user check: the messages did not say)", () => {
    const expectedOf = (block: unknown) => {
      const result = verifyBlock(block);
      return !result.ok && 'problems' in result.error ? result.error.problems.map((p) => [p.name, p.expected]) : result;
    };
    const block = loadFixture('mainnet-22869878') as unknown as Block;
    const envelope = (result: unknown) => ({ jsonrpc: '2.0', id: 1, result });
    expect(expectedOf({ ...block, receipts: envelope(block.receipts) })).toEqual([
      ['receipts', 'an array of JSON-RPC receipts, got a JSON-RPC response (give its "result")'],
    ]);
    expect(expectedOf({ ...block, header: envelope(block.header) })).toEqual([
      ['header', 'a JSON-RPC block header object, got a JSON-RPC response (give its "result")'],
    ]);
    const { chain_id: id, ...unnamed } = block as unknown as Record<string, unknown>;
    expect(expectedOf({ ...unnamed, chainId: id })).toEqual([
      ['chainId', 'a known member name; "chainId" is not one: did you mean "chain_id"?'],
    ]);
  });

  it('a 400 whose expectation ends with a period has one period (was: "got 4..")', () => {
    const expected = 'an RLP block header: Header field mixHash must be 32 bytes, got 4.';
    const body = badRequest([{ name: 'header_rlp', location: 'body', reason: 'invalid_format', expected }], 1);
    expect(body.error.message).toBe(`Invalid parameter header_rlp: expected ${expected}`);
  });
});
