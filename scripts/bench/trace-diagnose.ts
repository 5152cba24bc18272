/**
 * Why does a trace optimize learn what it learns? For one set kept by
 * `trace-optimize.ts --keep` (its folder, with acon.db, guidelines/ and tasks/), it replays the
 * recorded conversations under the starting guideline with one compressor on, split as the
 * optimize split them, and counts per split: conversations, those with a recorded tool result
 * over the compressor's threshold (obs) or a context over it (hist), compressed steps,
 * disagreeing steps, steps that lost a probe, and the conversations a UT stage would analyse
 * (a contrastive step). Then it prints the trace optimize's stage verdicts (each candidate's
 * wins and losses on the selection conversations). It only measures; the replays are answered
 * from the call cache where the optimize already made them.
 *
 *   npx tsx scripts/bench/trace-diagnose.ts --dir /tmp/acon-trace-optimize-XXXX/set-1 [--kind obs]
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { defaultTokenCounter } from '../../src/agent/index.js';
import { openSession } from '../../src/cli/session.js';
import {
  referenceTraces,
  replayTraces,
  runTraces,
  splitTraces,
  traceTrajectory,
} from '../../src/experiment/index.js';
import { resolveGuidelinePair } from '../../src/guidelines/index.js';
import { contrastiveStep } from '../../src/optimize/trace-analyses.js';

const { values: cli } = parseArgs({
  options: {
    dir: { type: 'string' },
    kind: { type: 'string', default: 'obs' },
    json: { type: 'boolean', default: false },
    detail: { type: 'boolean', default: false },
  },
});
if (!cli.dir) throw new Error('--dir: the set folder trace-optimize.ts --keep left');
const kind = cli.kind === 'hist' ? 'hist' : 'obs';
const dir = cli.dir;
process.env.ACON_APPTOWN__TASKS_DIR = join(dir, 'tasks');
process.chdir(dir);

const session = await openSession({ bench: 'apptown', db: join(dir, 'acon.db') });
try {
  const runs = session.store.listRuns();
  // The bench's first compare is the recording (raw train rollouts); its one optimize, the trace one.
  const recording = runs.filter((r) => r.command.includes('--split train')).at(-1);
  const optimize = runs.find((r) => r.kind === 'optimize');
  if (!recording || !optimize) throw new Error(`${dir}: no recording or optimize run`);
  const { used } = referenceTraces(runTraces(session.store, recording.id));
  const splits = splitTraces(
    used,
    {
      train: session.config.optimize.trace_train,
      selection: session.config.optimize.trace_selection,
    },
    session.config.seed,
  );
  const start = await resolveGuidelinePair(null, session.guidelines);
  const tObs = session.config.context.t_obs;
  const tHist = session.config.context.t_hist;
  const out: Record<string, unknown> = { dir, kind, tObs, tHist };
  for (const [name, traces] of Object.entries(splits)) {
    const replays = await replayTraces({
      traces,
      condition: { label: start[kind].id, pair: start, only: kind },
      config: session.config,
      llm: session.llm,
      tokens: defaultTokenCounter,
      runId: optimize.id,
    });
    const over = traces.filter((t) => {
      const turns = traceTrajectory(t).turns;
      return kind === 'obs'
        ? turns.some((turn) =>
            turn.observations.some((o) => defaultTokenCounter.countTokens(o.content ?? '') > tObs),
          )
        : false;
    }).length;
    const steps = replays.flatMap((r) => r.steps);
    const compressed = steps.filter((s) => s.compressed);
    const row = {
      conversations: traces.length,
      overThreshold: kind === 'obs' ? over : null,
      withCompression: replays.filter((r) => r.steps.some((s) => s.compressed)).length,
      steps: steps.length,
      compressedSteps: compressed.length,
      disagreeing: compressed.filter((s) => !s.agrees).length,
      stepsLosingProbes: steps.filter((s) => s.lost.length > 0).length,
      probes: steps.reduce((n, s) => n + s.kept.length + s.lost.length, 0),
      lostProbes: steps.reduce((n, s) => n + s.lost.length, 0),
      contrastive: replays.filter((r) => contrastiveStep(r) !== null).length,
      disagreeingWithoutLostProbe: compressed.filter((s) => !s.agrees && s.lost.length === 0)
        .length,
    };
    out[name] = cli.detail
      ? {
          ...row,
          disagreements: replays.flatMap((r) =>
            r.steps
              .filter((s) => (s.compressed && !s.agrees) || s.lost.length > 0)
              .map((s) => ({
                trace: r.traceId,
                step: s.step,
                of: r.steps.length,
                recorded: s.recorded,
                replayed: s.replayed,
                lost: s.lost.map((p) => p.value),
              })),
          ),
        }
      : row;
  }
  const result = session.store.getRun(optimize.id).summary as {
    stages?: {
      stage: string;
      cases: number;
      analyses: number;
      candidates: { id: string | null; reason: string }[];
    }[];
  };
  out.stages = (result.stages ?? []).map((s) => ({
    stage: s.stage,
    cases: s.cases,
    analyses: s.analyses,
    candidates: s.candidates.map((c) => c.reason),
  }));
  console.log(JSON.stringify(out, null, cli.json ? 0 : 2));
} finally {
  await session.close();
}
