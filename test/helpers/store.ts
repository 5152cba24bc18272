import { SqliteRunStore } from '../../src/store/index.js';
import type { NewRun } from '../../src/store/run-store.js';

/** A simulated `acon run` record as tests create it; `extra` overrides any field. */
export function simRun(id: string, extra: Partial<NewRun> = {}): NewRun {
  return {
    id,
    kind: 'run',
    command: 'acon run',
    bench: 'apptown',
    provider: 'sim',
    models: {},
    simulated: true,
    params: {},
    config: {},
    ...extra,
  };
}

/** A database holding `n` runs with 2 KB of parameters each: enough pages to damage one. */
export function storeWithRuns(file: string, n: number): void {
  const store = new SqliteRunStore(file);
  for (let i = 0; i < n; i++) {
    store.createRun(
      simRun(`run-${i}`, {
        models: { agent: 'sim/gpt-4.1' },
        params: { note: 'x'.repeat(2000) },
      }),
    );
  }
  store.close();
}
