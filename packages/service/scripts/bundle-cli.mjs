// Bundles the command line (dist/cli/main.js and what it imports, the core included) into
// dist/cli-bundle/: a `verify` process then loads one file instead of about a hundred modules,
// which is most of its start-up time. The commands that need the server (serve, accounts, keys,
// lineage) stay in chunks of their own, loaded only when run; the packages the server uses are
// left to node_modules. The worker pool's script is an entry, so that it lands beside the chunk
// that starts the workers, where that chunk looks for it. Each file has a source map that leads
// through the compiled files to src/, whose text it carries (node --enable-source-maps).
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { build } from 'rolldown';
import { parseAst } from 'rolldown/parseAst';

const BUILTIN_IMPORT = /^import (?:\{([^}]*)\}|\* as (\w+)|(\w+)) from "(node:[\w/]+)";$/gm;

/**
 * Node's built-in modules taken with process.getBuiltinModule instead of `import`. An `import` of a
 * built-in builds an ES module facade of all its exports, and reading them all runs the lazy
 * getters behind them (fs.promises loads the promise API): about 3 ms of a `verify` process's
 * start for node:fs and node:util, where getBuiltinModule returns the already loaded module.
 */
const builtinsFromProcess = {
  name: 'builtins-from-process',
  renderChunk(code, _chunk, _options, { magicString }) {
    for (const { 0: line, 1: named, 2: namespace, 3: defaultName, 4: specifier, index } of code.matchAll(
      BUILTIN_IMPORT,
    )) {
      const binding = named === undefined ? (namespace ?? defaultName) : `{${named.replaceAll(' as ', ': ')}}`;
      magicString.overwrite(
        index,
        index + line.length,
        `const ${binding} = process.getBuiltinModule(${JSON.stringify(specifier)});`,
      );
    }
    return magicString;
  },
};

/**
 * The source map tsc wrote beside each compiled file, given to rolldown with its code, so that the
 * bundle's maps lead through the compiled files to src/ (whose text the maps carry, inlineSources).
 */
const compiledSourceMaps = {
  name: 'compiled-source-maps',
  load(id) {
    const map = `${id}.map`;
    if (!existsSync(map)) return null;
    return { code: readFileSync(id, 'utf8'), map: readFileSync(map, 'utf8') };
  },
};

const dist = (path) => new URL(`../dist/${path}`, import.meta.url).pathname;

/**
 * The entries run as a process per block or per range, each with all it imports statically in its
 * own file (main.js: `verify`; audit.js, which main.js loads: `audit`), in place of the chunks
 * rolldown would share between commands; the other commands import what they share with these
 * from them. Every further file costs Node's module loader its resolution, reading and
 * instantiation: a verify block process loaded 5 files (44.6 -> 41.6 ms), a 30-block audit 10
 * (85.9 -> 81.4 ms).
 */
const OWN_FILE = { main: dist('cli/main.js'), audit: dist('cli/audit/audit.js') };

/**
 * The top-level functions of those files compiled with the file rather than at their first call: V8
 * compiles a function in parentheses at once, and Node's compile cache keeps only the code compiled
 * with the file, so a function compiled at its first call was compiled again by every process.
 * `function f(…) {…}` becomes `var f = (function f(…) {…});`, moved above the other top-level code
 * (after the imports), as a declaration is hoisted: top-level code may name a function declared
 * below it. A verify block process compiled about 190 functions at their first call: 42.4 -> 40.2 ms,
 * a 30-block audit 79.5 -> 75.7 ms; a process without the compile cache compiles them all (verify
 * block 44.5 -> 45.3 ms). A function given to a top-level `const` (`const f = (x) => …`, 46 of them in
 * main.js) is put in parentheses for the same reason: verify block 37.7 -> 37.3 ms (medians of six
 * runs of 61 rounds in turn, four of them faster). Class methods and functions inside functions still
 * compile at their first call, in every process: V8 has no such hint for them.
 */
const eagerFunctions = {
  name: 'eager-functions',
  renderChunk(code, chunk, _options, { magicString }) {
    if (!Object.hasOwn(OWN_FILE, chunk.name)) return null;
    const { body } = parseAst(code);
    const top = body.findLast((node) => node.type === 'ImportDeclaration')?.end ?? 0;
    // Moved in order, each lands after the one before it.
    for (const f of body.filter((node) => node.type === 'FunctionDeclaration')) {
      magicString.prependRight(f.start, `\nvar ${f.id.name} = (`).appendLeft(f.end, ');').move(f.start, f.end, top);
    }
    for (const { declarations } of body.filter((node) => node.type === 'VariableDeclaration'))
      for (const { init } of declarations)
        if (init?.type === 'ArrowFunctionExpression' || init?.type === 'FunctionExpression')
          magicString.prependRight(init.start, '(').appendLeft(init.end, ')');
    return magicString;
  },
};

const dir = dist('cli-bundle/');
// A fresh directory: chunk names carry hashes, so older chunks would otherwise pile up.
rmSync(dir, { recursive: true, force: true });

await build({
  input: { ...OWN_FILE, worker: dist('workers/worker.js') },
  // An entry may export what other chunks import from it: the group of an entry is then the entry's
  // own file, not a second file behind a facade.
  preserveEntrySignatures: 'allow-extension',
  platform: 'node',
  external: ['hono', /^hono\//, '@hono/node-server', 'better-sqlite3', 'pino', 'pg', 'pg-boss', 'prom-client'],
  plugins: [compiledSourceMaps, builtinsFromProcess, eagerFunctions],
  // renderChunk's magicString: the plugins' edits keep the source maps right.
  experimental: { nativeMagicString: true },
  output: {
    dir,
    format: 'esm',
    sourcemap: true,
    entryFileNames: '[name].js',
    charset: 'ascii',
    // Earlier groups first: audit.js imports from main.js what main.js holds.
    codeSplitting: {
      groups: Object.entries(OWN_FILE).map(([name, file], i, all) => ({
        name,
        test: (id) => id === file,
        priority: all.length - i,
      })),
    },
    comments: { legal: true, annotation: false, jsdoc: false },
    // Names shortened and whitespace dropped: a process reads, hashes and keeps the text of what it loads, and V8
    // parses a function's text again at its first call: main.js 304 -> 206 KB, a verify block process 2 to 3.5 ms
    // shorter of about 120 (docs/speed.md, "The command line"). Not compressed: 3 KB more off, for a rewrite of
    // the code's expressions that the tests of src/ never ran. Functions keep their names (stack traces, `.name`);
    // the source maps lead to src/ as before.
    minify: { compress: false, mangle: { keepNames: true }, codegen: { removeWhitespace: true } },
  },
  logLevel: 'warn',
});
