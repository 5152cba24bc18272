import { createHash } from 'node:crypto';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { InvalidInputError, NotFoundError } from '../errors.js';
import { countMessageTokens, countTokens, type TokenCounter } from '../llm/index.js';
import type { RunRow } from '../domain/index.js';
import { fitExample } from './budget.js';
import { buildExample } from './examples.js';
import { FORMATS } from './formats/index.js';
import { JsonlWriter } from './jsonl-writer.js';
import { exportPaths } from './paths.js';
import {
  DEFAULT_COMPRESSOR_STRATEGIES,
  parseExportOptions,
  LLM_ROLE_OF,
  type ActiveGuidelines,
  type ExportOptions,
  type ResolvedExportOptions,
  type RunTeacher,
  type TrainingExample,
} from './schema.js';
import { scrubMessages, scrubTools } from './scrub.js';
import { activePair, defaultSourceRun, finalOf, noSourceRunError, utOf } from './source-run.js';
import type { ExportSource, GuidelineFilter, RolloutFilter } from './source.js';
import { validationTasks } from './split.js';
import { emptySummary, type ExportSummary, type TaskCount } from './summary.js';
import { aconVersion } from './version.js';
import { writeFileAtomic } from '../write-file-atomic.js';

export type ExportDeps = {
  /** The run store (its runs and the streamed calls of a run). */
  store: ExportSource;
  /**
   * Runs the teacher with the given guidelines (`obs@3,hist@2`; null = the active ones), stores
   * the run in the same database and returns its id. Needed only with `teacher`.
   */
  runTeacher?: RunTeacher;
  /**
   * The active guideline versions, for the default filter when the source run is not an
   * optimize run (which records its final versions). Without it, such a run is not filtered by
   * guideline.
   */
  activeGuidelines?: ActiveGuidelines;
  /** @default the shared o200k_base counter */
  tokens?: TokenCounter;
  /** Recorded in the meta file. @default the version in package.json */
  version?: string;
};

/**
 * Exports the teacher's calls of one run as a fine-tuning set (ARCHITECTURE §1, distillation).
 *
 * Streams the candidate calls in a fixed order (task, rollout start, step, call id), keeps those
 * of successful rollouts that are valid teacher examples, scrubs secrets, applies the token
 * limit, drops duplicates, and writes train and validation files (split by task) through
 * backpressured streams, then the format's sidecars and `<stem>.meta.json`. The same run
 * exported twice with the same options gives byte-identical files: nothing time- or
 * machine-dependent is written, and provenance lives in the meta file, never in the lines.
 */
export async function exportDataset(
  input: ExportOptions,
  deps: ExportDeps,
): Promise<ExportSummary> {
  const opts = parseExportOptions(input);
  const { store } = deps;
  const { run, ranTeacher, note } = await resolveRun(opts, deps);
  const llmRole = LLM_ROLE_OF[opts.role];
  const conditions =
    opts.conditions ?? (opts.role === 'agent' ? null : [...DEFAULT_COMPRESSOR_STRATEGIES]);
  const guidelines = guidelineFilter(opts, run, ranTeacher, deps.activeGuidelines);
  const filter: RolloutFilter = {
    run: run.id,
    llmRole,
    conditions,
    splits: opts.splits,
    guidelines,
  };
  const tasks = store.exportTasks(filter);
  if (tasks.length === 0) throw noCallsError(store, opts, filter);
  const eligible = tasks.filter((t) => opts.includeFailed || t.succeeded).map((t) => t.task);
  const valTasks = validationTasks(eligible, opts.valRatio, opts.seed);
  const paths = exportPaths(opts.out);
  const written = await writeExamples(store, filter, opts, valTasks, paths, deps);
  const sidecars = FORMATS[opts.format].sidecars({
    paths,
    hasVal: written.hasVal,
    role: opts.role,
    hasTools: written.hasTools,
    runId: run.id,
  });
  // An earlier export to the same name may have written a validation file this one does not.
  if (!written.hasVal) rmSync(paths.val, { force: true });
  for (const f of sidecars) {
    const existing = existsSync(f.path) ? readFileSync(f.path, 'utf8') : null;
    writeFileAtomic(f.path, f.render(existing));
  }

  const summary: ExportSummary = {
    runId: run.id,
    runKind: run.kind,
    bench: run.bench,
    provider: run.provider,
    models: run.models,
    simulated: run.simulated,
    role: opts.role,
    llmRole,
    format: opts.format,
    conditions,
    splits: opts.splits,
    guidelines: guidelines ? [...(guidelines.obs ?? []), ...(guidelines.hist ?? [])] : null,
    sources: {
      splits: sortKeys(written.sources.splits),
      guidelines: sortKeys(written.sources.guidelines),
    },
    warnings: [...(note ? [note] : []), ...splitWarnings(opts.splits)],
    files: {
      train: paths.train,
      val: written.hasVal ? paths.val : null,
      meta: paths.meta,
      sidecars: sidecars.map((f) => f.path),
    },
    ...written.summary,
    maxTokens: opts.maxTokens,
    byTask: [...written.byTask.values()],
  };
  writeFileAtomic(
    paths.meta,
    `${JSON.stringify(metaOf(summary, run, opts, deps.version ?? aconVersion()), null, 2)}\n`,
  );
  return summary;
}

/** The run has no calls of the role under the filter: what it has, and how to widen. */
function noCallsError(
  store: ExportSource,
  opts: ResolvedExportOptions,
  filter: RolloutFilter,
): NotFoundError {
  const { run, llmRole, conditions, guidelines } = filter;
  const has = store.runConditions(run);
  const narrowed = [
    conditions ? `conditions ${conditions.join(', ')}` : '',
    opts.splits ? `split ${opts.splits.join(', ')}` : '',
    guidelines ? `guidelines ${describeGuidelines(guidelines)}` : '',
  ].filter(Boolean);
  return new NotFoundError(
    `run ${run} has no ${llmRole} calls${narrowed.length > 0 ? ` in rollouts of ${narrowed.join(' and ')}` : ''}` +
      ` (its conditions: ${has.length > 0 ? has.join(', ') : 'none'}); pick another run with \`run\`` +
      (opts.role === 'agent' ? '' : ', other conditions with `conditions`') +
      ', or widen with `splits` all / `guidelines` all',
    { options: ['run', 'conditions', 'splits', 'guidelines'] },
  );
}

/**
 * Streams the candidate calls into the train and validation files: keeps valid examples,
 * scrubs secrets, applies the token limit, drops duplicates, and counts what it did.
 */
async function writeExamples(
  store: ExportSource,
  filter: RolloutFilter,
  opts: ResolvedExportOptions,
  valTasks: Set<string>,
  paths: ReturnType<typeof exportPaths>,
  deps: ExportDeps,
) {
  const counter = deps.tokens ?? { countTokens, countMessageTokens };
  const spec = FORMATS[opts.format];
  const s = emptySummary();
  const byTask = new Map<string, TaskCount>();
  const sources = {
    splits: {} as Record<string, number>,
    guidelines: {} as Record<string, number>,
  };
  const seen = new Set<string>();
  let hasTools = false;
  const train = await JsonlWriter.open(paths.train);
  const val = valTasks.size > 0 ? await JsonlWriter.open(paths.val) : null;
  try {
    for (const row of store.exportCalls(filter)) {
      s.candidates++;
      const built = buildExample(row, opts.role, opts.includeFailed);
      if (!built.ok) {
        s.skipped[built.reason]++;
        continue;
      }
      const scrubbed = scrub(built.example);
      s.scrubbed += scrubbed.count;
      const fit = fitExample(scrubbed.example, opts.maxTokens, opts.overflow, counter);
      if (fit.action === 'dropped') {
        s.skipped.overLength++;
        continue;
      }
      const ex = fit.example;
      const key = exampleKey(ex);
      if (seen.has(key)) {
        s.skipped.duplicate++;
        continue;
      }
      seen.add(key);
      if (fit.action === 'truncated') s.truncated++;
      if (ex.tools) hasTools = true;
      const split = valTasks.has(ex.taskId) ? 'val' : 'train';
      await (split === 'val' ? val! : train).write(spec.line(ex));
      s.examples[split]++;
      s.tokens[split] += fit.tokens;
      s.tokens.longest = Math.max(s.tokens.longest, fit.tokens);
      sources.splits[ex.split] = (sources.splits[ex.split] ?? 0) + 1;
      sources.guidelines[ex.guideline] = (sources.guidelines[ex.guideline] ?? 0) + 1;
      const t = byTask.get(ex.taskId) ?? { taskId: ex.taskId, split, examples: 0, tokens: 0 };
      t.examples++;
      t.tokens += fit.tokens;
      byTask.set(ex.taskId, t);
    }
    await train.close();
    await val?.close();
  } catch (err) {
    await train.abort();
    await val?.abort();
    throw err;
  }
  s.examples.total = s.examples.train + s.examples.val;
  s.tokens.total = s.tokens.train + s.tokens.val;
  return { summary: s, byTask, sources, hasTools, hasVal: val !== null };
}

/**
 * The guideline filter: the given versions, none (`null`), or by default the final active
 * guideline of the exported role (both for agent turns): an optimize run's recorded final
 * versions, else the active ones. A run the export just made with --teacher is not filtered:
 * it holds only the teacher's guidelines.
 */
function guidelineFilter(
  opts: ResolvedExportOptions,
  run: RunRow,
  ranTeacher: boolean,
  active: ActiveGuidelines | undefined,
): GuidelineFilter | null {
  if (opts.guidelines === null) return null;
  if (opts.guidelines !== undefined) {
    const of = (k: string) => opts.guidelines!.filter((id) => id.startsWith(`${k}-`));
    const obs = of('obs');
    const hist = of('hist');
    return { obs: obs.length > 0 ? obs : null, hist: hist.length > 0 ? hist : null };
  }
  if (ranTeacher) return null;
  if (opts.from === 'ut') {
    const ut = utOf(run);
    if (!ut) {
      throw new InvalidInputError(
        `run ${run.id} recorded no UT guidelines (an optimize run made before they were recorded, or not an optimize run); use \`from\` final, or \`guidelines\` obs-N,hist-N`,
        { what: 'export source', value: run.id, options: ['from', 'guidelines'] },
      );
    }
    // The UT versions' train rollouts: the compression phase's train rollouts ran them.
    return {
      obs: opts.role === 'hist' ? null : [ut.obs],
      hist: opts.role === 'obs' ? null : [ut.hist],
    };
  }
  const final = finalOf(run) ?? active?.() ?? null;
  if (!final) return null;
  return {
    obs: opts.role === 'hist' ? null : [final.obs],
    hist: opts.role === 'obs' ? null : [final.hist],
  };
}

function describeGuidelines(g: GuidelineFilter): string {
  return [...(g.obs ?? []), ...(g.hist ?? [])].join(', ');
}

/** Data of other splits than train: the student sees tasks acon evaluates on. */
function splitWarnings(splits: readonly string[] | null): string[] {
  const others = splits === null ? ['every split'] : splits.filter((s) => s !== 'train');
  if (others.length === 0) return [];
  return [
    `exporting rollouts of ${others.join(', ')}: a student trained on them has seen tasks you select or evaluate on (the clean set is --split train)`,
  ];
}

function sortKeys(counts: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(counts).sort(([a], [b]) => a.localeCompare(b)));
}

async function resolveRun(
  opts: ResolvedExportOptions,
  deps: ExportDeps,
): Promise<{ run: RunRow; ranTeacher: boolean; note: string | null }> {
  const { store } = deps;
  const stored = (run: RunRow, note: string | null = null) => ({ run, ranTeacher: false, note });
  const teacher = async (guidelines: string | null) => {
    if (!deps.runTeacher) {
      throw new InvalidInputError(
        '`teacher` is not available here: run the teacher first (`acon run --strategy acon --split train`), then export',
        { what: 'export options', value: 'teacher', options: ['teacher'] },
      );
    }
    const run = store.getRun(await deps.runTeacher(guidelines));
    return { run, ranTeacher: true, note: null };
  };
  if (opts.run) return stored(store.getRun(opts.run));
  if (typeof opts.teacher === 'string') return teacher(opts.teacher);
  const bench = opts.bench ?? null;
  const chosen = defaultSourceRun(store, opts.role, bench, activePair(deps.activeGuidelines));
  if (chosen) return stored(chosen.run, chosen.note);
  if (opts.teacher === true) return teacher(null);
  throw noSourceRunError(store, bench);
}

function scrub(ex: TrainingExample): { example: TrainingExample; count: number } {
  const m = scrubMessages(ex.messages);
  const t = ex.tools ? scrubTools(ex.tools) : null;
  return {
    example: { ...ex, messages: m.value, ...(t ? { tools: t.value } : {}) },
    count: m.count + (t?.count ?? 0),
  };
}

/** Identity of an example for deduplication: what the trainer sees, not where it came from. */
function exampleKey(ex: TrainingExample): string {
  return createHash('sha256')
    .update(JSON.stringify([ex.messages, ex.tools ?? null]))
    .digest('base64');
}

/** The meta file: provenance and counts, kept out of the training lines. No timestamps: re-exports are byte-identical. */
function metaOf(s: ExportSummary, run: RunRow, opts: ResolvedExportOptions, version: string) {
  return {
    acon: { version },
    source: {
      runId: run.id,
      kind: run.kind,
      bench: run.bench,
      provider: run.provider,
      models: run.models,
      simulated: run.simulated,
      createdAt: run.created_at,
    },
    ...(run.simulated
      ? {
          warning:
            "SIMULATED: the source run used the sim provider; these are not a real teacher model's outputs.",
        }
      : {}),
    export: {
      role: opts.role,
      llmRole: s.llmRole,
      format: opts.format,
      conditions: s.conditions,
      splits: s.splits,
      guidelines: s.guidelines,
      includeFailed: opts.includeFailed,
      valRatio: opts.valRatio,
      seed: opts.seed,
      maxTokens: opts.maxTokens,
      overflow: opts.overflow,
    },
    /** Where the examples came from: benchmark split and guideline version → examples. */
    sources: s.sources,
    files: s.files,
    counts: {
      candidates: s.candidates,
      examples: s.examples,
      tokens: s.tokens,
      tasks: {
        train: s.byTask.filter((t) => t.split === 'train').length,
        val: s.byTask.filter((t) => t.split === 'val').length,
      },
      skipped: s.skipped,
      truncated: s.truncated,
      scrubbed: s.scrubbed,
    },
    byTask: s.byTask,
  };
}
