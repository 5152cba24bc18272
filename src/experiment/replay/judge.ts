import { z } from 'zod';
import type { ChatMessage } from '../../domain/index.js';
import { cutReasonText, type CallContext, type LlmClient } from '../../llm/index.js';
import { renderPrompt } from '../../prompts/index.js';

/** The judge's answer (src/prompts/judge-answer.*.txt). */
export const AnswerVerdictSchema = z.object({
  equivalent: z.boolean(),
  reason: z.string(),
});
export type AnswerVerdict = z.infer<typeof AnswerVerdictSchema>;

const VERDICT_FORMAT = {
  name: 'answer_verdict',
  schema: {
    type: 'object',
    properties: { equivalent: { type: 'boolean' }, reason: { type: 'string' } },
    required: ['equivalent', 'reason'],
    additionalProperties: false,
  },
};

/** What a replay asks about two free-text final answers whose normalised texts differ. */
export type AnswerQuestion = {
  task: string;
  recorded: string;
  replayed: string;
  ctx: Omit<CallContext, 'role'>;
};

/**
 * The judge's decision: `equivalent` or `different` from a parsed verdict; `failed` when every
 * attempt was malformed or cut, in which case the step counts as disagreeing (the normaliser,
 * which already found the texts different, decides).
 */
export type JudgeOutcome = { verdict: 'equivalent' | 'different' | 'failed'; reason: string };

export type AnswerJudge = (q: AnswerQuestion) => Promise<JudgeOutcome>;

function parseVerdict(
  raw: string,
): { ok: true; value: AnswerVerdict } | { ok: false; reason: string } {
  // Models wrap JSON in a fence now and then even when asked not to.
  const text = raw
    .trim()
    .replace(/^```(?:json)?\s*/i, '')
    .replace(/\s*```$/, '');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, reason: 'it is not JSON' };
  }
  const parsed = AnswerVerdictSchema.safeParse(json);
  if (parsed.success) return { ok: true, value: parsed.data };
  const issue = parsed.error.issues[0]!;
  return { ok: false, reason: `${issue.path.join('.') || 'answer'}: ${issue.message}` };
}

/**
 * The optional `judge` role (`roles.judge`, issue #57): asked whether a replayed final answer
 * says what the recorded one said. A malformed answer is shown back with what is wrong, up to
 * `maxRetries` times (a different request, so the call cache cannot return the same one); every
 * attempt is a recorded call of role `judge`. Provider errors propagate, as for every role.
 */
export function createAnswerJudge(llm: LlmClient, maxRetries: number): AnswerJudge {
  return async (q) => {
    const vars = { task: q.task, recorded: q.recorded, replayed: q.replayed };
    const convo: ChatMessage[] = [
      { role: 'system', content: renderPrompt('judge-answer.system.txt', vars) },
      { role: 'user', content: renderPrompt('judge-answer.user.txt', vars) },
    ];
    let last = 'no answer';
    for (let attempt = 0; attempt <= maxRetries; attempt++) {
      const res = await llm.chat(
        { messages: convo, responseFormat: VERDICT_FORMAT },
        { ...q.ctx, role: 'judge' },
      );
      const raw = res.message.content ?? '';
      const parsed =
        res.finishReason !== undefined
          ? { ok: false as const, reason: cutReasonText(res.finishReason) }
          : parseVerdict(raw);
      if (parsed.ok) {
        return {
          verdict: parsed.value.equivalent ? 'equivalent' : 'different',
          reason: parsed.value.reason,
        };
      }
      last = parsed.reason;
      convo.push(
        { role: 'assistant', content: raw },
        {
          role: 'user',
          content: `That answer cannot be used: ${parsed.reason}. Answer again with only one JSON object: {"equivalent": true or false, "reason": "..."}.`,
        },
      );
    }
    return { verdict: 'failed', reason: `the judge gave no usable verdict: ${last}` };
  };
}
