import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BUILTIN_CHAINS } from '../packages/core/src/index.js';
import {
  CHECK_NAMES,
  defaultRegistry,
  describeChain,
  formatBlock,
  type ChainDescription,
  type CheckName,
  type ClaimDescription,
} from '../packages/core/src/chains/registry.js';
import { LINEAGE_LIMITS } from '../packages/core/src/lineage/sources/input-limits.js';
import { DEFAULT_CONFIG, parseConfig } from '../packages/service/src/server/config/config.js';
import { ENDPOINTS } from '../packages/service/src/endpoints/endpoints.js';

/**
 * The repository documents itself: nothing points at files users never get, every relative
 * link of the README and docs/ leads somewhere, and the reference tables that restate code
 * facts (the chain registry, the lineage limits) say what the code says.
 */

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
/** The README's budget: a newcomer's first page, not the reference. */
const README_BYTES = 16_384;
/** The command line as installed: the launcher of the built bundle. */
const BIN = join(ROOT, 'packages/service/bin/evm-integrity.js');
/** Counts as the pages spell them. */
const NUMBERS = ['no', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'];

/** Files of the repository: tracked, plus new ones not ignored (so a mention is caught before it is committed). */
function repositoryFiles(): string[] {
  const out = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  return [...new Set(out.split('\0'))].filter(
    (path) => path !== '' && !path.startsWith('node_modules/') && existsSync(join(ROOT, path)),
  );
}

/** Pieced together so that this file does not mention them itself. */
const FORBIDDEN = [['DECISIONS', 'md'].join('.'), ['..', 'shared'].join('/')];

const MARKDOWN = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** Markdown without fenced code blocks and inline code, where `[a](b)` is not a link. */
const prose = (text: string) => text.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');

/** The anchors a Markdown file has: explicit `<a id>` and GitHub's heading slugs (`-1`, `-2` for repeats). */
function anchorsOf(text: string): Set<string> {
  const anchors = new Set([...text.matchAll(/<a id="([^"]+)"/g)].map((m) => m[1]!));
  const seen = new Map<string, number>();
  for (const [, heading] of text.replace(/^```[\s\S]*?^```/gm, '').matchAll(/^#{1,6} +(.+?) *#*$/gm)) {
    const slug = heading!
      .toLowerCase()
      .replace(/[^\p{L}\p{N} _-]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return anchors;
}

/** Rows of the Markdown table that follows `heading`, as trimmed cells. */
function tableAfter(text: string, heading: string): string[][] {
  const start = text.indexOf(`\n${heading}\n`);
  expect(start, `${heading} is in the page`).toBeGreaterThan(-1);
  const lines = text.slice(start).split('\n');
  const first = lines.findIndex((line) => line.startsWith('|'));
  const end = lines.findIndex((line, i) => i > first && !line.startsWith('|'));
  return lines.slice(first + 2, end).map((line) =>
    line
      .slice(1, -1)
      .split('|')
      .map((cell) => cell.trim()),
  );
}

describe('the repository documents itself', () => {
  it('no file mentions documents that are not in the repository', () => {
    const files = repositoryFiles();
    expect(files.length).toBeGreaterThan(100);
    const mentions = files.flatMap((path) => {
      const text = readFileSync(join(ROOT, path), 'utf8');
      return FORBIDDEN.filter((word) => text.includes(word)).map((word) => `${path}: ${word}`);
    });
    expect(mentions).toEqual([]);
  });

  it('every relative link of README.md and docs/*.md leads to a file, and every #anchor to a heading or <a id>', () => {
    const broken: string[] = [];
    for (const page of MARKDOWN) {
      for (const [, target] of prose(read(page)).matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z][a-z+.-]*:/i.test(target!)) continue; // https:, mailto:
        const [path, anchor] = target!.split('#') as [string, string | undefined];
        const file = path === '' ? page : relative(ROOT, join(ROOT, dirname(page), path));
        if (!existsSync(join(ROOT, file))) broken.push(`${page}: ${target} (no file ${file})`);
        else if (anchor !== undefined && !(file.endsWith('.md') && anchorsOf(read(file)).has(anchor)))
          broken.push(`${page}: ${target} (no anchor #${anchor} in ${file})`);
      }
    }
    expect(broken).toEqual([]);
  });

  it("README.md and docs/*.md link the repository's own files by relative paths, never by its URL", () => {
    const away = MARKDOWN.flatMap((page) =>
      [...prose(read(page)).matchAll(/\]\((https:\/\/github\.com\/evm-integrity\/evm-integrity\/[^)\s]*)\)/g)].map(
        (m) => `${page}: ${m[1]}`,
      ),
    );
    expect(away).toEqual([]);
  });

  it("the service package, which ships docs/ alone, has them link the repository's other files at its URL", () => {
    const shipped = join(ROOT, 'packages/service/docs');
    const pages = readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md'));
    const leaving = pages.flatMap((page) =>
      [...prose(readFileSync(join(shipped, page), 'utf8')).matchAll(/\]\(([^)\s]+)\)/g)]
        .map((m) => m[1]!)
        .filter((target) => target.startsWith('..'))
        .map((target) => `${page}: ${target}`),
    );
    expect(leaving).toEqual([]);
    expect(readFileSync(join(shipped, 'cli.md'), 'utf8')).toContain(
      '](https://github.com/evm-integrity/evm-integrity/blob/main/fixtures/README.md)',
    );
  });

  it("--help and docs/cli.md agree: the overview names every command cli.md lists, each command's flags its section's", () => {
    const help = (...args: string[]) => spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8' }).stdout;
    const cli = read('docs/cli.md');
    const sectionOf = (heading: string) => cli.slice(cli.indexOf(`\n## ${heading}\n`)).split(/\n## /)[1]!;
    /** A command's synopsis in cli.md: the first code block of its section. */
    const synopsis = (heading: string) => /```\n([\s\S]*?)```/.exec(sectionOf(heading))![1]!;
    const flags = (text: string) => [...new Set(text.match(/--[a-z][a-z-]*/g))].sort();
    /** A command's flags as its --help gives them: the usage block, up to the first blank line. */
    const usageFlags = (command: string) => flags(help(command, '--help').split('\n\n')[0]!);
    /** The commands a line names (`verify receipt-root|logs-bloom`: `verify receipt-root`, `verify logs-bloom`). */
    const commandsOf = (line: string) => {
      const words: string[] = [];
      for (const word of line.trim().split(/\s+/).slice(1)) {
        if (words.length === 2 || !/^[a-z][a-z|-]*$/.test(word)) break;
        words.push(word);
      }
      const [group, sub] = words;
      if (group === undefined) return [];
      return sub === undefined ? [group] : sub.split('|').map((one) => `${group} ${one}`);
    };
    const lines = (text: string) => text.split('\n').filter((line) => line.trim().startsWith('evm-integrity '));
    const overview = new Set(
      lines(help('--help'))
        .flatMap(commandsOf)
        .flatMap((c) => [c, c.split(' ')[0]!]),
    );
    const listed = lines(/```\n([\s\S]*?)```/.exec(cli)![1]!).flatMap(commandsOf);
    expect(listed.filter((command) => !overview.has(command))).toEqual([]);
    expect(usageFlags('lineage')).toEqual(flags(synopsis('lineage')));
    expect(usageFlags('serve')).toEqual(flags(synopsis('serve')));
    for (const flag of ['--config', '--store', '--data-dir']) {
      for (const group of ['accounts', 'keys']) expect(help(group, '--help')).toContain(flag);
      expect(help('--help')).toContain(`[${flag} `);
      expect(sectionOf('Accounts and keys')).toContain(`\`${flag} `);
    }
  });

  it('links from README.md into docs/ reach every reference page', () => {
    const linked = new Set([...prose(read('README.md')).matchAll(/\]\((docs\/[^)#\s]+)/g)].map((m) => m[1]));
    expect([...MARKDOWN.filter((page) => page.startsWith('docs/'))].filter((page) => !linked.has(page))).toEqual([]);
  });

  it.each(['packages/core', 'packages/service'])(
    '%s: its README names every entry point, its package.json says where the project lives',
    (dir) => {
      const manifest = JSON.parse(read(`${dir}/package.json`)) as {
        name: string;
        exports: Record<string, unknown>;
        repository?: { url?: string };
        homepage?: string;
        keywords?: string[];
      };
      const readme = read(`${dir}/README.md`);
      const entries = Object.keys(manifest.exports).map((key) =>
        key === '.' ? manifest.name : `${manifest.name}/${key.slice(2)}`,
      );
      expect(entries.filter((entry) => !readme.includes(`\`${entry}\``))).toEqual([]);
      expect(manifest.repository?.url).toMatch(/^git\+https:\/\//);
      expect(manifest.homepage).toMatch(/^https:\/\//);
      expect(manifest.keywords?.length).toBeGreaterThan(3);
    },
  );

  it('docs/chains.md lists the chain registry, its eras and their evidence as the code holds them', () => {
    const page = read('docs/chains.md');
    const chains = defaultRegistry.list().map(describeChain);
    /** A check's cell: the real blocks that show it, and `registry` where its registry entry does too; or no. */
    const cell = (claim: ClaimDescription | undefined) =>
      claim?.verified === true && claim.evidence !== 'configured'
        ? [...claim.evidence.map((e) => e.fixture), ...(claim.registry ? ['registry'] : [])].join(', ')
        : 'no';
    /** Over a chain's eras: yes when every era claims the check, no when none does, else by era. */
    const coverage = (chain: ChainDescription, check: CheckName) => {
      const claimed = (chain.eras ?? []).map((era) => era.checks?.[check].verified === true);
      return claimed.length > 0 && claimed.every(Boolean) ? 'yes' : claimed.some(Boolean) ? 'by era' : 'no';
    };
    expect(tableAfter(page, '## Built-in chains')).toEqual(
      chains.map((c) => [
        String(c.chain_id),
        c.name,
        `\`${c.rules}\``,
        ...CHECK_NAMES.map((check) => coverage(c, check)),
      ]),
    );
    expect(tableAfter(page, '## Eras')).toEqual(
      chains.flatMap((c) =>
        (c.eras ?? []).map((era) => [
          String(c.chain_id),
          c.name,
          era.name,
          formatBlock(era.first_block),
          era.last_block === null ? '' : formatBlock(era.last_block),
          `\`${era.header}\``,
          `\`${era.rules}\``,
          ...CHECK_NAMES.map((check) => cell(era.checks?.[check])),
          era.state_sync ?? '',
        ]),
      ),
    );
    expect(tableAfter(page, '### Registry evidence')).toEqual(
      [...BUILTIN_CHAINS]
        .sort((a, b) => a.chainId - b.chainId)
        .flatMap((c) =>
          (c.eras ?? []).flatMap(({ name, registry }) =>
            registry === undefined
              ? []
              : [
                  [
                    String(c.chainId),
                    c.name,
                    name,
                    registry.repository,
                    `\`${registry.path}\``,
                    registry.commit.slice(0, 8),
                  ],
                ],
          ),
        ),
    );
  });

  it("docs/chains.md's coverage table counts the chains by what they verify and on which evidence", () => {
    const chains = defaultRegistry.list().map(describeChain);
    /** What a chain verifies and on what: its receipts on its own blocks or its registry entry, its hash, or nothing. */
    const rowOf = (c: ChainDescription): [string, string] => {
      if (!c.verifiable) return ['nothing', 'cannot be verified'];
      const checks = (c.eras ?? []).flatMap((era) => (era.checks ? [era.checks] : []));
      const receipts = checks.map((k) => k.receipts_root);
      const own = receipts.some((k) => k.verified && k.evidence !== 'configured' && k.evidence.length > 0);
      if (own) return ['receipts, bloom and block hash', '`shipped`'];
      if (receipts.some((k) => k.verified && k.registry !== undefined))
        return ['receipts, bloom and block hash', '`registry`'];
      if (checks.some((k) => k.block_hash.verified)) return ['block hash', '`shipped`'];
      return ['nothing yet', 'no real block'];
    };
    const rows = tableAfter(read('docs/chains.md'), '### Coverage');
    const counted = rows.map(([verifies, on, count, names]) => {
      const listed = names!.split(', ');
      expect(
        listed.map((name) => rowOf(chains.find((c) => c.name === name)!)),
        `${verifies} on ${on}`,
      ).toEqual(listed.map(() => [verifies, on]));
      expect(Number(count)).toBe(listed.length);
      return listed;
    });
    expect(counted.flat().sort()).toEqual(chains.map((c) => c.name).sort());
    const page = read('docs/chains.md');
    const verifying = rows.filter(([verifies]) => verifies!.startsWith('receipts'));
    expect(page).toContain(`The registry knows ${chains.length} chains`);
    expect(page).toContain(`**${verifying.reduce((n, [, , count]) => n + Number(count), 0)} chains verify receipts**`);
    const countOf = (verifies: string, on: string) => rows.find((row) => row[0] === verifies && row[1] === on)![2];
    expect(page.replace(/\s+/g, ' ')).toContain(
      `${countOf('receipts, bloom and block hash', '`shipped`')} on shipped blocks of their own and ${countOf('receipts, bloom and block hash', '`registry`')} on registry evidence`,
    );
    expect(page.replace(/\s+/g, ' ')).toContain(`${countOf('block hash', '`shipped`')} more verify their block hash`);
  });

  it('docs/lineage.md lists LINEAGE_LIMITS with their values', () => {
    const rows = tableAfter(read('docs/lineage.md'), '## Limits');
    expect(rows.map(([, name, value]) => [name, value])).toEqual(
      Object.entries(LINEAGE_LIMITS).map(([name, value]) => [`\`${name}\``, formatBlock(value)]),
    );
  });

  it("docs/api.md's routes and docs/service.md's metering give each verify endpoint's CU as ENDPOINTS declares them", () => {
    const routes = tableAfter(
      read('docs/api.md'),
      "- Errors are the hosted service's envelope; each code is explained in [errors.md](errors.md).",
    );
    expect(routes.filter(([route]) => route!.startsWith('`POST')).map(([route, , cu]) => [route, cu])).toEqual(
      ENDPOINTS.map((endpoint) => [
        `\`POST /v1${endpoint.path}\``,
        endpoint.cuPerMiB === undefined
          ? `${endpoint.cu}`
          : `${endpoint.cu}, plus ${endpoint.cuPerMiB} per full MiB of body`,
      ]),
    );
    const service = read('docs/service.md');
    const metering = service.slice(service.indexOf('\nEach verify request costs ')).split('\n\n')[0]!;
    expect(new Set(ENDPOINTS.map((endpoint) => endpoint.cu))).toEqual(new Set([1]));
    expect(metering).toMatch(/^\nEach verify request costs 1 CU when answered 2xx;/);
    // The endpoints it names as charged by the MiB, each 1 CU a MiB.
    expect([...metering.matchAll(/`(verify\/[a-z-]+)`/g)].map(([, name]) => name)).toEqual(
      ENDPOINTS.filter((endpoint) => endpoint.cuPerMiB !== undefined).map((endpoint) => endpoint.name),
    );
    expect(new Set(ENDPOINTS.map((endpoint) => endpoint.cuPerMiB ?? 1))).toEqual(new Set([1]));
  });

  it('docs/service.md lists every configuration member with its default', () => {
    const refusal = (() => {
      try {
        parseConfig({ not_a_member: 1 });
      } catch (error) {
        return (error as Error).message;
      }
      return '';
    })();
    const known = refusal.split('known: ')[1]!.split(', ');
    const rows = tableAfter(read('docs/service.md'), '## Members');
    expect(rows.map(([member]) => member!.replace(/`/g, '')).sort()).toEqual([...known].sort());
    for (const [member, documented] of rows) {
      const name = member!.replace(/`/g, '');
      const value = (DEFAULT_CONFIG as unknown as Record<string, unknown>)[
        name.replace(/_(\w)/g, (_, c: string) => c.toUpperCase())
      ];
      const shown = Array.isArray(value) ? '[]' : String(value);
      expect(documented!.replace(/`/g, '').split(' ')[0], name).toBe(shown);
    }
  });

  it('README.md is at most 16 KB: what it is, install, an example each, what it checks; the rest is in docs/', () => {
    expect(Buffer.byteLength(read('README.md'))).toBeLessThanOrEqual(README_BYTES);
  });

  it('every README example whose output is shown prints that output (… stands for any text)', () => {
    const examples = [...read('README.md').matchAll(/^```sh\n([\s\S]*?)^```/gm)].flatMap(([, block]) =>
      // A command follows `$ `; its output is the lines up to the next command.
      block!
        .split(/^\$ /m)
        .slice(1)
        .map((chunk) => {
          const [command, ...output] = chunk.trimEnd().split('\n');
          return { command: command!, output: output.join('\n') };
        })
        .filter(({ output }) => output !== ''),
    );
    expect(examples.length).toBeGreaterThan(0);
    for (const { command, output } of examples) {
      const run = spawnSync('bash', ['-c', command.replaceAll('npx evm-integrity', `'${process.execPath}' '${BIN}'`)], {
        cwd: ROOT,
        encoding: 'utf8',
        env: { ...process.env, ETH_RPC_URL: '' },
      });
      const shown = output.split('…').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
      expect(run.stdout.trimEnd(), command).toMatch(new RegExp(`^${shown.join('[\\s\\S]*?')}$`));
    }
  });

  it("docs/anchor.md's anchor verify example prints what the tool prints, hashes in full (a line … stands for lines; the checkpoint was shown shortened: a user check)", () => {
    const [, command, output] = /^```sh\n\$ (evm-integrity anchor verify [^\n]*)\n([\s\S]*?)^```/m.exec(
      read('docs/anchor.md'),
    )!;
    const run = spawnSync(process.execPath, [BIN, ...command!.split(' ').slice(1)], {
      cwd: join(ROOT, 'fixtures/anchor'),
      encoding: 'utf8',
    });
    const shown = output!
      .trimEnd()
      .split(/^…$/m)
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
    expect(run.stdout + run.stderr.trimEnd()).toMatch(new RegExp(`^${shown.join('[\\s\\S]*?')}$`));
  });

  it('every paragraph of the docs that runs a benchmark from dist-bench/ says to build it first (a fresh clone has none)', () => {
    for (const page of MARKDOWN) {
      for (const paragraph of read(page).split(/\n\s*\n/)) {
        if (/node [^`]*dist-bench\//.test(paragraph))
          expect(paragraph, `${page}: ${paragraph.slice(0, 80)}`).toContain('npx tsc -p tsconfig.bench.json');
      }
    }
  });

  it('docs/library.md lists every entry point of evm-integrity, and it and the README say how many', () => {
    const manifest = JSON.parse(read('packages/core/package.json')) as { name: string; exports: object };
    const entries = Object.keys(manifest.exports).map((key) =>
      key === '.' ? manifest.name : `${manifest.name}/${key.slice(2)}`,
    );
    const page = read('docs/library.md');
    expect(tableAfter(page, '## Entry points').map(([entry]) => entry)).toEqual(
      expect.arrayContaining(entries.map((entry) => `\`${entry}\``)),
    );
    expect(tableAfter(page, '## Entry points')).toHaveLength(entries.length);
    const count = NUMBERS[entries.length];
    expect(page).toContain(`\`evm-integrity\` has ${count} entry points`);
    expect(read('README.md')).toContain(`the ${count} entry points`);
  });

  it('docs/development.md counts the real blocks as fixtures/ holds them', () => {
    const count = (dir: string, prefix = '') =>
      readdirSync(join(ROOT, 'fixtures', dir)).filter((name) => name.startsWith(prefix) && name.endsWith('.json'))
        .length;
    const page = read('docs/development.md').replace(/\s+/g, ' ');
    expect(page).toContain(
      `${count('blocks')} blocks with their complete receipts, ${count('headers')} headers and ${count('unverifiable')} blocks of chains that cannot be verified`,
    );
    expect(page).toContain(`${count('blocks', 'mainnet-')} Ethereum mainnet blocks`);
  });
});
