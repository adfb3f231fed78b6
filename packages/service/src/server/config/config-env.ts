/**
 * The configuration from the environment: each member of the file as `EVM_INTEGRITY_<MEMBER>`
 * (`data_dir`: `EVM_INTEGRITY_DATA_DIR`), derived from the one list of members, so a member added
 * to the configuration can be set from the environment too. The names platforms assign (`PORT`,
 * `HOST`, `DATABASE_URL`) are aliases.
 */
import { checkConfig, CONFIG_MEMBERS, ConfigError, DEFAULT_CONFIG, parseMembers, type ServerConfig } from './config.js';

/** The variable of `member`: `EVM_INTEGRITY_` and the member in upper case. */
export const variableOf = (member: string) => `EVM_INTEGRITY_${member.toUpperCase()}`;

/**
 * The names platforms and images set, each with the member it stands for. An alias of a member this
 * build does not have is not read.
 */
const ALIASES: Readonly<Record<string, string>> = { PORT: 'port', HOST: 'host', DATABASE_URL: 'database_url' };

/**
 * The `EVM_INTEGRITY_*` variables that are no member and are read elsewhere: the configuration file (`serve`), the
 * marker of an `audit-worker`'s child processes, and the directory of the CI script's Node versions (`.ci/run`).
 */
const NOT_MEMBERS: ReadonlySet<string> = new Set([
  'EVM_INTEGRITY_CONFIG',
  'EVM_INTEGRITY_AUDIT_WORKER_CHILD',
  'EVM_INTEGRITY_CI_NODES',
]);

/** A variable the configuration reads, and the member it sets. */
export interface EnvironmentVariable {
  variable: string;
  member: string;
}

/** Every variable the configuration reads: one per member, then the aliases of the members there are. */
export function environmentVariables(): EnvironmentVariable[] {
  const aliases = Object.entries(ALIASES).filter(([, member]) => CONFIG_MEMBERS.includes(member));
  return [
    ...CONFIG_MEMBERS.map((member) => ({ variable: variableOf(member), member })),
    ...aliases.map(([variable, member]) => ({ variable, member })),
  ];
}

/** True when `member` takes `text` as it is (a host, a path, a URL); else what the member expects. */
function takesText(member: string, text: string): true | string {
  try {
    parseMembers({ [member]: text }, DEFAULT_CONFIG);
    return true;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return error.message.slice(error.message.indexOf(':') + 2);
  }
}

/**
 * The value a variable gives its member: the text itself when the member takes text, else the text
 * read as JSON (a number, `true`, `null`, an array, an object).
 */
function valueOf({ variable, member }: EnvironmentVariable, text: string): unknown {
  const asText = takesText(member, text);
  if (asText === true) return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    // The hint is for members whose value is not text (a number, a boolean, a list); for one that takes text it misleads.
    const field = member.replace(/_(\w)/g, (_, letter: string) => letter.toUpperCase()) as keyof ServerConfig;
    const textual = typeof DEFAULT_CONFIG[field] === 'string' || DEFAULT_CONFIG[field] === null;
    throw new ConfigError(`${variable}: ${asText}${textual ? '' : ' (a value other than text is read as JSON)'}`);
  }
}

/** The edits (insertions, deletions, substitutions, swaps of neighbours) between `a` and `b`. */
function distance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => i + j));
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  return d[a.length]![b.length]!;
}

/**
 * Refuses a set `EVM_INTEGRITY_*` variable that names no member (`EVM_INTEGRITY_PROT`): a typo must not leave the
 * default in its place without a word, as an unknown member of the file does not. Names the closest member's variable.
 */
function refuseUnknownVariables(env: Record<string, string | undefined>): void {
  const members = CONFIG_MEMBERS.map(variableOf);
  for (const [name, text] of Object.entries(env)) {
    if (!name.startsWith('EVM_INTEGRITY_') || text === undefined || text === '') continue;
    if (members.includes(name) || NOT_MEMBERS.has(name)) continue;
    const closest = members.reduce((best, m) => (distance(name, m) < distance(name, best) ? m : best));
    throw new ConfigError(
      `${name}: no such setting; did you mean ${closest}? (each member of the configuration is EVM_INTEGRITY_ and the member in upper case)`,
    );
  }
}

/** A ConfigError about a member, told as the variable's that set it: `EVM_INTEGRITY_PORT: expected …`. */
function told(error: unknown, variableOfMember: ReadonlyMap<string, string>): unknown {
  if (!(error instanceof ConfigError)) return error;
  const named = /^(\w+)(.*)$/s.exec(error.message);
  const variable = named === null ? undefined : variableOfMember.get(named[1]!);
  return variable === undefined ? error : new ConfigError(`${variable}${named![2]}`);
}

/**
 * `config` with the members the environment sets over it, checked together (checkConfig). An empty variable is as if
 * unset. A member set by its variable and by an alias (EVM_INTEGRITY_PORT and PORT) to different values is refused:
 * neither is guessed to win; so is an `EVM_INTEGRITY_*` variable that names no member.
 *
 * @example
 * applyEnvironment(DEFAULT_CONFIG, { EVM_INTEGRITY_METRICS_PORT: '9464', HOST: '0.0.0.0' })
 * // { ...DEFAULT_CONFIG, metricsPort: 9464, host: '0.0.0.0' }
 */
export function applyEnvironment(config: ServerConfig, env: Record<string, string | undefined>): ServerConfig {
  const layer = environmentLayer(config, env);
  return checkConfig(layer.config, (member) => layer.variableOfMember.get(member) ?? member);
}

/**
 * applyEnvironment before the members are checked against one another, and the variable that set each member, for
 * the check to name it once later layers (flags) are merged too.
 */
export function environmentLayer(
  config: ServerConfig,
  env: Record<string, string | undefined>,
): { config: ServerConfig; variableOfMember: ReadonlyMap<string, string> } {
  refuseUnknownVariables(env);
  const json: Record<string, unknown> = {};
  const variableOfMember = new Map<string, string>();
  for (const read of environmentVariables()) {
    const text = env[read.variable];
    if (text === undefined || text === '') continue;
    const earlier = variableOfMember.get(read.member);
    if (earlier !== undefined) {
      if (env[earlier] === text) continue;
      throw new ConfigError(
        // Not the values: one may be a secret (a token, a database URL with its password).
        `${earlier} and ${read.variable} both set ${read.member}, to different values; set one`,
      );
    }
    variableOfMember.set(read.member, read.variable);
    json[read.member] = valueOf(read, text);
  }
  try {
    return { config: parseMembers(json, config), variableOfMember };
  } catch (error) {
    throw told(error, variableOfMember);
  }
}
