// What the CLI's command definitions need before any command runs (export targets, the proxy's
// limits and their defaults), without loading the library: this file and what it imports import
// no package and no other folder (test/architecture.test.ts, test/cli-startup.test.ts).
export { EXPORT_TARGETS, EXPORT_TARGET_NAMES } from './export-targets.js';
export { DEFAULT_SHUTDOWN_GRACE_S, PROXY_LIMIT_DEFAULTS } from './proxy/limits.js';
