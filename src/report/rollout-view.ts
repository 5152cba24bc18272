import { z } from 'zod';
import {
  CompressionEventSchema,
  type CompressionEvent,
  type RolloutRow,
  type Trajectory,
} from '../domain/index.js';
import { AssistantMessageSchema, ChatMessageSchema } from '../llm/index.js';
import type { StoredStep } from '../store/index.js';
import { wrapLine, type FitOptions } from './fit-table.js';
import { RolloutSummarySchema, summarizeRollout } from './run-show.js';
import { int, SIMULATED_NOTE } from './table.js';

/** One agent step as `acon rollout show` prints it. */
export const StepViewSchema = z.object({
  index: z.number().int(),
  /** Tokens of the prompt the agent was sent at this step (system prompt and tools included). */
  promptTokens: z.number().int(),
  /** Compression events that shaped this step's prompt, input and output in full. */
  compressions: z.array(CompressionEventSchema),
  /** The agent's text (reasoning), if any. */
  thought: z.string().nullable(),
  /** Tool calls as `name(arguments)`, or the code the agent wrote. */
  actions: z.array(z.string()),
  /** What the environment answered, as the agent received it before any later compression. */
  observations: z.array(z.string()),
});
export type StepView = z.infer<typeof StepViewSchema>;

/** `acon rollout show ID --json` (texts are never folded in JSON). */
export const RolloutShowSchema = z.object({
  rollout: RolloutSummarySchema.extend({
    runId: z.string(),
    guidelineObs: z.string().nullable(),
    guidelineHist: z.string().nullable(),
  }),
  simulated: z.boolean(),
  task: z.string(),
  system: z.string(),
  steps: z.array(StepViewSchema),
});
export type RolloutShow = z.infer<typeof RolloutShowSchema>;

const ObservationsSchema = z.array(ChatMessageSchema);

export function rolloutShow(
  row: RolloutRow,
  trajectory: Pick<Trajectory, 'system' | 'task'>,
  steps: StoredStep[],
  events: CompressionEvent[],
  simulated: boolean,
): RolloutShow {
  return {
    rollout: {
      ...summarizeRollout(row),
      runId: row.run_id,
      guidelineObs: row.guideline_obs,
      guidelineHist: row.guideline_hist,
    },
    simulated,
    task: trajectory.task,
    system: trajectory.system,
    steps: steps.map((s) => {
      const assistant = AssistantMessageSchema.parse(s.assistant);
      const observations = ObservationsSchema.parse(s.observations);
      const calls = assistant.tool_calls ?? [];
      return {
        index: s.index,
        promptTokens: s.promptTokens,
        compressions: events.filter((e) => e.step === s.index),
        // A code-writing agent's content is its action; a tool-calling agent's is its reasoning.
        thought: calls.length > 0 ? (assistant.content ?? null) || null : null,
        actions:
          calls.length > 0
            ? calls.map((c) => `${c.function.name}(${c.function.arguments})`)
            : [assistant.content ?? ''],
        observations: observations.map((m) => (typeof m.content === 'string' ? m.content : '')),
      };
    }),
  };
}

/** Lines kept of each folded text. */
const FOLD = 6;

type RenderOpts = FitOptions & { full?: boolean };

/** Wraps `text` to `w` columns and folds it to FOLD lines unless `full`. */
function block(text: string, w: number, full: boolean): string[] {
  const lines = text.split('\n').flatMap((l) => wrapLine(l, w));
  if (full || lines.length <= FOLD) return lines;
  return [...lines.slice(0, FOLD), `… ${lines.length - FOLD} more lines (--full shows all)`];
}

function labelled(label: string, text: string, limit: number, full: boolean): string[] {
  const pad = ' '.repeat(label.length);
  return block(text, Math.max(20, limit - label.length), full).map(
    (l, i) => `${i === 0 ? label : pad}${l}`,
  );
}

/** Input and output of a compression side by side, each half the width. */
function sideBySide(input: string, output: string, limit: number, full: boolean): string[] {
  const half = Math.max(20, Math.floor((limit - 5) / 2));
  const left = ['input', ...block(input, half, full)];
  const right = ['output', ...block(output, half, full)];
  const out: string[] = [];
  for (let i = 0; i < Math.max(left.length, right.length); i++) {
    out.push(`  ${(left[i] ?? '').padEnd(half)} │ ${right[i] ?? ''}`.trimEnd());
  }
  return out;
}

/** The trajectory step by step; long texts folded unless `full`, lines within the width. */
export function renderRollout(v: RolloutShow, opts: RenderOpts = {}): string {
  const limit = opts.wide ? 200 : (opts.width ?? 100);
  const full = opts.full ?? false;
  const r = v.rollout;
  const out: string[] = [];
  const verdict = r.success ? '✓ succeeded' : '✗ failed';
  out.push(
    ...wrapLine(
      `${v.simulated ? 'SIMULATED — ' : ''}rollout ${r.id} · run ${r.runId} · ${r.condition} · task ${r.taskId} · ${verdict}`,
      limit,
    ),
  );
  out.push(
    ...wrapLine(
      `${r.steps} steps · peak ${int(r.peakInputTokens)} tokens · ${r.compressionEvents} compressions · $${r.costUsd.toFixed(4)}` +
        (r.guidelineObs ? ` · guidelines ${r.guidelineObs}, ${r.guidelineHist}` : ''),
      limit,
    ),
  );
  if (r.reason) out.push(...labelled('reason  ', r.reason, limit, true));
  out.push(...labelled('task    ', v.task, limit, full));
  for (const s of v.steps) {
    const title = `── step ${s.index} · prompt ${int(s.promptTokens)} tokens `;
    out.push('', title + '─'.repeat(Math.max(0, limit - title.length)));
    for (const e of s.compressions) {
      const what = e.kind === 'obs' || e.kind === 'hist' || e.kind === 'summary';
      out.push(
        `compression ${e.kind}: ${int(e.inputTokens)} → ${int(e.outputTokens)} tokens` +
          (e.guidelineId ? ` (guideline ${e.guidelineId})` : '') +
          (e.failed
            ? ` — FAILED${e.failureReason ? ` (${e.failureReason})` : ''}, the uncompressed text was kept`
            : ''),
      );
      if (what || e.input || e.output) out.push(...sideBySide(e.input, e.output, limit, full));
    }
    if (s.thought) out.push(...labelled('thought ', s.thought, limit, full));
    for (const a of s.actions) out.push(...labelled('action  ', a, limit, full));
    for (const o of s.observations) out.push(...labelled('obs     ', o, limit, full));
  }
  if (v.simulated) out.push('', ...wrapLine(SIMULATED_NOTE, limit));
  return `${out.join('\n')}\n`;
}
