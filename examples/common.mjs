// Settings every example reads: any OpenAI-compatible endpoint (OpenAI, vLLM, Ollama, …).
// With OPENAI_BASE_URL unset the examples run offline: the compressor is acon's simulation
// (`provider: 'sim'`, its reports say SIMULATED) and the agent's model a scripted stand-in
// (support/stand-in-model.mjs, not an LLM). Set it for real models on both sides.
import { createContextCompressor, loadGuidelines } from 'acon';
import { startStandInModel } from './support/stand-in-model.mjs';

export const offline = process.env.OPENAI_BASE_URL === undefined;

export const env = {
  baseURL: process.env.OPENAI_BASE_URL ?? 'https://api.openai.com/v1',
  apiKey: process.env.OPENAI_API_KEY ?? 'no-key',
  agentModel: process.env.AGENT_MODEL ?? 'gpt-4.1-mini',
  compressorModel: process.env.COMPRESSOR_MODEL ?? process.env.AGENT_MODEL ?? 'gpt-4.1-mini',
  compressorBaseURL:
    process.env.COMPRESSOR_BASE_URL ?? process.env.OPENAI_BASE_URL ?? 'https://api.openai.com/v1',
};

/**
 * The agent model's base URL: OPENAI_BASE_URL, or offline the stand-in's (said on stderr).
 * `close()` stops the stand-in.
 */
export async function agentEndpoint() {
  if (!offline) return { baseURL: env.baseURL, close: async () => {} };
  const standIn = await startStandInModel({ pages: 3 });
  console.error(
    `[offline] the agent model is a scripted stand-in at ${standIn.url}, not an LLM (set OPENAI_BASE_URL for a real one)`,
  );
  return { baseURL: standIn.url, close: standIn.close };
}

/** A compressor with the active guidelines of ./guidelines (acon's generic v0 when there is none). */
export async function makeCompressor() {
  return createContextCompressor({
    guidelines: await loadGuidelines(process.env.ACON_GUIDELINES ?? 'active', {
      dir: process.env.ACON_GUIDELINES_DIR ?? 'guidelines',
    }),
    model: offline
      ? { provider: 'sim' }
      : { baseURL: env.compressorBaseURL, apiKey: env.apiKey, model: env.compressorModel },
    onReport: (r) =>
      console.error(
        `[acon]${r.simulated ? ' SIMULATED' : ''} ${r.tokensBefore} -> ${r.tokensAfter} tokens` +
          (r.events.length ? `, ${r.events.map((e) => e.kind).join(' ')}` : '') +
          (r.error ? ` (compressor failed: ${r.error.message})` : ''),
      ),
  });
}

/** A large JSON tool result, like a paginated API answer (about 250 tokens per 8 records). */
export function bigRecords(page, n = 200) {
  return JSON.stringify(
    Array.from({ length: n }, (_, i) => ({
      id: page * 1000 + i,
      title: `Record ${page}-${i}`,
      amount: ((i * 37) % 500) / 10,
      created_at: `2026-0${(i % 9) + 1}-1${i % 10}T10:00:00Z`,
      tags: ['archived', `batch-${i % 5}`],
      description: `An entry with a long free-text description number ${i} that the task does not need.`,
    })),
  );
}
