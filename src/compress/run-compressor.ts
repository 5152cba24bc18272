import { cutReasonText } from '../llm/index.js';
import type { CallContext, ChatMessage, LlmClient, LlmRole, TokenCounter } from '../llm/index.js';
import { renderPrompt } from '../prompts/index.js';
import type { CompressionEvent } from '../domain/index.js';
import { extractSection, type CompressorHeading } from './parse.js';

/** What every compressor needs; context strategies build it per rollout. */
export type CompressorDeps = {
  llm: LlmClient;
  /** Base context for compressor calls (runId, rolloutId, taskId); role and step are set per call. */
  callCtx: Omit<CallContext, 'role'>;
  /** Bounded retries for an unusable compressor answer before the event is recorded as failed. */
  maxOutputRetries: number;
  /** Token counts for thresholds and budgets. */
  tokens: TokenCounter;
};

export type CompressorRequest = {
  kind: CompressionEvent['kind'];
  role: Extract<LlmRole, 'obs_compressor' | 'hist_compressor'>;
  heading: CompressorHeading;
  system: string;
  user: string;
  /** The text the compressed answer replaces; kept as it is when the compressor fails. */
  original: string;
  guidelineId: string | null;
  step: number;
};

/** `ok: false` means the original text was kept; the event says `failed: true`. */
export type CompressorOutcome = { ok: boolean; text: string; event: CompressionEvent };

/**
 * One compression with a bounded retry budget (ARCHITECTURE §7): an answer without the heading,
 * or with nothing under it, is shown back to the model with the reason and asked for again up
 * to `maxOutputRetries` times (a changed request, so the call cache cannot return the same bad
 * answer). An answer cut by the provider (`finish_reason` length or content_filter) is unusable
 * however it starts: half a record under the right heading would reach the agent. After that the event is recorded as failed and the original text is kept; malformed
 * output never throws. Provider errors propagate.
 */
export async function runCompressor(
  req: CompressorRequest,
  deps: CompressorDeps,
): Promise<CompressorOutcome> {
  const messages: ChatMessage[] = [
    { role: 'system', content: req.system },
    { role: 'user', content: req.user },
  ];
  // A counter that asks a server fetches the counts first (server-tokenizer.ts says why).
  await deps.tokens.prepare?.([req.original]);
  const inputTokens = deps.tokens.countTokens(req.original);
  let callId: number | null = null;
  let reason = 'no answer';
  for (let attempt = 0; attempt <= deps.maxOutputRetries; attempt++) {
    const result = await deps.llm.chat(
      { messages },
      { ...deps.callCtx, role: req.role, step: req.step },
    );
    callId = result.callId;
    const parsed =
      result.finishReason !== undefined
        ? { ok: false as const, reason: cutReasonText(result.finishReason) }
        : extractSection(result.message.content, req.heading);
    if (parsed.ok) {
      await deps.tokens.prepare?.([parsed.text]);
      return {
        ok: true,
        text: parsed.text,
        event: {
          kind: req.kind,
          step: req.step,
          inputTokens,
          outputTokens: deps.tokens.countTokens(parsed.text),
          input: req.original,
          output: parsed.text,
          guidelineId: req.guidelineId,
          callId,
          failed: false,
        },
      };
    }
    reason = parsed.reason;
    messages.push(
      { role: 'assistant', content: result.message.content ?? '' },
      {
        role: 'user',
        content: renderPrompt('compressor-retry.user.txt', {
          reason: parsed.reason,
          heading: req.heading,
        }),
      },
    );
  }
  return {
    ok: false,
    text: req.original,
    event: {
      kind: req.kind,
      step: req.step,
      inputTokens,
      outputTokens: inputTokens,
      input: req.original,
      output: req.original,
      guidelineId: req.guidelineId,
      callId,
      failed: true,
      failureReason: reason,
    },
  };
}
