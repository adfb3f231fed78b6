import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../src/', import.meta.url));

/** Every module reachable from `entry`, and every bare import they make. */
function reachable(entry: string): { files: Set<string>; external: Set<string> } {
  const files = new Set<string>();
  const external = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    const text = readFileSync(file, 'utf8');
    for (const [, spec] of text.matchAll(/^(?:import|export)\s[^;]*?from\s+'([^']+)'/gms)) {
      if (spec!.startsWith('.')) visit(resolve(dirname(file), spec!.replace(/\.js$/, '.ts')));
      else external.add(spec!);
    }
  };
  visit(resolve(SRC, entry));
  return { files, external };
}

describe('the package root is the pure core', () => {
  it('reaches no node: module and no dependency but @noble/hashes and @ethereumjs/rlp', () => {
    const { files, external } = reachable('index.ts');
    expect(files.size).toBeGreaterThan(20);
    expect([...external].sort()).toEqual(['@ethereumjs/rlp', '@noble/hashes/sha3.js']);
  });

  it('the Node entry is where servers, stores and network sources live', () => {
    const { external } = reachable('node.ts');
    expect([...external]).toEqual(expect.arrayContaining(['hono', '@hono/node-server', 'better-sqlite3', 'node:fs/promises']));
  });
});
