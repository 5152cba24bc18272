import { z } from 'zod';
import { InfraFailureSchema, type InfraFailure } from '../domain/index.js';
import { rolloutKey } from './rollout-table.js';
import type { RunStore } from './run-store.js';

// The list of a run's infrastructure failures, kept in the run's state. It lives with the store
// so that `acon runs` and `acon runs show` read it without loading the experiment runner.

const InfraFailuresSchema = z.array(InfraFailureSchema);

/** The run-state key the list is stored under. */
const KEY = 'infra_failures';

/** The infrastructure failures of a run not yet retried successfully, oldest first. */
export function infraFailures(store: Pick<RunStore, 'getState'>, runId: string): InfraFailure[] {
  return store.getState(runId, KEY, InfraFailuresSchema) ?? [];
}

/**
 * The run's list while rollouts run: the jobs about to be (re)tried leave it, those that fail
 * again come back with their new error.
 */
export class InfraFailureLog {
  private list: InfraFailure[];

  constructor(
    private readonly store: Pick<RunStore, 'getState' | 'setState'>,
    private readonly runId: string,
    retrying: ReadonlySet<string>,
  ) {
    const before = infraFailures(store, runId);
    this.list = before.filter((f) => !retrying.has(rolloutKey(f.condition, f.taskId)));
    if (this.list.length !== before.length) this.save();
  }

  add(f: Omit<InfraFailure, 'at'>): void {
    this.list.push({ ...f, error: f.error.split('\n')[0]!, at: new Date().toISOString() });
    this.save();
  }

  private save(): void {
    this.store.setState(this.runId, KEY, this.list);
  }
}
