import { fileURLToPath } from 'node:url';

/**
 * Where the build (scripts/copy-assets.mjs) puts Scalar's bundle: `../../dist/assets` from src/server, dist/server and
 * dist/cli-bundle (where the command line's bundle inlines this module) alike. Hence this file of its own, two folders
 * below the package: one relative path serves all three.
 */
export const SCALAR_BUNDLE = fileURLToPath(new URL('../../dist/assets/scalar-standalone.js', import.meta.url));
