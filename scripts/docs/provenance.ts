import { execFileSync } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { z } from 'zod';
import { REPO } from './repo.js';

/**
 * Where and when a measurement was made, as every record the docs quote carries it: the commit
 * (and whether what acon runs differed from it), the machine's load before and after (it is
 * shared) and its cores. Used by `npm run docs:tables -- --measure` and by sim-seeds.ts, whose
 * per-set results are records too.
 */

/** `uptime`'s load averages (1, 5, 15 min), as `0.41 1.98 2.85`. */
export const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

export const cpuCount = () => cpus().length;

/** The commit measured, and whether what acon runs (src/, tasks/, guidelines/) differs from it. */
export function commitState(): { commit: string; dirty: boolean } {
  const git = (...args: string[]) =>
    execFileSync('git', args, { cwd: REPO, encoding: 'utf8' }).trim();
  const commit = git('rev-parse', '--short', 'HEAD');
  const dirty = git('status', '--porcelain', '--', 'src', 'tasks', 'guidelines') !== '';
  return { commit, dirty };
}

/** One measured piece of work: its commit, when it started, how long it took, the load around it. */
export const ProvenanceSchema = z.object({
  commit: z.string(),
  dirty: z.boolean(),
  /** ISO time it started. */
  date: z.string(),
  seconds: z.number(),
  loadBefore: z.string(),
  loadAfter: z.string(),
  cpus: z.number().int(),
});
export type Provenance = z.infer<typeof ProvenanceSchema>;

/** Runs `work` and returns what it returned with its provenance. */
export function measured<T>(work: () => T): { value: T; provenance: Provenance } {
  const { commit, dirty } = commitState();
  const date = new Date().toISOString();
  const loadBefore = load();
  const started = process.hrtime.bigint();
  const value = work();
  const seconds = Math.round(Number(process.hrtime.bigint() - started) / 1e8) / 10;
  const provenance = {
    commit,
    dirty,
    date,
    seconds,
    loadBefore,
    loadAfter: load(),
    cpus: cpuCount(),
  };
  return { value, provenance };
}
