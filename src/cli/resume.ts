import type { z } from 'zod';
import { ConfigSchema, type Config } from '../config/index.js';
import { UsageError } from './usage-error.js';
import type { RunRow } from '../domain/index.js';

/** The command that continues a run of each kind. */
const RESUMED_BY: Record<string, string> = {
  run: 'acon run',
  compare: 'acon compare',
  optimize: 'acon optimize',
  replay: 'acon replay',
};

/** Refuses `--resume` of a run another command made (`acon optimize --resume <a run>`). */
export function requireKind(run: RunRow, kinds: readonly string[]): void {
  if (kinds.includes(run.kind)) return;
  const by = RESUMED_BY[run.kind];
  throw new UsageError(
    by
      ? `run ${run.id} was made by \`${by}\`; continue it with: ${by} --resume ${run.id}`
      : `run ${run.id} is a ${run.kind} run, which cannot be resumed; start a new run instead`,
  );
}

/**
 * The config the run was recorded with: a resumed run continues with its own provider, models,
 * endpoints and settings, never the current file, environment or flags. Only the database path
 * is today's (the file may have moved).
 */
export function recordedConfig(run: RunRow, db: string): Config {
  const parsed = ConfigSchema.safeParse(run.config);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new UsageError(
      `run ${run.id} was recorded with a config this acon cannot read (${issue.path.join('.') || '(root)'}: ${issue.message}); it cannot be resumed, start a new run`,
    );
  }
  return { ...parsed.data, run: { ...parsed.data.run, db } };
}

/** The recorded params of a run, parsed with the command's schema, as one line on failure. */
export function recordedParams<T extends z.ZodType>(run: RunRow, schema: T): z.infer<T> {
  const parsed = schema.safeParse(run.params);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new UsageError(
      `run ${run.id} has params this acon cannot read (${issue.path.join('.') || '(root)'}: ${issue.message}); it cannot be resumed, start a new run`,
    );
  }
  return parsed.data as z.infer<T>;
}

/** A flag the user typed next to --resume, and what the run recorded for it. */
export type GivenFlag = { flag: string; given: unknown; recorded: unknown };

/**
 * A resumed run continues exactly as recorded: a flag given with a different value is refused
 * (one line naming the flag, both values and the fix) instead of silently applied or ignored.
 * `given: undefined` means the flag was not typed.
 */
export function refuseConflicts(runId: string, flags: GivenFlag[]): void {
  for (const f of flags) {
    if (f.given === undefined) continue;
    if (JSON.stringify(f.given) === JSON.stringify(f.recorded)) continue;
    throw new UsageError(
      `${f.flag} ${show(f.given)} conflicts with run ${runId}, recorded with ${show(f.recorded)}; drop ${f.flag} (--resume continues a run exactly as recorded) or start a new run`,
    );
  }
}

/**
 * refuseConflicts for flags that map one to one onto recorded parameters: `--traces` ↔ `traces`.
 * Only a flag the user typed (`typed`, from the command line) is compared.
 */
export function refuseChangedParams<P extends Record<string, unknown>>(
  runId: string,
  typed: ReadonlySet<string>,
  given: P,
  recorded: P,
  keys: (keyof P & string)[],
): void {
  refuseConflicts(
    runId,
    keys.map((key) => ({
      flag: `--${key}`,
      given: typed.has(key) ? given[key] : undefined,
      recorded: recorded[key],
    })),
  );
}

function show(v: unknown): string {
  if (v === null) return '(none)';
  if (Array.isArray(v)) return v.join(',');
  return String(v);
}
