import type { Config, TokenizerName } from '../config/index.js';
import { ConfigError } from '../errors.js';
import { roleConfig } from './role-config.js';
import { ServerTokenCounter } from './server-tokenizer.js';
import { checkTokenizer, tokenCounterFor, type TokenCounter } from './tokenizer.js';
import type { LlmClient, LlmRole } from './types.js';

/**
 * The encoding a role's tokens are counted in: the role's `tokenizer`, else its endpoint's, else
 * o200k. The agent's counts what the strategies measure (T_obs, T_hist, peaks), because it is
 * the agent's context they keep small.
 */
export function roleTokenizer(config: Config, role: LlmRole): TokenizerName {
  const r = roleConfig(config, role);
  return r.tokenizer ?? config.endpoints[r.endpoint]?.tokenizer ?? 'o200k';
}

/** The setting that makes `role` count in its tokenizer: its own, else its endpoint's. */
export function tokenizerSetting(config: Config, role: LlmRole): string {
  const r = roleConfig(config, role);
  return r.tokenizer !== undefined
    ? `roles.${role}.tokenizer`
    : `endpoints.${r.endpoint}.tokenizer`;
}

/** Every tokenizer the config names, read now (a missing `hf:` file is a config error up front). */
export function checkTokenizers(config: Config): void {
  for (const role of Object.keys(config.roles) as LlmRole[]) {
    const name = roleTokenizer(config, role);
    if (name !== 'server') checkTokenizer(name);
  }
}

/**
 * Asks the server of every role in `roles` that counts with `tokenizer: server` for one count,
 * so that a server without `/tokenize` (a 404: OpenAI itself, Ollama, llama.cpp) stops the
 * command before anything is stored, naming the setting, instead of failing its first rollout.
 */
export async function checkServerTokenizers(
  config: Config,
  llm: LlmClient,
  roles: readonly LlmRole[],
): Promise<void> {
  for (const role of roles) {
    if (roleTokenizer(config, role) !== 'server') continue;
    const setting = tokenizerSetting(config, role);
    if (!llm.tokenize) {
      throw new ConfigError(
        'acon.config.yaml',
        setting,
        'server: this LLM client cannot count on a server',
      );
    }
    try {
      await llm.tokenize(role, 'acon');
    } catch (err) {
      if (err instanceof ConfigError) throw err;
      const detail = err instanceof Error ? err.message : String(err);
      throw new ConfigError(
        'acon.config.yaml',
        setting,
        `server: the ${role} model's server did not count a text at /tokenize (${detail}); vLLM and SGLang serve it at the server's root, other servers do not: set o200k, cl100k or hf:PATH to the model's tokenizer.json instead`,
        { cause: err },
      );
    }
  }
}

/**
 * The counter thresholds and peaks of `role` use: an in-process encoding, or the server's
 * counts through `llm` (ServerTokenCounter).
 */
export function roleTokenCounter(config: Config, role: LlmRole, llm: LlmClient): TokenCounter {
  const name = roleTokenizer(config, role);
  if (name !== 'server') return tokenCounterFor(name);
  const tokenize = llm.tokenize?.bind(llm);
  if (!tokenize) {
    throw new ConfigError(
      'acon.config.yaml',
      tokenizerSetting(config, role),
      'server: this LLM client cannot count on a server',
    );
  }
  return new ServerTokenCounter((text) => tokenize(role, text));
}

/**
 * What a figure's provenance says of its counts: the role's tokenizer and, for a server
 * tokenizer, how many counts were estimated in o200k because the server gave none.
 */
export function tokenizerProvenance(
  config: Config,
  role: LlmRole,
  tokens: TokenCounter,
): {
  tokenizer: TokenizerName;
  tokenizerEstimates?: { estimated: number; counted: number };
} {
  return {
    tokenizer: roleTokenizer(config, role),
    ...(tokens.estimated !== undefined
      ? { tokenizerEstimates: { estimated: tokens.estimated, counted: tokens.counted ?? 0 } }
      : {}),
  };
}
