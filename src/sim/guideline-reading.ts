import { parseDirectives } from '../guidelines/index.js';
import { hitsIn, type Concept, type Hit } from './lexicon.js';
import { classOf, FIELD_CLASSES, type FieldClass } from './field-classes.js';

/**
 * How the simulated compressors read a guideline (issues 22 and 61, ARCHITECTURE §6): sentence by
 * sentence, each word through the lexicon (lexicon.ts: WordNet synonyms, Porter stems) onto the
 * concepts it names, and the concepts of a clause onto actions (keep, drop, shorten, at most N
 * items) on field classes or named fields, and onto what a summary states (progress, the goal).
 * Words outside the lexicon have no effect. The machine lines `KEEP:` / `DROP:` / `MAX_ITEMS:`
 * still work. docs/sim.md lists the concepts and their words.
 */

export type Action = 'keep' | 'drop' | 'shorten';

/** What a guideline asks of a compressor, as the sim reads it. */
export type GuidelineReading = {
  keepFields: Set<string>;
  dropFields: Set<string>;
  shortenFields: Set<string>;
  keepClasses: Set<FieldClass>;
  dropClasses: Set<FieldClass>;
  shortenClasses: Set<FieldClass>;
  /** A shorten instruction with no target: long free texts are cut. */
  shortenTexts: boolean;
  /**
   * The guideline asks for values as they are (exact, verbatim, faithful, never paraphrase): a
   * concise compressor then copies a long opaque string it keeps on its own judgement whole
   * instead of abbreviating it (fields.ts).
   */
  exact: boolean;
  /**
   * "Shorten long lists" (or "be concise"): of a list of records, those that bear on the job
   * stay (relevance.ts `bearing`). "Keep every item of a list" undoes it.
   */
  shortenLists: boolean;
  /**
   * "Shorten long lists" by name (not only "be concise"): a list none of whose records bears on
   * the job is cut too (relevance.ts `bearing`).
   */
  cutLists: boolean;
  maxItems: number | null;
  /**
   * "Keep every item of a list; never cut lists short": lists stay whole, and a summary over its
   * length gives up other material before the items of a list (compressor.ts `budgetTiers`).
   */
  allItems: boolean;
  progress: boolean;
  goal: boolean;
  /**
   * "Leave out details that no longer matter": what the agent read for a part of the task it has
   * finished (it acted on the data and moved on to another app) goes from a summary.
   */
  stale: boolean;
  /**
   * Fields a drop sentence leaves out "unless the task asks about them": dropped only where the
   * job at hand gives no sign of them (fields.ts `askedFields`).
   */
  unlessAsked: Set<string>;
};

function emptyReading(): GuidelineReading {
  return {
    keepFields: new Set(),
    dropFields: new Set(),
    shortenFields: new Set(),
    keepClasses: new Set(),
    dropClasses: new Set(),
    shortenClasses: new Set(),
    shortenTexts: false,
    exact: false,
    shortenLists: false,
    cutLists: false,
    maxItems: null,
    allItems: false,
    progress: false,
    goal: false,
    stale: false,
    unlessAsked: new Set(),
  };
}

/**
 * A guideline's sentences: a sentence ends at `.`, `!`, `?` or `;`, at a blank line, before a list
 * item or a heading line (`KEEP:`, `CURRENT_STATE:`); a line break inside a sentence is a wrap of
 * the text, not an end (until issue 61 it was one, so v0's "and what is | left to do" lost its
 * goal at the wrap).
 */
function sentences(text: string): string[] {
  return text
    .split(
      /(?<=[.!?;])\s+|\r?\n[ \t]*\r?\n\s*|\r?\n(?=[ \t]*(?:[-*+]|\d+[.)])\s)|\r?\n(?=[ \t]*[A-Z][A-Z_]{3,}:)/,
    )
    .map((s) => s.replace(/\s+/g, ' ').trim())
    .filter((s) => s !== '');
}

/** Field keys a sentence names: in backticks or quotes, or bare keys with an underscore. */
function namedFields(sentence: string): string[] {
  const out = new Set<string>();
  for (const m of sentence.matchAll(/[`'"]([A-Za-z_][\w.]*)[`'"]/g)) out.add(m[1]!);
  for (const m of sentence.matchAll(/\b([a-z]+(?:_[a-z0-9]+)+)\b/g)) out.add(m[1]!);
  return [...out];
}

/** The concepts of a clause, in order. */
class Clause {
  readonly hits: Hit[];
  constructor(prose: string) {
    this.hits = hitsIn(prose);
  }
  has(...concepts: Concept[]): boolean {
    return this.hits.some((h) => concepts.some((c) => h.concepts.has(c)));
  }
  /** A hit of `first` before one of `then` ("never … drop"). */
  before(first: Concept[], then: Concept[]): boolean {
    const at = this.hits.findIndex((h) => first.some((c) => h.concepts.has(c)));
    return at !== -1 && this.hits.slice(at + 1).some((h) => then.some((c) => h.concepts.has(c)));
  }
  /** A hit of `first` directly followed by one of `then` ("every item"). */
  adjacent(first: Concept[], then: Concept[]): boolean {
    return this.hits.some(
      (h, i) =>
        first.some((c) => h.concepts.has(c)) &&
        then.some((c) => this.hits[i + 1]?.concepts.has(c) === true),
    );
  }
}

/** The action a clause asks for by its own words (a negated drop keeps). */
function actionOf(c: Clause): Action | undefined {
  if (c.before(['negation'], ['drop', 'shorten', 'alter'])) return 'keep';
  if (c.has('drop')) return 'drop';
  if (c.has('shorten')) return 'shorten';
  if (c.has('keep')) return 'keep';
  return undefined;
}

/**
 * What a keep clause asks a summary to state, phrase by phrase ("what has been done, what was
 * learned, and what is left to do"): the goal when a phrase names a goal, what is pending or
 * left, what the user asked, or a deed still to do ("what still needs doing"); progress when it
 * names progress or a deed and nothing still to do ("steps carried out").
 */
function statesOf(prose: string): { progress: boolean; goal: boolean } {
  let progress = false;
  let goal = false;
  for (const phrase of prose.split(/[,:;()]|\b(?:and|or|plus)\b/)) {
    const c = new Clause(phrase);
    if (c.has('goal', 'pending') || (c.has('remain') && c.has('perform'))) goal = true;
    else if (c.has('user') && c.has('ask')) goal = true;
    else if (c.has('progress', 'perform')) progress = true;
  }
  return { progress, goal };
}

/** "At most 5 items": a number before a word of a list, an item or a record. */
function maxItemsOf(s: string): number | undefined {
  const m =
    /\b(?:at most|at the most|no more than|up to|a maximum of|only the first|the first)\s+(\d+)\s+([a-z]+)/.exec(
      s,
    );
  if (!m) return undefined;
  return new Clause(m[2]!).has('list', 'item', 'text') ? Number(m[1]) : undefined;
}

/**
 * A shorten sentence that names no field or class: "Shorten long lists and verbose records" asks
 * for shorter lists (relevance.ts) and shorter long texts; one that names nothing, for shorter texts.
 */
function readShorten(r: GuidelineReading, c: Clause): void {
  const lists = c.has('list');
  if (lists) {
    r.shortenLists = true;
    r.cutLists = true;
  }
  if (!lists || c.has('text')) r.shortenTexts = true;
}

/** Reads a guideline (or any instruction text) through the lexicon. */
export function readGuideline(text: string): GuidelineReading {
  const r = emptyReading();
  const d = parseDirectives(text);
  for (const f of d.keep) r.keepFields.add(f);
  for (const f of d.drop) r.dropFields.add(f);
  r.maxItems = d.maxItems;
  // The action of the clause before, when it ended in `;`: "Never drop these fields; the agent
  // needs their exact values: `a`, `b`." names, after the `;`, what the clause before it keeps.
  let carried: Action | undefined;
  for (const sentence of sentences(text)) {
    // "Keep ids, and drop urls": two clauses; one with no action of its own ("…, and what is left
    // to do") continues the one before it.
    let previous: Action | undefined;
    sentence.split(/,\s+and\s+/).forEach((raw, i) => {
      const inherited = carried;
      carried = undefined;
      if (/^[-*+\s]*(KEEP|DROP|MAX_ITEMS)\s*:/i.test(raw)) return;
      const s = raw.toLowerCase();
      // Concepts count in the prose, not inside a quoted field name (`id`, `drop_reason`).
      const prose = s.replace(/[`'"][A-Za-z_][\w.]*[`'"]|\b[a-z]+(?:_[a-z0-9]+)+\b/g, ' ');
      const c = new Clause(prose);
      // "Be concise": a compressor told to be brief does not copy long free texts whole.
      if (c.has('concise') && !c.before(['negation'], ['concise'])) {
        r.shortenTexts = true;
        r.shortenLists = true;
      }
      if (c.has('obsolete') || (c.has('noLonger') && c.has('matter'))) r.stale = true;
      if (c.has('exact') || c.before(['negation'], ['alter'])) r.exact = true;
      const max = maxItemsOf(s);
      if (max !== undefined) {
        r.maxItems = max;
        r.allItems = false;
      }
      // A section heading in a prompt (`CURRENT_STATE: credentials, identifiers, …`) asks for
      // what it lists.
      const heading = /^[A-Z][A-Z_]{3,}:\s/.test(raw);
      const own: Action | undefined = heading ? 'keep' : actionOf(c);
      const continued = i > 0 && own === undefined ? previous : undefined;
      const action = own ?? continued ?? inherited;
      previous = action;
      if (raw.endsWith(';')) carried = action;
      if (action === undefined) return;
      // A clause that only carries the action before its `;` names fields, not kinds: "Drop
      // `type`; they only cost tokens." gives a reason, it does not ask to drop costs and tokens.
      const classes =
        own === undefined && continued === undefined
          ? []
          : FIELD_CLASSES.filter((cls) => c.has(cls));
      const fields = namedFields(raw);
      if (action === 'keep') {
        if (
          (c.adjacent(['every'], ['item', 'list']) && c.has('list')) ||
          (c.has('whole') && c.has('list')) ||
          (c.before(['negation'], ['shorten']) && c.has('list'))
        ) {
          r.maxItems = null;
          r.allItems = true;
        }
        const states = statesOf(prose);
        if (states.progress) r.progress = true;
        if (states.goal) r.goal = true;
      }
      const classSet =
        action === 'keep' ? r.keepClasses : action === 'drop' ? r.dropClasses : r.shortenClasses;
      const fieldSet =
        action === 'keep' ? r.keepFields : action === 'drop' ? r.dropFields : r.shortenFields;
      for (const cls of classes) classSet.add(cls);
      for (const f of fields) fieldSet.add(f);
      if (action === 'drop' && c.before(['unless'], ['asker'])) {
        for (const f of fields) r.unlessAsked.add(f);
      }
      if (action === 'shorten' && classes.length === 0 && fields.length === 0) readShorten(r, c);
    });
  }
  // "Keep every item of a list" wins over a shortening, wherever it stands.
  if (r.allItems) {
    r.shortenLists = false;
    r.cutLists = false;
  }
  return r;
}

export type Verdict = 'keep' | 'drop' | 'shorten' | 'default';

/** What the guideline says about a key: named fields first, then its class; keep wins. */
export function verdictFor(key: string, r: GuidelineReading): Verdict {
  const cls = classOf(key);
  if (r.keepFields.has(key) || (cls !== undefined && r.keepClasses.has(cls))) return 'keep';
  if (r.dropFields.has(key) || (cls !== undefined && r.dropClasses.has(cls))) return 'drop';
  if (r.shortenFields.has(key) || (cls !== undefined && r.shortenClasses.has(cls)))
    return 'shorten';
  return 'default';
}
