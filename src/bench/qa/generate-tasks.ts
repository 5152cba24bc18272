import { seededRandom } from '../../seeded-random.js';
import { generateCorpus, type Entity } from './corpus.js';
import { corpusLibrary } from './library.js';
import { SEARCH_K } from './prompts.js';
import { resolveTemplate, TEMPLATES, type Template } from './questions.js';
import type { Objective, QaTaskFile } from './task-schema.js';

/**
 * The shipped tasks/qa set as a pure function of the corpus seed (scripts/bench/gen-qa-tasks.ts
 * writes it; a test checks the files still equal it). Every question is checked before it is
 * used: searching its start title finds the start article among the top results, its answer
 * does not occur in the task's own questions, and no (template, start article) pair is used
 * twice. Test tasks draw most questions from the held-out templates and always include one.
 */

/**
 * Tasks per split by number of questions (1, 2, 4, 8, 16). The selection split is the
 * smallest: `acon optimize` evaluates every candidate on it.
 */
export const TASK_PLAN: Record<'train' | 'dev' | 'test', Record<number, number>> = {
  train: { 1: 10, 2: 10, 4: 8, 8: 6, 16: 2 },
  dev: { 1: 8, 2: 8, 4: 6, 8: 4, 16: 2 },
  test: { 1: 10, 2: 10, 4: 8, 8: 8, 16: 4 },
};
/** Reference tool calls of a 16-question task: under agent.max_steps' default with room to re-fetch. */
const MAX_CALLS = 40;
/** Share of test questions from held-out templates. */
const HELD_OUT_SHARE = 0.6;

const calls = (t: Template) => 2 + t.hops.length;

export function generateTaskFiles(seed: number): QaTaskFile[] {
  const corpus = generateCorpus(seed);
  const index = corpusLibrary(corpus).index();
  const random = seededRandom('qa-tasks', seed);
  const used = new Set<string>();
  const byKind = new Map<string, Entity[]>();
  for (const e of corpus.entities) byKind.set(e.kind, [...(byKind.get(e.kind) ?? []), e]);

  const draw = (pool: Template[], taken: Objective[], maxCalls: number): Objective | undefined => {
    const fits = pool.filter((t) => calls(t) <= maxCalls);
    if (fits.length === 0) return undefined;
    for (let attempt = 0; attempt < 200; attempt++) {
      const tpl = fits[Math.floor(random() * fits.length)]!;
      const starts = byKind.get(tpl.start)!;
      const start = starts[Math.floor(random() * starts.length)]!;
      const key = `${tpl.id}:${start.id}`;
      if (used.has(key) || taken.some((o) => o.path[0] === start.id)) continue;
      const r = resolveTemplate(tpl, start, corpus);
      if (!index.search(r.query, SEARCH_K).hits.some((h) => h.id === start.id)) continue;
      if (taken.some((o) => o.answer === r.answer)) continue;
      const questions = [...taken.map((o) => o.question), r.question].join('\n');
      if ([...taken.map((o) => o.answer), r.answer].some((a) => mentions(questions, a))) {
        continue;
      }
      used.add(key);
      return { ...r, template: tpl.id, aliases: [] };
    }
    return undefined;
  };

  const seen = TEMPLATES.filter((t) => !t.heldOut);
  const heldOut = TEMPLATES.filter((t) => t.heldOut);
  const makeTask = (split: 'train' | 'dev' | 'test', n: number, id: string): QaTaskFile => {
    for (;;) {
      const objectives: Objective[] = [];
      let budget = n === 16 ? MAX_CALLS : Infinity;
      for (let i = 0; i < n; i++) {
        const useHeldOut = split === 'test' && (i === 0 || random() < HELD_OUT_SHARE);
        const maxCalls = budget - 2 * (n - i - 1);
        // A tight call budget falls back to the (shorter) seen templates.
        const o =
          (useHeldOut ? draw(heldOut, objectives, maxCalls) : undefined) ??
          draw(seen, objectives, maxCalls);
        if (!o) break;
        objectives.push(o);
        budget -= o.path.length + 1;
      }
      if (objectives.length === n) {
        // Held-out questions are not always first: a seeded shuffle.
        for (let i = objectives.length - 1; i > 0; i--) {
          const j = Math.floor(random() * (i + 1));
          [objectives[i], objectives[j]] = [objectives[j]!, objectives[i]!];
        }
        return { id, split, corpus_seed: seed, objectives };
      }
    }
  };

  const files: QaTaskFile[] = [];
  for (const split of ['train', 'dev', 'test'] as const) {
    for (const [n, count] of Object.entries(TASK_PLAN[split])) {
      for (let k = 1; k <= count; k++) {
        files.push(makeTask(split, Number(n), `qa-${split}-${n.padStart(2, '0')}q-${k}`));
      }
    }
  }
  return files;
}

/**
 * Whether `value` occurs in `text` as a whole token (not next to `[A-Za-z0-9_]`), the way the
 * simulated agent decides that a value is in view (src/sim/text.ts: containsToken).
 */
function mentions(text: string, value: string): boolean {
  if (value === '') return false;
  const escaped = value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?<![A-Za-z0-9_])${escaped}(?![A-Za-z0-9_])`).test(text);
}
