/**
 * The sim's own CPU, role by role, on the calls a run recorded (issue #28). Reads the sim calls of
 * a stored run (the newest, or `--run`), replays every request through the sim provider of this
 * build in alternating passes, and prints the CPU time per role and pass. With `--baseline REF`
 * the same requests also go through that commit's sim (built in a temporary git worktree), pass
 * for pass, and each role's median is printed as a ratio to the baseline's.
 *
 * The inputs are fixed and no process starts per pass, so a change to the sim is measured without
 * the rest of a run around it, on machines without hardware counters too. The first pass of each
 * build fills the sim's and the tokenizer's caches, as a run does; later passes find them full,
 * so compare medians of the same number of passes, never a first pass with a later one. The sim is deterministic:
 * every reply is compared with the one recorded, and those that differ are counted (any is a bug,
 * or a change of behaviour that the tables would show).
 *
 *   npx acon optimize --bench apptown                    # any run with the sim, in a folder
 *   npx tsx scripts/bench/sim-replay.ts --db runs/acon.db
 *   npx tsx scripts/bench/sim-replay.ts --db runs/acon.db --roles hist_compressor --baseline HEAD~1
 *
 * Roles: agent, obs_compressor, hist_compressor (the analyzer and the updater run a few dozen times
 * a run). The run's apptown tasks folder must still be where it was (the agent follows its tasks'
 * reference plans). Prints figures; asserts nothing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { createApptown } from '../../src/bench/apptown/index.js';
import { ConfigSchema } from '../../src/config/schema.js';
import type { LlmProvider, ProviderRequest } from '../../src/llm/types.js';
import { median } from '../../src/metrics/metrics.js';
import type * as SimIndex from '../../src/sim/index.js';
import type { SimProviderOptions } from '../../src/sim/index.js';
import { openRunStore } from '../../src/store/index.js';
import { buildBaseline, load, ratio, removeBaseline, ROOT } from './baseline.js';
import { wholeOption } from './whole-option.js';

const ROLES = ['agent', 'obs_compressor', 'hist_compressor'] as const;
type Role = (typeof ROLES)[number];

const { values } = parseArgs({
  options: {
    db: { type: 'string', default: 'runs/acon.db' },
    run: { type: 'string' },
    roles: { type: 'string', default: ROLES.join(',') },
    passes: { type: 'string', default: '3' },
    baseline: { type: 'string' },
  },
});

function fail(message: string): never {
  console.error(message);
  process.exit(2);
}

const roles = values.roles.split(',').map((r) => {
  if (!(ROLES as readonly string[]).includes(r)) {
    fail(`--roles: unknown role "${r}"; valid: ${ROLES.join(', ')}`);
  }
  return r as Role;
});
const passes = wholeOption('passes', values.passes);

/** What a recorded request holds besides its context (the store writes it as JSON). */
const RecordedRequestSchema = z.looseObject({
  messages: z.array(z.looseObject({ role: z.string() })),
  model: z.string(),
});

type Replay = { request: ProviderRequest; recorded: string | null };

/** The recorded calls of each role, in call order, and the sim settings of their run. */
function recordedCalls(): { replays: Map<Role, Replay[]>; sim: SimProviderOptions } {
  const store = openRunStore(values.db, { mode: 'read' });
  try {
    const run = values.run === undefined ? store.listRuns()[0] : store.getRun(values.run);
    if (!run) fail(`${values.db} holds no run; run \`npx acon optimize --bench apptown\` first`);
    if (!run.simulated || run.bench !== 'apptown') {
      fail(`run ${run.id} is not an apptown run with the sim (${run.bench}, ${run.provider})`);
    }
    const config = ConfigSchema.parse(run.config);
    const bench = createApptown({ tasksDir: config.apptown.tasks_dir ?? undefined });
    // In a run, a rollout's prompts share the message objects its steps have in common (the
    // sim, the tokenizer and the request hash remember their work per object); the replay shares
    // them the same way, by their JSON within each rollout.
    const shared = new Map<string, Map<string, unknown>>();
    const sameObjects = (rollout: string | null, messages: unknown[]) => {
      let mine = shared.get(rollout ?? '');
      if (!mine) shared.set(rollout ?? '', (mine = new Map()));
      return messages.map((m) => {
        const key = JSON.stringify(m);
        if (!mine.has(key)) mine.set(key, m);
        return mine.get(key);
      });
    };
    const replays = new Map(
      roles.map((role) => [
        role,
        store
          .calls({ runId: run.id, role })
          .filter((c) => c.provider === 'sim' && c.error === null && !c.cached)
          .map((c) => {
            const recorded = RecordedRequestSchema.parse(JSON.parse(c.request));
            const request = {
              ...recorded,
              messages: sameObjects(c.rolloutId, recorded.messages),
              ctx: {
                role,
                runId: run.id,
                taskId: c.taskId ?? undefined,
                step: c.step ?? undefined,
              },
            } as unknown as ProviderRequest;
            return { request, recorded: c.response };
          }),
      ]),
    );
    const sim = {
      seed: config.sim.seed,
      refetchLimit: config.sim.refetch_limit,
      noise: config.sim.noise,
      planFor: (taskId: string) => bench.referencePlan(taskId),
    };
    const calls = [...replays.values()].reduce((n, r) => n + r.length, 0);
    console.log(`run ${run.id} in ${values.db}: ${calls} calls (${roles.join(', ')})`);
    return { replays, sim };
  } finally {
    store.close();
  }
}

/** The CPU time of one pass of `provider` over `replays`, and how many replies differ. */
async function pass(provider: LlmProvider, replays: readonly Replay[]) {
  let differ = 0;
  const before = process.cpuUsage();
  for (const r of replays) {
    const reply = await provider.chat(r.request);
    if (r.recorded !== null && JSON.stringify(reply) !== r.recorded) differ++;
  }
  const used = process.cpuUsage(before);
  return { ms: (used.user + used.system) / 1000, differ };
}

const { replays, sim } = recordedCalls();
type SimModule = typeof SimIndex;
const builds: { name: string; provider: LlmProvider }[] = [];
const dir = mkdtempSync(join(tmpdir(), 'acon-sim-replay-'));
try {
  if (values.baseline !== undefined) {
    const tree = buildBaseline(values.baseline, dir);
    const then = (await import(join(tree, 'dist', 'sim', 'index.js'))) as SimModule;
    builds.push({ name: `baseline ${values.baseline}`, provider: then.createSimProvider(sim) });
  }
  const now = (await import(join(ROOT, 'dist', 'sim', 'index.js'))) as SimModule;
  builds.push({ name: 'this build', provider: now.createSimProvider(sim) });
  console.log(`load ${load()}; ${passes} passes, builds alternating within each`);

  for (const role of roles) {
    const ms = new Map(builds.map((b) => [b.name, [] as number[]]));
    let differ = 0;
    for (let p = 0; p < passes; p++) {
      // Alternate which build goes first, so neither always runs on a warmer machine.
      const order = p % 2 === 0 ? builds : [...builds].reverse();
      for (const b of order) {
        const r = await pass(b.provider, replays.get(role)!);
        ms.get(b.name)!.push(r.ms);
        if (b.name === 'this build') differ = Math.max(differ, r.differ);
      }
    }
    const calls = replays.get(role)!.length;
    const mine = median(ms.get('this build')!);
    const base = builds.length > 1 ? median(ms.get(builds[0]!.name)!) : undefined;
    const baseMs = base === undefined ? '' : ` (${base.toFixed(0)} ms)`;
    console.log(
      `${role}: ${calls} calls, median ${mine.toFixed(0)} ms CPU a pass${ratio(mine, base)}${baseMs}`,
    );
    for (const [name, xs] of ms)
      console.log(`  ${name}: ${xs.map((x) => x.toFixed(0)).join(' ')} ms`);
    console.log(`  replies of this build that differ from the recorded ones: ${differ}`);
  }
} finally {
  removeBaseline(dir);
  rmSync(dir, { recursive: true, force: true });
}
