import { createHash } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { runAdmin } from '../packages/service/src/cli/admin/admin.js';
import { MemoryStore } from '../packages/service/src/store/memory-store.js';
import type { Store } from '../packages/service/src/store/store.js';

const NOW = new Date('2024-01-31T10:00:00.000Z');

async function run(store: Store, args: string[], now: Date = NOW) {
  let stdout = '';
  let stderr = '';
  const code = await runAdmin(args, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) }, store, () => now);
  return { code, stdout, stderr };
}

/**
 * An error: exit 2, nothing on stdout, exactly this one line on stderr; for a mistake in the command line, then where
 * the help of `topic` (`accounts create`) is.
 */
function expectError(result: Awaited<ReturnType<typeof run>>, message: string, topic?: string) {
  const help = topic === undefined ? '' : `try 'evm-integrity ${topic} --help'\n`;
  expect(result).toEqual({ code: 2, stdout: '', stderr: `evm-integrity: ${message}\n${help}` });
}

let store: MemoryStore;
beforeEach(() => {
  store = new MemoryStore();
});

const createAcme = () => run(store, ['accounts', 'create', '--name', 'Acme', '--id', 'acme']);

describe("a name, plan or label is the user's text", () => {
  it('is shown with its control characters as code points, never sent to the terminal as it is (it was: a user check)', async () => {
    const memory = new MemoryStore();
    const hasControl = (text: string) =>
      [...text].some((char) => char !== '\n' && (char.codePointAt(0)! < 0x20 || char.codePointAt(0) === 0x7f));
    const created = await run(memory, ['accounts', 'create', '--name', 'ev\u001b[31mil', '--id', 'evil']);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toContain('Created account evil (evU+001B[31mil)');
    const updated = await run(memory, ['accounts', 'update', 'evil', '--plan', 'p\u001b]0;x\u0007']);
    expect(updated.code, updated.stderr).toBe(0);
    const key = await run(memory, ['keys', 'create', 'evil', '--label', 'a\u0007b']);
    expect(key.code, key.stderr).toBe(0);
    const accounts = await run(memory, ['accounts', 'list']);
    const keys = await run(memory, ['keys', 'list']);
    for (const shown of [created, updated, accounts, keys]) expect(hasControl(shown.stdout + shown.stderr)).toBe(false);
    expect(accounts.stdout).toContain('pU+001B]0;xU+0007');
    expect(keys.stdout).toContain('aU+0007b');
  });
});

describe('accounts create', () => {
  it('creates with the defaults and describes the account', async () => {
    const result = await createAcme();
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe(
      [
        'Created account acme (Acme)',
        '  plan            self-hosted',
        '  CU per period   1000000',
        '  requests/s      25 (shared by all keys of the account)',
        '  endpoints       all',
        '  chains          all',
        '  billing period  2024-01-31T10:00:00.000Z to 2024-02-29T10:00:00.000Z (a calendar month)',
        'Next: evm-integrity keys create acme',
        '',
      ].join('\n'),
    );
    expect(await store.getAccount('acme')).toMatchObject({
      name: 'Acme',
      plan: 'self-hosted',
      cuLimit: 1_000_000,
      rateLimitRps: 25,
      entitlements: null,
    });
  });

  it('takes every option, and prints JSON with --json', async () => {
    const result = await run(store, [
      'accounts',
      'create',
      '--name',
      'Beta Labs',
      '--plan',
      'team',
      '--cu-limit',
      '5_000',
      '--rps',
      '7',
      '--endpoints',
      '/v1/evm/verify/receipt-root, verify/logs-bloom',
      '--chains',
      '1,10',
      '--json',
    ]);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      id: 'beta-labs',
      name: 'Beta Labs',
      plan: 'team',
      cu_limit: 5000,
      rate_limit_rps: 7,
      entitlements: { endpoints: ['verify/receipt-root', 'verify/logs-bloom'], chains: [1, 10] },
      period_anchor: NOW.toISOString(),
      created_at: NOW.toISOString(),
      usage: {
        cu_limit: 5000,
        cu_extra: 0,
        cu_allowance: 5000,
        cu_used: 0,
        cu_remaining: 5000,
        cu_held: 0,
        cu_reset_at: '2024-02-29T10:00:00.000Z',
        billing_period: { start: NOW.toISOString(), end: '2024-02-29T10:00:00.000Z' },
        cu_by_endpoint: {},
      },
    });
    expect((await run(store, ['accounts', 'create', '--name', 'C', '--chains', '137'])).stdout).toContain(
      '  endpoints       all\n  chains          137\n',
    );
  });

  it('reports each bad input on one line with exit 2', async () => {
    await createAcme();
    const cases: [string[], string, string?][] = [
      [[], 'accounts create needs --name', 'accounts create'],
      [['--name', ''], 'accounts create needs --name', 'accounts create'],
      [['--name'], '--name needs a value', 'accounts create'],
      [
        ['--name', '--id', 'x'],
        '--name needs a value, and "--id" reads as a flag (to give it as the value: --name=--id)',
        'accounts create',
      ],
      [
        ['--name', 'X', '--cu-limit', '-3'],
        '--cu-limit needs a non-negative integer, and "-3" reads as a flag (to give it as the value: --cu-limit=-3)',
        'accounts create',
      ],
      [['--name', 'X', '--cu-limit=-3'], '--cu-limit must be a non-negative integer, got "-3"', 'accounts create'],
      [['--name', 'X', '--rps'], '--rps needs a positive integer', 'accounts create'],
      [
        ['--name', 'X', '--cu-limit', 'lots'],
        '--cu-limit must be a non-negative integer, got "lots"',
        'accounts create',
      ],
      [['--name', 'X', '--cu-limit', '1e6'], '--cu-limit must be a non-negative integer, got "1e6"', 'accounts create'],
      [['--name', 'X', '--rps', '0'], '--rps must be a positive integer, got "0"', 'accounts create'],
      [
        ['--name', 'X', '--chains', '1,ten'],
        `--chains: "ten" is not a chain id or a chain's name; evm-integrity chains lists the names`,
        'accounts create',
      ],
      [
        ['--name', 'X', '--endpoints', ','],
        '--endpoints needs at least one value (leave it out to allow all)',
        'accounts create',
      ],
      // A misspelt name would leave an account that every endpoint refuses (403).
      [
        ['--name', 'X', '--endpoints', 'verify/receipt_root'],
        '--endpoints: "verify/receipt_root" is not an endpoint; one of verify/receipt-root, verify/logs-bloom, verify/receipt-proof, verify/lineage, verify/logs-proof, verify/anchor, or all',
        'accounts create',
      ],
      [['--name', 'X', '--id', 'acme'], 'account acme already exists'],
      [
        ['--name', 'X', '--id', 'a b'],
        "--id: must be 1-64 characters of letters, digits, '.', '_' or '-', starting with a letter or digit, got \"a b\"",
      ],
      [['--name', 'X', '--plan', ' '], '--plan: must be a non-empty string'],
      [['--name', 'X', '--colour', 'red'], "unknown option '--colour'", 'accounts create'],
      [['--name', 'X', 'extra'], 'unexpected argument "extra"', 'accounts create'],
      [['--name', 'X', '--json=yes'], '--json takes no value', 'accounts create'],
    ];
    for (const [args, message, topic] of cases)
      expectError(await run(store, ['accounts', 'create', ...args]), message, topic);
    expect((await store.listAccounts()).map((a) => a.id)).toEqual(['acme']);
  });
});

describe('accounts list', () => {
  it('says when there are none', async () => {
    expect(await run(store, ['accounts', 'list'])).toEqual({
      code: 0,
      stdout: 'No accounts yet. Create one: evm-integrity accounts create --name NAME\n',
      stderr: '',
    });
    expect((await run(store, ['accounts', 'list', '--json'])).stdout).toBe('[]\n');
  });

  it('lists accounts with their usage and active keys', async () => {
    await createAcme();
    await run(store, ['accounts', 'create', '--name', 'Beta', '--endpoints', 'verify/logs-bloom', '--rps', '5']);
    await store.createKey('acme', 'a', NOW);
    const held = await store.reserve('acme', 'verify/receipt-root', 3, NOW);
    if (held.ok)
      await store.settle(
        held.value.reservation,
        { requestId: 'r', endpoint: 'verify/receipt-root', status: 200, cu: 3 },
        NOW,
      );
    await store.addCu('acme', 100, NOW);
    const text = await run(store, ['accounts', 'list']);
    expect(text.code).toBe(0);
    expect(text.stdout.split('\n')).toEqual([
      'ID    NAME  PLAN         CU USED  CU ALLOWANCE             RPS  KEYS  ENDPOINTS          CHAINS  PERIOD ENDS',
      'acme  Acme  self-hosted  3        1000100 (1000000 + 100)  25   1     all                all     2024-02-29T10:00:00.000Z',
      'beta  Beta  self-hosted  0        1000000                  5    0     verify/logs-bloom  all     2024-02-29T10:00:00.000Z',
      '',
    ]);
    const json = JSON.parse((await run(store, ['accounts', 'list', '--json'])).stdout);
    expect(json).toHaveLength(2);
    expect(json[0]).toMatchObject({
      id: 'acme',
      active_keys: 1,
      usage: {
        cu_used: 3,
        cu_extra: 100,
        cu_allowance: 1_000_100,
        cu_remaining: 1_000_097,
        cu_by_endpoint: { 'verify/receipt-root': 3 },
      },
    });
    expect(json[1]).toMatchObject({
      id: 'beta',
      rate_limit_rps: 5,
      entitlements: { endpoints: ['verify/logs-bloom'] },
    });
  });

  it('takes no argument', async () => {
    expectError(await run(store, ['accounts', 'list', 'acme']), 'unexpected argument "acme"', 'accounts list');
  });
});

describe('accounts add-cu', () => {
  beforeEach(createAcme);

  it('raises the allowance of the current period', async () => {
    const result = await run(store, ['accounts', 'add-cu', 'acme', '5000']);
    expect(result).toEqual({
      code: 0,
      stdout:
        'Added 5000 CU to acme until 2024-02-29T10:00:00.000Z: allowance 1005000 CU (limit 1000000 + packages 5000), used 0, remaining 1005000\n',
      stderr: '',
    });
    const json = JSON.parse((await run(store, ['accounts', 'add-cu', 'acme', '1', '--json'])).stdout);
    expect(json).toMatchObject({ account_id: 'acme', added_cu: 1, usage: { cu_extra: 5001, cu_allowance: 1_005_001 } });
    expect((await store.usage('acme', NOW)).cuExtra).toBe(5001);
  });

  it('reports bad input', async () => {
    expectError(await run(store, ['accounts', 'add-cu']), 'accounts add-cu needs an account ID', 'accounts add-cu');
    expectError(
      await run(store, ['accounts', 'add-cu', 'acme']),
      'accounts add-cu needs the number of CU to add',
      'accounts add-cu',
    );
    expectError(
      await run(store, ['accounts', 'add-cu', 'acme', '0']),
      'CU must be a positive integer, got "0"',
      'accounts add-cu',
    );
    expectError(
      await run(store, ['accounts', 'add-cu', 'acme', 'many']),
      'CU must be a positive integer, got "many"',
      'accounts add-cu',
    );
    expectError(
      await run(store, ['accounts', 'add-cu', 'acme', '-5']),
      'CU must be a positive integer, got "-5"',
      'accounts add-cu',
    );
    expectError(
      await run(store, ['accounts', 'add-cu', 'acme', '--json', '-5', '6']),
      'CU must be a positive integer, got "-5"',
      'accounts add-cu',
    );
    expectError(
      await run(store, ['accounts', 'add-cu', 'acme', '5', '6']),
      'unexpected argument "6"',
      'accounts add-cu',
    );
    expectError(
      await run(store, ['accounts', 'add-cu', 'nobody', '5']),
      'no account "nobody" (evm-integrity accounts list shows the accounts)',
    );
    expect((await store.usage('acme', NOW)).cuExtra).toBe(0);
  });
});

describe('accounts update', () => {
  it('--chains takes chains by id or name, as --chain does, each once', async () => {
    await createAcme();
    expect((await run(store, ['accounts', 'update', 'acme', '--chains', '1,mainnet,Base,0xa'])).code).toBe(0);
    expect((await store.getAccount('acme'))?.entitlements).toMatchObject({ chains: [1, 8453, 10] });
  });

  it('changes only what is given; all puts an entitlement back to every endpoint or chain', async () => {
    await createAcme();
    const later = new Date('2024-02-10T00:00:00.000Z');
    const result = await run(
      store,
      [
        'accounts',
        'update',
        'acme',
        '--rps',
        '9',
        '--cu-limit',
        '2_000',
        '--chains',
        '1,10',
        '--endpoints',
        '/v1/evm/verify/logs-bloom',
      ],
      later,
    );
    expect(result.code).toBe(0);
    expect(result.stdout.split('\n')[0]).toBe(
      'Updated account acme (Acme); the server applies it from the next request',
    );
    expect(await store.getAccount('acme')).toMatchObject({
      name: 'Acme',
      plan: 'self-hosted',
      cuLimit: 2000,
      rateLimitRps: 9,
      entitlements: { endpoints: ['verify/logs-bloom'], chains: [1, 10] },
      periodAnchor: NOW.toISOString(),
    });
    expect(
      (await run(store, ['accounts', 'update', 'acme', '--name', 'Acme 2', '--plan', 'pro', '--chains', 'all'])).code,
    ).toBe(0);
    expect(await store.getAccount('acme')).toMatchObject({
      name: 'Acme 2',
      plan: 'pro',
      rateLimitRps: 9,
      entitlements: { endpoints: ['verify/logs-bloom'] },
    });
    expect((await run(store, ['accounts', 'update', 'acme', '--endpoints', 'all'])).code).toBe(0);
    expect((await store.getAccount('acme'))!.entitlements).toBeNull();
    const json = await run(store, ['accounts', 'update', 'acme', '--rps', '4', '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ id: 'acme', rate_limit_rps: 4, usage: { cu_limit: 2000 } });
  });

  it('reports each bad input on one line with exit 2, naming the flag and the value', async () => {
    await createAcme();
    expectError(await run(store, ['accounts', 'update']), `accounts update needs an account ID`, 'accounts update');
    expectError(
      await run(store, ['accounts', 'update', 'acme']),
      `accounts update needs something to change: --name, --plan, --cu-limit, --rps, --endpoints, --chains`,
      'accounts update',
    );
    expectError(
      await run(store, ['accounts', 'update', 'nobody', '--rps', '1']),
      'no account "nobody" (evm-integrity accounts list shows the accounts)',
    );
    expectError(
      await run(store, ['accounts', 'update', 'acme', '--rps', '0']),
      '--rps must be a positive integer, got "0"',
      'accounts update',
    );
    expectError(
      await run(store, ['accounts', 'update', 'acme', '--rps', '-1']),
      '--rps needs a positive integer, and "-1" reads as a flag (to give it as the value: --rps=-1)',
      'accounts update',
    );
    expectError(
      await run(store, ['accounts', 'update', 'acme', '--rps=-1']),
      '--rps must be a positive integer, got "-1"',
      'accounts update',
    );
    expectError(
      await run(store, ['accounts', 'update', 'acme', '--chains', 'mainet']),
      `--chains: "mainet" is not a chain id or a chain's name; evm-integrity chains lists the names`,
      'accounts update',
    );
    expectError(
      await run(store, ['accounts', 'update', 'acme', '--id', 'x']),
      "unknown option '--id'",
      'accounts update',
    );
    expect(await store.getAccount('acme')).toMatchObject({ rateLimitRps: 25, entitlements: null });
  });
});

describe('accounts disable', () => {
  it('revokes every active key of the account: each gets 401 (revoked) from the next request; settings and usage stay', async () => {
    await createAcme();
    const keys = [await run(store, ['keys', 'create', 'acme']), await run(store, ['keys', 'create', 'acme'])].map(
      (r) => /evmi_[\w-]+/.exec(r.stdout)![0],
    );
    const result = await run(store, ['accounts', 'disable', 'acme']);
    const ids = (await store.listKeys('acme')).map((k) => k.id);
    expect(result).toEqual({
      code: 0,
      stdout: `Disabled account acme: revoked 2 keys (${ids.join(', ')}); requests with its keys now get 401.\nIts settings and usage are kept. To enable it again: evm-integrity keys create acme\n`,
      stderr: '',
    });
    for (const key of keys) expect((await store.authenticate(key)).status).toBe('revoked');
    expect(await store.getAccount('acme')).toMatchObject({ cuLimit: 1_000_000 });
    expect((await run(store, ['accounts', 'disable', 'acme'])).stdout).toMatch(
      /^Disabled account acme: it had no active key;/,
    );
    expect(JSON.parse((await run(store, ['accounts', 'disable', 'acme', '--json'])).stdout)).toEqual({
      account_id: 'acme',
      revoked_keys: [],
    });
    expectError(
      await run(store, ['accounts', 'disable', 'nobody']),
      'no account "nobody" (evm-integrity accounts list shows the accounts)',
    );
  });

  it('names the store as it was given in the command that enables it again, as serve does', async () => {
    await createAcme();
    let stdout = '';
    const io = { stdout: (t: string) => (stdout += t), stderr: () => {}, storeFlags: ['--data-dir', './svc data'] };
    expect(await runAdmin(['accounts', 'disable', 'acme'], io, store, () => NOW)).toBe(0);
    expect(stdout).toMatch(/To enable it again: evm-integrity keys create acme --data-dir '\.\/svc data'\n$/);
  });
});

describe('accounts delete', () => {
  it('asks for --yes, naming what would go; with it, the account and its keys are gone', async () => {
    await createAcme();
    const key = /evmi_[\w-]+/.exec((await run(store, ['keys', 'create', 'acme'])).stdout)![0];
    expectError(
      await run(store, ['accounts', 'delete', 'acme']),
      'accounts delete removes account acme, its 1 key, its usage and its request log for good; add --yes to confirm',
      'accounts delete',
    );
    expect(await store.getAccount('acme')).toBeDefined();
    expect(await run(store, ['accounts', 'delete', 'acme', '--yes'])).toEqual({
      code: 0,
      stdout: 'Deleted account acme with its 1 key and 0 logged requests\n',
      stderr: '',
    });
    expect(await store.getAccount('acme')).toBeUndefined();
    expect((await store.authenticate(key)).status).toBe('unknown');
    expectError(
      await run(store, ['accounts', 'delete', 'acme', '--yes']),
      'no account "acme" (evm-integrity accounts list shows the accounts)',
    );
    expectError(
      await run(store, ['accounts', 'delete', 'acme']),
      'no account "acme" (evm-integrity accounts list shows the accounts)',
    );
    expectError(await run(store, ['accounts', 'delete', 'acme', '--yes=1']), '--yes takes no value', 'accounts delete');
  });

  it('with --json: what went', async () => {
    await createAcme();
    expect(JSON.parse((await run(store, ['accounts', 'delete', 'acme', '--yes', '--json'])).stdout)).toEqual({
      account_id: 'acme',
      deleted: true,
      keys: 0,
      requests: 0,
    });
  });
});

describe('keys create', () => {
  beforeEach(createAcme);

  it('prints the key once, with a warning that it will not be shown again', async () => {
    const result = await run(store, ['keys', 'create', 'acme', '--label', 'ci']);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    const key = /^ {2}(evmi_[A-Za-z0-9_-]{43})$/m.exec(result.stdout)?.[1];
    expect(key).toBeDefined();
    const record = (await store.listKeys('acme'))[0]!;
    expect(result.stdout).toBe(
      `Created key ${record.id} for account acme (label "ci"):\n\n  ${key}\n\n` +
        'This key will not be shown again: store it now (an environment variable or a secret manager).\nUse it as: Authorization: Bearer <key>\n',
    );
    expect(await store.authenticate(key!)).toMatchObject({ status: 'active', key: { label: 'ci' } });
  });

  it('with --json: the key in the JSON, the warning on stderr; label defaults to "default"', async () => {
    const result = await run(store, ['keys', 'create', 'acme', '--json']);
    expect(result.code).toBe(0);
    const json = JSON.parse(result.stdout);
    expect(json).toEqual({
      id: json.id,
      account_id: 'acme',
      label: 'default',
      hint: json.key.slice(0, 8),
      status: 'active',
      created_at: NOW.toISOString(),
      revoked_at: null,
      key: json.key,
    });
    expect(result.stderr).toBe(
      'This key will not be shown again: store it now (an environment variable or a secret manager).\n',
    );
    expect((await store.authenticate(json.key)).status).toBe('active');
  });

  it('reports bad input and refusals', async () => {
    expectError(
      await run(store, ['keys', 'create']),
      'keys create needs an ACCOUNT_ID (or --account ID)',
      'keys create',
    );
    expectError(
      await run(store, ['keys', 'create', 'nobody']),
      'no account "nobody" (evm-integrity accounts list shows the accounts)',
    );
    expectError(await run(store, ['keys', 'create', 'acme', '--label', '']), '--label: must be a non-empty string');
    expectError(await run(store, ['keys', 'create', 'acme', '--label']), '--label needs a value', 'keys create');
    expectError(await run(store, ['keys', 'create', 'acme', 'other']), 'unexpected argument "other"', 'keys create');
    for (let i = 0; i < 5; i++) expect((await run(store, ['keys', 'create', 'acme'])).code).toBe(0);
    expectError(
      await run(store, ['keys', 'create', 'acme']),
      'account acme already has 5 active keys; revoke one first (evm-integrity keys revoke ID)',
    );
    expect(await store.listKeys('acme')).toHaveLength(5);
  });
});

describe('keys create whose key standard output does not take', () => {
  beforeEach(createAcme);

  /** `keys create acme` whose standard output fails with EFBIG: the exit status and standard error. */
  async function unshown() {
    let stderr = '';
    const tryStdout = async () => Object.assign(new Error('write EFBIG'), { code: 'EFBIG' });
    const io = {
      stdout: () => {},
      stderr: (t: string) => (stderr += t),
      storeFlags: ['--data-dir', './data'],
      tryStdout,
    };
    const code = await runAdmin(['keys', 'create', 'acme'], io, store, () => NOW);
    return { code, stderr };
  }

  it('a revoke that fails too: says so, with the command that revokes it (the real processes: cli.test.ts)', async () => {
    store.revokeKey = async () => {
      throw new Error('database is locked');
    };
    const result = await unshown();
    const [key] = await store.listKeys('acme');
    expect(result).toEqual({
      code: 2,
      stderr: `evm-integrity: the new key ${key!.id} of account acme could not be shown (standard output: cannot write it: the file is larger than this process may write (ulimit -f)), and revoking it failed (database is locked); revoke it: evm-integrity keys revoke ${key!.id} --data-dir ./data\n`,
    });
    expect(key!.revokedAt).toBeNull();
  });
});

describe('keys create --account ID', () => {
  it('names the account as ACCOUNT_ID does; both given must agree', async () => {
    await createAcme();
    expect((await run(store, ['keys', 'create', '--account', 'acme', '--label', 'ci'])).stdout).toMatch(
      /^Created key key_\w+ for account acme \(label "ci"\)/,
    );
    expect((await run(store, ['keys', 'create', 'acme', '--account', 'acme'])).code).toBe(0);
    expect(JSON.parse((await run(store, ['keys', 'list', '--account', 'acme', '--json'])).stdout)).toHaveLength(2);
    expectError(
      await run(store, ['keys', 'create', 'acme', '--account', 'beta']),
      'ACCOUNT_ID "acme" and --account "beta" name different accounts; give one',
      'keys create',
    );
    expectError(
      await run(store, ['keys', 'create']),
      'keys create needs an ACCOUNT_ID (or --account ID)',
      'keys create',
    );
  });
});

describe('keys list', () => {
  beforeEach(createAcme);

  it('says when there are none', async () => {
    expect((await run(store, ['keys', 'list'])).stdout).toBe(
      'No keys yet. Create one: evm-integrity keys create ACCOUNT_ID\n',
    );
    expect((await run(store, ['keys', 'list', 'acme'])).stdout).toBe(
      'No keys for account acme. Create one: evm-integrity keys create acme\n',
    );
  });

  it('shows hint, label and status, never the key or its hash', async () => {
    await run(store, ['accounts', 'create', '--name', 'Beta']);
    const a = await store.createKey('acme', 'ci', NOW);
    const b = await store.createKey('acme', 'laptop', NOW);
    const c = await store.createKey('beta', 'prod', NOW);
    const hashed = await store.importKey(
      'beta',
      'vault',
      { sha256: createHash('sha256').update('from-vault').digest('hex') },
      NOW,
    );
    await store.revokeKey(b.record.id, new Date('2024-02-01T00:00:00.000Z'));
    const all = await run(store, ['keys', 'list']);
    expect(all.code).toBe(0);
    expect(all.stdout.split('\n')).toEqual([
      `ID${' '.repeat(14)}  ACCOUNT  HINT       LABEL   STATUS                            CREATED`,
      `${a.record.id}  acme     ${a.record.hint}…  ci      active                            ${NOW.toISOString()}`,
      `${b.record.id}  acme     ${b.record.hint}…  laptop  revoked 2024-02-01T00:00:00.000Z  ${NOW.toISOString()}`,
      `${c.record.id}  beta     ${c.record.hint}…  prod    active                            ${NOW.toISOString()}`,
      `${hashed.id}  beta     (no hint)  vault   active                            ${NOW.toISOString()}`,
      '',
    ]);
    const json = JSON.parse((await run(store, ['keys', 'list', 'acme', '--json'])).stdout);
    expect(json).toEqual([
      {
        id: a.record.id,
        account_id: 'acme',
        label: 'ci',
        hint: a.record.hint,
        status: 'active',
        created_at: NOW.toISOString(),
        revoked_at: null,
      },
      {
        id: b.record.id,
        account_id: 'acme',
        label: 'laptop',
        hint: b.record.hint,
        status: 'revoked',
        created_at: NOW.toISOString(),
        revoked_at: '2024-02-01T00:00:00.000Z',
      },
    ]);
    const everything = all.stdout + (await run(store, ['keys', 'list', '--json'])).stdout;
    for (const { key, record } of [a, b, c]) {
      expect(everything).not.toContain(key);
      expect(everything).not.toContain(record.hash);
    }
    expect(everything).not.toContain(hashed.hash);
  });

  it('reports an unknown account', async () => {
    expectError(
      await run(store, ['keys', 'list', 'nobody']),
      'no account "nobody" (evm-integrity accounts list shows the accounts)',
    );
    expectError(await run(store, ['keys', 'list', 'acme', 'x']), 'unexpected argument "x"', 'keys list');
  });
});

describe('keys revoke', () => {
  beforeEach(createAcme);

  it('revokes by id or by hint; a second revocation says so', async () => {
    const a = await store.createKey('acme', 'ci', NOW);
    expect(await run(store, ['keys', 'revoke', a.record.id])).toEqual({
      code: 0,
      stdout: `Revoked key ${a.record.id} (${a.record.hint}…, label "ci") of account acme: requests with it now get 401\n`,
      stderr: '',
    });
    expect((await store.authenticate(a.key)).status).toBe('revoked');
    const later = new Date('2024-02-01T00:00:00.000Z');
    expect((await run(store, ['keys', 'revoke', a.record.hint], later)).stdout).toBe(
      `Key ${a.record.id} (${a.record.hint}…) of account acme was already revoked at ${NOW.toISOString()}\n`,
    );
    const b = await store.createKey('acme', 'laptop', NOW);
    const json = JSON.parse((await run(store, ['keys', 'revoke', b.record.hint, '--json'], later)).stdout);
    expect(json).toEqual({
      id: b.record.id,
      account_id: 'acme',
      label: 'laptop',
      hint: b.record.hint,
      status: 'revoked',
      created_at: NOW.toISOString(),
      revoked_at: later.toISOString(),
      already_revoked: false,
    });
    expect(
      JSON.parse((await run(store, ['keys', 'revoke', b.record.id, '--json'], later)).stdout).already_revoked,
    ).toBe(true);
  });

  it('reports bad input', async () => {
    expectError(await run(store, ['keys', 'revoke']), 'keys revoke needs a key ID or hint', 'keys revoke');
    expectError(
      await run(store, ['keys', 'revoke', 'key_nope']),
      'no key with id or hint "key_nope" (evm-integrity keys list shows them)',
    );
    expectError(await run(store, ['keys', 'revoke', 'a', 'b']), 'unexpected argument "b"', 'keys revoke');
    const x = await store.importKey('acme', 'x', { plain: 'same-hint-xxxxxxxxxxxxxxxxxxxxxxxxxxxxx' }, NOW);
    const y = await store.importKey('acme', 'y', { plain: 'same-hint-yyyyyyyyyyyyyyyyyyyyyyyyyyyyy' }, NOW);
    expectError(
      await run(store, ['keys', 'revoke', 'same-hin']),
      `hint same-hin matches 2 keys (${x.id}, ${y.id}); revoke by key id`,
    );
  });
});

describe('commands and help', () => {
  it('reports unknown or missing commands', async () => {
    expectError(
      await run(store, []),
      'say what to do: accounts create|list|add-cu|update|disable|delete or keys create|list|revoke (evm-integrity accounts --help)',
    );
    expectError(await run(store, ['users', 'list']), 'unknown command "users"; expected accounts or keys');
    expectError(
      await run(store, ['accounts']),
      'accounts needs a command: create, list, add-cu, update, disable, delete',
      'accounts',
    );
    expectError(await run(store, ['keys', '--json']), 'keys needs a command: create, list, revoke', 'keys');
    expectError(
      await run(store, ['keys', 'rotate']),
      'unknown command "keys rotate"; expected one of create, list, revoke',
      'keys',
    );
  });

  it('prints help on stdout with exit 0', async () => {
    for (const args of [['--help'], ['help'], ['accounts', '--help'], ['keys', 'help']]) {
      const result = await run(store, args);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('evm-integrity keys revoke ID_OR_HINT');
      expect(result.stderr).toBe('');
    }
    expect((await run(store, ['keys', 'create', '--help'])).stdout).toMatch(
      /^usage: evm-integrity keys create ACCOUNT_ID \[--label L\]\n/,
    );
  });

  it('turns an unexpected fault into one line, exit 3 as every command of the CLI, no stack trace', async () => {
    const broken = new MemoryStore();
    broken.listAccounts = () => {
      throw new Error('disk I/O error\n    at somewhere (file.js:1:1)');
    };
    expect(await run(broken, ['accounts', 'list'])).toEqual({
      code: 3,
      stdout: '',
      stderr: 'evm-integrity: accounts list failed: disk I/O error\n',
    });
  });
});
