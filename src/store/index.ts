/**
 * What the CLI, scripts and tests take from the store: `openRunStore` builds the `RunStore`;
 * tests also build `SqliteRunStore` itself, with fake owner probes.
 */
export { openRunStore } from './open-run-store.js';
export { SqliteRunStore } from './run-store.js';
export type { RunStore } from './run-store.js';
export { explainDatabaseError } from './open.js';
export { infraFailures, InfraFailureLog } from './infra-failures.js';
export { SCHEMA_VERSION } from './schema.js';

/**
 * What src/store-upgrade (`acon runs upgrade`) writes a file of this store with: the checks and
 * errors of opening a file, the schema version of the store before v2, the document encoding and
 * the call-cache key. Only that one-time converter needs them.
 */
export { asDatabaseError, checkHeader, openDatabase } from './open.js';
export { fileSchema, LEGACY_VERSION, legacySchema } from './schema.js';
export { callsDocument, compress, rolloutDocument, type CallPayload } from './document.js';
export { hashKey } from './call-log.js';
export { insertSql } from './store-db.js';
export { rolloutKey } from './rollout-table.js';
export type { GuidelineVersionRow, StoredStep, RoleUsageRow } from './run-store.js';
export type { CallRow, GuidelineFilter, RolloutFilter } from './export-queries.js';
