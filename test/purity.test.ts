/**
 * The architecture, enforced over the import graph of src/: each entry point reaches only what it
 * may, and every module imports only from its own layer or the layers below it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../src/', import.meta.url));

/** The modules each module of src/ imports (relative imports) and the packages it uses. */
function importsOf(file: string): { local: string[]; external: string[] } {
  const text = readFileSync(file, 'utf8');
  const local: string[] = [];
  const external: string[] = [];
  for (const [, spec] of text.matchAll(/^(?:import|export)\s[^;]*?from\s+'([^']+)'/gms)) {
    if (spec!.startsWith('.')) local.push(resolve(dirname(file), spec!.replace(/\.js$/, '.ts')));
    else external.push(spec!);
  }
  return { local, external };
}

/** Every module reachable from `entry`, and every bare import they make. */
function reachable(entry: string): { files: Set<string>; external: Set<string> } {
  const files = new Set<string>();
  const external = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    const { local, external: packages } = importsOf(file);
    for (const p of packages) external.add(p);
    for (const l of local) visit(l);
  };
  visit(resolve(SRC, entry));
  return { files, external };
}

/** The layers, bottom first: a module may import from its own layer and those below, never above. */
const LAYERS: ReadonlyArray<readonly [string, RegExp]> = [
  ['foundation', /^(bytes\/|errors\.ts$|result\.ts$)/],
  ['keccak', /^keccak\//],
  ['receipt types', /^receipts\/types\.ts$/],
  ['trie, bloom, header', /^(trie|bloom|header)\//],
  ['receipts', /^receipts\//],
  ['chains', /^chains\//],
  ['input', /^input\//],
  ['verify', /^verify\//],
  ['lineage', /^lineage\//],
  ['api', /^api\//],
  ['server', /^server\//],
  ['cli', /^cli\//],
  ['entry points', /^(index|node)\.ts$/],
];

const layerOf = (file: string): number => {
  const path = relative(SRC, file);
  const index = LAYERS.findIndex(([, pattern]) => pattern.test(path));
  if (index === -1) throw new Error(`${path} is in no layer: add it to LAYERS`);
  return index;
};

const allModules = (dir = SRC): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? allModules(resolve(dir, entry.name)) : entry.name.endsWith('.ts') ? [resolve(dir, entry.name)] : []));

describe('the layers', () => {
  it('every module imports only from its own layer or below', () => {
    const upward: string[] = [];
    for (const file of allModules()) {
      for (const target of importsOf(file).local) {
        if (layerOf(target) > layerOf(file)) upward.push(`${relative(SRC, file)} (${LAYERS[layerOf(file)]![0]}) imports ${relative(SRC, target)} (${LAYERS[layerOf(target)]![0]})`);
      }
    }
    expect(upward).toEqual([]);
  });

  it('the import graph has no cycle', () => {
    const state = new Map<string, 'open' | 'done'>();
    const cycles: string[] = [];
    const visit = (file: string, path: string[]) => {
      if (state.get(file) === 'done') return;
      if (state.get(file) === 'open') return void cycles.push([...path.slice(path.indexOf(file)), file].map((f) => relative(SRC, f)).join(' -> '));
      state.set(file, 'open');
      for (const target of importsOf(file).local) visit(target, [...path, file]);
      state.set(file, 'done');
    };
    for (const file of allModules()) visit(file, []);
    expect(cycles).toEqual([]);
  });

  it('the layer rule can fail: a module of the core importing the server would be caught', () => {
    expect(layerOf(resolve(SRC, 'server/app.ts'))).toBeGreaterThan(layerOf(resolve(SRC, 'receipts/root.ts')));
    expect(() => layerOf(resolve(SRC, 'stray.ts'))).toThrow(/in no layer/);
  });
});

describe('the entry points', () => {
  it.each(['index.ts', 'api/index.ts', 'lineage/index.ts'])('%s reaches no node: module and no dependency but @noble/hashes and @ethereumjs/rlp', (entry) => {
    const { files, external } = reachable(entry);
    expect(files.size).toBeGreaterThan(5);
    expect([...external].filter((p) => !['@ethereumjs/rlp', '@noble/hashes/sha3.js'].includes(p))).toEqual([]);
  });

  it('the root is the EVM core: it reaches neither the endpoint operations nor lineage', () => {
    const paths = [...reachable('index.ts').files].map((f) => relative(SRC, f));
    expect(paths.filter((p) => /^(api|lineage|server|cli)\//.test(p))).toEqual([]);
  });

  it('the Node entry is where servers, stores and network sources live', () => {
    const { external } = reachable('node.ts');
    expect([...external]).toEqual(expect.arrayContaining(['hono', '@hono/node-server', 'better-sqlite3', 'node:fs/promises']));
  });
});
