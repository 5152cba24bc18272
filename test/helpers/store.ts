import { SqliteRunStore } from '../../src/store/index.js';

/** A database holding `n` runs with 2 KB of parameters each: enough pages to damage one. */
export function storeWithRuns(file: string, n: number): void {
  const store = new SqliteRunStore(file);
  for (let i = 0; i < n; i++) {
    store.createRun({
      id: `run-${i}`,
      kind: 'run',
      command: 'acon run',
      bench: 'apptown',
      provider: 'sim',
      models: { agent: 'sim/gpt-4.1' },
      simulated: true,
      params: { note: 'x'.repeat(2000) },
      config: {},
    });
  }
  store.close();
}
