import { extractSection, HISTORY_SUMMARY, REFINED_OBSERVATION } from '../compress/index.js';
import type { ChatMessage } from '../llm/index.js';
import type { ExportRole, TrainingExample } from './schema.js';
import { RecordedRequestSchema, RecordedResponseSchema, type CallRow } from './source.js';

/** Why a candidate call is not a training example; counted in the summary. */
export type SkipReason = 'failedRollout' | 'errored' | 'malformed' | 'failedEvent';

export type BuildResult =
  { ok: true; example: TrainingExample } | { ok: false; reason: SkipReason };

const HEADING = { obs: REFINED_OBSERVATION, hist: HISTORY_SUMMARY } as const;

/**
 * Turns one recorded call into a training example, or says why it is none.
 *
 * - Compressor calls: system = the recorded system message (instructions + guideline), user = the
 *   first user message (the input the compressor saw), assistant = the teacher's answer. A retry
 *   call carries the bad answer and a correction after those two; the example keeps only the
 *   first two, so the student learns to answer right the first time. An answer without its
 *   heading (`# Refined Observation` / `# History Summary`) is not a valid teacher example.
 * - Agent calls: the recorded prompt and the answer; an answer without a tool call to a prompt
 *   that offered tools is a malformed step (the loop corrected it), not an example.
 */
export function buildExample(row: CallRow, role: ExportRole, includeFailed: boolean): BuildResult {
  if (!row.success && !includeFailed) return { ok: false, reason: 'failedRollout' };
  if (row.error !== null || row.response === null) return { ok: false, reason: 'errored' };
  if (row.failed_event) return { ok: false, reason: 'failedEvent' };
  const request = RecordedRequestSchema.safeParse(parseJson(row.request));
  const response = RecordedResponseSchema.safeParse(parseJson(row.response));
  if (!request.success || !response.success) return { ok: false, reason: 'malformed' };
  const answer = response.data.message;
  const base = {
    role,
    taskId: row.task_id,
    rolloutId: row.rollout_id,
    callId: row.id,
    split: row.split,
    guideline: guidelineOf(row, role),
  };

  if (role === 'agent') {
    const tools = request.data.tools;
    const hasCalls = (answer.tool_calls?.length ?? 0) > 0;
    if (tools && tools.length > 0 && !hasCalls) return { ok: false, reason: 'malformed' };
    if (!hasCalls && (answer.content ?? '').trim() === '')
      return { ok: false, reason: 'malformed' };
    const final: ChatMessage = hasCalls
      ? { role: 'assistant', content: answer.content, tool_calls: answer.tool_calls }
      : { role: 'assistant', content: answer.content };
    const messages = [...mergeConsecutiveUsers(request.data.messages), final];
    return {
      ok: true,
      example: { ...base, messages, ...(tools && tools.length > 0 ? { tools } : {}) },
    };
  }

  if (!extractSection(answer.content, HEADING[role]).ok) return { ok: false, reason: 'malformed' };
  const system = request.data.messages.find((m) => m.role === 'system');
  const user = request.data.messages.find((m) => m.role === 'user');
  if (!system || !user || answer.content === null) return { ok: false, reason: 'malformed' };
  return {
    ok: true,
    example: {
      ...base,
      messages: [
        { role: 'system', content: system.content },
        { role: 'user', content: user.content },
        { role: 'assistant', content: answer.content },
      ],
    },
  };
}

/**
 * Consecutive user messages joined into one (blank line between). Agent views put the task and a
 * history summary side by side as two user messages; chat fine-tuning formats require turns to
 * alternate, and joining keeps every word.
 */
export function mergeConsecutiveUsers(messages: readonly ChatMessage[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  for (const m of messages) {
    const prev = out.at(-1);
    if (m.role === 'user' && prev?.role === 'user') {
      out[out.length - 1] = { role: 'user', content: `${prev.content}\n\n${m.content}` };
    } else {
      out.push(m);
    }
  }
  return out;
}

function parseJson(text: string | null): unknown {
  if (text === null) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

/** The guideline version an example was produced under: the role's, or both for agent turns. */
function guidelineOf(row: CallRow, role: ExportRole): string {
  if (role === 'obs') return row.guideline_obs ?? 'none';
  if (role === 'hist') return row.guideline_hist ?? 'none';
  return [row.guideline_obs, row.guideline_hist].filter(Boolean).join('+') || 'none';
}
