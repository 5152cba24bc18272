/**
 * What one set of sim-seeds.ts leaves (its compare figures and, with --optimize, the optimize's)
 * and issue 22's bands judged on it. Shared by sim-seeds.ts, which measures and prints them, and
 * scripts/docs/sim-seeds-tables.ts, which renders docs/sim.md's band and UT-recovery tables from
 * the sets stored in docs/measured/sim-seeds/.
 */
import { z } from 'zod';
import { ProvenanceSchema } from '../docs/provenance.js';
import type { ConditionFigures } from './sim-band-figures.js';

export type Points = number; // accuracy in percentage points, one decimal
export const pts = (accuracy: number): Points => Math.round(accuracy * 1000) / 10;

/** ConditionFigures as stored: JSON writes a NaN summary ratio (no summary fired) as null. */
const ConditionFiguresSchema = z.object({
  condition: z.string(),
  rollouts: z.number(),
  accuracy: z.number(),
  meanSteps: z.number(),
  foldsPerStep: z.number(),
  summaryRatio: z
    .number()
    .nullable()
    .transform((x) => x ?? NaN),
  atCap: z.number(),
}) satisfies z.ZodType<ConditionFigures, unknown>;

const Targets = z.object({ obs: z.number(), hist: z.number(), both: z.number() });

export const OptimizeFiguresSchema = z.object({
  raw: z.number(),
  /** v0 / after UT / after UTCO, each for obs, hist and both, in points. */
  versions: z.object({ v0: Targets, ut: Targets, final: Targets }),
  /** Each stage's scored candidates: one dropped early, invalid or a repeat has no score. */
  stages: z.array(
    z.object({
      stage: z.string(),
      /** The analyses its updater read (one or two that find nothing give copies of the parent). */
      analyses: z.number(),
      accuracies: z.array(z.number()),
      peaks: z.array(z.number()),
      unscored: z.number(),
    }),
  ),
  /**
   * The pair check's verdict (docs/method.md, *The pair checked together*): which option the
   * paired rule chose against the v0 pair on selection. Absent from sets stored before it was
   * recorded here.
   */
  pair: z.object({ chosen: z.string(), verdict: z.string() }).optional(),
});
export type OptimizeFigures = z.infer<typeof OptimizeFiguresSchema>;

export const SetResultSchema = z.object({
  seed: z.union([z.literal('shipped'), z.number()]),
  maxSteps: z.number(),
  compare: z.array(ConditionFiguresSchema),
  optimize: OptimizeFiguresSchema.optional(),
});
export type SetResult = z.infer<typeof SetResultSchema>;

/** The options a set was measured with: a rerun reads a stored set only when they are the same. */
export const MeasuredWithSchema = z.object({
  optimize: z.boolean(),
  maxTasks: z.string().nullable(),
  maxSteps: z.string().nullable(),
});

/** DIR/set-<seed>.json of `sim-seeds --results DIR`; `provenance` is absent from older sets. */
export const StoredSetSchema = z.object({
  measuredWith: MeasuredWithSchema,
  provenance: ProvenanceSchema.optional(),
  result: SetResultSchema,
});
export type StoredSet = z.infer<typeof StoredSetSchema>;

/**
 * DIR/manifest.json: the commands that filled DIR and the options of its sets. `earlier` is the
 * provenance of sets copied in from a measurement that recorded none per set, as that
 * measurement's own docs stated it (commit and a sentence: when, on what load).
 */
export const ManifestSchema = z.object({
  commands: z.array(z.string()),
  measuredWith: MeasuredWithSchema,
  earlier: z.object({ commit: z.string(), note: z.string() }).optional(),
});
export type Manifest = z.infer<typeof ManifestSchema>;

/** A band's verdict on one set: held, missed, or nothing to judge (e.g. v0 lost nothing). */
export type Verdict = { holds: boolean | null; shows: string };
export type Band = { name: string; judge: (r: SetResult) => Verdict };

export function figure(r: SetResult, condition: string): ConditionFigures {
  const f = r.compare.find((c) => c.condition === condition);
  if (f === undefined) throw new Error(`set ${r.seed}: no ${condition} rollouts`);
  return f;
}
export const signed = (p: Points) => `${p > 0 ? '+' : ''}${p.toFixed(1)}`;

/** Issue 22's must-show bands, as written there. */
export const COMPARE_BANDS: Band[] = [
  {
    name: 'raw 70-95%',
    judge: (r) => {
      const raw = pts(figure(r, 'raw').accuracy);
      return { holds: raw >= 70 && raw <= 95, shows: raw.toFixed(1) };
    },
  },
  {
    name: 'naive loses 5-30',
    judge: (r) => {
      const loss = pts(figure(r, 'raw').accuracy) - pts(figure(r, 'naive').accuracy);
      return { holds: loss >= 5 && loss <= 30, shows: signed(-loss) };
    },
  },
  {
    name: 'fifo loses >=5, >=1.2x steps',
    judge: (r) => {
      const loss = pts(figure(r, 'raw').accuracy) - pts(figure(r, 'fifo').accuracy);
      const fifo = figure(r, 'fifo');
      const steps = fifo.meanSteps / figure(r, 'raw').meanSteps;
      return {
        holds: loss >= 5 && steps >= 1.2,
        shows: `${signed(-loss)} ${steps.toFixed(3)}x, ${fifo.atCap}/${fifo.rollouts} at the cap ${r.maxSteps}`,
      };
    },
  },
  {
    name: 'masking within 5',
    judge: (r) => {
      const d = pts(figure(r, 'masking').accuracy) - pts(figure(r, 'raw').accuracy);
      return { holds: Math.abs(d) <= 5, shows: signed(d) };
    },
  },
  {
    name: 'summaries <= 1/2 input',
    judge: (r) => {
      const ratios = r.compare.filter((c) => !Number.isNaN(c.summaryRatio));
      const worst = Math.max(...ratios.map((c) => c.summaryRatio));
      return ratios.length === 0
        ? { holds: null, shows: 'none' }
        : { holds: worst <= 0.5, shows: worst.toFixed(2) };
    },
  },
  {
    name: 'folds <= 1 per 6 steps',
    judge: (r) => {
      const worst = Math.max(...r.compare.map((c) => c.foldsPerStep));
      return { holds: worst <= 1 / 6, shows: worst === 0 ? 'none' : `1/${(1 / worst).toFixed(1)}` };
    },
  },
];

export function recovery(which: 'obs' | 'hist' | 'both'): Band {
  return {
    name: `UT recovers >=1/2 (${which})`,
    judge: (r) => {
      if (r.optimize === undefined) return { holds: null, shows: '' };
      const { raw, versions } = r.optimize;
      const lost = raw - versions.v0[which];
      const back = versions.ut[which] - versions.v0[which];
      const shows = `${versions.v0[which].toFixed(1)}>${versions.ut[which].toFixed(1)}`;
      return { holds: lost <= 0 ? null : back >= lost / 2, shows };
    },
  };
}

export const OPTIMIZE_BANDS: Band[] = [
  {
    name: 'K candidates differ',
    judge: (r) => {
      if (r.optimize === undefined) return { holds: null, shows: '' };
      const differ = (xs: number[]) => new Set(xs).size > 1;
      // A stage with fewer than two scored candidates (the others dropped early, repeats or
      // invalid) has nothing to compare: it is named, not judged.
      const judged = r.optimize.stages.filter((s) => s.accuracies.length > 1);
      const inAccuracy = judged.filter((s) => differ(s.accuracies)).length;
      const tied = judged.filter((s) => !differ(s.accuracies) && !differ(s.peaks));
      const unjudged = r.optimize.stages.filter((s) => s.accuracies.length <= 1);
      return {
        holds: judged.length === 0 ? null : tied.length === 0,
        shows:
          `${judged.length - tied.length}/${judged.length} (acc ${inAccuracy})` +
          tied.map((s) => ` tied:${s.stage}(${s.analyses} analyses)`).join('') +
          unjudged.map((s) => ` unscored:${s.stage}`).join(''),
      };
    },
  },
  recovery('obs'),
  recovery('hist'),
  recovery('both'),
];
