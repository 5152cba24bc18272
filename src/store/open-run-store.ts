import { SqliteRunStore, type RunStore, type StoreOptions } from './run-store.js';

/**
 * Opens the run database at `path`: the one place a `RunStore` is built. Everything else types
 * against the `RunStore` interface, so the storage behind it can change without touching callers.
 *
 * @example const store = openRunStore('runs/acon.db', { mode: 'read' });
 */
export function openRunStore(path: string, opts: StoreOptions = {}): RunStore {
  return new SqliteRunStore(path, opts);
}
