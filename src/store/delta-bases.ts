import { indexTokens, tokenStarts, type TokenIndex } from './delta.js';

/** A long text stored before, ready to be copied from. */
export type DeltaBase = {
  key: string;
  text: string;
  tokens: readonly string[];
  index: TokenIndex;
  /** Where each token starts (tokenStarts). */
  at: readonly number[];
  /** The blobs a reader decodes to rebuild it (empty: stored whole). */
  ancestors: ReadonlySet<string>;
};

/** What a caller tells about a text it stores or loads again. */
export type NewBase = Omit<DeltaBase, 'index' | 'at'>;

/** Only tokens at least this long vote: short ones ("},\n", "0,") occur in every text. */
const VOTING_TOKEN_CHARS = 16;
/** Tokens of a new text looked up at most, spread evenly over it. */
const VOTES_PER_TEXT = 96;
/**
 * Texts remembered per voting token (the newest). Many: the lines a new text shares with the
 * right source (the same task in another rollout) are also in the many texts its own rollout
 * sent since; with 8, the README optimize stored 2.4 MB more.
 */
const TEXTS_PER_TOKEN = 64;
/** The share of a text's voting tokens a source must have for a copy from it to be tried. */
const MIN_SHARED_VOTES = 0.3;
/**
 * Distinct voting tokens, and texts named under them, per generation of the lookup table (the
 * second bounds its memory to some 32 MB a generation). Two generations are kept, so a full
 * table forgets only the tokens no text used since the one before it filled.
 */
const VOTING_TOKENS_PER_GENERATION = 400_000;
const VOTES_PER_GENERATION = 4_000_000;
/** Candidates tried at most per lookup (an evicted one is read back from the database). */
const MAX_TRIES = 4;
/** Texts remembered by key only (their text evicted), found again by votes and read back. */
const MAX_REMEMBERED = 400_000;

/**
 * The hashes of about one long token in four, chosen by content, so that a text and the texts it
 * shares lines with pick the same ones: indexing and looking up cost a quarter. The hash is
 * below 2^30 (a small integer for the engine) and stands for the token in the lookup table,
 * which therefore keeps no text alive.
 */
export function votingHashes(tokens: readonly string[]): number[] {
  const out: number[] = [];
  for (const t of tokens) {
    const h = voteOf(t);
    if (h >= 0) out.push(h);
  }
  return out;
}

/** The token's hash when it votes, else -1. */
function voteOf(t: string): number {
  if (t.length < VOTING_TOKEN_CHARS) return -1;
  let h = 0x811c9dc5; // FNV-1a
  for (let i = 0; i < t.length; i++) h = Math.imul(h ^ t.charCodeAt(i), 0x01000193);
  return h >>> 30 === 0 ? h >>> 0 : -1;
}

type Hot = NewBase & { index?: TokenIndex; at?: readonly number[] };
/** What is remembered of every text: its key and how many blobs rebuild it. */
type Remembered = { key: string; cost: number };

/** Which texts a lookup may return. */
export type SourceRule = {
  /** Blobs the new text is rebuilt from so far. */
  ancestors: ReadonlySet<string>;
  /** How many more a source may add (itself and its own ancestors). */
  maxNew: number;
  /** Keys already taken. */
  skip: ReadonlySet<string>;
  /** Whether the file still holds a text (a rolled-back transaction may have taken it out). */
  stored: (key: string) => boolean;
};

/**
 * Where later texts find the texts they copy from. The long texts stored last (up to
 * `maxChars` of them) are kept whole; older ones are kept by key only and read back from the
 * database (`load`) when a new text shares most with one of them: the same task run again under
 * another guideline repeats a history this process stored long before. Concurrent rollouts
 * interleave their writes, so "the previous text" is rarely the right source; the one sharing
 * the most lines is.
 */
export class DeltaBases {
  private readonly hot = new Map<number, Hot>();
  /** Every remembered text by id (oldest first). */
  private readonly remembered = new Map<number, Remembered>();
  private readonly idOfKey = new Map<string, number>();
  private current = new Map<number, number[]>();
  private previous = new Map<number, number[]>();
  private votesInCurrent = 0;
  private nextId = 0;
  private chars = 0;

  constructor(
    private readonly load: (key: string) => NewBase | undefined,
    private readonly maxChars = 32 * 1024 * 1024,
  ) {}

  /** Remembers a text just stored; `voting` are its votingHashes(). */
  add(base: NewBase, voting: readonly number[]): void {
    const id = this.nextId++;
    this.remembered.set(id, { key: base.key, cost: base.ancestors.size + 1 });
    this.idOfKey.set(base.key, id);
    if (this.remembered.size > MAX_REMEMBERED) {
      const [oldId, old] = this.remembered.entries().next().value!;
      this.drop(oldId, old.key);
    }
    if (
      this.current.size > VOTING_TOKENS_PER_GENERATION ||
      this.votesInCurrent > VOTES_PER_GENERATION
    ) {
      this.previous = this.current;
      this.current = new Map();
      this.votesInCurrent = 0;
    }
    for (const h of voting) {
      let ids = this.current.get(h);
      if (ids === undefined) {
        ids = [...(this.previous.get(h) ?? [])];
        this.current.set(h, ids);
        this.votesInCurrent += ids.length;
      }
      if (ids[ids.length - 1] === id) continue;
      ids.push(id);
      if (ids.length > TEXTS_PER_TOKEN) ids.shift();
      else this.votesInCurrent++;
    }
    this.makeHot(id, base);
  }

  private makeHot(id: number, base: NewBase): Hot {
    const entry: Hot = { ...base };
    this.hot.set(id, entry);
    this.chars += base.text.length;
    // Oldest first out (a Map iterates in insertion order).
    for (const [oldId, old] of this.hot) {
      if (this.chars <= this.maxChars || oldId === id) break;
      this.hot.delete(oldId);
      this.chars -= old.text.length;
    }
    return entry;
  }

  /**
   * The remembered text sharing the most of the voting tokens `voting` that `rule` allows: on
   * about the same share, the one cheapest to rebuild, then the newest. Undefined when none
   * shares enough to be worth a diff.
   */
  best(voting: readonly number[], rule: SourceRule): DeltaBase | undefined {
    const stride = Math.max(1, Math.floor(voting.length / VOTES_PER_TEXT));
    const tally = new Map<number, number>();
    let asked = 0;
    for (let i = 0; i < voting.length; i += stride) {
      asked++;
      const h = voting[i]!;
      for (const id of this.current.get(h) ?? this.previous.get(h) ?? []) {
        tally.set(id, (tally.get(id) ?? 0) + 1);
      }
    }
    // A text sharing few of the lines asked about would not give a copy worth keeping.
    const enough = Math.max(1, asked * MIN_SHARED_VOTES);
    const ranked: { id: number; votes: number; r: Remembered }[] = [];
    for (const [id, votes] of tally) {
      const r = this.remembered.get(id);
      if (r === undefined || votes < enough || rule.skip.has(r.key)) continue;
      if (r.cost > rule.maxNew + rule.ancestors.size) continue; // cannot fit, whatever it shares
      ranked.push({ id, votes, r });
    }
    // Votes count in steps of a tenth of those asked: sharing about as much, cheaper wins.
    const step = Math.max(1, asked / 10);
    const band = (v: number) => Math.floor(v / step);
    ranked.sort((a, b) => band(b.votes) - band(a.votes) || a.r.cost - b.r.cost || b.id - a.id);
    let tries = 0;
    for (const { id, r } of ranked) {
      if (tries++ >= MAX_TRIES) break;
      if (!rule.stored(r.key)) {
        this.drop(id, r.key);
        continue;
      }
      const entry = this.hot.get(id) ?? this.reload(id, r.key);
      if (entry === undefined) continue;
      if (newAncestors(rule.ancestors, entry) > rule.maxNew) continue;
      entry.index ??= indexTokens(entry.tokens);
      entry.at ??= tokenStarts(entry.tokens);
      return entry as DeltaBase;
    }
    return undefined;
  }

  /** Reads an evicted text back; forgets it when the database no longer has it. */
  private reload(id: number, key: string): Hot | undefined {
    const base = this.load(key);
    if (base === undefined) {
      this.drop(id, key);
      return undefined;
    }
    return this.makeHot(id, base);
  }

  private drop(id: number, key: string): void {
    this.remembered.delete(id);
    if (this.idOfKey.get(key) === id) this.idOfKey.delete(key);
    const entry = this.hot.get(id);
    if (entry === undefined) return;
    this.hot.delete(id);
    this.chars -= entry.text.length;
  }

  forget(keys: ReadonlySet<string>): void {
    for (const key of keys) {
      const id = this.idOfKey.get(key);
      if (id !== undefined) this.drop(id, key);
    }
  }
}

/** How many blobs copying from `base` adds to those a text is rebuilt from (`ancestors`). */
export function newAncestors(ancestors: ReadonlySet<string>, base: NewBase): number {
  let n = ancestors.has(base.key) ? 0 : 1;
  for (const a of base.ancestors) if (!ancestors.has(a)) n++;
  return n;
}
