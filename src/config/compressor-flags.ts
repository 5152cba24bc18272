import { ENV_VAR_NAME, EndpointSchema, type Config } from './schema.js';
import { InvalidInputError } from '../errors.js';
import { KEY_NOT_NAME, looksLikeKey } from './key-shape.js';

/**
 * The compressor of `acon run` / `acon compare` on its own model and endpoint: a distilled
 * student served by vLLM, SGLang, Ollama or llama.cpp (README, distillation) while the agent
 * stays on its own. Applied to the loaded config, so the run records it like any setting.
 */
export type CompressorFlags = {
  /** Model of both compressor roles. */
  compressorModel?: string;
  obsCompressorModel?: string;
  histCompressorModel?: string;
  /** OpenAI-compatible base URL of the compressor server; becomes endpoint `compressor`. */
  compressorBaseUrl?: string;
  /** Variable holding the compressor server's key. @default the default endpoint's */
  compressorKeyEnv?: string;
};

/** The endpoint name the compressor flags define. */
export const COMPRESSOR_ENDPOINT = 'compressor';

/** An error about the compressor options; the message names them as `` `compressorKeyEnv` ``. */
function invalid(message: string, options: (keyof CompressorFlags)[], value?: string) {
  return new InvalidInputError(message, { what: 'compressor endpoint', value, options });
}

/**
 * Points both compressor roles at the model and endpoint `flags` name.
 * @throws InvalidInputError for a key variable that is no name (or looks like a key), a base URL
 *   that is none, or a key variable without a base URL
 */
export function applyCompressorFlags(config: Config, flags: CompressorFlags): void {
  if (flags.compressorKeyEnv !== undefined && !ENV_VAR_NAME.test(flags.compressorKeyEnv)) {
    // Not echoed, nor kept on the error: what was typed may be the key itself (issue #31).
    throw invalid(
      '`compressorKeyEnv` takes the NAME of an environment variable holding the key (e.g. VLLM_API_KEY), not the key itself; the value is not shown in case it is a key',
      ['compressorKeyEnv'],
    );
  }
  if (flags.compressorKeyEnv !== undefined && looksLikeKey(flags.compressorKeyEnv)) {
    throw invalid(`\`compressorKeyEnv\`: ${KEY_NOT_NAME}`, ['compressorKeyEnv']);
  }
  const models = {
    obs_compressor: flags.obsCompressorModel ?? flags.compressorModel,
    hist_compressor: flags.histCompressorModel ?? flags.compressorModel,
  } as const;
  if (flags.compressorBaseUrl !== undefined) {
    const parsed = EndpointSchema.safeParse({
      base_url: flags.compressorBaseUrl,
      api_key_env: flags.compressorKeyEnv ?? config.endpoints.default?.api_key_env,
    });
    if (!parsed.success || !/^https?:\/\//.test(flags.compressorBaseUrl)) {
      throw invalid(
        `\`compressorBaseUrl\` must be a URL such as http://127.0.0.1:8001/v1, got "${flags.compressorBaseUrl}"`,
        ['compressorBaseUrl'],
        flags.compressorBaseUrl,
      );
    }
    config.endpoints[COMPRESSOR_ENDPOINT] = parsed.data;
  } else if (flags.compressorKeyEnv !== undefined) {
    throw invalid('`compressorKeyEnv` needs `compressorBaseUrl`', [
      'compressorKeyEnv',
      'compressorBaseUrl',
    ]);
  }
  for (const role of ['obs_compressor', 'hist_compressor'] as const) {
    const model = models[role];
    if (model !== undefined) config.roles[role].model = model;
    if (flags.compressorBaseUrl !== undefined) {
      config.roles[role].endpoint = COMPRESSOR_ENDPOINT;
      config.roles[role].provider = 'openai';
    }
  }
}
