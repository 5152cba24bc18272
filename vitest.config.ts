import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // One test file per core. Vitest's default leaves a core to its own process (cores - 1), which
    // on a 2-core machine runs the suite one file at a time, while most files spend their time in
    // the acon processes they start or in waits on them (issue #28).
    maxWorkers: availableParallelism(),
    globalSetup: ['test/helpers/global-tmp.ts'],
  },
});
