import { describe, expect, it } from 'vitest';
import { BenchmarkError, InterruptedError, ProviderError } from '../errors.js';
import { SqliteRunStore } from '../store/run-store.js';
import { stoppedRun } from './run-lifecycle.js';

function storeWithRun(): SqliteRunStore {
  const store = new SqliteRunStore(':memory:');
  store.createRun({
    id: 'run-1',
    kind: 'run',
    command: 'acon run',
    bench: 'apptown',
    provider: 'openai',
    models: {},
    simulated: false,
    params: {},
    config: {},
  });
  return store;
}

describe('stoppedRun', () => {
  it('says how to resume a run stopped by provider failures, in one line', () => {
    const store = storeWithRun();
    const err = stoppedRun(
      store,
      'run-1',
      new ProviderError('endpoint "default": HTTP 503 overloaded (gave up after 6 attempts)', 503),
      'acon run',
    );
    expect(err).toBeInstanceOf(ProviderError);
    expect((err as ProviderError).status).toBe(503);
    expect((err as Error).message).toBe(
      'endpoint "default": HTTP 503 overloaded (gave up after 6 attempts); run run-1 is stored; once that is fixed, continue it with: acon run --resume run-1',
    );
    expect(store.getRun('run-1').status).toBe('failed');
    store.close();
  });

  it('does the same for an environment failure, and for Ctrl-C', () => {
    const store = storeWithRun();
    const env = stoppedRun(store, 'run-1', new BenchmarkError('server gone'), 'acon compare');
    expect((env as Error).message).toBe(
      'server gone; run run-1 is stored; once that is fixed, continue it with: acon compare --resume run-1',
    );
    const ctrlC = stoppedRun(store, 'run-1', new InterruptedError('interrupted'), 'acon run');
    expect((ctrlC as Error).message).toBe(
      'run run-1 interrupted; continue it with: acon run --resume run-1',
    );
    expect(store.getRun('run-1').status).toBe('interrupted');
    store.close();
  });
});
