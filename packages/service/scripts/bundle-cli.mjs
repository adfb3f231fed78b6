// Bundles the command line (dist/cli/main.js and what it imports, the core included) into
// dist/cli-bundle/: a `verify` process then loads a few files instead of about a hundred modules,
// which is most of its start-up time. The commands that need the server (serve, accounts, keys,
// lineage) stay in chunks of their own, loaded only when run; the packages the server uses are
// left to node_modules.
import { build } from 'rolldown';

await build({
  input: new URL('../dist/cli/main.js', import.meta.url).pathname,
  platform: 'node',
  external: ['hono', /^hono\//, '@hono/node-server', 'better-sqlite3', 'pino'],
  output: { dir: new URL('../dist/cli-bundle/', import.meta.url).pathname, format: 'esm' },
  logLevel: 'warn',
});
