/**
 * Orchestration overhead of the LLM client per call (ARCHITECTURE §7: far below a millisecond).
 * Compares, in one run, an instant in-process provider called directly with the same provider
 * behind the full client (role resolution, request hash, cache lookup, endpoint queue, cost,
 * SQLite call record). Prints per-call times and their ratio; asserts nothing.
 *
 *   npx tsx scripts/bench/llm-overhead.ts [calls] [prompt-chars]
 */
import { performance } from 'node:perf_hooks';
import { ConfigSchema } from '../../src/config/schema.js';
import { createLlmClient } from '../../src/llm/client.js';
import type { LlmProvider, ProviderRequest, ProviderResponse } from '../../src/llm/types.js';
import { openRunStore } from '../../src/store/index.js';

const calls = Number(process.argv[2] ?? 2000);
const promptChars = Number(process.argv[3] ?? 40_000);

const answer: ProviderResponse = {
  message: { role: 'assistant', content: 'ok' },
  usage: { promptTokens: 10_000, cachedPromptTokens: 0, completionTokens: 10 },
};
const instant: LlmProvider = {
  name: 'openai',
  simulated: false,
  chat: async (_req: ProviderRequest) => answer,
};

const config = ConfigSchema.parse({ provider: 'openai', run: { cache: true } });
const store = openRunStore(':memory:');
// The store records calls of a run it knows (store v2).
store.createRun({
  id: 'bench',
  kind: 'run',
  command: 'scripts/bench/llm-overhead.ts',
  bench: 'none',
  provider: 'openai',
  models: { agent: 'openai/gpt-4.1' },
  simulated: false,
  params: {},
  config: {},
});
const client = createLlmClient({ config, providers: { openai: instant }, store, noCache: true });
const history = 'x'.repeat(promptChars);

function request(i: number) {
  return {
    messages: [
      { role: 'system' as const, content: 'You are an agent.' },
      { role: 'user' as const, content: `${history} ${i}` },
    ],
  };
}

async function time(label: string, fn: (i: number) => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 50; i++) await fn(i); // warm up
  const t0 = performance.now();
  for (let i = 0; i < calls; i++) await fn(i);
  const perCall = (performance.now() - t0) / calls;
  console.log(`${label.padEnd(28)} ${(perCall * 1000).toFixed(1).padStart(8)} µs/call`);
  return perCall;
}

const direct = await time('provider called directly', (i) =>
  instant.chat({ ...request(i), model: 'gpt-4.1', ctx: { role: 'agent', runId: 'bench' } }),
);
const full = await time('through the LLM client', (i) =>
  client.chat(request(i), { role: 'agent', runId: 'bench' }),
);
console.log(`prompt ${promptChars} chars, ${calls} calls`);
console.log(
  `client overhead: ${((full - direct) * 1000).toFixed(1)} µs/call (${(full / direct).toFixed(1)}× a bare call)`,
);
store.close();
