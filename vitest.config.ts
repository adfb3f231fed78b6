import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Property tests against the @ethereumjs/mpt oracle build tries of up to 600 receipts.
    testTimeout: 300_000,
  },
});
