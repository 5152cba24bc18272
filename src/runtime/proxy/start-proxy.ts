import { randomBytes } from 'node:crypto';
import {
  applyCompressorFlags,
  type CompressorFlags,
  type Config,
  type ProviderName,
  type TokenizerName,
} from '../../config/index.js';
import { ProviderError } from '../../errors.js';
import {
  createLlmClient,
  OpenAiProvider,
  roleTokenizer,
  type LlmProvider,
} from '../../llm/index.js';
import { createSimProvider } from '../../sim/index.js';
import { openRunStore } from '../../store/index.js';
import { createContextCompressorWith } from '../context-compressor.js';
import type { Guidelines } from '../load-guidelines.js';
import { LruCallCache } from '../lru-call-cache.js';
import { runtimeTokenCounter } from '../tokenizer-option.js';
import type { ProxyLimits } from './limits.js';
import { ProxyServer } from './proxy-server.js';
import { ProxyRecorder } from './record.js';

export type StartProxyOptions = {
  /** The loaded acon config: compressor roles, their endpoints, thresholds (`context:`), the db. */
  config: Config;
  upstream: string;
  port: number;
  host: string;
  guidelines: Guidelines;
  /** `--compressor-model`, `--compressor-base-url`, `--compressor-key-env`. */
  compressor: CompressorFlags;
  /** Record each conversation as a rollout (record.ts) in this SQLite database. */
  record?: string;
  /**
   * The upstream model's tokenizer, which T_obs, T_hist and the recorded peaks count in
   * (`--tokenizer`); `server` asks the upstream's `/tokenize`. @default the config's agent
   * tokenizer (`roles.agent.tokenizer`, else its endpoint's, else o200k)
   */
  tokenizer?: TokenizerName;
  log: (line: string) => void;
  /** Body size, in-flight bounds and the compression deadline (limits.ts). */
  limits?: Partial<ProxyLimits>;
};

export type RunningProxy = {
  /** The base URL clients use, e.g. `http://127.0.0.1:8787/v1`. */
  url: string;
  /** The `--record` run id, when recording. */
  runId: string | null;
  /** The compressors run on the simulated provider (no model behind them). */
  simulated: boolean;
  /** What thresholds and recorded tokens are counted in (`o200k`, `hf:PATH`, `server`, …). */
  tokenizer: TokenizerName;
  /**
   * Stops accepting, lets what is in flight finish for `graceMs` and aborts the rest, closes
   * the store. @default graceMs no limit
   */
  close(graceMs?: number): Promise<{ aborted: number }>;
};

/**
 * The composition root of `acon proxy`: the compressor roles' provider as the config and the
 * flags say (the offline `sim` provider by default, as every acon command; an OpenAI-compatible
 * endpoint with `--compressor-base-url` or `--provider openai`), the ACON compressor with the
 * given guidelines and the config's thresholds, and the HTTP server.
 */
export async function startProxy(opts: StartProxyOptions): Promise<RunningProxy> {
  const tokenizer = opts.tokenizer ?? roleTokenizer(opts.config, 'agent');
  // The upstream is the agent's model: its /tokenize counts what the agent is sent.
  const tokens = runtimeTokenCounter(
    tokenizer === 'server' ? { server: opts.upstream } : tokenizer,
  );
  const config = compressorConfig(opts);
  const simulated =
    providerOf(config, 'obs_compressor') === 'sim' ||
    providerOf(config, 'hist_compressor') === 'sim';
  const providers: Partial<Record<ProviderName, LlmProvider>> = {
    openai: new OpenAiProvider({ endpoints: config.endpoints }),
    sim: createSimProvider({
      seed: config.sim.seed,
      refetchLimit: config.sim.refetch_limit,
      planFor: () => Promise.reject(new ProviderError('sim: acon proxy runs no simulated agent')),
    }),
  };
  const store = opts.record ? openRunStore(opts.record) : undefined;
  const runId = store ? recordedRun(store, opts, config, simulated, tokenizer) : null;
  const recorder =
    store && runId
      ? new ProxyRecorder({
          store,
          runId,
          guidelines: opts.guidelines,
          prices: config.prices,
          tokens,
        })
      : undefined;
  const client = createLlmClient({ config, providers, store: store ?? new LruCallCache() });
  const compressor = createContextCompressorWith({
    llm: recorder ? recorder.llm(client) : client,
    guidelines: opts.guidelines,
    thresholds: {
      obs: config.context.t_obs,
      hist: config.context.t_hist,
      keepLast: config.context.keep_last,
    },
    runId: runId ?? 'proxy',
    maxOutputRetries: config.agent.max_output_retries,
    tokens,
  });
  const server = new ProxyServer({
    upstream: opts.upstream,
    compressor,
    log: opts.log,
    ...(opts.limits ? { limits: opts.limits } : {}),
    ...(recorder
      ? {
          onExchange: (x) => recorder.exchange(x),
          within: (messages, compress) => recorder.within(messages, compress),
        }
      : {}),
  });
  try {
    const url = await server.listen(opts.port, opts.host);
    return {
      url,
      runId,
      simulated,
      tokenizer,
      async close(graceMs) {
        const closed = await server.close(graceMs);
        recorder?.close();
        if (store && runId) store.setRunStatus(runId, 'finished');
        store?.close();
        return closed;
      },
    };
  } catch (err) {
    if (store && runId) store.setRunStatus(runId, 'failed');
    store?.close();
    throw err;
  }
}

/**
 * The config with the compressor flags applied. An OpenAI-compatible compressor without a server
 * of its own uses the upstream's URL; the agent, analyzer and updater roles never run here, so
 * they are kept off any endpoint check.
 */
function compressorConfig(opts: StartProxyOptions): Config {
  const config = structuredClone(opts.config);
  const flags = { ...opts.compressor };
  if (
    flags.compressorBaseUrl === undefined &&
    providerOf(config, 'obs_compressor') === 'openai' &&
    !config.endpoints.default
  ) {
    flags.compressorBaseUrl = opts.upstream;
  }
  applyCompressorFlags(config, flags);
  for (const role of ['agent', 'analyzer', 'updater'] as const) config.roles[role].provider = 'sim';
  return config;
}

/** The `--record` run: created before the first conversation, its id returned. */
function recordedRun(
  store: ReturnType<typeof openRunStore>,
  opts: StartProxyOptions,
  config: Config,
  simulated: boolean,
  tokenizer: TokenizerName,
): string {
  const runId = newProxyRunId();
  const provider = (role: 'obs_compressor' | 'hist_compressor') => providerOf(config, role);
  store.createRun({
    id: runId,
    kind: 'proxy',
    command: 'proxy',
    bench: 'proxy',
    provider: provider('obs_compressor'),
    models: {
      obs_compressor: `${provider('obs_compressor')}/${config.roles.obs_compressor.model}`,
      hist_compressor: `${provider('hist_compressor')}/${config.roles.hist_compressor.model}`,
    },
    simulated,
    params: {
      upstream: opts.upstream,
      guidelineObs: opts.guidelines.obs.id,
      guidelineHist: opts.guidelines.hist.id,
      // What the recorded thresholds and peaks were counted in (provenance of every figure).
      tokenizer,
    },
    config: config as unknown as Record<string, unknown>,
  });
  return runId;
}

function providerOf(config: Config, role: 'obs_compressor' | 'hist_compressor'): ProviderName {
  return config.roles[role].provider ?? config.provider;
}

/** `proxy-20261124-143000-ab12`: sorts by time like run ids. */
function newProxyRunId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `proxy-${stamp}-${randomBytes(2).toString('hex')}`;
}
