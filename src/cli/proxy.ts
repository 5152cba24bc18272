import { Option, type Command } from 'commander';
import pc from 'picocolors';
import type { CompressorFlags } from '../config/compressor-flags.js';
import { UsageError } from '../errors.js';
import { redactUrlCredentials } from '../url-credentials.js';
import { checked, wholeNumberIn } from './numbers.js';

type RawOpts = {
  upstream: string;
  port: string;
  host: string;
  guidelines?: string;
  guidelinesDir: string;
  provider?: 'sim' | 'openai';
  record?: boolean;
  db?: string;
  config?: string;
} & CompressorFlags;

const EXAMPLES = `
Point the agent's OpenAI base URL at the proxy; its API key goes upstream untouched.

Examples:
  $ acon proxy --upstream https://api.openai.com/v1 --provider openai --compressor-model gpt-4.1-mini
  $ acon proxy --upstream http://127.0.0.1:8000/v1 --compressor-base-url http://127.0.0.1:8001/v1 \\
      --compressor-model acon-student --guidelines obs@active,hist@active
  $ OPENAI_BASE_URL=http://127.0.0.1:8787/v1 python my_agent.py`;

/** `acon proxy`: an OpenAI-compatible server that applies the learned guidelines (issue #25). */
export function registerProxy(program: Command): void {
  program
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
    .addHelpText('after', EXAMPLES)
    .action((_raw, cmd: Command) => proxyAction(cmd.optsWithGlobals<RawOpts>()));
}

/** Starts the proxy and serves until SIGINT or SIGTERM. */
async function proxyAction(opts: RawOpts): Promise<void> {
  if (!/^https?:\/\//.test(opts.upstream)) {
    throw new UsageError(
      `--upstream must be an http(s) URL such as http://127.0.0.1:8000/v1, got "${opts.upstream}"`,
    );
  }
  // Loaded here, not at start-up: `acon --help` loads no config, guideline or LLM module (issue #28).
  const { loadConfig } = await import('../config/load.js');
  const { GuidelineStore } = await import('../guidelines/store.js');
  const { resolveGuidelinePair } = await import('../guidelines/resolve.js');
  const { LLM_ROLES } = await import('../llm/types.js');
  const { config } = loadConfig(opts.config === undefined ? {} : { file: opts.config });
  if (opts.provider) {
    config.provider = opts.provider;
    for (const role of LLM_ROLES) delete config.roles[role].provider;
  }
  const guidelines = await resolveGuidelinePair(
    opts.guidelines,
    new GuidelineStore({ dir: opts.guidelinesDir }),
  );
  // A log line may name the upstream or the compressor's endpoint: no URL credentials in it.
  const log = (line: string) => void process.stderr.write(`${redactUrlCredentials(line)}\n`);
  // Loaded here: the proxy brings the openai client and the tokenizer, which every other
  // command's start would otherwise pay for (issue #28).
  const { startProxy } = await import('../runtime/proxy/start-proxy.js');
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
    log,
  });
  if (proxy.simulated) {
    log(
      `${pc.yellow('SIMULATED')}: the compressors run on the sim provider (no model); use --compressor-base-url or --provider openai for a real compressor.`,
    );
  }
  process.stdout.write(
    `acon proxy listening on ${proxy.url} -> ${redactUrlCredentials(opts.upstream)} (guidelines ${guidelines.obs.id}, ${guidelines.hist.id}${proxy.runId ? `; recording run ${proxy.runId}` : ''})\n`,
  );
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      log('acon proxy: shutting down after the requests in flight');
      void proxy.close().then(resolve);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
