import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import SlowestFirst from './test/helpers/slowest-first.js';

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // One test file per core. Vitest's default leaves a core to its own process (cores - 1), which
    // on a 2-core machine runs the suite one file at a time, while most files spend their time in
    // the acon processes they start or in waits on them (issue #28).
    maxWorkers: availableParallelism(),
    globalSetup: ['test/helpers/global-tmp.ts'],
    sequence: { sequencer: SlowestFirst },
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['src/**/*.test.ts'],
          // The unit tests share one module graph per worker instead of importing it afresh for
          // each of their ~90 files: 40 s → 18 s for src/ on 2 cores (issue #28). They touch no
          // global state they do not restore (fake timers are put back in afterEach). Module state in
          // src/ is only what test/architecture.test.ts allows, each with a reason (lazy imports,
          // shipped texts read once; the sim's memos moved into its RecordReader), so isolate: true
          // passes too; it is off for speed: src/agent src/bench src/store took 65-79 s isolated
          // against 31-32 s shared, two rounds each in one run on 2 loaded cores (issue #55).
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          // One module graph per worker here too: importing src/ afresh for each of the ~67 files
          // was 89 s of the files' time, 26 s shared (user instructions of the 59 files besides the
          // slowest: 1,053e9 → 876e9, issue #28). What a file changes of the process it restores
          // (servers closed, env unstubbed, fake timers put back); the module state that
          // test/architecture.test.ts allows in src/ gives the same answers whoever filled it.
          isolate: false,
        },
      },
    ],
  },
});
