#!/usr/bin/env node
// The command's launcher. It is a file of the repository, not of the build, so that npm links the
// command at install time, before `npm run build` has made dist/. It runs the bundled CLI
// (scripts/bundle-cli.mjs), which starts in a fraction of the time the module tree takes.

// Node before 22.12 lacks what the CLI uses (the compile cache's API among them): one line and
// exit 2, not a stack trace.
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 12)) {
  process.stderr.write(
    `evm-integrity: needs Node 22.12 or newer (the LTS lines 22 and 24); this is Node ${process.version}\n`,
  );
  process.exit(2);
}

// Settings that only a process's start can give, for the commands that need them: such a command
// starts itself again in place (process.execve: same process id, arguments and environment, the
// settings added), where one is missing. It runs on without them where it cannot: Node without
// process.execve (22.12 to 22.14), a platform without it (Windows), Node's permission model without
// --allow-child-process; and where it should not: under a debugger (--inspect…), which would start twice,
// and where code of the user's runs before the command (--import, --require, a loader), which would run twice.
//
// `serve` on Linux: a server that took large bodies gives their memory back only if glibc's
// allocator keeps its mmap threshold fixed: its default rises to the size of each large block freed
// (up to 32 MiB), after which such blocks come from heaps it does not return (docs/service.md,
// Memory). glibc reads MALLOC_MMAP_THRESHOLD_ once, from the environment the process started with:
// it is set, when that environment lacks it, to the value of process.env (where `node --env-file`
// puts one, too late for glibc), else 131072; an empty value, which glibc reads as 0 (every
// allocation mapped), counts as none.
//
// `audit` and `audit-worker`: V8's young generation, where a node's parsed answers are made, is
// capped at semi-spaces of 16 MB where V8 would let it grow to 32 MB on a machine of a few GB or more:
// the audit then spends about a fifth less CPU on modern blocks (docs/speed.md, "A node's answer, decoded
// whole"). A size of the user's own, given to node or in NODE_OPTIONS, is kept: a semi-space size,
// or a --max-heap-size, which V8 refuses (a crash) beside both a semi-space and an old-space size.
// On Linux, glibc's allocator is also held to keep what a node's answers took: MALLOC_MMAP_THRESHOLD_
// 32 MiB (answers' arrays, up to megabytes each, come from its heaps, not from fresh mappings whose every
// page faults in) and MALLOC_TRIM_THRESHOLD_ 256 MiB (those heaps are not handed back after each answer to
// be faulted in again): about a tenth less CPU on modern blocks (docs/speed.md, "The audit's allocator").
// Either set by the user, in the environment the process started with or by --env-file, keeps both as the
// user has them (the two act together: the trim threshold alone, which stops glibc raising its mmap
// threshold, cost more).
function restartSettings() {
  const command = process.argv[2];
  const nodeOptions = process.env.NODE_OPTIONS ?? '';
  const given = (flag) => process.execArgv.some((arg) => flag.test(arg)) || flag.test(nodeOptions);
  const preloads = /(^|\s)(--import|--require|-r|--(experimental-)?loader)(=|\s|$)/;
  if (given(/--inspect/) || given(preloads) || process.permission?.has('child') === false) return undefined;
  if (command === 'serve' && process.platform === 'linux') {
    const name = 'MALLOC_MMAP_THRESHOLD_';
    if (startedWith(name)) return undefined;
    return { flags: [], env: { ...process.env, [name]: process.env[name] || '131072' } };
  }
  if (command === 'audit' || command === 'audit-worker') {
    const flags = given(/--(max|min)[-_]semi[-_]space[-_]size|--max[-_]heap[-_]size/)
      ? []
      : ['--max-semi-space-size=16'];
    const allocator = ['MALLOC_MMAP_THRESHOLD_', 'MALLOC_TRIM_THRESHOLD_'];
    const ownAllocator = allocator.some((name) => process.env[name]);
    const env =
      process.platform !== 'linux' || allocator.some(startedWith)
        ? undefined
        : ownAllocator
          ? process.env // from --env-file: the restart is what applies it
          : { ...process.env, MALLOC_MMAP_THRESHOLD_: '33554432', MALLOC_TRIM_THRESHOLD_: '268435456' };
    if (flags.length === 0 && env === undefined) return undefined;
    return { flags, env: env ?? process.env };
  }
  return undefined;
}

// Whether the environment the process started with (which glibc read) sets `name` to a value that is not empty
// (glibc reads an empty one as 0). That environment is read once, at the first call.
let startedEnvironment;
function startedWith(name) {
  if (startedEnvironment === undefined) {
    try {
      startedEnvironment = process.getBuiltinModule('node:fs').readFileSync('/proc/self/environ', 'latin1').split('\0');
    } catch {
      startedEnvironment = Object.entries(process.env).map(([key, value]) => `${key}=${value}`);
    }
  }
  return startedEnvironment.some((entry) => entry.startsWith(`${name}=`) && entry.length > name.length + 1);
}
const restart = typeof process.execve === 'function' ? restartSettings() : undefined;
if (restart !== undefined) {
  try {
    process.execve(
      process.execPath,
      [process.execPath, ...restart.flags, ...process.execArgv, ...process.argv.slice(1)],
      restart.env,
    );
  } catch {
    // Not here (ERR_FEATURE_UNAVAILABLE_ON_PLATFORM, a refused exec): the command runs on without the settings.
  }
}

// V8's compiled code of the CLI, kept between runs so that a process started once per block does
// not parse and compile the same code again (about 2 ms of its start). Where Node keeps its compile
// cache by default: NODE_COMPILE_CACHE's directory, else node-compile-cache under the system's
// temporary directory, shared by the tools that use it and checked against each file's contents;
// NODE_DISABLE_COMPILE_CACHE=1 turns it off. A directory that cannot be written only leaves it off.
// (process.getBuiltinModule, not an import: see scripts/bundle-cli.mjs.)
process.getBuiltinModule('node:module').enableCompileCache();
let main;
try {
  ({ main } = await import('../dist/cli-bundle/main.js'));
} catch (error) {
  // A build that is missing or half written (dist/ removed, or rebuilt as the command started) gives no verdict: one
  // line and the status of a fault of the program (3), where Node's stack trace exits 1, which says a claim is false.
  const why = String(error instanceof Error ? error.message : error).split('\n')[0];
  process.stderr.write(`evm-integrity: its code could not be loaded (${why}): install or build it again\n`);
  process.exit(3);
}

// A reader that stops early (`… | head`) ends the process as SIGPIPE would: see stdoutStream in
// src/cli/io/streams.ts. process.stdout is not touched here: making it costs a one-line command 2 ms.

const status = await main(process.argv.slice(2));
// With nothing left to run, the process ends at once: an ordinary exit first tears down the
// environment and the heap (about 1 ms of a verify block process). Anything still pending, such as
// a write to a pipe where that is asynchronous (macOS), keeps the ordinary exit.
if (process.getActiveResourcesInfo().length === 0) process.exit(status);
process.exitCode = status;
