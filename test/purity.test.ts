/**
 * The architecture, enforced over the import graph of both packages: each entry point reaches only
 * what it may, every module imports only from its own layer or the layers below it, and the service
 * reaches the core only through the core's published entry points.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const CORE = fileURLToPath(new URL('../packages/core/src/', import.meta.url));
const SERVICE = fileURLToPath(new URL('../packages/service/src/', import.meta.url));
/** The core's entry points, by the specifier the service imports them with. */
const CORE_ENTRIES: Record<string, string> = {
  'evm-integrity': resolve(CORE, 'index.ts'),
  'evm-integrity/api': resolve(CORE, 'api/index.ts'),
  'evm-integrity/lineage': resolve(CORE, 'lineage/index.ts'),
  'evm-integrity/anchor': resolve(CORE, 'anchor/index.ts'),
  'evm-integrity/audit': resolve(CORE, 'audit/index.ts'),
  'evm-integrity/proof': resolve(CORE, 'proof/index.ts'),
  'evm-integrity/node': resolve(CORE, 'node.ts'),
};

/** The specifiers a module's text imports: static `import … from` and `export … from`, and `import('…')` when needed. */
function specifiersIn(text: string): string[] {
  const statics = [...text.matchAll(/^(?:import|export)\s[^;]*?from\s+'([^']+)'/gms)].map(([, spec]) => spec!);
  // A module loaded when first needed is imported all the same: it is part of the graph, its layer and its cycles.
  const dynamics = [...text.matchAll(/\bimport\(\s*'([^']+)'\s*\)/g)].map(([, spec]) => spec!);
  return [...statics, ...dynamics];
}

/** The modules a module imports (relative imports, and the core's entries by name) and the packages it uses. */
function importsOf(file: string, text = readFileSync(file, 'utf8')): { local: string[]; external: string[] } {
  const local: string[] = [];
  const external: string[] = [];
  for (const spec of specifiersIn(text)) {
    if (spec.startsWith('.')) local.push(resolve(dirname(file), spec.replace(/\.js$/, '.ts')));
    else if (CORE_ENTRIES[spec] !== undefined) local.push(CORE_ENTRIES[spec]);
    else external.push(spec);
  }
  // A built-in loaded when first needed is a use of it all the same.
  for (const [, spec] of text.matchAll(/process\.getBuiltinModule\('([^']+)'\)/g)) external.push(spec!);
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
  visit(entry);
  return { files, external };
}

/** The layers, bottom first: a module may import from its own layer and those below, never above. */
const LAYERS: ReadonlyArray<readonly [string, RegExp]> = [
  ['foundation', /^(bytes\/|json\/|wasm\/|errors\.ts$|result\.ts$)/],
  ['keccak', /^keccak\//],
  ['receipt types', /^receipts\/receipt\.ts$/],
  ['trie, bloom, header', /^(trie|bloom|header)\//],
  ['receipts', /^receipts\//],
  ['chains', /^chains\//],
  // A range of logs is proven on its chain's eras (which rules, which header layout, what is shown).
  ['proof', /^proof\//],
  // The beacon-chain anchor: SSZ branches from a checkpoint down to an execution block hash.
  ['anchor', /^anchor\//],
  // What a request body's reader and a JSON-RPC block's share, below both.
  ['input values', /^input\/values\//],
  ['input', /^input\//],
  ['sources', /^sources\//],
  // What a lineage asks of a source, below the bundles and the live sources that give it.
  ['lineage sources', /^lineage\/sources\//],
  ['verify', /^verify\//],
  // How an output file is put in place (the bundle writer's and the CLI's --out).
  ['output files', /^files\//],
  ['bundle', /^bundle\//],
  ['live sources', /^live\//],
  ['lineage', /^lineage\//],
  ['audit', /^audit\//],
  ['api', /^api\//],
  ['core entry points', /^(index|node)\.ts$/],
  ['service error codes', /^error-codes\.ts$/],
  ['metrics', /^metrics\//],
  // What a registry is built from beyond the built-in chains: the chains added, an operator's evidence.
  ['operator evidence', /^evidence\//],
  // A PostgreSQL connection held and a transaction on it, shared by the store and the audit queue.
  ['postgres connections', /^postgres\//],
  ['store', /^store\//],
  ['endpoints', /^endpoints\//],
  ['workers', /^workers\//],
  ['audit queue', /^queue\//],
  ['server', /^server\//],
  ['cli', /^cli\//],
  ['service entry point', /^service\.ts$/],
];

/**
 * A module's path as the layers name it: within the core, or `store/…`, `server/…`, `cli/…`, `service.ts` … in the
 * service.
 */
const pathOf = (file: string) =>
  file.startsWith(SERVICE) ? relative(SERVICE, file).replace(/^index\.ts$/, 'service.ts') : relative(CORE, file);

const layerOf = (file: string): number => {
  const path = pathOf(file);
  const index = LAYERS.findIndex(([, pattern]) => pattern.test(path));
  if (index === -1) throw new Error(`${path} is in no layer: add it to LAYERS`);
  return index;
};

const modulesIn = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? modulesIn(resolve(dir, entry.name))
      : entry.name.endsWith('.ts')
        ? [resolve(dir, entry.name)]
        : [],
  );

const allModules = () => [...modulesIn(CORE), ...modulesIn(SERVICE)];

describe('the layers', () => {
  it('every module imports only from its own layer or below', () => {
    const upward: string[] = [];
    for (const file of allModules()) {
      for (const target of importsOf(file).local) {
        if (layerOf(target) > layerOf(file))
          upward.push(
            `${pathOf(file)} (${LAYERS[layerOf(file)]![0]}) imports ${pathOf(target)} (${LAYERS[layerOf(target)]![0]})`,
          );
      }
    }
    expect(upward).toEqual([]);
  });

  it('the import graph has no cycle', () => {
    const state = new Map<string, 'open' | 'done'>();
    const cycles: string[] = [];
    const visit = (file: string, path: string[]) => {
      if (state.get(file) === 'done') return;
      if (state.get(file) === 'open')
        return void cycles.push([...path.slice(path.indexOf(file)), file].map(pathOf).join(' -> '));
      state.set(file, 'open');
      for (const target of importsOf(file).local) visit(target, [...path, file]);
      state.set(file, 'done');
    };
    for (const file of allModules()) visit(file, []);
    expect(cycles).toEqual([]);
  });

  it('the layer rule can fail: a module of the core importing the server would be caught', () => {
    expect(layerOf(resolve(SERVICE, 'server/app.ts'))).toBeGreaterThan(layerOf(resolve(CORE, 'receipts/root.ts')));
    expect(() => layerOf(resolve(CORE, 'stray.ts'))).toThrow(/in no layer/);
  });

  it('an import loaded when needed counts: a dynamic upward import in the store would be caught', () => {
    const usage = resolve(SERVICE, 'store/usage.ts');
    const text = `${readFileSync(usage, 'utf8')}\nconst app = () => import('../server/app.js');\n`;
    const targets = importsOf(usage, text).local;
    expect(targets).toContain(resolve(SERVICE, 'server/app.ts'));
    expect(targets.some((target) => layerOf(target) > layerOf(usage))).toBe(true);
  });

  it('the service reaches the core only through its entry points, never a relative path into it', () => {
    const reaching = modulesIn(SERVICE).flatMap((file) =>
      importsOf(file)
        .local.filter((target) => !target.startsWith(SERVICE) && !Object.values(CORE_ENTRIES).includes(target))
        .map((target) => `${pathOf(file)} imports ${relative(CORE, target)}`),
    );
    expect(reaching).toEqual([]);
  });

  it('the core never imports the service, nor a package the core does not depend on', () => {
    const core = JSON.parse(readFileSync(new URL('../packages/core/package.json', import.meta.url), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    for (const file of modulesIn(CORE)) {
      expect(
        importsOf(file).local.filter((target) => target.startsWith(SERVICE)),
        pathOf(file),
      ).toEqual([]);
      const packages = importsOf(file)
        .external.filter((p) => !p.startsWith('node:'))
        .map((p) =>
          p
            .split('/')
            .slice(0, p.startsWith('@') ? 2 : 1)
            .join('/'),
        );
      expect(
        packages.filter((p) => core.dependencies[p] === undefined),
        pathOf(file),
      ).toEqual([]);
    }
  });
});

describe('the entry points', () => {
  it.each(['index.ts', 'api/index.ts', 'lineage/index.ts', 'audit/index.ts', 'proof/index.ts', 'anchor/index.ts'])(
    'evm-integrity: %s reaches no node: module and no dependency but @noble/hashes and @ethereumjs/rlp (the anchor: SHA-256 and BLS)',
    (entry) => {
      const { files, external } = reachable(resolve(CORE, entry));
      expect(files.size).toBeGreaterThan(5);
      // The anchor alone hashes with SHA-256 and checks BLS signatures, and the endpoint operations verify anchor
      // proofs with it; every other entry needs Keccak and RLP only.
      const allowed = ['@ethereumjs/rlp', '@noble/hashes/sha3.js'].concat(
        entry === 'anchor/index.ts' || entry === 'api/index.ts'
          ? ['@noble/hashes/sha2.js', '@noble/curves/bls12-381.js']
          : [],
      );
      expect([...external].filter((p) => !allowed.includes(p))).toEqual([]);
    },
  );

  it('the root is the EVM core: it reaches neither the endpoint operations nor lineage', () => {
    const paths = [...reachable(resolve(CORE, 'index.ts')).files].map(pathOf);
    expect(paths.filter((p) => /^(api|lineage|server|cli)\//.test(p))).toEqual([]);
  });

  it.each(Object.keys(CORE_ENTRIES))(
    '%s carries no WebAssembly generator: its modules are loaded as the scripts wrote their bytes',
    (entry) => {
      const generators = ['wasm/emitter.ts', 'keccak/keccak-module.ts', 'json/scan/scan-module.ts'];
      const paths = [...reachable(CORE_ENTRIES[entry]!).files].map(pathOf);
      expect(paths).toContain('keccak/wasm-keccak.ts');
      expect(paths.filter((p) => generators.includes(p))).toEqual([]);
    },
  );

  it('evm-integrity/node holds the network sources: Node built-ins only, no server package', () => {
    const { external } = reachable(resolve(CORE, 'node.ts'));
    expect([...external]).toEqual(expect.arrayContaining(['node:http', 'node:https', 'node:fs/promises']));
    expect(
      [...external].filter((p) => !p.startsWith('node:') && !['@ethereumjs/rlp', '@noble/hashes/sha3.js'].includes(p)),
    ).toEqual([]);
  });

  it('@evm-integrity/service is where the server, its stores and their packages live', () => {
    const { external } = reachable(resolve(SERVICE, 'index.ts'));
    expect([...external]).toEqual(expect.arrayContaining(['hono', '@hono/node-server', 'better-sqlite3']));
  });
});
