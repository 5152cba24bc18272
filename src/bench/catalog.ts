// The benchmarks by name (their splits, and how to open each on use), without loading any of
// them: this file and what it imports import no package and no other folder besides the shared
// errors (test/architecture.test.ts), so `acon tasks --help` and flag checks stay fast.
export { benchDefinition, BENCH_NAMES } from './registry.js';
