import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createApptown } from '../../src/bench/apptown/index.js';
import type { Benchmark } from '../../src/bench/types.js';
import { ConfigSchema, type Config } from '../../src/config/schema.js';
import { GuidelineStore } from '../../src/guidelines/store.js';
import type { Clock } from '../../src/clock.js';
import { createLlmClient } from '../../src/llm/client.js';
import { OpenAiProvider } from '../../src/llm/openai-provider.js';
import { createSimProvider } from '../../src/sim/index.js';
import type { RunEnv } from '../../src/experiment/env.js';
import type { OptimizeParams } from '../../src/optimize/params.js';
import { SqliteRunStore } from '../../src/store/run-store.js';
import { tempDir } from './cli.js';

export const TEST_KEY = 'sk-test-SECRET-9f8e7d6c5b4a';

/**
 * The first apptown task set (102 short tasks, 4–12 calls), kept for tests of the machinery
 * (optimizer, resume, CLI end to end) that need many rollouts in seconds; the shipped long
 * tasks (issue 13) are tested by the apptown and sim-dynamics suites.
 */
export const SHORT_TASKS_DIR = fileURLToPath(
  new URL('../fixtures/apptown-short/', import.meta.url),
);

/** Environment for a CLI run over the short tasks, without the sim agent's slips. */
export const SHORT_TASKS_ENV = { ACON_APPTOWN__TASKS_DIR: SHORT_TASKS_DIR, ACON_SIM__NOISE: '0' };

/**
 * A RunEnv over a temp SQLite file: `openai` through a fake server at `baseUrl`, or `sim`.
 * Built the way src/cli/session.ts builds it, so integration tests exercise the same wiring.
 */
export function makeEnv(opts: {
  provider: 'sim' | 'openai';
  baseUrl?: string;
  config?: Record<string, unknown>;
  bench?: Benchmark;
  budgetUsd?: number;
  dir?: string;
  /** Run over SHORT_TASKS_DIR with sim.noise 0 (unless `config` sets sim). */
  shortTasks?: boolean;
  /** Backoff and latency clock (a test's fake skips the waits). @default the system clock */
  clock?: Pick<Clock, 'now' | 'sleep'>;
  /** The OpenAI provider's fetch (a test's may time requests out). @default acon's own */
  fetch?: typeof fetch;
}): RunEnv & { dir: string; dbPath: string; config: Config } {
  const dir = opts.dir ?? tempDir('acon-int-');
  const dbPath = join(dir, 'acon.db');
  const config = ConfigSchema.parse({
    provider: opts.provider,
    endpoints: {
      default: {
        base_url: opts.baseUrl ?? 'http://127.0.0.1:9/v1',
        api_key_env: 'ACON_TEST_KEY',
        max_retries: 1,
        concurrency: 4,
      },
    },
    run: { db: dbPath, concurrency: 3 },
    ...(opts.shortTasks ? { sim: { noise: 0 } } : {}),
    ...opts.config,
  });
  const bench = opts.bench ?? createApptown(opts.shortTasks ? { tasksDir: SHORT_TASKS_DIR } : {});
  // Group commit, as the CLI opens its store (src/cli/session.ts).
  const store = new SqliteRunStore(dbPath, { groupCommit: true });
  const abort = new AbortController();
  const llm = createLlmClient({
    config,
    providers: {
      openai: new OpenAiProvider({
        endpoints: config.endpoints,
        env: { ACON_TEST_KEY: TEST_KEY },
        ...(opts.fetch && { fetch: opts.fetch }),
      }),
      sim: createSimProvider({
        seed: config.sim.seed,
        refetchLimit: config.sim.refetch_limit,
        planFor: (id) => bench.referencePlan!(id),
      }),
    },
    store,
    budgetUsd: opts.budgetUsd ?? null,
    signal: abort.signal,
    random: () => 0.5,
    ...(opts.clock && { clock: opts.clock }),
  });
  const models = Object.fromEntries(
    (['agent', 'obs_compressor', 'hist_compressor', 'analyzer', 'updater'] as const).map((r) => [
      r,
      `${opts.provider}/${config.roles[r].model}`,
    ]),
  );
  return {
    dir,
    dbPath,
    config,
    store,
    bench,
    llm,
    simulated: opts.provider === 'sim',
    models,
    provider: opts.provider,
    abort,
    guidelines: new GuidelineStore({ dir: join(dir, 'guidelines') }),
  };
}

/** A number in [0, 1) from a string: the same request gets the same fate in every run. */
export function hashUnit(key: string): number {
  return createHash('sha256').update(key).digest().readUInt32BE(0) / 2 ** 32;
}

/** The ids of the `n` tasks (of all splits) with the shortest reference solutions, ties by id. */
export async function shortestTaskIds(bench: Benchmark, n: number): Promise<string[]> {
  return (await bench.listTasks())
    .sort((a, b) => a.referenceLength - b.referenceLength || a.id.localeCompare(b.id))
    .slice(0, n)
    .map((t) => t.id);
}

/** Maps an agent's first user message back to its apptown task (a fake server has no ctx). */
export async function taskResolver(bench: Benchmark): Promise<(firstUser: string) => string> {
  const tasks = await bench.listTasks();
  return (firstUser) => {
    const hit = tasks.find((t) => firstUser.includes(t.instruction));
    if (!hit) throw new Error(`no task for prompt: ${firstUser.slice(0, 80)}`);
    return hit.id;
  };
}

/**
 * A makeEnv whose active obs guideline leaves out ids: under sim v3 the generic v0 loses too
 * little on the short tasks to give contrastive pairs (issue #22).
 */
export function lossyEnv(opts: Parameters<typeof makeEnv>[0]): ReturnType<typeof makeEnv> {
  const env = makeEnv(opts);
  env.guidelines.ensureSeed('obs');
  const v0 = env.guidelines.get('obs-0000');
  const lossy = env.guidelines.write({
    kind: 'obs',
    parent: v0.id,
    phase: 'manual',
    run: null,
    text: `${v0.text.trim()} Leave out identifiers.`,
    slug: 'lossy-v0',
  });
  env.guidelines.promote(lossy.id);
  return env;
}

/** A clock whose sleeps end at once: retries and Retry-After waits cost no wall time in tests. */
export const INSTANT_CLOCK: Pick<Clock, 'now' | 'sleep'> = {
  now: () => Date.now(),
  sleep: async () => {},
};

/**
 * The apptown optimize the integration tests run (UT then CO, one round, heldout selection, no
 * promotion), with each test's own settings over it.
 */
export function optimizeParams(overrides: Partial<OptimizeParams>): OptimizeParams {
  return {
    bench: 'apptown',
    target: 'obs',
    phases: ['ut', 'co'],
    rounds: 1,
    candidates: 2,
    trainSplit: 'train',
    selectSplit: 'dev',
    evalSplit: 'test',
    guidelines: null,
    promote: false,
    maxTasks: null,
    trainTasks: null,
    selectTasks: null,
    selection: 'heldout',
    decision: { alpha: 0.1, margin: 0.025, tieTokenCut: 0.1 },
    racing: true,
    selectFrom: 'split',
    repeats: 1,
    ...overrides,
  };
}
