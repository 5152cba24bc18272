import type { LimitParam, ReasoningEffort } from '../config/index.js';

/**
 * Which sampling parameters a model takes, in one place. OpenAI's reasoning models (o1, o3, o4
 * and the gpt-5 family) refuse `max_tokens` ("Use 'max_completion_tokens' instead") and any
 * temperature but 1 (HTTP 400, `unsupported_parameter` / `unsupported_value`); they take
 * `max_completion_tokens` and an optional `reasoning_effort`. Chat models take `temperature`
 * and `max_tokens`, which is also what local servers (vLLM, llama.cpp, Ollama) know best.
 */
export type ModelFamily = 'reasoning' | 'chat';

/** Name prefixes of reasoning models; an optional `provider/` prefix (e.g. `openai/o3`) is skipped. */
export const REASONING_PREFIXES = ['o1', 'o3', 'o4', 'gpt-5'];

/** The family a model name belongs to; `reasoning` overrides the detection when set. */
export function modelFamily(model: string, reasoning?: boolean): ModelFamily {
  if (reasoning !== undefined) return reasoning ? 'reasoning' : 'chat';
  const name = (model.split('/').pop() ?? model).toLowerCase();
  // `o1` and `o1-mini` but not `o1x`; `gpt-5`, `gpt-5-mini`, `gpt-5.1`.
  const isReasoning = REASONING_PREFIXES.some(
    (p) => name === p || name.startsWith(p === 'gpt-5' ? p : `${p}-`),
  );
  return isReasoning ? 'reasoning' : 'chat';
}

export type SamplingInput = {
  model: string;
  temperature: number;
  maxTokens: number;
  /** `roles.X.reasoning`: overrides the detection by name. */
  reasoning?: boolean | undefined;
  /** `roles.X.reasoning_effort`: sent to reasoning models only. */
  reasoningEffort?: ReasoningEffort | undefined;
  /** `endpoints.X.limit_param`: the limit parameter the server understands. */
  limitParam?: LimitParam | undefined;
};

/** The sampling fields of one request, as the model's family takes them. */
export type Sampling = {
  family: ModelFamily;
  /** Absent for reasoning models: they take only the default (1), so none is sent. */
  temperature?: number;
  maxTokens: number;
  limitParam: LimitParam;
  reasoningEffort?: ReasoningEffort;
};

export function samplingFor(input: SamplingInput): Sampling {
  const family = modelFamily(input.model, input.reasoning);
  if (family === 'reasoning') {
    return {
      family,
      maxTokens: input.maxTokens,
      limitParam: input.limitParam ?? 'max_completion_tokens',
      ...(input.reasoningEffort !== undefined ? { reasoningEffort: input.reasoningEffort } : {}),
    };
  }
  return {
    family,
    temperature: input.temperature,
    maxTokens: input.maxTokens,
    limitParam: input.limitParam ?? 'max_tokens',
  };
}
