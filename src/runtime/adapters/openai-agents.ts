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

/** The input items with ACON applied; the same objects where nothing changed. */
export async function compressInput(
  compressor: ContextCompressor,
  input: AgentInputItem[],
): Promise<AgentInputItem[]> {
  const mapped = toOpenAi(input);
  const plan = await compressor.plan(mapped.messages);
  return rebuild<AgentInputItem>(input, mapped, plan, {
    summary: (text) => ({ type: 'message', role: 'user', content: text }),
    replace: (item, parts) => replaceText(item, parts.get(-1)),
  });
}

export {
  aconSession,
  AconSession,
  type AconSessionOptions,
  type SessionCompaction,
} from './openai-agents-session.js';
