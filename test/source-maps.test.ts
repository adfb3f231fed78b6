/**
 * The packages as npm ships them tell where an error comes from: packed (the built dist/, as `npm pack` takes it),
 * unpacked into a project of their own, an error thrown through the library, the service and the bundled CLI is
 * traced by `node --enable-source-maps` to a line of a `src/…ts` file, whose text the shipped source maps carry
 * (src/ is not shipped).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PACKAGES = { 'evm-integrity': 'packages/core', '@evm-integrity/service': 'packages/service' } as const;
type PackageName = keyof typeof PACKAGES;

/** Each call through the installed packages that throws, and the package whose source the error should name. */
const PROBE = `
const stacks = [];
async function attempt(run) {
  try {
    await run();
    stacks.push('nothing was thrown');
  } catch (error) {
    stacks.push(error.stack);
  }
}
const core = await import('evm-integrity');
await attempt(() =>
  core.encodeReceipt({ type: 99, status: 1, cumulativeGasUsed: 0n, logs: [] }, { rules: core.RULE_SETS.ethereum }),
);
const service = await import('@evm-integrity/service');
await attempt(() => service.parseConfig({ not_a_member: 1 }));
const cli = await import('./node_modules/@evm-integrity/service/dist/cli-bundle/main.js');
const failing = { stdout() { throw new Error('a reader that fails'); }, stderr() {} };
await attempt(() => cli.main(['--version'], failing));
process.stdout.write(JSON.stringify(stacks));
`;
const EXPECTED: PackageName[] = ['evm-integrity', '@evm-integrity/service', '@evm-integrity/service'];

let project = '';

beforeAll(() => {
  project = mkdtempSync(join(tmpdir(), 'source-maps-'));
  const packed = JSON.parse(
    execFileSync(
      'npm',
      [
        'pack',
        '--json',
        '--ignore-scripts',
        '--pack-destination',
        project,
        ...Object.keys(PACKAGES).flatMap((name) => ['-w', name]),
      ],
      { cwd: ROOT, encoding: 'utf8' },
    ),
  ) as Array<{ name: PackageName; filename: string }>;
  const modules = join(project, 'node_modules');
  for (const { name, filename } of packed) {
    const dir = join(modules, name);
    mkdirSync(dir, { recursive: true });
    execFileSync('tar', ['-xzf', join(project, filename), '-C', dir, '--strip-components=1']);
    // Their dependencies as the repository installed them, offline.
    const { dependencies = {} } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
      dependencies?: Record<string, string>;
    };
    for (const dependency of Object.keys(dependencies).filter((d) => !(d in PACKAGES))) {
      mkdirSync(dirname(join(modules, dependency)), { recursive: true });
      symlinkSync(join(ROOT, 'node_modules', dependency), join(modules, dependency), 'dir');
    }
  }
  writeFileSync(join(project, 'package.json'), '{"private":true,"type":"module"}\n');
  writeFileSync(join(project, 'probe.mjs'), PROBE);
}, 60_000);

afterAll(() => {
  if (project !== '') rmSync(project, { recursive: true, force: true });
});

/** Every source a shipped map of `pkg` names, by the path it resolves to, with the text the map carries. */
function shippedSources(pkg: string): Map<string, string | null> {
  const sources = new Map<string, string | null>();
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.js.map')) {
        const map = JSON.parse(readFileSync(path, 'utf8')) as {
          sources: string[];
          sourcesContent?: Array<string | null>;
          sourceRoot?: string;
        };
        map.sources.forEach((source, i) =>
          sources.set(resolve(dirname(path), map.sourceRoot ?? '', source), map.sourcesContent?.[i] ?? null),
        );
      }
    }
  };
  walk(join(pkg, 'dist'));
  return sources;
}

describe('the packed packages’ source maps', () => {
  it('trace an error through the library, the service and the bundled CLI to a line of src/ whose text they carry', () => {
    const stacks = JSON.parse(
      execFileSync(process.execPath, ['--enable-source-maps', 'probe.mjs'], { cwd: project, encoding: 'utf8' }),
    ) as string[];
    expect(stacks).toHaveLength(EXPECTED.length);
    stacks.forEach((stack, i) => {
      const name = EXPECTED[i]!;
      const pkg = join(project, 'node_modules', name);
      // The innermost frame in the package: a file of its src/, not of dist/.
      const frame = [...stack.matchAll(/\(?(\/[^\s()]+):(\d+):\d+\)?$/gm)].find(([, file]) =>
        file!.startsWith(`${pkg}/`),
      );
      expect(frame, stack).toBeDefined();
      const [, file, line] = frame!;
      const source = relative(pkg, file!);
      expect(source, stack).toMatch(/^src\/.+\.ts$/);
      // The text of that line, from the shipped map, is the repository's.
      const text = shippedSources(pkg).get(file!);
      expect(text, `${source}: no text in the shipped maps`).toEqual(expect.any(String));
      const shipped = text!.split('\n')[Number(line) - 1];
      const repository = readFileSync(join(ROOT, PACKAGES[name], source), 'utf8').split('\n')[Number(line) - 1];
      expect(shipped?.trim(), `${source}:${line}`).not.toBe('');
      expect(shipped).toBe(repository);
    });
  });
});
