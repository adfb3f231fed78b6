/**
 * The built CLI run as a process to its end, asynchronously (a loopback node answering it may live in the test's
 * process), its stdout kept as bytes: for the commands whose output is binary or written to special files.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const BIN = fileURLToPath(new URL('../../packages/service/bin/evm-integrity.js', import.meta.url));

/** A finished command: its exit status and output. */
export interface Run {
  status: number | null;
  stdout: Buffer;
  stderr: string;
}

/**
 * Runs `evm-integrity ARGS`, `input` on its stdin, in `env` (by default this process's, without ETH_RPC_URL, so a node
 * is never found there by accident) and in the directory `cwd` (by default this process's).
 */
export function runCliBytes(
  args: string[],
  options: { input?: Uint8Array; env?: NodeJS.ProcessEnv; cwd?: string } = {},
): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: options.env ?? { ...process.env, ETH_RPC_URL: '' },
      ...(options.cwd !== undefined && { cwd: options.cwd }),
    });
    const stdout: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => stdout.push(d));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (status) => resolve({ status, stdout: Buffer.concat(stdout), stderr }));
    child.stdin.end(options.input);
  });
}

/**
 * Whether a command run in this process's directory made a file named `-` there, where `-` names standard output; the
 * file is removed, so that a failing test leaves none behind.
 */
export function madeDashFile(): boolean {
  const made = existsSync('-');
  rmSync('-', { force: true });
  return made;
}

/** The temporary files the CLI left in `dir` (a TMPDIR of the test's own; Node keeps its compile cache there too). */
export const temporaryFilesIn = (dir: string): string[] =>
  readdirSync(dir).filter((name) => name.startsWith('.evm-integrity'));

/**
 * Runs `evm-integrity ARGS` where no file can grow (RLIMIT_FSIZE 0, SIGXFSZ ignored, so that every write to a file fails
 * with EFBIG, as on a full disk), its standard output the file `stdoutFile` where given (else a pipe, as its standard
 * error always is): its exit status and what it said on standard error.
 */
export function runWithoutFileSpace(
  args: string[],
  options: { cwd?: string; stdoutFile?: string } = {},
): { status: number | null; stderr: string } {
  const redirect = options.stdoutFile === undefined ? '' : ' > "$OUT"';
  const result = spawnSync(
    'bash',
    ['-c', `trap "" XFSZ; ulimit -f 0; exec "$0" "$@"${redirect}`, process.execPath, BIN, ...args],
    {
      encoding: 'utf8',
      env: { ...process.env, OUT: options.stdoutFile ?? '' },
      ...(options.cwd !== undefined && { cwd: options.cwd }),
    },
  );
  return { status: result.status, stderr: result.stderr };
}

/** The file size limit, in KiB, of {@link withFullOutput}: room for the files a command writes beside, a store's. */
const FULL_OUTPUT_LIMIT_KIB = 4096;

/**
 * `evm-integrity ARGS` under a file size limit (RLIMIT_FSIZE, SIGXFSZ ignored), its standard output (fd 1) or standard
 * error (fd 2) appended to `file`, made here already at that limit: every write to it fails with EFBIG, as on a full
 * disk, while the other files the command writes (a store) have room to grow. The command and its arguments, to spawn.
 */
export function withFullOutput(fd: 1 | 2, file: string, args: string[]): [string, string[]] {
  writeFileSync(file, Buffer.alloc(FULL_OUTPUT_LIMIT_KIB * 1024));
  const script = `file=$1; shift; trap "" XFSZ; ulimit -f ${FULL_OUTPUT_LIMIT_KIB}; exec "$0" "$@" ${fd}>>"$file"`;
  return ['bash', ['-c', script, process.execPath, file, BIN, ...args]];
}
