import { z } from 'zod';
import { AppWorldInitializeSchema } from './appworld-initialize.js';
import { KEY_NOT_NAME, looksLikeKey } from './key-shape.js';

/**
 * The schema of acon.config.yaml. Keys are snake_case in YAML and in code alike, so an error
 * path such as `context.t_obs` is exactly what the user types in the file.
 * Defaults come from the seeds: T_obs 1024 / T_hist 4096 (003), masking M=10 and summary
 * N=21/M=10 (000, 001).
 */
export const ProviderNameSchema = z.enum(['sim', 'openai']);
export type ProviderName = z.infer<typeof ProviderNameSchema>;

/** What an environment variable name looks like (a key never does: it has '-' or is long). */
export const ENV_VAR_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

/** The names of the `openai` package's `ChatCompletionCreateParams` for the answer's length. */
export const LimitParamSchema = z.enum(['max_tokens', 'max_completion_tokens']);
export type LimitParam = z.infer<typeof LimitParamSchema>;

/**
 * The encodings acon counts tokens with: `o200k` for GPT-4o/4.1, o-series and gpt-5; `cl100k` for
 * GPT-4/3.5 and models trained on it (both gpt-tokenizer's); `hf:PATH` for any other model, the
 * Hugging Face `tokenizer.json` the model ships with (a Qwen, Llama or Mistral behind vLLM counts
 * a fifth or more off in o200k), read from PATH (relative to the working directory) with
 * `@huggingface/tokenizers`, never downloaded; `server` for the `/tokenize` route that vLLM and
 * SGLang serve at the endpoint's root (the model's own tokenizer, asked over HTTP). Thresholds
 * (T_obs, T_hist) and peaks are counted in the agent's.
 */
export const LocalTokenizerNameSchema = z.union([
  z.enum(['o200k', 'cl100k']),
  z.templateLiteral(['hf:', z.string().min(1)]),
]);
/** The encodings acon counts with in-process (every one but `server`). */
export type LocalTokenizerName = z.infer<typeof LocalTokenizerNameSchema>;
export const TokenizerNameSchema = z.union([LocalTokenizerNameSchema, z.literal('server')]);
export type TokenizerName = z.infer<typeof TokenizerNameSchema>;

/** The values of `reasoning_effort` a role may set (a subset of the package's `ReasoningEffort`). */
export const ReasoningEffortSchema = z.enum(['minimal', 'low', 'medium', 'high']);
export type ReasoningEffort = z.infer<typeof ReasoningEffortSchema>;

export const EndpointSchema = z.strictObject({
  /** Any OpenAI-compatible base URL (OpenAI, Azure, vLLM, SGLang, Ollama, llama.cpp, LM Studio). */
  base_url: z.string().url(),
  /** Extra base URLs serving the same model; calls are spread over all of them. */
  extra_base_urls: z.array(z.string().url()).default([]),
  /** Name of the environment variable holding the key; the key itself never enters the config. */
  api_key_env: z
    .string()
    .regex(ENV_VAR_NAME, {
      // Never echo the value: a key pasted here by mistake must not reach a log or a record.
      error:
        'must be the NAME of an environment variable holding the key (e.g. OPENAI_API_KEY), not the key itself; the value is not shown in case it is a key',
    })
    .refine((name) => !looksLikeKey(name), { error: KEY_NOT_NAME })
    .default('OPENAI_API_KEY'),
  concurrency: z.number().int().min(1).default(8),
  /** Requests per minute; 0 = unlimited. */
  rpm: z.number().int().min(0).default(0),
  /** Tokens (prompt + max completion, estimated) per minute; 0 = unlimited. */
  tpm: z.number().int().min(0).default(0),
  timeout_ms: z.number().int().min(1).default(120_000),
  max_retries: z.number().int().min(0).default(5),
  /** Unset: by the model's family (reasoning models `max_completion_tokens`, others `max_tokens`). */
  limit_param: LimitParamSchema.optional().describe(
    "the limit parameter this server understands (default by the model's family; some local servers know only max_tokens)",
  ),
  tokenizer: TokenizerNameSchema.optional().describe(
    "the encoding of this server's models, for thresholds and peaks (o200k: GPT-4o/4.1, o-series, gpt-5; cl100k: GPT-4/3.5; hf:PATH: the model's Hugging Face tokenizer.json; server: the /tokenize route vLLM and SGLang serve); unset: o200k",
  ),
});
export type Endpoint = z.infer<typeof EndpointSchema>;

export const RoleConfigSchema = z.strictObject({
  /** Overrides the top-level provider for this role. */
  provider: ProviderNameSchema.optional().describe(
    "this role's provider instead of the top-level one, e.g. a local student compressor",
  ),
  model: z.string().min(1),
  endpoint: z.string().min(1).default('default'),
  temperature: z.number().min(0).max(2).default(0),
  max_tokens: z.number().int().min(1).default(4096),
  /** Unset: detected from the model's name (o1, o3, o4, gpt-5*: reasoning). */
  reasoning: z
    .boolean()
    .optional()
    .describe(
      'treat the model as a reasoning model (no temperature, max_completion_tokens) or not; unset: by its name (o1, o3, o4, gpt-5*)',
    ),
  reasoning_effort: ReasoningEffortSchema.optional().describe(
    'reasoning_effort sent to a reasoning model; unset: the provider default',
  ),
  tokenizer: TokenizerNameSchema.optional().describe(
    "this role's encoding instead of its endpoint's; the agent's counts T_obs, T_hist and peaks",
  ),
});
export type RoleConfig = z.infer<typeof RoleConfigSchema>;

/** USD per 1M tokens. */
export const PriceSchema = z.strictObject({
  input: z.number().min(0).describe('USD per 1M input tokens'),
  cached_input: z
    .number()
    .min(0)
    .describe('USD per 1M input tokens the provider reports as cached'),
  output: z.number().min(0).describe('USD per 1M output tokens'),
});
export type Price = z.infer<typeof PriceSchema>;

const role = (model: string, temperature = 0) => RoleConfigSchema.prefault({ model, temperature });

export const ConfigSchema = z.strictObject({
  /** Provider for every role that does not name its own. `sim` runs offline and is labelled SIMULATED. */
  provider: ProviderNameSchema.default('sim'),
  /** Seed for everything random in a run (task sampling, updater sampling, bootstrap). */
  seed: z.number().int().default(42),
  roles: z
    .strictObject({
      agent: role('gpt-4.1'),
      obs_compressor: role('gpt-4.1'),
      hist_compressor: role('gpt-4.1'),
      analyzer: role('gpt-4.1'),
      /**
       * The optimizer that rewrites guidelines. The paper (v3) uses o3 as its optimizer; acon
       * defaults to gpt-4.1, so set `model: o3` here (and for the analyzer) for a paper-faithful run.
       * Temperature 1.0 (the reference samples its K candidates): each candidate also gets its
       * own sample of analyses.
       */
      updater: role('gpt-4.1', 1),
      /**
       * Optional: compares a replayed free-text final answer with the recorded one when their
       * normalised texts differ (`acon replay`, `optimize --traces`). Unset: the benchmark's
       * answer normaliser alone decides. The sim has no judge: give it a real model.
       */
      judge: RoleConfigSchema.optional(),
    })
    .prefault({}),
  endpoints: z
    .record(z.string(), EndpointSchema)
    .default({ default: EndpointSchema.parse({ base_url: 'https://api.openai.com/v1' }) }),
  context: z
    .strictObject({
      /** Compress an observation longer than this many tokens (ACON T_obs). */
      t_obs: z.number().int().min(1).default(1024),
      /** Compress the history once it is longer than this many tokens (ACON T_hist). */
      t_hist: z.number().int().min(1).default(4096),
      /** Turns kept verbatim after a history compression (ACON k). */
      keep_last: z.number().int().min(0).default(1),
      /**
       * The observation compressor sees the task and the current session (as the reference
       * does), its oldest turns left out beyond this many tokens. 65,536 holds a whole AppWorld
       * session (the paper's mean peak is 9.9K tokens) with room to spare.
       */
      obs_session_tokens: z.number().int().min(256).default(65_536),
      masking: z.strictObject({ window: z.number().int().min(0).default(10) }).prefault({}),
      summary: z
        .strictObject({
          n: z.number().int().min(1).default(21),
          m: z.number().int().min(0).default(10),
        })
        .prefault({}),
      fifo: z
        .strictObject({
          /** FIFO keeps the last N turns (ACON paper v3's FIFO baseline keeps the last 5). */
          turns: z.number().int().min(1).default(5),
          /**
           * The token-budget variant instead: drop the oldest turns until the prompt fits this
           * many tokens (null: keep the last `turns` turns).
           */
          budget: z.number().int().min(256).nullable().default(null),
        })
        .prefault({}),
      retrieval: z
        .strictObject({
          /**
           * Retrieval baseline (ACON paper): older turns brought back, the most relevant by BM25
           * to the task plus the latest turn (the paper does not publish its k; 5 is ours).
           */
          top_k: z.number().int().min(0).default(5),
          /** Newest turns the retrieval baseline always keeps verbatim. */
          recent: z.number().int().min(1).default(3),
        })
        .prefault({}),
    })
    .prefault({}),
  agent: z
    .strictObject({
      max_steps: z.number().int().min(1).default(50),
      /** Retries of a step whose model output is unusable before the step is recorded as failed. */
      max_output_retries: z.number().int().min(0).default(2),
    })
    .prefault({}),
  run: z
    .strictObject({
      /** Rollouts in flight at once. */
      concurrency: z.number().int().min(1).default(4),
      /** The SQLite database of runs, rollouts and LLM calls. */
      db: z.string().min(1).default('runs/acon.db'),
      cache: z.boolean().default(true),
      /**
       * Let `--resume` go on when a task changed since the run started (default: refuse, since
       * the run would mix two versions of the task); `--allow-task-changes` sets it.
       */
      allow_task_changes: z.boolean().default(false),
    })
    .prefault({}),
  prices: z.record(z.string(), PriceSchema).default({
    'gpt-4.1': { input: 2.0, cached_input: 0.5, output: 8.0 },
    'gpt-4.1-mini': { input: 0.4, cached_input: 0.1, output: 1.6 },
    'gpt-4o-mini': { input: 0.15, cached_input: 0.075, output: 0.6 },
  }),
  budget: z.strictObject({ usd: z.number().positive().nullable().default(null) }).prefault({}),
  sim: z
    .strictObject({
      seed: z.number().int().default(7),
      /** Failed re-fetches of a missing fact before the simulated agent guesses (and fails). */
      refetch_limit: z.number().int().min(0).default(2),
      /**
       * Probability that the simulated agent slips on a plan step (one argument wrong), seeded
       * by task and step so every condition slips on the same steps. 0.03 keeps raw accuracy
       * on the apptown test split realistic (about 85%, issue 13) rather than 100%.
       */
      noise: z.number().min(0).max(1).default(0.03),
    })
    .prefault({}),
  optimize: z
    .preprocess(
      upgradeOptimize,
      z.strictObject({
        candidates: z.number().int().min(1).default(5),
        rounds: z.number().int().min(1).default(1),
        /**
         * Analyses sampled into each updater call: every one of the K calls draws its own seeded
         * sample of at most this many (the reference: a fresh random sample of up to 30).
         */
        feedback_sample: z.number().int().min(1).default(30),
        /**
         * Also analyse elongation pairs (both succeeded, compressed took ≥ `steps_ratio` × the
         * steps). Off by default: the paper learns from failure pairs; the reference makes
         * regressions opt-in.
         */
        include_elongation: z.boolean().default(false),
        /** The step ratio of an elongation pair (with `include_elongation`). */
        steps_ratio: z.number().min(1).default(1.5),
        /**
         * How candidates are selected. `heldout` (default): on the selection split, the parent
         * run there too, by the paired rule (`alpha`, `margin`), so no number used to choose comes
         * from the tasks the analyses saw. `reference`: as the paper and its code do, on train
         * tasks: UT on D_cont (full context succeeded, compression failed), CO on D_succ
         * (compression succeeded); best accuracy, ties to the fewest total input tokens, the
         * parent scored by its own train rollouts. `reference-paired`: the same tasks, judged by
         * the paired rule against the parent's outcome on each.
         */
        selection: z.enum(['heldout', 'reference', 'reference-paired']).default('heldout'),
        /**
         * The paired rule's one-sided level (docs/method.md): a UT candidate is accepted when the
         * exact sign test on the tasks it and its parent disagree on gives p ≤ alpha; CO uses the
         * (1 − alpha) upper bound of the accuracy drop. @default 0.1
         */
        alpha: z.number().gt(0).lt(1).default(0.1),
        /**
         * Compression phase: the largest accuracy drop (a fraction: 0.025 is 2.5 points) whose
         * (1 − alpha) upper bound a candidate may have while it cuts tokens. Replaces
         * `tolerance`, which compared two point estimates. @default 0.025
         */
        margin: z.number().min(0).max(1).default(0.025),
        /**
         * Phase isolation (issue 11): while the obs guideline is tuned, train and selection
         * rollouts run with observation compression only; for hist, history compression only.
         * The final v0 / UT / UTCO table runs both. @default true
         */
        isolate: z.boolean().default(true),
        /**
         * `optimize --traces`: the fractions of the conversations for analyses (train) and for
         * choosing candidates (selection), by a seeded hash of each id; held-out gets the rest.
         */
        trace_train: z.number().min(0).max(1).default(0.5),
        trace_selection: z.number().min(0).max(1).default(0.3),
        /** null: the benchmark's own (apptown train/dev/test, appworld train/dev/test_normal). */
        train_split: z.string().min(1).nullable().default(null),
        select_split: z.string().min(1).nullable().default(null),
        eval_split: z.string().min(1).nullable().default(null),
        /**
         * First N tasks of the training / selection split that optimize uses (0: all). The
         * analyzers learn from the whole train split, as the paper does (issue 22); the
         * selection split is cut to 16 to keep candidate selection short (each candidate runs on
         * it); the evaluation split is always whole.
         */
        train_tasks: z.number().int().min(0).default(0),
        /**
         * Where the selection tasks come from. `grouped`: the train and selection splits pooled,
         * whole task patterns (a task's template parts, else its app mix) held out for selection
         * by a seeded draw, so selection sees patterns training never used, as the built-in test
         * splits do (docs/method.md). `split`: the selection split as it is (apptown's dev
         * shares every task pattern with train). null: the benchmark's own choice, `grouped` for
         * apptown and mcp, `split` for the others and whenever a selection split is named.
         */
        select_from: z.enum(['split', 'grouped']).nullable().default(null),
        select_tasks: z.number().int().min(0).default(16),
        /**
         * Runs of each selection task (`--repeats`), each with its own sampling seed, rollout and
         * call-cache entries, so a real model's variance is seen; the paired rule counts each
         * repeat as one unit (docs/method.md). Costs N times the selection rollouts.
         */
        repeats: z.number().int().min(1).default(1),
        /**
         * The most rollouts one optimize run may store (`--max-rollouts`); the run stops cleanly
         * before the next one (status `budget`) and `--resume` with a larger value goes on.
         * null: no limit.
         */
        max_rollouts: z.number().int().min(1).nullable().default(null),
      }),
    )
    .prefault({}),
  qa: z
    .strictObject({
      /** A HotpotQA-format file to use instead of the generated encyclopedia (`--qa-data`). */
      data: z.string().min(1).nullable().default(null),
      /** Questions bundled into one task from `data` (seed 003's setting is 8). */
      objectives_per_task: z.number().int().min(1).max(16).default(8),
    })
    .prefault({}),
  apptown: z
    .strictObject({
      /** Folder of apptown task files; null = the tasks/apptown folder shipped with acon. */
      tasks_dir: z.string().min(1).nullable().default(null),
    })
    .prefault({}),
  mcp: z
    .strictObject({
      /** Folder of MCP task files (docs/benchmarks.md); null = the tasks/mcp folder shipped with acon. */
      tasks_dir: z.string().min(1).nullable().default(null),
    })
    .prefault({}),
  appworld: z
    .strictObject({
      urls: z.array(z.string().url()).default(['http://127.0.0.1:8000']),
      /**
       * The AppWorld install (the folder holding data/datasets/<split>.txt); null: $APPWORLD_ROOT.
       */
      root: z.string().min(1).nullable().default(null),
      /**
       * Start of every experiment name; each (run, condition) gets its own,
       * `<prefix>_<run id>_<condition>`, so AppWorld never overwrites one condition's outputs
       * with another's.
       */
      experiment_prefix: z
        .string()
        .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, 'letters, digits, "_", "." and "-" only')
        .default('acon'),
      /**
       * Extra fields of every `/initialize` request: AppWorld's `AppWorldInitDefaults`, e.g.
       * `timeout_seconds: 100` or `raise_on_extra_parameters: true`. The server drops a key it
       * does not know without a word, so a misspelt one is an error here.
       */
      initialize: AppWorldInitializeSchema.default({}).describe(
        "extra /initialize fields: AppWorld's own options below, checked by name",
      ),
    })
    .prefault({}),
});
export type Config = z.infer<typeof ConfigSchema>;

/**
 * Runs recorded (and config files written) before issue #23 name `max_analyses` and learn from
 * elongation pairs without saying so: read them as `feedback_sample` and `include_elongation:
 * true`, so a resumed run continues as it was recorded.
 */
function upgradeOptimize(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  let out = value as Record<string, unknown>;
  if ('max_analyses' in out) {
    const { max_analyses, ...rest } = out;
    out = { feedback_sample: max_analyses, include_elongation: true, ...rest };
  }
  // `tolerance` (a drop of the point estimate) became `margin` (a drop of its upper bound).
  if ('tolerance' in out) {
    const { tolerance, ...rest } = out;
    out = { margin: tolerance, ...rest };
  }
  return out;
}
