import { ConfigSchema, type Config } from '../config/index.js';
import { LLM_ROLES } from '../llm/index.js';

/**
 * The config of a runtime compressor client: every role on the one model (`role`), on the
 * provider `openai` (the real one or a port in its place), unpriced; `endpoints` where the
 * client reaches a server itself.
 */
export function oneModelConfig(
  role: { model: string; temperature: number; max_tokens: number; endpoint?: string },
  endpoints?: Record<string, unknown>,
): Config {
  return ConfigSchema.parse({
    provider: 'openai',
    roles: Object.fromEntries(LLM_ROLES.map((r) => [r, role])),
    ...(endpoints ? { endpoints } : {}),
    prices: {},
  });
}
