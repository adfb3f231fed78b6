/**
 * What the command line says of a file it cannot take, run as a real process over the built bundle: every JSON file is
 * read by one reader (a byte order mark allowed, text that is not JSON told on one line with its line and column,
 * never echoing the text), and each refusal says what the user gave and what was expected.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = fileURLToPath(new URL('../packages/service/bin/evm-integrity.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'cli-messages-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the built CLI (npm test builds it first) as an operator would. */
function run(args: string[]) {
  const result = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 30_000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** A file in the test's directory holding `content`. */
function file(name: string, content: string | Uint8Array): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

const BLOCK_FILE = join(ROOT, 'fixtures/blocks/mainnet-1000001.json');
const BLOCK_TEXT = readFileSync(BLOCK_FILE, 'utf8');
const LINEAGE_BUNDLE = readFileSync(join(ROOT, 'fixtures/lineage/pair-reserves-19426587.bundle.json'), 'utf8');
const LINEAGE = ['lineage', '6de20aaa369add444ef78f3be513ba51ecc2', '--chain', '1', '--bundle'];
const AUDIT = ['audit', '--chain', '1', '--from', '1000001', '--to', '1000001', '--bundle'];
const CHECKPOINT = `0x${'11'.repeat(32)}`;
const BOM = '\uFEFF';

/** Each command that reads a JSON file, with the arguments before it. */
const READERS: Array<[string, string[]]> = [
  ['verify block', ['verify', 'block']],
  ['verify receipt-root', ['verify', 'receipt-root']],
  ['verify receipt-proof', ['verify', 'receipt-proof']],
  ['lineage --bundle', LINEAGE],
  ['audit --bundle', AUDIT],
];

describe('a UTF-8 byte order mark is allowed in every JSON file', () => {
  it('lineage --bundle: the same report as without it', () => {
    const plain = run([...LINEAGE, file('lineage.json', LINEAGE_BUNDLE), '--json']);
    const marked = run([...LINEAGE, file('lineage-bom.json', BOM + LINEAGE_BUNDLE), '--json']);
    expect(marked.stderr).toBe(plain.stderr);
    expect([marked.code, marked.stdout]).toEqual([plain.code, plain.stdout]);
    expect(JSON.parse(marked.stdout)).toMatchObject({ summary: { fail: 0 } });
  });

  it('audit --bundle: the block passes', () => {
    const bundle = JSON.stringify({ exchanges: [], blocks: [JSON.parse(BLOCK_TEXT)] });
    const marked = run([...AUDIT, file('audit-bom.json', BOM + bundle)]);
    expect(marked.stderr).toBe('');
    expect(marked.code).toBe(0);
  });

  it('verify block --chain: the chain is given to a block that starts with one and names none', () => {
    const { chain_id: _, ...block } = JSON.parse(BLOCK_TEXT) as Record<string, unknown>;
    const marked = run(['verify', 'block', '--chain', '1', file('no-chain-bom.json', BOM + JSON.stringify(block))]);
    expect([marked.code, marked.stderr]).toEqual([0, '']);
    expect(JSON.parse(marked.stdout)).toMatchObject({ chain_id: 1, verdict: 'identical' });
  });
});

describe('text that is not JSON: one line naming the file, the line and the column, never the text', () => {
  it.each(READERS)('%s', (_name, command) => {
    for (const [content, why] of [
      ['hello\n', `Unexpected token 'h' at line 1 column 1`],
      ['\n\n  hello', `Unexpected token 'h' at line 3 column 3`],
      [
        '<html>\r\n<body>502 Bad Gateway</body>\r\n</html>\n',
        `Unexpected token '<' at line 1 column 1; it looks like an HTML page, not JSON`,
      ],
      ['\u0007{}', 'Unexpected token U+0007 at line 1 column 1'],
      [`${BOM}${BOM}{}`, 'it starts with two byte order marks, U+FEFF; one is allowed'],
    ] as const) {
      const path = file('not-json.json', content);
      const { code, stdout, stderr } = run([...command, path]);
      expect(stderr).toBe(`evm-integrity: ${path}: not JSON (${why})\n`);
      expect([code, stdout]).toEqual([2, '']);
    }
  });

  it('serve --config: one line naming the configuration', () => {
    const path = file('config.json', 'hello\n');
    const { code, stderr } = run(['serve', '--config', path, '--port', '42150', '--store', 'memory']);
    expect(stderr).toBe(
      `evm-integrity: the configuration ${path}: not JSON (Unexpected token 'h' at line 1 column 1)\n`,
    );
    expect(code).toBe(2);
  });

  it('a gzip-compressed file says so, and to decompress it', () => {
    const gzipped = file('block.json.gz', gzipSync(BLOCK_TEXT));
    const said = 'not UTF-8 text: it is gzip-compressed (it starts with the bytes 1f 8b); decompress it first (gunzip)';
    expect(run(['verify', 'block', gzipped])).toMatchObject({
      code: 2,
      stderr: `evm-integrity: ${gzipped}: ${said}\n`,
    });
    expect(run(['anchor', 'verify', gzipped, '--checkpoint', CHECKPOINT])).toMatchObject({
      code: 2,
      stderr: `evm-integrity: ${gzipped}: ${said}\n`,
    });
  });
});

describe('a refusal says what was given and what was expected', () => {
  it('verify block on a block that names no chain_id names the flags that give it', () => {
    const { chain_id: _, ...block } = JSON.parse(BLOCK_TEXT) as Record<string, unknown>;
    const { code, stderr } = run(['verify', 'block', file('no-chain.json', JSON.stringify(block))]);
    expect(code).toBe(2);
    expect(stderr).toMatch(
      /names no chain_id, so its receipt rules are unknown: .*--chain C.*--add-chain ID:RULES.*--rules R/,
    );
  });

  it('serve --data-dir on a file: a directory was expected', () => {
    const path = file('a.json', '{}');
    const { code, stderr } = run(['serve', '--data-dir', path, '--port', '42151']);
    expect(stderr).toBe(
      `evm-integrity: data_dir: cannot create ${JSON.stringify(path)}: it is a file; a directory was expected\n`,
    );
    expect(code).toBe(2);
  });

  it('audit --bundle on a block names the audit bundle it expected; lineage --bundle, the lineage bundle', () => {
    const audit = run([...AUDIT, BLOCK_FILE]);
    expect(audit.stderr).toMatch(
      /: not an audit bundle \(what audit --record writes\): exchanges: .*\(this is a block, not a bundle\)/,
    );
    expect(audit.code).toBe(2);
    const lineage = run([...LINEAGE, BLOCK_FILE]);
    expect(lineage.stderr).toMatch(/: not a lineage bundle \(what lineage --record writes\): exchanges: /);
    expect(lineage.code).toBe(2);
  });

  it('anchor verify on a pretty-printed block says that an anchor proof file is JSON Lines', () => {
    const pretty = file('pretty.json', JSON.stringify(JSON.parse(BLOCK_TEXT), null, 2));
    const { code, stderr } = run(['anchor', 'verify', pretty, '--checkpoint', CHECKPOINT]);
    expect(stderr).toBe(
      `evm-integrity: ${pretty}: not an anchor proof the anchor can verify: line 1 (format): $: not a JSON value; an anchor proof file is JSON Lines, one whole JSON object a line, as anchor prove writes it\n`,
    );
    expect(code).toBe(2);
  });

  it('--rules and --add-chain name a rule set that is none in the one form of every flag', () => {
    const rules = run(['verify', 'block', BLOCK_FILE, '--rules', 'nosuch']);
    const added = run(['verify', 'block', BLOCK_FILE, '--add-chain', '31337:nosuch']);
    const names = 'names no rule set; use one of ethereum, optimism, arbitrum, scroll, polygon';
    expect(rules.stderr.split('\n')[0]).toBe(`evm-integrity: --rules: "nosuch" ${names}`);
    expect(added.stderr.split('\n')[0]).toBe(`evm-integrity: --add-chain: "31337:nosuch" ${names}`);
    expect([rules.code, added.code]).toEqual([2, 2]);
  });

  it("--rules the block does not take is said, not passed over (was: exit 0 in silence, the registry's rules applied: a user check)", () => {
    // A block naming a chain of the registry is verified by that chain's rules: a line on stderr says --rules was not.
    const named = run(['verify', 'block', BLOCK_FILE, '--rules', 'optimism']);
    expect(named.code).toBe(0);
    expect(JSON.parse(named.stdout)).toMatchObject({ chain_id: 1, rules: 'ethereum', verdict: 'identical' });
    expect(named.stderr).toBe(
      `evm-integrity: ${BLOCK_FILE}: --rules optimism not applied: chain 1 is in the registry, and its blocks are verified by its own rules (ethereum)\n`,
    );
    // The same rules as the chain's: nothing to say.
    expect(run(['verify', 'block', BLOCK_FILE, '--rules', 'ethereum']).stderr).toBe('');
    // --chain naming a chain of the registry beside other rules contradicts itself.
    const chained = run(['verify', 'block', BLOCK_FILE, '--chain', '1', '--rules', 'optimism']);
    expect(chained.code).toBe(2);
    expect(chained.stderr.split('\n')[0]).toBe(
      'evm-integrity: --rules optimism is for a block whose chain is outside the registry; --chain 1 is Ethereum Mainnet, verified by its own rules (ethereum): drop --rules',
    );
    // A receipt proof is named a proof, not a body (a user check).
    const proofFile = join(dir, 'proof-of-0.json');
    expect(run(['prove', 'receipt', BLOCK_FILE, '--index', '0', '--out', proofFile]).code).toBe(0);
    const otherChain = run(['verify', 'receipt-proof', proofFile, '--chain', '10']);
    expect(otherChain.code).toBe(2);
    expect(otherChain.stderr.split('\n')[0]).toBe(
      `evm-integrity: ${proofFile}: the proof names chain_id 1, not the --chain 10 given`,
    );
    // The other verify commands read their chain's rules from the registry: --rules there was taken and ignored.
    for (const what of ['receipt-root', 'logs-bloom', 'receipt-proof']) {
      const other = run(['verify', what, BLOCK_FILE, '--rules', 'polygon', '--chain', '1']);
      expect(other.code, what).toBe(2);
      expect(other.stderr.split('\n')[0]).toBe(
        `evm-integrity: --rules is for verify block only: verify ${what} reads its chain's rules from the registry (--add-chain ID:RULES for a chain outside it)`,
      );
    }
  });
});

describe('a value the command line did not write is shown, never sent to the terminal as it is', () => {
  const ESC = '\u001b[31m';
  /** A control character other than the line break ending each line. */
  const hasControl = (text: string) =>
    [...text].some((char) => char !== '\n' && (char.codePointAt(0)! < 0x20 || char.codePointAt(0) === 0x7f));

  it.each([
    [['verify', 'block', BLOCK_FILE, `--bo${ESC}gus`], `unknown option '--boU+001B[31mgus'`],
    [['verify', 'block', BLOCK_FILE, '--chain', `${ESC}x\u0007`], '--chain: "U+001B[31mxU+0007" is not a chain id'],
    [[`${ESC}verify`], 'unknown command "U+001B[31mverify"'],
  ])('%j: one line, its control characters as code points', (args, shown) => {
    const result = run(args);
    expect(result.code).toBe(2);
    expect(hasControl(result.stderr)).toBe(false);
    expect(result.stderr.split('\n')[0]).toContain(shown);
  });

  it('evidence list: a stored --vouched-by is shown with its control characters as code points', () => {
    const evidence = join(dir, 'evidence-ctrl');
    const hash = (JSON.parse(BLOCK_TEXT) as { header: { hash: string } }).header.hash;
    const added = run(
      ['evidence', 'add', BLOCK_FILE, '--trusted-hash', hash, '--vouched-by', `${ESC}evil\u0007`].concat([
        '--evidence-dir',
        evidence,
      ]),
    );
    expect(added.code, added.stderr).toBe(0);
    const listed = run(['evidence', 'list', '--evidence-dir', evidence]);
    expect(listed.code).toBe(0);
    expect(hasControl(listed.stdout)).toBe(false);
    expect(listed.stdout).toContain('vouched by U+001B[31mevilU+0007 at ');
  });

  it("verify block's lines of a file show its name's as code points (they were sent as they are: a user check)", () => {
    const missing = run(['verify', 'block', join(dir, `x${ESC}.json`)]);
    expect(missing.code).toBe(2);
    expect(hasControl(missing.stderr)).toBe(false);
    expect(missing.stderr).toContain('xU+001B[31m.json: cannot read it');
    const named = join(dir, `blk${ESC}.json`);
    writeFileSync(named, BLOCK_TEXT);
    const otherChain = run(['verify', 'block', named, '--chain', '10']);
    expect(otherChain.code).toBe(2);
    expect(hasControl(otherChain.stderr)).toBe(false);
    expect(otherChain.stderr).toContain('blkU+001B[31m.json');
    // An empty path named nothing (was: "evm-integrity: : cannot read it": a user check).
    const empty = run(['verify', 'block', '']);
    expect(empty.code).toBe(2);
    expect(empty.stderr.split('\n')[0]).toBe(
      'evm-integrity: the path is empty ""; give a file name, or - for standard input',
    );
  });
});
