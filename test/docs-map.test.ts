/**
 * The map of docs/README.md ("Where things live") cannot drift: every source file of both packages is named in it, by
 * its path (`core/chains/registry.ts`, or its tail where only one file has it: `routes/info-routes.ts`), by its name
 * where no other source file has that name, or by a folder that covers it (`service/workers/`); and every source file
 * it names exists.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const PACKAGES = fileURLToPath(new URL('../packages/', import.meta.url));

/** The source files as the map names them: `core/…` or `service/…`, from their package's `src/`. */
const SOURCES = (['core', 'service'] as const).flatMap((pkg) =>
  readdirSync(`${PACKAGES}${pkg}/src`, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => `${pkg}/${file}`),
);

/** The backticked names of the map's table. */
function mapNames(): string[] {
  const text = readFileSync(new URL('../docs/README.md', import.meta.url), 'utf8');
  const section = text.slice(text.indexOf('\n## Where things live\n'));
  const rows = section.split('\n').filter((line) => line.startsWith('|'));
  return rows.flatMap((row) => [...row.matchAll(/`([^`]+)`/g)].map(([, name]) => name!));
}

/** The files a name of the map stands for: a path or its tail, a file name, or a folder (ending in /). */
function filesNamed(name: string, sources: readonly string[]): string[] {
  if (name.endsWith('/')) return sources.filter((file) => `/${dirname(file)}/`.endsWith(`/${name}`));
  if (!name.endsWith('.ts')) return [];
  return sources.filter((file) => file === name || file.endsWith(`/${name}`) || basename(file) === name);
}

/** The sources no name of the map stands for alone (a name standing for two files names neither). */
function unnamed(sources: readonly string[], names: readonly string[]): string[] {
  const named = new Set(
    names.flatMap((name) => {
      const files = filesNamed(name, sources);
      return name.endsWith('/') || files.length === 1 ? files : [];
    }),
  );
  return sources.filter((file) => !named.has(file));
}

describe('the map of docs/README.md', () => {
  const names = mapNames();

  it('names every source file, one name for one file', () => {
    expect(unnamed(SOURCES, names)).toEqual([]);
  });

  it('names no source file that does not exist', () => {
    const sourceNames = names.filter((name) => /^[\w./-]+\.ts$/.test(name) && !/^(test|scripts|bench)\//.test(name));
    expect(sourceNames.filter((name) => filesNamed(name, SOURCES).length === 0)).toEqual([]);
  });

  it('can fail: a file it does not name, or a name two files share, is caught', () => {
    expect(unnamed([...SOURCES, 'core/stray.ts'], names)).toEqual(['core/stray.ts']);
    expect(unnamed(['core/a/index.ts', 'core/b/index.ts'], ['index.ts'])).toEqual([
      'core/a/index.ts',
      'core/b/index.ts',
    ]);
  });
});
