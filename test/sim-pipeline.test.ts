import type { z } from 'zod';
import { renderEvaluation } from '../src/optimize/analyze.js';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createStrategy, defaultContextOptions } from '../src/agent/context/index.js';
import { runEpisode, type EpisodeResult } from '../src/agent/loop.js';
import { readGuideline } from '../src/sim/guideline-reading.js';
import { createSimProvider } from '../src/sim/index.js';
import type { ChatMessage } from '../src/llm/types.js';
import {
  COMPRESSION_ANALYSIS_FORMAT,
  GUIDELINE_UPDATE_FORMAT,
  parseJsonAnswer,
  UTILITY_ANALYSIS_FORMAT,
} from '../src/optimize/analysis.js';
import { CompressionAnalysisSchema } from '../src/domain/compression-analysis.js';
import { GuidelineUpdateSchema } from '../src/domain/guideline-update.js';
import { UtilityAnalysisSchema } from '../src/domain/utility-analysis.js';
import { renderCompressionEvents, renderTrajectory } from '../src/optimize/render-trajectory.js';
import { renderPrompt } from '../src/prompts/template.js';
import type { ReferencePlan } from '../src/bench/types.js';
import { directClient, fixtureEpisode, PLAN, PLAYLIST_ID, TASK_ID, TOKEN } from './sim-fixtures.js';

/**
 * The sim provider driving the real agent loop, context strategies and compressors on a
 * hand-built task, then the analyzer and updater through their real prompts and parsers: the
 * method's dynamics in miniature (ARCHITECTURE §6).
 */
/** The shipped v0, told to leave out ids and links: a guideline that loses what the task needs. */
const V0_OBS = `${readFileSync(
  new URL('../guidelines/obs/0000-generic.md', import.meta.url),
  'utf8',
)
  .split('---')
  .slice(2)
  .join('---')
  .trim()} Leave out identifiers and links.`;

const sim = createSimProvider({ seed: 7, refetchLimit: 2, planFor: async () => PLAN });
const llm = directClient(sim);

async function rollout(
  strategy: 'raw' | 'acon',
  obs = V0_OBS,
  context: { t_obs?: number; t_hist?: number } = {},
): Promise<EpisodeResult> {
  const callCtx = { runId: 'run', rolloutId: `${strategy}:${obs}`, taskId: TASK_ID };
  const options = {
    ...defaultContextOptions(),
    t_obs: 200,
    ...context,
    guidelines: { obs: { id: 'obs', text: obs }, hist: { id: 'hist', text: 'Summarize.' } },
  };
  return runEpisode({
    episode: fixtureEpisode(),
    strategy: createStrategy(strategy, options, { llm, callCtx, maxOutputRetries: 1 }),
    llm,
    callCtx,
    maxSteps: 20,
  });
}

const peak = (r: EpisodeResult) => Math.max(...r.steps.map((s) => s.promptTokens));

/** One analyzer or updater call through its real prompt files, its answer parsed by `schema`. */
async function ask<T>(
  role: 'analyzer' | 'updater',
  file: string,
  vars: Record<string, string>,
  format: { name: string; schema: Record<string, unknown> },
  schema: z.ZodType<T>,
): Promise<T> {
  const messages: ChatMessage[] = [
    { role: 'system', content: renderPrompt(`${file}.system.txt`, vars) },
    { role: 'user', content: renderPrompt(`${file}.user.txt`, vars) },
  ];
  const r = await llm.chat({ messages, responseFormat: format }, { role, runId: 'run' });
  const parsed = parseJsonAnswer(r.message.content, schema);
  if (!parsed.ok) throw new Error(parsed.reason);
  return parsed.value;
}

/** The UT analyzer on a contrastive pair: the full run succeeded, the compressed one failed. */
function analyzeObsFailure(full: EpisodeResult, compressed: EpisodeResult, guideline: string) {
  const vars = {
    task: full.trajectory.task,
    kind: 'obs',
    guideline,
    pair_kind: 'failure',
    full_outcome: `succeeded in ${full.steps.length} steps`,
    compressed_outcome: `failed in ${compressed.steps.length} steps`,
    step_ratio: (compressed.steps.length / full.steps.length).toFixed(2),
    compressed_evaluation: renderEvaluation(compressed.evaluation),
    full_trajectory: renderTrajectory(full.trajectory, full.events),
    compressed_trajectory: renderTrajectory(compressed.trajectory, compressed.events),
  };
  return ask('analyzer', 'analyzer-ut', vars, UTILITY_ANALYSIS_FORMAT, UtilityAnalysisSchema);
}

/** The UT (or CO) updater's candidate 0 for an obs guideline, given the analyses. */
function updateObs(guideline: string, analyses: unknown[], file = 'updater-ut') {
  const vars = { kind: 'obs', guideline, analyses: JSON.stringify(analyses), candidate: '0' };
  return ask('updater', file, vars, GUIDELINE_UPDATE_FORMAT, GuidelineUpdateSchema);
}

describe('sim pipeline', () => {
  it('fails with a guideline that drops ids, recovers once UT keeps them, gets cheaper after CO', async () => {
    const raw = await rollout('raw');
    expect(raw.evaluation.success).toBe(true);
    expect(raw.steps).toHaveLength(PLAN.steps.length);

    const naive = await rollout('acon');
    expect(naive.evaluation.success).toBe(false);
    expect(naive.events.some((e) => e.kind === 'obs')).toBe(true);

    // Utility phase: analyze the contrastive pair, update, re-run.
    const analysis = await analyzeObsFailure(raw, naive, V0_OBS);
    expect(analysis.missing_facts.map((f) => f.field)).toEqual(['id']);
    const update = await updateObs(V0_OBS, [analysis]);
    expect([...readGuideline(update.guideline).keepFields]).toEqual(['id']);
    const ut = await rollout('acon', update.guideline);
    expect(ut.evaluation.success).toBe(true);

    // Compression phase: what did the agent not use? Drop it, keep accuracy, cut tokens.
    const events = renderCompressionEvents(ut.trajectory, ut.events, { kind: 'obs' });
    const co = await ask(
      'analyzer',
      'analyzer-co',
      { task: ut.trajectory.task, kind: 'obs', guideline: update.guideline, events },
      COMPRESSION_ANALYSIS_FORMAT,
      CompressionAnalysisSchema,
    );
    // `id` copied into a later call; `title` holds the "Road Trip" the task asks by.
    expect(co.needed_fields).toEqual(['id', 'title']);
    // Which fields are unused depends on the generic default's judgement; some always are.
    expect(co.unused_fields.length).toBeGreaterThan(0);
    // The CO updater leaves out a short field only when more than one run left it unused
    // (updater.ts `droppable`); the phase analyzes every successful train run, here two runs of
    // the one fixture task.
    const tightened = await updateObs(update.guideline, [co, co], 'updater-co');
    const utco = await rollout('acon', tightened.guideline);
    expect(utco.evaluation.success).toBe(true);
    expect(peak(utco)).toBeLessThan(peak(ut));
  });

  it('a selector field v0 drops: the agent opens the wrong record, UT names the field, writes it, the compressor keeps it', async () => {
    // The same task, but the agent must find the playlist by its title ("my Road Trip playlist"),
    // as it finds a thread by its sender: the title is a selector, never a copied value.
    const byTitle: ReferencePlan = {
      steps: PLAN.steps.map((step, i) =>
        i !== 2
          ? step
          : {
              ...step,
              needs: [
                { value: TOKEN, fromStep: 0 },
                {
                  value: String(PLAYLIST_ID),
                  fromStep: 1,
                  field: 'id',
                  select: {
                    kind: 'match' as const,
                    field: 'title',
                    value: 'Road Trip',
                    prefix: false,
                  },
                  arg: 'playlist_id',
                },
              ],
            },
      ),
    };
    const titled = directClient(
      createSimProvider({ seed: 7, refetchLimit: 2, planFor: async () => byTitle }),
    );
    const run = (obs: string) => {
      const callCtx = { runId: 'run', rolloutId: `title:${obs}`, taskId: TASK_ID };
      const options = {
        ...defaultContextOptions(),
        t_obs: 200,
        guidelines: { obs: { id: 'obs', text: obs }, hist: { id: 'hist', text: 'Summarize.' } },
      };
      return runEpisode({
        episode: fixtureEpisode(),
        strategy: createStrategy('acon', options, { llm: titled, callCtx, maxOutputRetries: 1 }),
        llm: titled,
        callCtx,
        maxSteps: 20,
      });
    };
    const keepAll = await run('Keep every field of every record.');
    expect(keepAll.evaluation.success).toBe(true);
    // Every item kept: a compressor shortening the list would keep just the playlist the task
    // names, and with one record left a missing title misleads nobody.
    const v0 = `${V0_OBS.replace(' Leave out identifiers and links.', '')} Keep every item of a list. Leave out names and titles.`;
    const naive = await run(v0);
    expect(naive.evaluation.success).toBe(false);

    const analysis = await analyzeObsFailure(keepAll, naive, v0);
    expect(analysis.missing_facts.map((f) => f.field)).toContain('title');
    const update = await updateObs(v0, [analysis]);
    expect([...readGuideline(update.guideline).keepFields]).toContain('title');
    const ut = await run(update.guideline);
    expect(ut.evaluation.success).toBe(true);
  });

  it('survives history compression: the agent re-fetches what the summary dropped', async () => {
    const r = await rollout('acon', 'KEEP: id', { t_hist: 150 });
    expect(r.events.some((e) => e.kind === 'hist' && !e.failed)).toBe(true);
    expect(r.evaluation.success).toBe(true);
  });

  it('gives byte-identical rollouts on a re-run', async () => {
    const a = await rollout('acon', V0_OBS, { t_hist: 300 });
    const b = await rollout('acon', V0_OBS, { t_hist: 300 });
    expect(JSON.stringify(b.trajectory)).toBe(JSON.stringify(a.trajectory));
    // Call ids number the calls of this test's client; everything else must match.
    const events = (r: EpisodeResult) =>
      JSON.stringify(r.events.map((e) => ({ ...e, callId: null })));
    expect(events(b)).toBe(events(a));
    expect(a.events.some((e) => e.kind === 'hist')).toBe(true);
  });
});
