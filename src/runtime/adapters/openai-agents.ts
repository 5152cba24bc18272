/**
 * `acon/openai-agents`: ACON for the OpenAI Agents SDK (JS) as a `callModelInputFilter`.
 *
 * @example
 * import { run } from '@openai/agents';
 * import { aconInputFilter } from 'acon/openai-agents';
 * await run(agent, task, { callModelInputFilter: aconInputFilter(compressor) });
 */
import type { AgentInputItem, CallModelInputFilter, Model } from '@openai/agents';
import type { ContextCompressor } from '../context-compressor.js';
import { resolveCompressor, type AdapterCompressor } from './compressor-input.js';
import { agentsModelCompressor, isAgentsModel } from './openai-agents-compressor.js';
import { rebuild } from '../rebuild.js';
import { replaceText, toOpenAi } from './openai-agents-items.js';

/**
 * A compressor from `createContextCompressor`, or its options where `model` may also be any
 * Agents SDK `Model` (`{ guidelines, model: new OpenAIChatCompletionsModel(client, 'gpt-4.1-mini') }`).
 */
export type AgentsCompressor = AdapterCompressor<Model>;

export { agentsModelCompressor } from './openai-agents-compressor.js';

/**
 * A filter that compresses the input items of every model call of a run: function results over
 * T_obs by the observation compressor, the history over T_hist folded into a summary. The run's
 * own items are not changed; the instructions pass through.
 */
export function aconInputFilter(input: AgentsCompressor): CallModelInputFilter {
  const compressor = resolveCompressor(input, isAgentsModel, (m) => agentsModelCompressor(m));
  return async ({ modelData }) => ({
    ...modelData,
    input: await compressInput(compressor, modelData.input),
  });
}

/**
 * The input items with ACON applied; the same objects where nothing changed. When the fold takes
 * the latest user message (a later run's request over a session's history, which ACON reads as
 * part of the turn before it), that message is put back verbatim after the summary, as
 * `aconSession` keeps it: it is the request the kept turns answer, and the runner stores a run's
 * new input in a session only as it appears in the filtered input (@openai/agents-core 0.20,
 * runner/sessionPersistence.js `reconcilePersistableFilteredItems`), so a request folded out of
 * the view would be missing from the session.
 */
export async function compressInput(
  compressor: ContextCompressor,
  input: AgentInputItem[],
): Promise<AgentInputItem[]> {
  const mapped = toOpenAi(input);
  const plan = await compressor.plan(mapped.messages);
  let summary: AgentInputItem | null = null;
  const out = rebuild<AgentInputItem>(input, mapped, plan, {
    summary: (text) => (summary = { type: 'message', role: 'user', content: text }),
    replace: (item, parts) => replaceText(item, parts.get(-1)),
  });
  const request = input.findLast((item) => 'role' in item && item.role === 'user');
  if (summary === null || request === undefined || out.includes(request)) return out;
  const at = out.indexOf(summary);
  return [...out.slice(0, at + 1), request, ...out.slice(at + 1)];
}

export {
  aconSession,
  AconSession,
  type AconSessionOptions,
  type SessionCompaction,
} from './openai-agents-session.js';
