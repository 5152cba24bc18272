/**
 * Writes the synthetic optimize run of the store-scale benchmark through the public RunStore API
 * (createRun, recordCall, saveRollout, …), the way real rollouts are written, so the benchmark
 * keeps measuring the real storage format whatever it becomes.
 *
 * Rollouts are spread over the conditions and splits of an optimize run (UT and CO phases on
 * train, candidate selection on dev, the final comparison on test). Every step's prompt is the
 * strategy's view of the trajectory so far: raw grows with every turn; masking hides old
 * observations; fifo keeps the last turns; acon and naive compress long observations and fold the
 * history into a summary that grows, with the compressor calls recorded as a real run records them.
 */
import { createHash } from 'node:crypto';
import type { CompressionEvent } from '../../../src/domain/compression-event.js';
import type { StepRecord } from '../../../src/domain/step.js';
import type { Turn } from '../../../src/domain/trajectory.js';
import type { Evaluation } from '../../../src/domain/evaluation.js';
import { foldedText } from '../../../src/compress/history-compressor.js';
import { renderAction, renderTurns } from '../../../src/compress/render-history.js';
import type { ChatMessage, LlmRole, ToolDef } from '../../../src/llm/types.js';
import { loadPrompt, renderPrompt } from '../../../src/prompts/template.js';
import { rolloutMetrics } from '../../../src/metrics/metrics.js';
import { seededRandom, type Random } from '../../../src/seeded-random.js';
import type { RunStore } from '../../../src/store/index.js';
import { SyntheticWorld, toolDefs } from './world.js';

export type ScaleParams = { rollouts: number; steps: number; seed: number };

type Group = {
  condition: string;
  split: 'train' | 'dev' | 'test';
  strategy: 'raw' | 'fifo' | 'masking' | 'summary' | 'naive' | 'acon';
  obs: string | null;
  hist: string | null;
  /** Chance of success. */
  accuracy: number;
};

const acon = (obs: number, hist: number, split: Group['split'], accuracy: number): Group => {
  const o = `obs-${String(obs).padStart(4, '0')}`;
  const h = `hist-${String(hist).padStart(4, '0')}`;
  return { condition: `acon[${o},${h}]`, split, strategy: 'acon', obs: o, hist: h, accuracy };
};
const plain = (strategy: Group['strategy'], split: Group['split'], accuracy: number): Group => ({
  condition: strategy,
  split,
  strategy,
  obs: strategy === 'naive' ? 'obs-0000' : null,
  hist: strategy === 'naive' ? 'hist-0000' : null,
  accuracy,
});

/** Conditions of the synthetic optimize run, each with the same share of the rollouts. */
export const GROUPS: Group[] = [
  plain('raw', 'train', 0.7),
  acon(0, 0, 'train', 0.52),
  acon(2, 1, 'train', 0.66),
  acon(4, 3, 'train', 0.68),
  acon(1, 0, 'dev', 0.55),
  acon(2, 0, 'dev', 0.6),
  acon(2, 1, 'dev', 0.64),
  acon(3, 1, 'dev', 0.58),
  acon(4, 3, 'dev', 0.67),
  acon(4, 2, 'dev', 0.61),
  plain('raw', 'test', 0.7),
  plain('fifo', 'test', 0.45),
  plain('masking', 'test', 0.6),
  plain('summary', 'test', 0.55),
  plain('naive', 'test', 0.5),
  acon(4, 3, 'test', 0.67),
];

/** The versions an optimize run ends with (its summary's `final`, the export's default filter). */
export const FINAL = { obs: 'obs-0004', hist: 'hist-0003' };

/** Observations longer than this are compressed by acon and naive (T_obs = 1024 tokens at ~4 characters a token). */
const OBS_CHARS = 4096;
/** A view longer than this is folded into the summary by acon and naive (~T_hist = 4096 tokens). */
const HIST_CHARS = 16_000;
/** masking keeps the last M observations (seed 001: M = 10); fifo the last turns that fit. */
const MASK_KEEP = 10;
const FIFO_KEEP = 12;
/** The summary baseline folds N = 21 turns and keeps the last M = 10. */
const SUMMARY_AT = 21;
const SUMMARY_KEEP = 10;

const tokensOf = (chars: number) => Math.ceil(chars / 4);
const messageChars = (m: ChatMessage) => (m.content?.length ?? 0) + 40;

export type Generated = { rollouts: number; calls: number };

/**
 * Writes one finished optimize run of `p.rollouts` rollouts into the store. `onProgress` is
 * called after every rollout.
 */
export function generateRun(
  store: RunStore,
  runId: string,
  p: ScaleParams,
  onProgress?: (done: number) => void,
): Generated {
  const world = new SyntheticWorld(p.seed);
  const tools = toolDefs();
  const system = loadPrompt('appworld-agent.system.txt');
  store.createRun({
    id: runId,
    kind: 'optimize',
    command: `acon optimize --bench appworld (synthetic: scripts/bench/store-scale.ts --rollouts ${p.rollouts} --steps ${p.steps} --seed ${p.seed})`,
    bench: 'appworld',
    provider: 'sim',
    models: {
      agent: 'sim/agent',
      obs_compressor: 'sim/compressor',
      hist_compressor: 'sim/compressor',
    },
    simulated: true,
    params: { synthetic: p },
    config: { seed: p.seed },
  });
  const guidelines = guidelineTexts(world, p.seed);
  saveGuidelines(store, runId, guidelines);
  let calls = 0;
  let done = 0;
  const perGroup = Math.floor(p.rollouts / GROUPS.length);
  GROUPS.forEach((group, g) => {
    const count = perGroup + (g < p.rollouts % GROUPS.length ? 1 : 0);
    for (let i = 0; i < count; i++) {
      const taskId = `${group.split}-${String(i).padStart(5, '0')}`;
      calls += writeRollout(store, {
        runId,
        group,
        taskId,
        index: done,
        params: p,
        world,
        tools,
        system,
        guidelines,
      });
      done++;
      onProgress?.(done);
    }
  });
  store.setRunStatus(runId, 'finished', { final: FINAL, synthetic: p });
  return { rollouts: done, calls };
}

type RolloutInput = {
  runId: string;
  group: Group;
  taskId: string;
  index: number;
  params: ScaleParams;
  world: SyntheticWorld;
  tools: ToolDef[];
  system: string;
  guidelines: Map<string, string>;
};

/** One rollout: its LLM calls as they happen, then the rollout with steps and events. */
function writeRollout(store: RunStore, x: RolloutInput): number {
  const { group, taskId, world, params } = x;
  const random = seededRandom(params.seed, group.condition, taskId);
  const taskRandom = seededRandom(params.seed, 'task', taskId);
  const app = world.appOf(taskRandom);
  const task = world.instruction(taskRandom, app);
  // Tasks differ in length more than conditions do.
  const base = params.steps - 9 + Math.floor(taskRandom() * 14);
  const steps = Math.max(4, base + Math.floor(random() * 5) - 2);
  const rolloutId = uuid(x.runId, group.condition, taskId);
  const ctx = { runId: x.runId, rolloutId, taskId };
  let calls = 0;
  const call = (
    role: LlmRole,
    step: number,
    messages: ChatMessage[],
    answer: ChatMessage & { role: 'assistant' },
    withTools: boolean,
  ): number => {
    calls++;
    const promptTokens = tokensOf(messages.reduce((n, m) => n + messageChars(m), 0));
    const usage = {
      promptTokens,
      cachedPromptTokens: 0,
      completionTokens: tokensOf(messageChars(answer)),
    };
    return store.recordCall({
      ctx: { ...ctx, role, step },
      provider: 'sim',
      model: role === 'agent' ? 'agent' : 'compressor',
      requestHash: createHash('sha256').update(`${rolloutId}/${role}/${step}`).digest('hex'),
      request: {
        messages,
        ...(withTools ? { tools: x.tools } : {}),
        model: role === 'agent' ? 'agent' : 'compressor',
        temperature: 0,
        maxTokens: 1024,
      },
      response: { message: answer, usage },
      usage,
      costUsd: 0,
      latencyMs: 40 + Math.floor(random() * 400),
      cached: false,
      error: null,
    });
  };

  const sys: ChatMessage = { role: 'system', content: x.system };
  const user: ChatMessage = { role: 'user', content: task };
  const turns: Turn[] = [];
  // What the view shows of each turn (compressed or masked observations are new messages).
  const shown: ChatMessage[][] = [];
  const masked = new Map<number, ChatMessage>();
  const events: CompressionEvent[] = [];
  const records: StepRecord[] = [];
  let summary: { text: string; message: ChatMessage; through: number } | null = null;
  let from = 0;
  const compresses = group.strategy === 'acon' || group.strategy === 'naive';

  for (let step = 0; step < steps; step++) {
    // History folding before the agent sees this step's prompt.
    if (compresses || group.strategy === 'summary') {
      const viewChars = shown
        .slice(from)
        .reduce((n, t) => n + t.reduce((a, m) => a + messageChars(m), 0), 0);
      const fold =
        group.strategy === 'summary'
          ? step - from > SUMMARY_AT
            ? step - SUMMARY_KEEP
            : null
          : viewChars > HIST_CHARS && step - from >= 2
            ? step - 1
            : null;
      if (fold !== null) {
        const history = renderTurns(
          shown.slice(from, fold).map((m) => ({
            assistant: m[0] as Turn['assistant'],
            observations: m.slice(1),
          })),
          from + 1,
        );
        const previous: string | null = summary?.text ?? null;
        const notes = turns
          .slice(from, fold)
          .map((t, i) => `- Turn ${from + i + 1}: ${t.assistant.content ?? ''}`);
        const text: string = [previous, ...notes].filter((l) => l !== null).join('\n');
        const kind = group.strategy === 'summary' ? 'summary' : 'hist';
        const guideline = group.hist ?? 'hist-0000';
        const messages: ChatMessage[] = [
          {
            role: 'system',
            content:
              kind === 'summary'
                ? loadPrompt('summary.system.txt')
                : renderPrompt('hist-compressor.system.txt', {
                    guideline: x.guidelines.get(guideline)!,
                  }),
          },
          {
            role: 'user',
            content: renderPrompt(
              kind === 'summary' ? 'summary.user.txt' : 'hist-compressor.user.txt',
              { task, previous_summary: previous ?? '(none)', history },
            ),
          },
        ];
        const output = `# History Summary\n${text}`;
        const callId = call(
          'hist_compressor',
          step,
          messages,
          {
            role: 'assistant',
            content: output,
          },
          false,
        );
        const input = foldedText(previous, history);
        events.push({
          kind,
          step,
          inputTokens: tokensOf(input.length),
          outputTokens: tokensOf(text.length),
          input,
          output: text,
          guidelineId: kind === 'summary' ? null : guideline,
          callId,
          failed: false,
        });
        summary = {
          text,
          through: fold,
          message: {
            role: 'user',
            content: renderPrompt('history-summary.user.txt', {
              through: String(fold),
              summary: text,
            }),
          },
        };
        from = fold;
      }
    }

    const prompt = view(group.strategy, step);
    const promptTokens = tokensOf(prompt.reduce((n, m) => n + messageChars(m), 0)) + 900;
    const ex = world.exchange(random, step, steps, app);
    const callId = call('agent', step, prompt, ex.assistant, true);
    const toolMessage: ChatMessage = {
      role: 'tool',
      tool_call_id: ex.assistant.tool_calls![0]!.id,
      content: ex.observation,
    };
    const turn: Turn = { assistant: ex.assistant, observations: [toolMessage] };
    turns.push(turn);
    records.push({
      index: step,
      prompt,
      promptTokens,
      assistant: ex.assistant,
      toolCall: ex.assistant.tool_calls![0]!,
      observations: [toolMessage],
      observationTokens: tokensOf(ex.observation.length),
      latencyMs: 100,
      callId,
      reactive: false,
      malformed: false,
    });

    // Observation compression: shapes the next step's prompt.
    let seen: ChatMessage = toolMessage;
    if (compresses && ex.observation.length > OBS_CHARS && step + 1 < steps) {
      const guideline = group.obs ?? 'obs-0000';
      const refined = refine(ex.observation);
      const failed = random() < 0.01;
      const messages: ChatMessage[] = [
        {
          role: 'system',
          content: renderPrompt('obs-compressor.system.txt', {
            guideline: x.guidelines.get(guideline)!,
          }),
        },
        {
          role: 'user',
          content: renderPrompt('obs-compressor.user.txt', {
            task,
            session:
              step === 0
                ? '(none)'
                : `${renderTurns(turns.slice(step - 1, step), step)}\n\n${renderAction(turn, step + 1)}`,
            observation: ex.observation,
          }),
        },
      ];
      const compressorCall = call(
        'obs_compressor',
        step + 1,
        messages,
        {
          role: 'assistant',
          content: `# Refined Observation\n${refined}`,
        },
        false,
      );
      events.push({
        kind: 'obs',
        step: step + 1,
        inputTokens: tokensOf(ex.observation.length),
        outputTokens: tokensOf(refined.length),
        input: ex.observation,
        output: refined,
        guidelineId: guideline,
        callId: compressorCall,
        failed,
      });
      if (!failed) seen = { ...toolMessage, content: refined };
    }
    shown.push([ex.assistant, seen]);
  }

  function view(strategy: Group['strategy'], step: number): ChatMessage[] {
    const head = summary ? [sys, user, summary.message] : [sys, user];
    if (strategy === 'fifo')
      return [sys, user, ...shown.slice(Math.max(0, step - FIFO_KEEP)).flat()];
    if (strategy === 'masking') {
      return [
        ...head,
        ...shown.flatMap((t, i) => {
          if (i >= step - MASK_KEEP) return t;
          let m = masked.get(i);
          if (!m) {
            const lines = (t[1]!.content ?? '').split('\n').length;
            m = {
              ...t[1]!,
              content: `Previous ${lines} lines omitted for brevity.`,
            } as ChatMessage;
            masked.set(i, m);
          }
          return [t[0]!, m];
        }),
      ];
    }
    return [...head, ...shown.slice(from).flat()];
  }

  const success = random() < group.accuracy;
  const evaluation: Evaluation = success
    ? {
        success,
        score: 1,
        details: [
          { name: 'answer', passed: true, detail: 'matches' },
          { name: 'no collateral damage', passed: true, detail: 'ok' },
        ],
      }
    : {
        success,
        score: 0.5,
        details: [
          {
            name: 'answer',
            passed: false,
            detail: `expected "${Math.floor(random() * 300)}", got "${Math.floor(random() * 300)}"`,
          },
          { name: 'no collateral damage', passed: true, detail: 'ok' },
        ],
      };
  const startedAt = new Date(Date.UTC(2026, 10, 20) + x.index * 7_000);
  const finishedAt = new Date(startedAt.getTime() + steps * 900);
  const metrics = rolloutMetrics({
    success,
    score: evaluation.score,
    stepPromptTokens: records.map((s) => s.promptTokens),
    events,
    calls: store.callsOfRollout(rolloutId),
    wallMs: finishedAt.getTime() - startedAt.getTime(),
  });
  store.saveRollout({
    id: rolloutId,
    runId: x.runId,
    condition: group.condition,
    taskId,
    split: group.split,
    strategy: group.strategy,
    guidelineObs: group.obs,
    guidelineHist: group.hist,
    status: success || random() < 0.5 ? 'completed' : 'max_steps',
    evaluation,
    metrics,
    trajectory: { system: x.system, task, turns },
    steps: records,
    events,
    error: null,
    episodeMeta: { experiment_name: `${x.runId}/${group.condition}` },
    startedAt: startedAt.toISOString(),
    finishedAt: finishedAt.toISOString(),
  });
  return calls;
}

/** The refined observation: the first items with their identifying fields. */
function refine(observation: string): string {
  const parsed = JSON.parse(observation) as { items?: Record<string, unknown>[] };
  const items = (parsed.items ?? [])
    .slice(0, 4)
    .map((item) => Object.fromEntries(Object.entries(item).slice(0, 3)));
  return JSON.stringify({ items, more: Math.max(0, (parsed.items?.length ?? 0) - items.length) });
}

/** A UUID-shaped id that is the same for the same seed, condition and task. */
function uuid(...parts: (string | number)[]): string {
  const h = createHash('sha256').update(parts.join('\u0000')).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

function guidelineTexts(world: SyntheticWorld, seed: number): Map<string, string> {
  const out = new Map<string, string>();
  const ids = new Set(GROUPS.flatMap((g) => [g.obs, g.hist]).filter((x): x is string => !!x));
  ids.add('obs-0000').add('hist-0000');
  for (const id of [...ids].sort()) {
    const random: Random = seededRandom(seed, 'guideline', id);
    const lines = Array.from(
      { length: 12 + Number(id.slice(-1)) * 3 },
      () => `- ${world.instruction(random, 'spotify').slice(0, 90)}`,
    );
    out.set(id, `Keep what the agent needs next.\n${lines.join('\n')}`);
  }
  return out;
}

function saveGuidelines(store: RunStore, runId: string, texts: Map<string, string>): void {
  for (const [id, text] of texts) {
    const kind = id.startsWith('obs') ? 'obs' : 'hist';
    const n = Number(id.slice(-4));
    store.saveGuidelineVersion({
      id,
      kind,
      parent: n === 0 ? null : `${kind}-${String(n - 1).padStart(4, '0')}`,
      phase: n === 0 ? 'seed' : n <= 2 ? 'ut' : 'co',
      runId: n === 0 ? null : runId,
      status: n === 0 ? 'seed' : 'accepted',
      path: `guidelines/${kind}/${id}.md`,
      text,
      metrics: { accuracy: 0.5 + n / 20, peakTokens: 9000 - n * 500, selection: 'synthetic' },
      createdAt: new Date(Date.UTC(2026, 10, 20, n)).toISOString(),
    });
  }
  store.setState(runId, 'start', {
    obs: { id: 'obs-0000', text: texts.get('obs-0000')! },
    hist: { id: 'hist-0000', text: texts.get('hist-0000')! },
  });
}
