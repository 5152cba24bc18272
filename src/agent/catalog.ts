// What the CLI's command definitions need before any command runs (the names its flags accept),
// without loading the folder: this file and what it imports import no package and no other
// folder (test/architecture.test.ts), so `acon run --help` stays fast (test/cli-startup.test.ts).
export { STRATEGY_NAMES } from './context/strategy-names.js';
