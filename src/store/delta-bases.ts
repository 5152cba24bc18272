import { indexTokens, type TokenIndex } from './delta.js';

/** A long text this process stored, kept so that later texts can be stored as its edits. */
export type DeltaBase = {
  key: string;
  text: string;
  tokens: readonly string[];
  /** How many deltas a reader applies to rebuild it (0: stored whole). */
  depth: number;
};

/** Only tokens at least this long vote: short ones ("},\n", "0,") occur in every text. */
const VOTING_TOKEN_CHARS = 16;
/** Tokens of a new text looked up, spread evenly over it. */
const VOTES_PER_TEXT = 96;
/** Texts remembered per voting token (the newest). */
const TEXTS_PER_TOKEN = 8;
/** Distinct voting tokens remembered before the lookup table starts over. */
const MAX_VOTING_TOKENS = 500_000;

type Entry = DeltaBase & { index?: TokenIndex };

/**
 * The long texts stored last (up to `maxChars` of them), found again by the long tokens they
 * share with a new text. Concurrent rollouts interleave their writes, so "the previous text" is
 * rarely the right base; the one sharing the most lines is.
 */
export class DeltaBases {
  private readonly entries = new Map<number, Entry>();
  private readonly byToken = new Map<string, number[]>();
  private nextId = 0;
  private chars = 0;

  constructor(private readonly maxChars = 32 * 1024 * 1024) {}

  add(base: DeltaBase): void {
    const id = this.nextId++;
    this.entries.set(id, { ...base });
    this.chars += base.text.length;
    if (this.byToken.size > MAX_VOTING_TOKENS) this.byToken.clear();
    for (const t of base.tokens) {
      if (t.length < VOTING_TOKEN_CHARS) continue;
      const ids = this.byToken.get(t);
      if (ids === undefined) this.byToken.set(t, [id]);
      else if (ids[ids.length - 1] !== id) {
        ids.push(id);
        if (ids.length > TEXTS_PER_TOKEN) ids.shift();
      }
    }
    // Oldest first out (a Map iterates in insertion order).
    for (const [oldId, old] of this.entries) {
      if (this.chars <= this.maxChars || oldId === id) break;
      this.entries.delete(oldId);
      this.chars -= old.text.length;
    }
  }

  /** The remembered text sharing the most long tokens with `tokens` (the newest on a tie). */
  best(tokens: readonly string[]): (DeltaBase & { index: TokenIndex }) | undefined {
    const voting = tokens.filter((t) => t.length >= VOTING_TOKEN_CHARS);
    if (voting.length === 0) return undefined;
    const stride = Math.max(1, Math.floor(voting.length / VOTES_PER_TEXT));
    const votes = new Map<number, number>();
    for (let i = 0; i < voting.length; i += stride) {
      for (const id of this.byToken.get(voting[i]!) ?? []) {
        votes.set(id, (votes.get(id) ?? 0) + 1);
      }
    }
    let bestId = -1;
    let bestVotes = 0;
    for (const [id, n] of votes) {
      if (!this.entries.has(id)) continue;
      if (n > bestVotes || (n === bestVotes && id > bestId)) {
        bestId = id;
        bestVotes = n;
      }
    }
    const entry = this.entries.get(bestId);
    if (entry === undefined) return undefined;
    entry.index ??= indexTokens(entry.tokens);
    return entry as Entry & { index: TokenIndex };
  }

  forget(keys: ReadonlySet<string>): void {
    for (const [id, e] of this.entries) {
      if (!keys.has(e.key)) continue;
      this.entries.delete(id);
      this.chars -= e.text.length;
    }
  }
}
