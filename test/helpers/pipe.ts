import { spawn } from 'node:child_process';

/**
 * Runs the CLI as `… | head -c1` would: standard output is closed once its first bytes arrive, in `cwd` and `env`
 * (by default this process's). The exit status and what the process said on standard error.
 */
export function closeOutputEarly(
  bin: string,
  args: string[],
  { cwd, env }: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<{ status: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(cwd && { cwd }),
      ...(env && { env }),
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout.once('data', () => child.stdout.destroy());
    child.on('close', (status) => resolve({ status, stderr }));
  });
}

/**
 * Runs the CLI as `… | true` does once `true` has gone: standard output a pipe closed before the process has started
 * (tens of milliseconds), so that its every write there fails (EPIPE). The exit status and what it said on standard
 * error.
 */
export function runWithOutputGone(bin: string, args: string[]): Promise<{ status: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (status) => resolve({ status, stderr }));
  });
}
