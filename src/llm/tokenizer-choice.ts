import type { Config, TokenizerName } from '../config/index.js';
import { checkTokenizer } from './tokenizer.js';
import type { LlmRole } from './types.js';

/**
 * The encoding a role's tokens are counted in: the role's `tokenizer`, else its endpoint's, else
 * o200k. The agent's counts what the strategies measure (T_obs, T_hist, peaks), because it is
 * the agent's context they keep small.
 */
export function roleTokenizer(config: Config, role: LlmRole): TokenizerName {
  const r = config.roles[role];
  return r.tokenizer ?? config.endpoints[r.endpoint]?.tokenizer ?? 'o200k';
}

/** Every tokenizer the config names, read now (a missing `hf:` file is a config error up front). */
export function checkTokenizers(config: Config): void {
  for (const role of Object.keys(config.roles) as LlmRole[])
    checkTokenizer(roleTokenizer(config, role));
}
