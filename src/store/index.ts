/** What the CLI, scripts and tests take from the store besides `RunStore` (run-store.ts). */
export { SqliteRunStore } from './run-store.js';
export type { RunStore } from './run-store.js';
export { explainDatabaseError } from './open.js';
export { upgradeDatabase } from './upgrade.js';
export { SCHEMA_VERSION } from './schema.js';
