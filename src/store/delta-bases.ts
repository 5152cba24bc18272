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
/** Tokens of a new text looked up at most, spread evenly over it. */
const VOTES_PER_TEXT = 96;
/** Texts remembered per voting token (the newest). */
const TEXTS_PER_TOKEN = 8;
/** The share of a new text's voting tokens a base must have for a delta to be tried. */
const MIN_SHARED_VOTES = 0.3;
/** Distinct voting tokens remembered before the lookup table starts over. */
const MAX_VOTING_TOKENS = 500_000;

/**
 * About one long token in four votes, chosen by its content, so that a text and the texts it
 * shares lines with pick the same ones: indexing and looking up cost a quarter.
 */
export function votingTokens(tokens: readonly string[]): string[] {
  return tokens.filter(votes);
}

function votes(t: string): boolean {
  if (t.length < VOTING_TOKEN_CHARS) return false;
  let h = 0x811c9dc5; // FNV-1a
  for (let i = 0; i < t.length; i++) h = Math.imul(h ^ t.charCodeAt(i), 0x01000193);
  return h >>> 30 === 0;
}

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

  /** Remembers a text; `voting` are its votingTokens(). */
  add(base: DeltaBase, voting: readonly string[]): void {
    const id = this.nextId++;
    this.entries.set(id, { ...base });
    this.chars += base.text.length;
    if (this.byToken.size > MAX_VOTING_TOKENS) this.byToken.clear();
    for (const t of voting) {
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

  /** The remembered text sharing the most voting tokens with `voting` (the newest on a tie). */
  best(voting: readonly string[]): (DeltaBase & { index: TokenIndex }) | undefined {
    const stride = Math.max(1, Math.floor(voting.length / VOTES_PER_TEXT));
    const tally = new Map<number, number>();
    let asked = 0;
    for (let i = 0; i < voting.length; i += stride) {
      asked++;
      for (const id of this.byToken.get(voting[i]!) ?? []) tally.set(id, (tally.get(id) ?? 0) + 1);
    }
    let bestId = -1;
    let bestVotes = 0;
    for (const [id, n] of tally) {
      if (!this.entries.has(id)) continue;
      if (n > bestVotes || (n === bestVotes && id > bestId)) {
        bestId = id;
        bestVotes = n;
      }
    }
    // A text sharing few of the lines asked about would not give a delta worth keeping.
    if (bestVotes < asked * MIN_SHARED_VOTES) return undefined;
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
