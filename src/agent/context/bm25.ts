import MiniSearch from 'minisearch';

/**
 * The retrieval baseline's relevance: BM25+ over one text field, exactly as MiniSearch scores an
 * OR query of it (default options), computed from our own postings.
 *
 * Why not MiniSearch's `search`: the baseline asks it for every distinct term of a long query
 * (the task and the latest turn: hundreds of JSON keys and ids) at every step, and each search
 * builds option objects, result objects and a sorted list; that was 3.5 s of the README
 * optimize's 76 s of CPU and a tenth of its allocations, for 56 of its 690 rollouts (issue #28).
 * MiniSearch still defines the terms (its tokenizer and term processing), and the tests check the
 * scores against its `search` bit for bit, so the turns the baseline picks are the same.
 */
const tokenize = MiniSearch.getDefault('tokenize') as (text: string) => string[];
const processTerm = MiniSearch.getDefault('processTerm') as (
  term: string,
) => string | string[] | null | undefined | false;

/** MiniSearch's default BM25+ parameters. */
const K = 1.2;
const B = 0.7;
const D = 0.5;

/** The terms of a text's tokens as MiniSearch indexes and queries them, in order, repeats kept. */
function termsOf(tokens: readonly string[]): string[] {
  return tokens.flatMap((t) => processTerm(t)).filter((t): t is string => !!t);
}

/** Documents (ids of the caller's choosing) added one by one; nothing is ever removed. */
export class Bm25Index {
  /** term → document → how often the term occurs in it. */
  private readonly postings = new Map<string, Map<number, number>>();
  /** document → its length: distinct tokens before term processing, as MiniSearch counts it. */
  private readonly lengths = new Map<number, number>();
  private averageLength = 0;

  add(id: number, text: string): void {
    if (this.lengths.has(id)) throw new Error(`document ${id} is already indexed`);
    const tokens = tokenize(text);
    const length = new Set(tokens).size;
    // MiniSearch's running average, with its operations in its order (addFieldLength): the
    // scores depend on every bit of it.
    const before = this.lengths.size;
    this.averageLength = (this.averageLength * before + length) / (before + 1);
    this.lengths.set(id, length);
    for (const term of termsOf(tokens)) {
      let docs = this.postings.get(term);
      if (docs === undefined) this.postings.set(term, (docs = new Map()));
      docs.set(id, (docs.get(id) ?? 0) + 1);
    }
  }

  /** The score of each document containing `term` (MiniSearch's calcBM25Score). */
  private termScores(term: string): [number, number][] {
    const docs = this.postings.get(term);
    if (docs === undefined) return [];
    const total = this.lengths.size;
    const matching = docs.size;
    const idf = Math.log(1 + (total - matching + 0.5) / (matching + 0.5));
    const out: [number, number][] = [];
    for (const [id, tf] of docs) {
      const length = this.lengths.get(id)!;
      out.push([
        id,
        idf * (D + (tf * (K + 1)) / (tf + K * (1 - B + (B * length) / this.averageLength))),
      ]);
    }
    return out;
  }

  /**
   * The score of every document an OR query finds, as MiniSearch's `search(query)` gives it: the
   * score of each occurrence of a query term added up in query order, times the number of
   * distinct query terms the document matched. Each distinct term is scored once.
   */
  scores(query: string): Map<number, number> {
    const byTerm = new Map<string, [number, number][]>();
    const sums = new Map<number, number>();
    const matched = new Map<number, number>();
    for (const term of termsOf(tokenize(query))) {
      let hits = byTerm.get(term);
      const first = hits === undefined;
      if (hits === undefined) byTerm.set(term, (hits = this.termScores(term)));
      for (const [id, score] of hits) {
        const sum = sums.get(id);
        sums.set(id, sum === undefined ? score : sum + score);
        if (first) matched.set(id, (matched.get(id) ?? 0) + 1);
      }
    }
    for (const [id, sum] of sums) sums.set(id, sum * matched.get(id)!);
    return sums;
  }
}
