/**
 * The Dockerfile and compose.yaml, checked without a Docker engine: the image is built and started
 * with the README's commands, it runs as a user without privileges and checks /v1/health, and every
 * variable compose.yaml and the Dockerfile set for the service is one the configuration reads.
 * And docs/deploy.md's SQLite backup command, run as written against a running server.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { applyEnvironment, environmentVariables } from '../packages/service/src/server/config/config-env.js';
import { DEFAULT_CONFIG } from '../packages/service/src/server/config/config.js';
import { serveProcess, type ServeProcess } from './helpers/serve-process.js';
import { parseSimpleYaml, type YamlValue } from './helpers/simple-yaml.js';

const read = (path: string) => readFileSync(new URL(`../${path}`, import.meta.url), 'utf8');
const rootPackage = JSON.parse(read('package.json')) as { scripts: Record<string, string> };

/** A Dockerfile instruction: its keyword and its arguments, continuation lines joined. */
interface Instruction {
  keyword: string;
  args: string;
}

/** The stages of the Dockerfile, each its instructions from its FROM. */
function dockerStages(): Instruction[][] {
  const joined = read('Dockerfile')
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('#'))
    .join('\n')
    .replace(/\\\n/g, ' ');
  const stages: Instruction[][] = [];
  for (const line of joined.split('\n')) {
    const match = /^(\w+)\s+(.*)$/.exec(line.trim());
    if (match === null) continue;
    const instruction = { keyword: match[1]!.toUpperCase(), args: match[2]!.replace(/\s+/g, ' ') };
    if (instruction.keyword === 'FROM') stages.push([]);
    stages.at(-1)!.push(instruction);
  }
  return stages;
}

const argsOf = (stage: Instruction[], keyword: string) => stage.filter((i) => i.keyword === keyword).map((i) => i.args);

/** The `KEY=value` pairs of ENV instructions. */
const envOf = (stage: Instruction[]) =>
  argsOf(stage, 'ENV').flatMap((args) => [...args.matchAll(/(\w+)=(\S+)/g)].map((m) => [m[1]!, m[2]!] as const));

const services = () => parseSimpleYaml(read('compose.yaml')).services as Record<string, Record<string, YamlValue>>;

/** The services that run this repository's image (built from its Dockerfile). */
const ours = () => Object.entries(services()).filter(([, service]) => service.build === '.');

describe('Dockerfile', () => {
  it("builds with the README's npm ci and starts with npm start's command", () => {
    const readme = read('README.md');
    expect(readme).toContain('npm ci && npm start');
    // npm ci builds: the README says so, and this is how.
    expect(rootPackage.scripts.prepare).toBe('npm run build');
    const stages = dockerStages();
    expect(stages.length, 'a build stage and a runtime stage').toBeGreaterThanOrEqual(2);
    const [build, runtime] = [stages[0]!, stages.at(-1)!];
    expect(argsOf(build, 'FROM')[0]).toMatch(/ AS build$/);
    expect(argsOf(build, 'RUN')).toContainEqual(expect.stringMatching(/^npm ci( --no-audit| --no-fund)*$/));
    expect(argsOf(runtime, 'RUN')).toContainEqual(expect.stringMatching(/^npm ci --omit=dev --ignore-scripts/));
    expect(JSON.parse(argsOf(runtime, 'CMD')[0]!)).toEqual(rootPackage.scripts.start!.split(' '));
  });

  it('the runtime has what the packages ship, from the build stage', () => {
    const runtime = dockerStages().at(-1)!;
    const copied = argsOf(runtime, 'COPY')
      .filter((args) => args.startsWith('--from=build '))
      .map((args) => args.split(' ')[1]!.replace(/^\/app\//, ''));
    for (const dir of ['packages/core', 'packages/service']) {
      const { files } = JSON.parse(read(`${dir}/package.json`)) as { files: string[] };
      for (const file of files.filter((f) => !['README.md', 'LICENSE'].includes(f)))
        expect(copied, `${dir}/${file}`).toContain(`${dir}/${file}`);
    }
  });

  it('runs as a user without privileges and checks /v1/health', () => {
    const runtime = dockerStages().at(-1)!;
    const user = argsOf(runtime, 'USER');
    expect(user).toHaveLength(1);
    expect(user[0]).not.toMatch(/^(root|0)(:|$)/);
    expect(argsOf(runtime, 'HEALTHCHECK').join(' ')).toMatch(/CMD .*\/v1\/health/);
  });

  it('every EVM_INTEGRITY_ variable it sets is read by the configuration, with a value it takes', () => {
    const set = Object.fromEntries(envOf(dockerStages().at(-1)!).filter(([name]) => name.startsWith('EVM_INTEGRITY_')));
    expect(Object.keys(set).length).toBeGreaterThan(0);
    const read = environmentVariables().map((v) => v.variable);
    for (const name of Object.keys(set)) expect(read, name).toContain(name);
    expect(() => applyEnvironment(DEFAULT_CONFIG, set)).not.toThrow();
  });

  it('.dockerignore keeps what the build needs and drops installed and built files', () => {
    const patterns = read('.dockerignore')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '' && !line.startsWith('#'));
    const ignored = (path: string) =>
      patterns.some((pattern) => {
        const glob = pattern
          .split('**/')
          .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*'))
          .join('(?:.*/)?');
        return new RegExp(`^${glob}(?:/.*)?$`).test(path);
      });
    const needed = ['package.json', 'package-lock.json', 'tsconfig.json', 'docs/service.md'];
    for (const dir of ['packages/core', 'packages/service']) needed.push(`${dir}/package.json`, `${dir}/src/index.ts`);
    needed.push('packages/service/bin/evm-integrity.js', 'packages/service/scripts/bundle-cli.mjs');
    for (const path of needed) expect(ignored(path), path).toBe(false);
    for (const path of ['node_modules/hono', 'packages/core/node_modules/x', 'packages/service/dist/index.js', 'data'])
      expect(ignored(path), path).toBe(true);
  });
});

describe('compose.yaml', () => {
  it('two replicas of the server, each on its own port, PostgreSQL 16 and an audit worker', () => {
    const all = services();
    expect(all.postgres).toMatchObject({ image: 'postgres:16' });
    const servers = ours().filter(([, service]) => service.command === undefined);
    expect(servers.length).toBeGreaterThanOrEqual(2);
    const ports = servers.map(([, service]) => (service.ports as string[])[0]!.split(':').slice(0, -1).join(':'));
    expect(new Set(ports).size).toBe(servers.length);
    const workers = ours().filter(([, service]) => (service.command as string[] | undefined)?.[1] === 'audit-worker');
    expect(workers).toHaveLength(1);
    // The command it runs is the service package's, which the image links onto the PATH.
    const { bin } = JSON.parse(read('packages/service/package.json')) as { bin: Record<string, string> };
    const link = `ln -s /app/packages/service/${bin['evm-integrity']!} /usr/local/bin/evm-integrity`;
    expect(argsOf(dockerStages().at(-1)!, 'RUN').join(' ')).toContain(link);
    expect(workers[0]![1].command).toEqual([
      'evm-integrity',
      'audit-worker',
      '--queue',
      expect.stringMatching(/^postgres:\/\/.*@postgres:5432\//),
    ]);
  });

  it('every variable it sets for the service is read by the configuration, and takes the value it is given', () => {
    const read = environmentVariables().map((v) => v.variable);
    const servers = ours().filter(([, service]) => service.environment !== undefined);
    expect(servers.length).toBeGreaterThanOrEqual(2);
    for (const [name, service] of servers) {
      const env = service.environment as Record<string, string>;
      const unread = Object.keys(env).filter((variable) => !read.includes(variable));
      expect(unread, `${name}: variables no member reads`).toEqual([]);
      expect(applyEnvironment(DEFAULT_CONFIG, env), name).toMatchObject({ store: 'postgres', metricsPort: 9464 });
      // Its public URL is the port it is published on: the bind address (0.0.0.0 in the image) is no address to call.
      const published = (service.ports as string[])[0]!.split(':').slice(0, 2).join(':');
      expect(applyEnvironment(DEFAULT_CONFIG, env).publicUrl, name).toBe(`http://${published}`);
    }
  });

  it('the YAML reader refuses what it does not read', () => {
    expect(() => parseSimpleYaml('a: &x 1\n')).toThrow(/line 1: outside the subset/);
    expect(() => parseSimpleYaml('a:\n  - b: 1\n')).toThrow(/line 2: a map inside a list/);
    expect(() => parseSimpleYaml('a:\n   b: 1\n')).toThrow(/line 2: indent by two spaces/);
    expect(() => parseSimpleYaml('a: |\n  text\n')).toThrow(/line 1: outside the subset/);
    expect(parseSimpleYaml('# c\na:\n  b: "1"\n  c:\n    - x\n    - \'y\'\'s\'\n  d: ["p", "q"]\ne:\n')).toEqual({
      a: { b: '1', c: ['x', "y's"], d: ['p', 'q'] },
      e: null,
    });
  });
});

describe('docs/deploy.md', () => {
  const dirs: string[] = [];
  const running: ServeProcess[] = [];
  afterAll(async () => {
    await Promise.all(running.map((served) => served.stop()));
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it("the SQLite backup it gives, taken while the server runs, is owner-only and restores the store's accounts, keys and usage", async () => {
    const command = read('docs/deploy.md')
      .split('\n')
      .find((line) => line.startsWith('umask 077 && mkdir -p backups && node -e'));
    expect(command).toBeDefined();
    const dir = mkdtempSync(join(tmpdir(), 'evm-integrity-backup-'));
    dirs.push(dir);
    const key = 'evmi_backup-test-key-0123456789abcdefghijklmnop';
    const config = (dataDir: string, accounts: unknown[]) => {
      const file = join(dir, `config-${accounts.length}.json`);
      writeFileSync(file, JSON.stringify({ port: 0, data_dir: dataDir, accounts }));
      return file;
    };
    const verify = (url: string) =>
      fetch(`${url}/v1/evm/verify/receipt-root`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${key}` },
        body: read('fixtures/requests/receipt-root-mainnet-19426587.json'),
      });
    const usage = async (url: string) =>
      (await (await fetch(`${url}/v1/usage`, { headers: { Authorization: `Bearer ${key}` } })).json()) as {
        cu_used: number;
      };

    const original = serveProcess([
      '--config',
      config(join(dir, 'data'), [{ id: 'acme', keys: [{ label: 'ci', key }] }]),
    ]);
    running.push(original);
    const { url } = await original.listening;
    expect((await verify(url)).status).toBe(200);
    const out = execFileSync('sh', ['-c', command!], {
      cwd: dir,
      encoding: 'utf8',
      env: { ...process.env, NODE_PATH: fileURLToPath(new URL('../node_modules', import.meta.url)) },
    });
    expect(out).toBe('backed up\n');
    expect((await verify(url)).status).toBe(200); // after the backup: not in it
    expect(await usage(url)).toMatchObject({ cu_used: 2 });
    expect(await original.stop()).toBe(0);

    const backup = join(dir, 'backups', 'evm-integrity.sqlite');
    expect(statSync(join(dir, 'backups')).mode & 0o777).toBe(0o700); // made by the command, under its umask
    expect(statSync(backup).mode & 0o777).toBe(0o600);
    mkdirSync(join(dir, 'restored'), { mode: 0o700 });
    copyFileSync(backup, join(dir, 'restored', 'evm-integrity.sqlite'));
    const restored = serveProcess(['--config', config(join(dir, 'restored'), [])]);
    running.push(restored);
    const { url: restoredUrl } = await restored.listening;
    expect(await usage(restoredUrl)).toMatchObject({ cu_used: 1 });
    expect(restored.stderr()).not.toMatch(/First start/);
    expect(await restored.stop()).toBe(0);
  });
});
