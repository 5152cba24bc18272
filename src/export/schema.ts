import { InvalidInputError } from '../errors.js';
import { z } from 'zod';
import type { ChatMessage, ToolDef } from '../llm/index.js';

/** What to export: the observation compressor, the history compressor, or the agent's turns. */
export const ExportRoleSchema = z.enum(['obs', 'hist', 'agent']);
export type ExportRole = z.infer<typeof ExportRoleSchema>;

/** The LLM role (llm_calls.role) each export role reads. */
export const LLM_ROLE_OF = {
  obs: 'obs_compressor',
  hist: 'hist_compressor',
  agent: 'agent',
} as const satisfies Record<ExportRole, string>;

/** Training-file formats, one writer each under src/export/formats/. */
export const ExportFormatSchema = z.enum(['openai', 'trl', 'sharegpt', 'axolotl']);
export type ExportFormat = z.infer<typeof ExportFormatSchema>;

export const OverflowSchema = z.enum(['drop', 'truncate']);
export type Overflow = z.infer<typeof OverflowSchema>;

/**
 * Strategies whose compressor calls are teacher examples by default: ACON with its guidelines
 * (`acon`) and the same machinery with the untrained guideline (`naive`). The `summary`
 * baseline also records `hist_compressor` calls, but with the OpenHands-style prompt rather
 * than a guideline, so it is left out unless asked for with `conditions`.
 */
export const DEFAULT_COMPRESSOR_STRATEGIES = ['acon', 'naive'] as const;

export const ExportOptionsSchema = z
  .object({
    /**
     * Source run id. @default the newest finished optimize run whose final guidelines of the
     * role are active, else the newest finished optimize run (of `bench` when given)
     */
    run: z.string().min(1).optional(),
    /** Only runs of this benchmark are taken by default (`--bench` typed on the command line). */
    bench: z.string().min(1).nullable().optional(),
    role: ExportRoleSchema,
    format: ExportFormatSchema,
    /** The training file; the validation file, meta and sidecars are written next to it. */
    out: z.string().min(1),
    /** Also export calls of failed rollouts. @default false */
    includeFailed: z.boolean().default(false),
    /**
     * Condition labels or strategy names whose rollouts are exported.
     * @default ['acon', 'naive'] for obs/hist, every condition for agent
     */
    conditions: z.array(z.string().min(1)).nullable().default(null),
    /**
     * Benchmark splits whose rollouts are exported; null: every split. Anything but the train
     * split puts tasks you evaluate on into the student's training data (a warning says so).
     * @default ['train']
     */
    splits: z.array(z.string().min(1)).min(1).nullable().default(['train']),
    /**
     * Guideline versions whose rollouts are exported (ids such as `hist-0010`; each constrains
     * its kind's column). Undefined: the final active guideline of the exported role (both for
     * agent turns): the optimize run's final versions, else the active ones. null: any.
     */
    guidelines: z
      .array(z.string().regex(/^(obs|hist)-\d+$/, 'must be a version id such as hist-0010'))
      .min(1)
      .nullable()
      .optional(),
    /**
     * Which versions of an optimize run are exported by default: `final` (after the compression
     * phase: the guidelines a deployment runs, which paper v3's "optimized compressor" is run
     * under) or `ut` (after the utility phase).
     * @default 'final'
     */
    from: z.enum(['ut', 'final']).default('final'),
    /** Share of tasks (not examples) held out for validation. @default 0 */
    valRatio: z.number().min(0).max(0.9).default(0),
    /** Tokens per example (o200k_base, chat framing and tools included). @default no limit */
    maxTokens: z.number().int().positive().nullable().default(null),
    /** What to do with an example over `maxTokens`. @default 'drop' */
    overflow: OverflowSchema.default('drop'),
    /** Seed of the train/validation split. @default 0 */
    seed: z.number().int().default(0),
    /**
     * Run the teacher first: `true` runs it with the active guidelines when there is no run to
     * export; a spec like `obs@3,hist@2` always runs it with those versions.
     * @default false
     */
    teacher: z.union([z.boolean(), z.string().min(1)]).default(false),
  })
  .refine((o) => !(o.run && o.teacher !== false), {
    message: '`run` and `teacher` exclude each other: export a stored run, or run the teacher',
    path: ['teacher'],
  });
export type ExportOptions = z.input<typeof ExportOptionsSchema>;
export type ResolvedExportOptions = z.output<typeof ExportOptionsSchema>;

/**
 * One training example in the neutral form every writer converts from: the prompt messages
 * followed by the teacher's answer (always the last message, an assistant message).
 */
export type TrainingExample = {
  role: ExportRole;
  taskId: string;
  /** Benchmark split of the task (meta `sources.splits`). */
  split: string;
  /** Guideline version(s) the example was produced under (meta `sources.guidelines`). */
  guideline: string;
  rolloutId: string;
  callId: number;
  messages: ChatMessage[];
  /** Tool definitions the agent was offered (agent examples only). */
  tools?: ToolDef[];
};

/** The final active guideline versions (the CLI reads them from the guideline store). */
export type ActiveGuidelines = () => { obs: string; hist: string } | null;

/** The teacher's run and the effect of `runTeacher`: it stores a run and returns its id. */
export type RunTeacher = (guidelines: string | null) => Promise<string>;

/** The options of an export, checked; a bad one is an error that names it as `` `name` ``. */
export function parseExportOptions(input: ExportOptions): ResolvedExportOptions {
  const r = ExportOptionsSchema.safeParse(input);
  if (r.success) return r.data;
  const i = r.error.issues[0]!;
  const option = i.path.length > 0 ? String(i.path[0]) : null;
  const message = `${option === null ? 'export options' : `\`${option}\``}: ${i.message}`;
  // The options the message names (`teacher`), the one at fault first.
  const named = [...message.matchAll(/`([a-z][A-Za-z]*)`/g)].map((m) => m[1]!);
  const options = [...new Set(named)];
  throw new InvalidInputError(message, {
    what: 'export options',
    value: option ?? undefined,
    options,
  });
}
