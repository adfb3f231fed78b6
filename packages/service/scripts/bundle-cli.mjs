// Bundles the command line (dist/cli/main.js and what it imports, the core included) into
// dist/cli-bundle/: a `verify` process then loads a few files instead of about a hundred modules,
// which is most of its start-up time. The commands that need the server (serve, accounts, keys,
// lineage) stay in chunks of their own, loaded only when run; the packages the server uses are
// left to node_modules. The worker pool's script is a second entry, so that it lands beside the
// chunk that starts the workers, where that chunk looks for it.
import { rmSync } from 'node:fs';
import { build } from 'rolldown';

const BUILTIN_IMPORT = /^import (?:\{([^}]*)\}|\* as (\w+)|(\w+)) from "(node:[\w/]+)";$/gm;

/**
 * Node's built-in modules taken with process.getBuiltinModule instead of `import`. An `import` of a
 * built-in builds an ES module facade of all its exports, and reading them all runs the lazy
 * getters behind them (fs.promises loads the promise API): about 3 ms of a `verify` process's
 * start for node:fs and node:util, where getBuiltinModule returns the already loaded module.
 */
const builtinsFromProcess = {
  name: 'builtins-from-process',
  renderChunk(code) {
    return code.replace(BUILTIN_IMPORT, (_, named, namespace, defaultName, specifier) => {
      const binding = named === undefined ? (namespace ?? defaultName) : `{${named.replaceAll(' as ', ': ')}}`;
      return `const ${binding} = process.getBuiltinModule(${JSON.stringify(specifier)});`;
    });
  },
};

const dir = new URL('../dist/cli-bundle/', import.meta.url).pathname;
// A fresh directory: chunk names carry hashes, so older chunks would otherwise pile up.
rmSync(dir, { recursive: true, force: true });

await build({
  input: {
    main: new URL('../dist/cli/main.js', import.meta.url).pathname,
    worker: new URL('../dist/workers/worker.js', import.meta.url).pathname,
  },
  platform: 'node',
  external: ['hono', /^hono\//, '@hono/node-server', 'better-sqlite3', 'pino', 'pg', 'pg-boss', 'prom-client'],
  plugins: [builtinsFromProcess],
  output: {
    dir,
    format: 'esm',
    entryFileNames: '[name].js',
    charset: 'ascii',
    comments: { legal: true, annotation: false, jsdoc: false },
  },
  logLevel: 'warn',
});
