export { SqliteRunStore, rolloutKey } from './run-store.js';
export type { RunStore, StoreOptions } from './run-store.js';
export {
  RunRowSchema,
  RunStatusSchema,
  type CallFilter,
  type FinishedRollout,
  type GuidelineVersionRow,
  type LlmCallRow,
  type NewRun,
  type RolloutRow,
  type RunRow,
  type RunStatus,
  type StepActionRow,
  type StepRow,
  type StorageStats,
} from './records.js';
export type { CallRow, RolloutFilter } from './export-queries.js';
export { explainDatabaseError, openDatabase, type OpenMode } from './open.js';
export { upgradeDatabase, type Upgrade } from './upgrade.js';
export { HEARTBEAT_MS, STALE_AFTER_MS, type Owner, type OwnerProbe } from './ownership.js';
export { SCHEMA_VERSION } from './schema.js';
