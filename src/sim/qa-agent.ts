import type { ReferencePlan } from '../bench/index.js';
import type { AssistantMessage, ChatMessage } from '../llm/index.js';
import { simAgentTurn, type SimAgentContext, type SimAgentOptions } from './agent.js';
import { containsToken, seenText } from './text.js';

/**
 * The simulated agent of `--bench qa` (issue 14). It is the grounded agent of `agent.ts` (a
 * missing id or answer makes it search or open again, up to the re-fetch limit), except at the
 * end: an answer it still cannot read in its context is submitted empty, not guessed, as a
 * careful reader would. So a fact lost to compression costs that question's EM and F1.
 */
export function simQaAgentTurn(
  plan: ReferencePlan,
  messages: readonly ChatMessage[],
  ctx: SimAgentContext,
  opts: SimAgentOptions,
): AssistantMessage {
  const message = simAgentTurn(plan, messages, ctx, opts);
  const final = plan.steps[plan.steps.length - 1];
  const call = message.tool_calls?.[0];
  if (!final || !call || call.function.name !== final.tool) return message;
  const reference = final.args.answers;
  let args: unknown;
  try {
    args = JSON.parse(call.function.arguments);
  } catch {
    return message;
  }
  const sent = (args as { answers?: unknown }).answers;
  if (!Array.isArray(reference) || !Array.isArray(sent)) return message;
  const seen = seenText(messages);
  const needed = new Set(final.needs.map((n) => n.value));
  const answers = sent.map((answer, i) => {
    const gold = reference[i];
    // Only answers read from an article can be lost; a yes/no answer is reasoned, not read.
    return typeof gold === 'string' && needed.has(gold) && !containsToken(seen, gold) ? '' : answer;
  });
  return {
    ...message,
    tool_calls: [
      { ...call, function: { ...call.function, arguments: JSON.stringify({ answers }) } },
    ],
  };
}
