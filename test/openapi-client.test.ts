/**
 * The OpenAPI document as a client generator reads it: openapi-typescript turns the live server's
 * /v1/openapi.json into types, a small openapi-fetch program written against them compiles with
 * `tsc --strict`, and run, it talks to the real server over loopback and reads what it answers,
 * error details included, through those types.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import openapiTS, { astToString } from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../packages/service/src/server/start-server.js';
import { capturingLogger, testConfig } from './helpers/server.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const KEY = 'evmi_openapi-client-test-key-0123456789abcdefghij';
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

/** The client program: every call typed by the generated `paths`, no `any`, no cast of an answer. */
const CLIENT = `import createClient from 'openapi-fetch';
import type { components, paths } from './schema.js';

type InvalidParameter = NonNullable<components['schemas']['ErrorDetails']['invalid_parameters']>[number];

const [baseUrl, key] = process.argv.slice(2) as [string, string];
const client = createClient<paths>({ baseUrl, headers: { Authorization: \`Bearer \${key}\` } });

const health = await client.GET('/health');
const status: 'ok' | undefined = health.data?.status;

const bloom = await client.POST('/evm/verify/logs-bloom', { body: { expected_bloom: '00'.repeat(256), logs: [] } });
const identical: boolean | undefined = bloom.data?.data[0]?.is_identical;
const remaining: string | null = bloom.response.headers.get('X-RateLimit-Remaining');

const bad = await client.POST('/evm/verify/receipt-root', { body: { chain_id: 1, receipt_root: 'xyz', transactions: [] } });
const problems: InvalidParameter[] = bad.error?.error.details?.invalid_parameters ?? [];
const named = problems.map((p) => \`\${p.location}:\${p.name}:\${p.reason}\`);
const code: string | undefined = bad.error?.error.code;

const exclusive = await client.POST('/evm/verify/receipt-root', {
  body: { chain_id: 1, block_number: 20000000, receipt_root: '00'.repeat(32), transactions: [{ index: 0, type: 2, status: 1, cumulative_gas_used: 21000, logs: [] }] },
});
const computed: string | undefined = exclusive.data?.data[0]?.computed_receipt_root;

const usage = await client.GET('/usage');
const used: number | undefined = usage.data?.cu_used;
const resetAt: string | undefined = usage.data?.cu_reset_at;

const unauthorized = await createClient<paths>({ baseUrl }).GET('/usage');
const tokenStatus: 'missing' | 'malformed' | 'unknown' | 'revoked' | undefined = unauthorized.error?.error.details?.token_status;

const lineage = await client.POST('/evm/verify/lineage', {
  body: { chain_id: 1, _tracing_id: '6de20aaa369add444ef78f3be513ba51ecc2', bundle: { exchanges: [] } },
});
const lineageProblem: string | undefined = lineage.error?.error.details?.invalid_parameters?.[0]?.name;

// polygon-pos-9013760's state-sync receipt, by its derived tx_hash, as on Amoy: no real block of Amoy has shown the
// rule, so not verifiable, and named.
const stateSync = await client.POST('/evm/verify/receipt-root', {
  body: {
    chain_id: 80002,
    receipt_root: '00'.repeat(32),
    block_number: 9013760,
    block_hash: '34032490c875e14a38b754852b26436c6ae13f6e9ca12d00ad78c18e1d949be7',
    transactions: [{ index: 0, status: 1, cumulative_gas_used: 0, logs: [], tx_hash: 'f7d733bf8302f315568ce632aae61e3f18f29c33852a98b228ab5689b77c788f' }],
  },
});
const excludedTx: string | undefined = stateSync.error?.error.details?.excluded_receipts?.[0]?.tx_hash;

console.log(JSON.stringify({ status, identical, remaining, code, named, computed, used, resetAt, tokenStatus, lineageProblem, excludedTx }));
`;

let server: RunningServer;
let dir: string;

beforeAll(async () => {
  server = await startServer(
    testConfig({
      host: '127.0.0.1',
      accounts: [
        {
          id: 'client',
          name: 'client',
          plan: 'pro',
          cuLimit: 1000,
          rateLimitRps: 1000,
          entitlements: null,
          keys: [{ label: 'gen', key: KEY }],
        },
      ],
    }),
    { logger: capturingLogger().logger },
  );
  // Under node_modules, so the program resolves openapi-fetch and @types/node as the repository does.
  const cache = join(ROOT, 'node_modules', '.cache');
  mkdirSync(cache, { recursive: true });
  dir = mkdtempSync(join(cache, 'openapi-client-'));
});
afterAll(async () => {
  await server?.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

describe('a strict TypeScript client generated from /v1/openapi.json', () => {
  it(
    'compiles with tsc --strict and reads every answer through the generated types, error details included',
    { timeout: 120_000 },
    async () => {
      const document = await (await fetch(`${server.url}/v1/openapi.json`)).text();
      const types = astToString(await openapiTS(document));
      expect(types).toContain('ErrorEnvelope');
      expect(types).not.toMatch(/\bError: \{/);
      writeFileSync(join(dir, 'schema.ts'), types);
      writeFileSync(join(dir, 'client.ts'), CLIENT);
      writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
      writeFileSync(
        join(dir, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: {
            strict: true,
            noUncheckedIndexedAccess: true,
            exactOptionalPropertyTypes: true,
            target: 'ES2022',
            module: 'NodeNext',
            moduleResolution: 'NodeNext',
            lib: ['ES2022', 'DOM'],
            types: ['node'],
            outDir: 'out',
            noEmitOnError: true,
          },
          files: ['client.ts', 'schema.ts'],
        }),
      );
      try {
        execFileSync(process.execPath, [TSC, '-p', dir], { encoding: 'utf8' });
      } catch (error) {
        throw new Error(`the generated client does not compile:\n${(error as { stdout: string }).stdout}`);
      }

      // Not execFileSync: the server answers on this thread's event loop.
      const { stdout } = await promisify(execFile)(
        process.execPath,
        [join(dir, 'out', 'client.js'), `${server.url}/v1`, KEY],
        {
          encoding: 'utf8',
          timeout: 60_000,
        },
      );
      const seen = JSON.parse(stdout);
      expect(seen).toMatchObject({
        status: 'ok',
        identical: true,
        remaining: expect.stringMatching(/^\d+$/),
        code: 'BAD_REQUEST',
        named: ['body:receipt_root:invalid_format'],
        computed: expect.stringMatching(/^[0-9a-f]{64}$/),
        used: 2,
        tokenStatus: 'missing',
        lineageProblem: expect.stringMatching(/^bundle/),
        excludedTx: 'f7d733bf8302f315568ce632aae61e3f18f29c33852a98b228ab5689b77c788f',
      });
      expect(Date.parse(seen.resetAt)).toBeGreaterThan(Date.now());
    },
  );
});
