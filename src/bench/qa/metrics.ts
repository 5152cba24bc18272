/**
 * Question-answering metrics (issue 14), defined once here: exact match and token F1 after
 * SQuAD-style normalisation (lower case, punctuation and the articles a/an/the removed,
 * whitespace collapsed), the best over an objective's gold answers, averaged per task.
 */

const PUNCTUATION = /[!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~‘’“”–—]/g;

/** SQuAD's `normalize_answer`. */
export function normalizeAnswer(text: string): string {
  return text
    .toLowerCase()
    .replace(PUNCTUATION, '')
    .replace(/\b(a|an|the)\b/g, ' ')
    .split(/\s+/)
    .filter(Boolean)
    .join(' ');
}

/** 1 when prediction and gold are equal after normalisation, else 0. */
export function exactMatch(prediction: string, gold: string): number {
  return normalizeAnswer(prediction) === normalizeAnswer(gold) ? 1 : 0;
}

/** Harmonic mean of token precision and recall over the normalised answers (SQuAD). */
export function tokenF1(prediction: string, gold: string): number {
  const p = normalizeAnswer(prediction).split(' ').filter(Boolean);
  const g = normalizeAnswer(gold).split(' ').filter(Boolean);
  // Both empty counts as a match, one empty as none (SQuAD v2 convention).
  if (p.length === 0 || g.length === 0) return p.length === g.length ? 1 : 0;
  const counts = new Map<string, number>();
  for (const w of g) counts.set(w, (counts.get(w) ?? 0) + 1);
  let common = 0;
  for (const w of p) {
    const c = counts.get(w) ?? 0;
    if (c > 0) {
      common += 1;
      counts.set(w, c - 1);
    }
  }
  if (common === 0) return 0;
  const precision = common / p.length;
  const recall = common / g.length;
  return (2 * precision * recall) / (precision + recall);
}

export type ObjectiveScore = { exactMatch: number; f1: number };
export type QaScore = ObjectiveScore & { objectives: ObjectiveScore[] };

/** One objective: the best score over its gold answers. */
export function scoreObjective(prediction: string, golds: readonly string[]): ObjectiveScore {
  let em = 0;
  let f1 = 0;
  for (const gold of golds) {
    em = Math.max(em, exactMatch(prediction, gold));
    f1 = Math.max(f1, tokenF1(prediction, gold));
  }
  return { exactMatch: em, f1 };
}

/** A task: each objective scored (a missing prediction is empty), then averaged. */
export function scoreTask(
  predictions: readonly (string | undefined)[],
  golds: readonly (readonly string[])[],
): QaScore {
  const objectives = golds.map((g, i) => scoreObjective(predictions[i] ?? '', g));
  const n = objectives.length;
  const avg = (k: keyof ObjectiveScore) =>
    n === 0 ? 0 : objectives.reduce((s, o) => s + o[k], 0) / n;
  return { exactMatch: avg('exactMatch'), f1: avg('f1'), objectives };
}

/** Contrastive-pair rule for QA (seed 003): the compressed run's F1 is this far below the full run's. */
export const F1_DROP = 0.05;

/** True when compression cost more than `F1_DROP` F1 on the same task. */
export function isF1Drop(fullF1: number, compressedF1: number, drop = F1_DROP): boolean {
  return fullF1 - compressedF1 > drop + 1e-12;
}
