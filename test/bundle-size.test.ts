/**
 * The figure docs/library.md gives for the library's size in a browser: `verifyBlock` bundled from the built package,
 * minified and gzipped, as an application's bundler would ship it.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'rolldown';
import { describe, expect, it } from 'vitest';

const DIST = fileURLToPath(new URL('../packages/core/dist/index.js', import.meta.url));
/** What docs/library.md says: "at most 42 kB gzipped". */
const STATED_KB = 42;
const LIBRARY = readFileSync(new URL('../docs/library.md', import.meta.url), 'utf8');

describe("the library's stated bundle size", () => {
  it(`verifyBlock's minified browser bundle is at most ${STATED_KB} kB gzipped, and reaches no node: module`, async () => {
    const entry = join(mkdtempSync(join(tmpdir(), 'bundle-size-')), 'entry.mjs');
    writeFileSync(entry, `export { verifyBlock } from ${JSON.stringify(DIST)};\n`);
    const { output } = await build({ input: entry, write: false, platform: 'browser', output: { minify: true } });
    const code = output[0].code;
    expect(code).not.toMatch(/from\s*["']node:/);
    expect(gzipSync(code).length / 1000).toBeLessThanOrEqual(STATED_KB);
    expect(LIBRARY).toContain(`at most ${STATED_KB} kB gzipped`);
  });
});
