import {
  BenchmarkError,
  BudgetExceededError,
  InterruptedError,
  ProviderError,
  RolloutLimitError,
} from '../errors.js';
import type { RunStore } from '../store/index.js';
import { newRunId, type RunEnv } from './env.js';

/**
 * The run a command works in: a new run record, or the resumed one claimed by this process.
 * The record holds the params --resume needs and the config (names of key variables only).
 */
export function startRun(
  env: Pick<RunEnv, 'store' | 'config' | 'provider' | 'models' | 'simulated'>,
  run: {
    resume?: string;
    kind: string;
    command: string;
    bench: string;
    params: Record<string, unknown>;
  },
): string {
  if (run.resume) {
    // Refused while another live process owns the run; otherwise it becomes ours.
    env.store.claimRun(run.resume);
    return run.resume;
  }
  const id = newRunId();
  env.store.createRun({
    id,
    kind: run.kind,
    command: run.command,
    bench: run.bench,
    provider: env.provider,
    models: env.models,
    simulated: env.simulated,
    params: run.params,
    config: env.config as unknown as Record<string, unknown>,
  });
  return id;
}

/**
 * `body` in the run {@link startRun} gives it; when `body` throws, the run records why it stopped
 * and the error says how to continue it with `resumeWith` (`acon optimize`), as {@link stoppedRun}.
 */
export async function inRun<T>(
  env: Parameters<typeof startRun>[0],
  run: Parameters<typeof startRun>[1] & { resumeWith: string },
  body: (runId: string) => Promise<T>,
): Promise<T> {
  const { resumeWith, ...record } = run;
  const runId = startRun(env, record);
  try {
    return await body(runId);
  } catch (err) {
    throw stoppedRun(env.store, runId, err, resumeWith);
  }
}

/**
 * Records why a run stopped (interrupted, budget, failed) and returns the error to rethrow,
 * with the command that resumes it where the user needs it.
 * @example throw stoppedRun(store, runId, err, 'acon optimize')
 */
export function stoppedRun(store: RunStore, runId: string, err: unknown, command: string): unknown {
  if (err instanceof InterruptedError) {
    store.setRunStatus(runId, 'interrupted');
    return new InterruptedError(
      `run ${runId} interrupted; continue it with: ${command} --resume ${runId}`,
    );
  }
  if (err instanceof BudgetExceededError) {
    store.setRunStatus(runId, 'budget');
    return new BudgetExceededError(err.spentUsd, err.budgetUsd, runId);
  }
  if (err instanceof RolloutLimitError) {
    store.setRunStatus(runId, 'budget');
    return new RolloutLimitError(err.stored, err.maxRollouts, runId);
  }
  store.setRunStatus(runId, 'failed');
  // Provider and environment failures are often passing (a server down, a rate limit): the
  // finished rollouts are stored, so say how to continue once the cause is fixed.
  const hint = `run ${runId} is stored; once that is fixed, continue it with: ${command} --resume ${runId}`;
  if (err instanceof ProviderError) {
    return new ProviderError(`${firstLine(err.message)}; ${hint}`, err.status, { cause: err });
  }
  if (err instanceof BenchmarkError) {
    return new BenchmarkError(`${firstLine(err.message)}; ${hint}`, { cause: err });
  }
  return err;
}

function firstLine(message: string): string {
  return message.split('\n')[0]!.replace(/[;.]\s*$/, '');
}
