// The config file's default name, which `acon init --help` states, without loading the schema
// or the YAML parser: this file and what it imports import no package and no other folder
// (test/architecture.test.ts).
export { DEFAULT_CONFIG_FILE } from './default-file.js';
