import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const core = (path: string) => fileURLToPath(new URL(`./packages/core/src/${path}`, import.meta.url));

export default defineConfig({
  resolve: {
    // The service imports the core by its package name; tests run both from their sources, so
    // there is one copy of every module (and `instanceof` holds across the two packages).
    alias: [
      { find: /^evm-integrity$/, replacement: core('index.ts') },
      { find: /^evm-integrity\/api$/, replacement: core('api/index.ts') },
      { find: /^evm-integrity\/audit$/, replacement: core('audit/index.ts') },
      { find: /^evm-integrity\/lineage$/, replacement: core('lineage/index.ts') },
      { find: /^evm-integrity\/anchor$/, replacement: core('anchor/index.ts') },
      { find: /^evm-integrity\/node$/, replacement: core('node.ts') },
      { find: /^evm-integrity\/proof$/, replacement: core('proof/index.ts') },
    ],
  },
  test: {
    include: ['test/**/*.test.ts'],
    // fast-check's default case count as test/helpers/runs.ts gives every count (a share per push, all under FULL=1);
    // byte arrays compared as bytes.
    setupFiles: ['test/helpers/fast-check-setup.ts', 'test/helpers/bytes-equality.ts'],
    // The run's temporary files in one directory of its own, removed at its end.
    globalSetup: ['test/helpers/temp-root.ts'],
    // Property tests against the @ethereumjs/mpt oracle build tries of up to 600 receipts.
    testTimeout: 300_000,
    // Clean-up hooks close stores and drop test databases: each DROP DATABASE waits for a checkpoint, which on a
    // loaded machine took past vitest's 10 s for postgres-store.test's eight (its tests had all passed).
    hookTimeout: 120_000,
    // Two files at a time even on two cores (vitest's default there is one): most of the suite waits on processes,
    // sockets and PostgreSQL rather than the CPU. No test times anything (speed targets are the bench's), and two files
    // sharing the cores fail none. Three at a time was faster still (182 s against 218 s for the suite, under other
    // load); two keep the load lighter for the tests that race real processes.
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
});
