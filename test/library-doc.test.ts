/**
 * docs/library.md against the code: its examples compile as written (a union narrowed where TypeScript needs it), the
 * parsing it tells a pipeline to use refuses what it says, its error table names every code and exported error class,
 * and the entries it says load BLS12-381 are the ones that do.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import * as root from '../packages/core/src/index.js';
import * as api from '../packages/core/src/api/index.js';
import * as anchor from '../packages/core/src/anchor/index.js';
import * as audit from '../packages/core/src/audit/index.js';
import * as lineage from '../packages/core/src/lineage/index.js';
import * as proof from '../packages/core/src/proof/index.js';
import * as node from '../packages/core/src/node.js';
import { loadFixture } from './helpers/fixtures.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const page = readFileSync(join(ROOT, 'docs/library.md'), 'utf8');

/** The `ts` code blocks of the section headed `heading`. */
function examplesUnder(heading: string): string[] {
  const start = page.indexOf(`\n${heading}\n`);
  const end = page.indexOf('\n## ', start + 1);
  const section = page.slice(start, end === -1 ? undefined : end);
  return [...section.matchAll(/^```ts\n([\s\S]*?)^```/gm)].map(([, code]) => code!);
}

/**
 * TypeScript's errors for each module of `modules` (name → code), as modules of the repository (its tsconfig,
 * 'evm-integrity' as the source), compiled in one program.
 */
function compileErrors(modules: Record<string, string>): Record<string, string[]> {
  const config = ts.readConfigFile(join(ROOT, 'tsconfig.json'), (path) => ts.sys.readFile(path));
  const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT);
  const files = new Map(Object.entries(modules).map(([name, code]) => [join(ROOT, 'test', `${name}.ts`), code]));
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, language, ...rest) => {
    const code = files.get(name);
    return code === undefined ? getSourceFile(name, language, ...rest) : ts.createSourceFile(name, code, language);
  };
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (name) => files.has(name) || fileExists(name);
  // An example shows values it computes without using them.
  const program = ts.createProgram([...files.keys()], { ...options, noEmit: true, noUnusedLocals: false }, host);
  return Object.fromEntries(
    [...files.keys()].map((file, i) => [
      Object.keys(modules)[i]!,
      ts
        .getPreEmitDiagnostics(program, program.getSourceFile(file))
        .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n')),
    ]),
  );
}

/** Whether a module, or any it imports (statically or when first needed), imports @noble/curves. */
function reachesCurves(entry: string, seen = new Set<string>()): boolean {
  if (seen.has(entry)) return false;
  seen.add(entry);
  const text = readFileSync(entry, 'utf8');
  const specifiers = [...text.matchAll(/(?:from\s+|import\(\s*)'([^']+)'/g)].map(([, spec]) => spec!);
  if (specifiers.some((spec) => spec.startsWith('@noble/curves'))) return true;
  return specifiers
    .filter((spec) => spec.startsWith('.'))
    .some((spec) => reachesCurves(join(dirname(entry), spec.replace(/\.js$/, '.ts')), seen));
}

/** What the examples take from outside: the node's answers as text. */
const GIVEN = 'declare const headerText: string;\ndeclare const receiptsText: string;\n';

describe('docs/library.md', () => {
  it("its examples compile as written: verifiability's union is narrowed before its rules are used (was: passed as it is)", () => {
    const examples = [...examplesUnder('## One block, one call'), ...examplesUnder('## The lower-level pieces')];
    expect(examples).toHaveLength(2);
    // The narrowing is what makes it compile: the union's rules, used as they come, do not.
    const unnarrowed = examples[1]!.replace(/^if \(era\.status !== 'verifiable'\).*$/m, '');
    const module = (code: string) => `${GIVEN}${code}\nexport {};\n`;
    const errors = compileErrors({
      'library-doc-one-call': module(examples[0]!),
      'library-doc-lower-level': module(examples[1]!),
      'library-doc-unnarrowed': module(unnarrowed),
    });
    expect(errors['library-doc-one-call']).toEqual([]);
    expect(errors['library-doc-lower-level']).toEqual([]);
    expect(errors['library-doc-unnarrowed']!.join('\n')).toMatch(/Property 'rules' does not exist/);
  });

  it('tells a pipeline to parse with parseJson (or verifyBlockBytes), which refuse a member given twice, where JSON.parse keeps the last copy', () => {
    const prose = page.replace(/\s+/g, ' ');
    expect(prose).toContain("**Parse a node's text with `parseJson`, not `JSON.parse`.**");
    for (const example of examplesUnder('## One block, one call').concat(examplesUnder('## The lower-level pieces'))) {
      expect(example).toContain('parseJson(headerText)');
      expect(example).not.toContain('JSON.parse(');
    }
    // A real header, its receiptsRoot given twice: JSON.parse keeps the second; parseJson and verifyBlockBytes refuse.
    const block = loadFixture('mainnet-1000001');
    const header = JSON.stringify(block.header);
    const twice = header.replace('{', `{"receiptsRoot":"0x${'00'.repeat(32)}",`);
    expect((JSON.parse(twice) as { receiptsRoot: string }).receiptsRoot).toBe(block.header.receiptsRoot);
    expect(() => root.parseJson(twice)).toThrow(root.DuplicateMemberError);
    const text = `{"chain_id":1,"header":${twice},"receipts":${JSON.stringify(block.receipts)}}`;
    const refused = api.verifyBlockBytes(new TextEncoder().encode(text));
    expect(!refused.ok && refused.error.kind === 'invalid' && refused.error.problems.map((p) => p.name)).toEqual([
      'header.receiptsRoot',
    ]);
  });

  it('its error table names every code of the library and every error class an entry exports, under an entry that exports it (was: no SSZ_INVALID, ANCHOR_FORMAT, LIGHT_CLIENT_INVALID, RLP_INVALID)', () => {
    const start = page.indexOf('| class (entry)');
    const rows = page
      .slice(start)
      .split('\n')
      .slice(2)
      .filter((line) => line.startsWith('| `'))
      .map((line) => line.split('|').map((cell) => cell.trim()));
    const tabled = new Map(rows.map(([, first, codes]) => [/^`(\w+)`/.exec(first!)![1]!, { first, codes }]));
    const unionText = /export type EvmIntegrityErrorCode =([^;]+);/.exec(
      readFileSync(join(ROOT, 'packages/core/src/errors.ts'), 'utf8'),
    )![1]!;
    const codes = [...unionText.matchAll(/'([A-Z_]+)'/g)].map(([, code]) => code!);
    expect(codes).toEqual(
      expect.arrayContaining(['SSZ_INVALID', 'ANCHOR_FORMAT', 'LIGHT_CLIENT_INVALID', 'RLP_INVALID']),
    );
    const tabledCodes = rows.flatMap(([, , cell]) => [...cell!.matchAll(/`([A-Z_]+)`/g)].map(([, code]) => code!));
    expect(codes.filter((code) => !tabledCodes.includes(code))).toEqual([]);

    const entries: Record<string, object> = {
      'evm-integrity': root,
      'evm-integrity/api': api,
      'evm-integrity/lineage': lineage,
      'evm-integrity/audit': audit,
      'evm-integrity/proof': proof,
      'evm-integrity/anchor': anchor,
      'evm-integrity/node': node,
    };
    const isErrorClass = (value: unknown) => typeof value === 'function' && value.prototype instanceof Error;
    const exported = new Set(
      Object.values(entries).flatMap((members) =>
        Object.entries(members)
          .filter(([name, value]) => isErrorClass(value) && name !== 'EvmIntegrityError')
          .map(([name]) => name),
      ),
    );
    expect([...exported].filter((name) => !tabled.has(name))).toEqual([]);
    for (const name of exported) {
      const entry = /\(`([^`]+)`\)/.exec(tabled.get(name)!.first!)?.[1];
      expect(entry, name).toBeDefined();
      expect(name in entries[entry!]!, `${name} from ${entry}`).toBe(true);
    }
  });

  it('names the entries that load @noble/curves as the import graph has them: /anchor and /api (was: "/anchor alone")', () => {
    const prose = page.replace(/\s+/g, ' ');
    const sentence = prose.slice(prose.indexOf('no dependency but'), prose.indexOf("`verifyBlock`'s minified"));
    expect(sentence).toContain("for `/anchor` and `/api` `@noble/curves`' BLS12-381");
    expect(sentence).not.toContain('alone');
    const CORE = join(ROOT, 'packages/core/src');
    const loading = ['index.ts', 'api/index.ts', 'lineage/index.ts', 'audit/index.ts', 'proof/index.ts']
      .concat(['anchor/index.ts', 'node.ts'])
      .filter((entry) => reachesCurves(join(CORE, entry)));
    expect(loading).toEqual(['api/index.ts', 'anchor/index.ts']);
  });
});
