/**
 * docs/proofs.md's library example runs as written: taken from the page, it runs in a Node process against the built
 * package (`evm-integrity/proof` resolved as an installed package resolves it, to packages/core/dist), over the 30
 * consecutive mainnet fixture blocks, and proves the 9 logs of the busiest contract there.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { FIXTURES_DIR } from './helpers/fixtures.js';
import { BUSY_2016 } from './helpers/logs-proofs.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const page = readFileSync(join(ROOT, 'docs/proofs.md'), 'utf8');

/** The `ts` code blocks of the section headed `heading` (to the next heading of its level or above). */
function examplesUnder(heading: string): string[] {
  const start = page.indexOf(`\n${heading}\n`);
  expect(start, `${heading} is in docs/proofs.md`).toBeGreaterThan(-1);
  const next = page.slice(start + heading.length + 2).search(/^#{1,3} /m);
  const section = page.slice(start, next === -1 ? undefined : start + heading.length + 2 + next);
  return [...section.matchAll(/^```ts\n([\s\S]*?)^```/gm)].map(([, code]) => code!);
}

/**
 * What the example takes from its surroundings: the range and filter, a header and the receipts of a block by number
 * (the fixtures, read as a node's answers are), and an output that appends to the file the example then reads back.
 */
const GIVEN = `
import { appendFileSync, createReadStream, readFileSync } from 'node:fs';
import { hexToBytes, parseJson, Problems, readRpcBlock } from 'evm-integrity';
const blockOf = (n) => {
  const problems = new Problems();
  const block = readRpcBlock(parseJson(readFileSync(${JSON.stringify(FIXTURES_DIR)} + 'mainnet-' + n + '.json', 'utf8')), problems);
  if (block === undefined) throw new Error(JSON.stringify(problems.list));
  return block;
};
const headerOf = async (n) => blockOf(n).header.complete;
const receiptsOf = async (n) => blockOf(n).receipts;
const fromBlock = 1000001;
const toBlock = 1000030;
const filter = { addresses: [hexToBytes(${JSON.stringify(BUSY_2016)})], topics: [] };
const out = { write: (bytes) => appendFileSync('usdt.elp', bytes) };
`;

/** What the example leaves, printed for the test. */
const SHOWN = `
console.log(JSON.stringify({
  verdict: verdict.ok ? { logs: verdict.value.logs, blocks: verdict.value.blocks } : verdict.error,
  pending: pending.map((log) => [log.blockNumber, log.address]),
}));
`;

describe('docs/proofs.md', () => {
  it('its library example runs as written against the built package, and proves the logs it asks for (was: `const { headHash } = builder.finish()`, a Result, so headHash undefined)', () => {
    const examples = examplesUnder('### The library');
    expect(examples).toHaveLength(1);
    const dir = mkdtempSync(join(tmpdir(), 'proofs-doc-'));
    try {
      // `evm-integrity` as installed: a package in node_modules whose exports lead to its dist/.
      mkdirSync(join(dir, 'node_modules'));
      symlinkSync(join(ROOT, 'packages/core'), join(dir, 'node_modules/evm-integrity'), 'dir');
      // The example's TypeScript is JavaScript as well: run as it is, on every Node the package supports.
      writeFileSync(join(dir, 'example.mjs'), `${GIVEN}\n${examples[0]}\n${SHOWN}`);
      const child = spawnSync(process.execPath, ['example.mjs'], { cwd: dir, encoding: 'utf8' });
      expect(child.stderr).toBe('');
      expect(child.status).toBe(0);
      const { verdict, pending } = JSON.parse(child.stdout) as {
        verdict: { logs: number; blocks: number };
        pending: [string, string][];
      };
      expect(verdict).toEqual({ logs: 9, blocks: 30 });
      expect(pending).toEqual(Array.from({ length: 9 }, () => ['0xf4257', BUSY_2016]));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
