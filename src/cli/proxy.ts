import { Option, type Command } from 'commander';
import pc from 'picocolors';
import type { CompressorFlags } from '../config/index.js';
import { forFlag } from './library-errors.js';
import { UsageError } from './usage-error.js';
import { redactUrlCredentials } from '../url-credentials.js';
import { DEFAULT_SHUTDOWN_GRACE_S, PROXY_LIMIT_DEFAULTS } from '../runtime/catalog.js';
import {
  checked,
  nonNegativeNumber,
  positiveInt,
  positiveNumber,
  wholeNumberIn,
} from './numbers.js';

type RawOpts = {
  upstream: string;
  port: string;
  host: string;
  guidelines?: string;
  guidelinesDir: string;
  provider?: 'sim' | 'openai';
  record?: boolean;
  tokenizer?: string;
  db?: string;
  config?: string;
  maxBodyMb: string;
  maxCompressMb: string;
  maxInflight: string;
  maxCompressions: string;
  compressionDeadlineS: string;
  shutdownGraceS: string;
} & CompressorFlags;

const MB = 1024 * 1024;

const EXAMPLES = `
Point the agent's OpenAI base URL at the proxy; its API key goes upstream untouched.

Examples:
  $ acon proxy --upstream https://api.openai.com/v1 --provider openai --compressor-model gpt-4.1-mini
  $ acon proxy --upstream http://127.0.0.1:8000/v1 --compressor-base-url http://127.0.0.1:8001/v1 \\
      --compressor-model acon-student --guidelines obs@active,hist@active
  $ OPENAI_BASE_URL=http://127.0.0.1:8787/v1 python my_agent.py`;

/** `acon proxy`: an OpenAI-compatible server that applies the learned guidelines (issue #25). */
export function registerProxy(program: Command): void {
  const cmd = program
    .command('proxy')
    .description(
      'OpenAI-compatible proxy that compresses every chat-completions request with the guidelines',
    )
    .requiredOption(
      '--upstream <url>',
      'OpenAI-compatible base URL to forward to, e.g. http://127.0.0.1:8000/v1',
    )
    .option(
      '--port <n>',
      'port to listen on (0: any free port)',
      checked.wholeNumberIn('--port', 0, 65535),
      '8787',
    )
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option(
      '--guidelines <spec>',
      'guideline versions, e.g. obs@3,hist@active (default: the active ones)',
    )
    .option('--guidelines-dir <dir>', 'guidelines folder', 'guidelines')
    .addOption(
      new Option(
        '--provider <name>',
        "compressor provider (default: the config's; sim is the offline simulation)",
      ).choices(['sim', 'openai']),
    )
    .option(
      '--compressor-model <model>',
      'model of both compressors (default: roles.*_compressor.model)',
    )
    .option(
      '--compressor-base-url <url>',
      'OpenAI-compatible server of the compressors, e.g. a distilled student (default: the upstream with --provider openai)',
    )
    .option(
      '--compressor-key-env <var>',
      "variable holding the compressor server's key (default: OPENAI_API_KEY)",
    )
    .option(
      '--record',
      'store each conversation as a rollout (steps, compressions, calls) in the run database',
    )
    .option('--db <file>', "SQLite database for --record (default: the config's run.db)")
    .option(
      '--tokenizer <name>',
      "the upstream model's tokenizer, which T_obs, T_hist and recorded peaks count in: o200k, cl100k, hf:PATH/tokenizer.json, or server (the upstream's /tokenize, vLLM and SGLang) (default: roles.agent.tokenizer of the config, else o200k)",
    );
  limitOptions(cmd)
    .addHelpText('after', EXAMPLES)
    .action((_raw, c: Command) => proxyAction(c.optsWithGlobals<RawOpts>()));
}

/** The proxy's limits (runtime/proxy/limits.ts), their defaults in --help. */
function limitOptions(cmd: Command): Command {
  return cmd
    .option(
      '--max-body-mb <mb>',
      'largest request body; over it: 413, the rest not read',
      checked.positiveNumber('--max-body-mb'),
      String(PROXY_LIMIT_DEFAULTS.maxBodyBytes / MB),
    )
    .option(
      '--max-compress-mb <mb>',
      'largest body compressed; a larger one goes upstream uncompressed',
      checked.positiveNumber('--max-compress-mb'),
      String(PROXY_LIMIT_DEFAULTS.maxCompressBytes / MB),
    )
    .option(
      '--max-inflight <n>',
      'requests in flight; one more: 503 with Retry-After',
      checked.positiveInt('--max-inflight'),
      String(PROXY_LIMIT_DEFAULTS.maxInflight),
    )
    .option(
      '--max-compressions <n>',
      'compressions running at once; the others wait (within the deadline)',
      checked.positiveInt('--max-compressions'),
      String(PROXY_LIMIT_DEFAULTS.maxCompressions),
    )
    .option(
      '--compression-deadline-s <s>',
      'after this the request goes upstream uncompressed, with a log line',
      checked.positiveNumber('--compression-deadline-s'),
      String(PROXY_LIMIT_DEFAULTS.compressionDeadlineMs / 1000),
    )
    .option(
      '--shutdown-grace-s <s>',
      'on SIGTERM/SIGINT: time the requests in flight get before they are aborted (a second signal exits at once)',
      checked.nonNegativeNumber('--shutdown-grace-s'),
      String(DEFAULT_SHUTDOWN_GRACE_S),
    );
}

/** Starts the proxy and serves until SIGINT or SIGTERM. */
async function proxyAction(opts: RawOpts): Promise<void> {
  if (!/^https?:\/\//.test(opts.upstream)) {
    throw new UsageError(
      `--upstream must be an http(s) URL such as http://127.0.0.1:8000/v1, got "${opts.upstream}"`,
    );
  }
  // Loaded here, not at start-up: `acon --help` loads no config, guideline or LLM module (issue #28).
  const { loadConfig } = await import('../config/index.js');
  const { GuidelineStore } = await import('../guidelines/index.js');
  const { GUIDELINE_PAIR, resolveGuidelinePair } = await import('../guidelines/index.js');
  const { LLM_ROLES } = await import('../llm/index.js');
  const { TokenizerNameSchema } = await import('../config/index.js');
  const tokenizer =
    opts.tokenizer === undefined ? undefined : TokenizerNameSchema.safeParse(opts.tokenizer);
  if (tokenizer && !tokenizer.success) {
    throw new UsageError(
      `--tokenizer must be o200k, cl100k, hf:PATH to a tokenizer.json, or server, got "${opts.tokenizer}"`,
    );
  }
  const { config } = loadConfig(opts.config === undefined ? {} : { file: opts.config });
  if (opts.provider) {
    config.provider = opts.provider;
    for (const role of LLM_ROLES) delete config.roles[role].provider;
  }
  const guidelines = await forFlag('--guidelines', GUIDELINE_PAIR, () =>
    resolveGuidelinePair(opts.guidelines, new GuidelineStore({ dir: opts.guidelinesDir })),
  );
  // A log line may name the upstream or the compressor's endpoint: no URL credentials in it.
  const log = (line: string) => void process.stderr.write(`${redactUrlCredentials(line)}\n`);
  // Loaded here: the proxy brings the openai client and the tokenizer, which every other
  // command's start would otherwise pay for (issue #28).
  const { startProxy } = await import('../runtime/index.js');
  const proxy = await startProxy({
    config,
    upstream: opts.upstream,
    port: wholeNumberIn(opts.port, '--port', 0, 65535)!,
    host: opts.host,
    guidelines,
    compressor: {
      ...(opts.compressorModel ? { compressorModel: opts.compressorModel } : {}),
      ...(opts.compressorBaseUrl ? { compressorBaseUrl: opts.compressorBaseUrl } : {}),
      ...(opts.compressorKeyEnv ? { compressorKeyEnv: opts.compressorKeyEnv } : {}),
    },
    ...(opts.record ? { record: opts.db ?? config.run.db } : {}),
    ...(tokenizer?.data ? { tokenizer: tokenizer.data } : {}),
    log,
    limits: {
      maxBodyBytes: Math.floor(positiveNumber(opts.maxBodyMb, '--max-body-mb')! * MB),
      maxCompressBytes: Math.floor(positiveNumber(opts.maxCompressMb, '--max-compress-mb')! * MB),
      maxInflight: positiveInt(opts.maxInflight, '--max-inflight')!,
      maxCompressions: positiveInt(opts.maxCompressions, '--max-compressions')!,
      compressionDeadlineMs:
        positiveNumber(opts.compressionDeadlineS, '--compression-deadline-s')! * 1000,
    },
  });
  if (proxy.simulated) {
    log(
      `${pc.yellow('SIMULATED')}: the compressors run on the sim provider (no model); use --compressor-base-url or --provider openai for a real compressor.`,
    );
  }
  process.stdout.write(
    `acon proxy listening on ${proxy.url} -> ${redactUrlCredentials(opts.upstream)} (guidelines ${guidelines.obs.id}, ${guidelines.hist.id}; tokens ${proxy.tokenizer}${proxy.runId ? `; recording run ${proxy.runId}` : ''})\n`,
  );
  await untilStopped(proxy, nonNegativeNumber(opts.shutdownGraceS, '--shutdown-grace-s')!, log);
}

/**
 * Serves until SIGTERM or SIGINT, then stops accepting at once, gives the requests in flight
 * `graceS` seconds and aborts the rest (issue #60). A second signal exits at once. Then the
 * process ends even if a compressor call is still under way (it has no request left to serve).
 */
async function untilStopped(
  proxy: { close(graceMs?: number): Promise<{ aborted: number }> },
  graceS: number,
  log: (line: string) => void,
): Promise<void> {
  await new Promise<void>((resolve) => {
    let stopping = false;
    const stop = (signal: NodeJS.Signals) => {
      if (stopping) {
        log(`acon proxy: ${signal} again, exiting now`);
        process.exit(signal === 'SIGINT' ? 130 : 143);
      }
      stopping = true;
      log(
        `acon proxy: ${signal}: not accepting new requests; those in flight have ${graceS} s (--shutdown-grace-s), a second signal exits at once`,
      );
      void proxy.close(graceS * 1000).then(({ aborted }) => {
        if (aborted > 0)
          log(`acon proxy: aborted ${aborted} requests still in flight after ${graceS} s`);
        log('acon proxy: stopped');
        resolve();
      });
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  setTimeout(() => process.exit(), 200).unref();
}
