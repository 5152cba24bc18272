import { EndpointSchema, type LocalTokenizerName } from '../config/index.js';
import {
  checkTokenizer,
  OpenAiProvider,
  ServerTokenCounter,
  tokenCounterFor,
  type TokenCounter,
} from '../llm/index.js';

/**
 * What the runtime counts T_obs, T_hist and its reports in: the agent model's tokenizer, as
 * `tokenizer:` in acon.config.yaml. `o200k` (GPT-4o/4.1, o-series, gpt-5), `cl100k` (GPT-4/3.5),
 * `hf:PATH` (the model's Hugging Face tokenizer.json, read at once), or `{ server }`: the
 * `/tokenize` route vLLM and SGLang serve at that base URL's root (`http://127.0.0.1:8000/v1`).
 */
export type TokenizerOption =
  | LocalTokenizerName
  | {
      /** The agent model's server, e.g. `http://127.0.0.1:8000/v1`. */
      server: string;
      /** The model whose tokenizer counts (vLLM serves one; its `model` field is optional). */
      model?: string;
      /** @default process.env.OPENAI_API_KEY, else a placeholder (local servers without auth) */
      apiKey?: string;
    };

/** The variable the key is handed to the provider in (never a real environment variable). */
const KEY_VAR = 'ACON_TOKENIZER_API_KEY';
const ENDPOINT = 'tokenizer';

/** The counter an option names; a missing `hf:` file throws a ConfigError now, not mid-run. */
export function runtimeTokenCounter(option: TokenizerOption | undefined): TokenCounter {
  if (option === undefined) return tokenCounterFor('o200k');
  if (typeof option === 'string') {
    checkTokenizer(option);
    return tokenCounterFor(option);
  }
  const provider = new OpenAiProvider({
    endpoints: {
      [ENDPOINT]: EndpointSchema.parse({ base_url: option.server, api_key_env: KEY_VAR }),
    },
    env: { [KEY_VAR]: option.apiKey ?? process.env.OPENAI_API_KEY ?? 'acon-no-key' },
  });
  return new ServerTokenCounter((text) =>
    provider.tokenize({ endpoint: ENDPOINT, model: option.model ?? '', text }),
  );
}

/** The option as provenance names it: `server` for a server's counts. */
export function tokenizerLabel(option: TokenizerOption | undefined): string {
  if (option === undefined) return 'o200k';
  return typeof option === 'string' ? option : 'server';
}
