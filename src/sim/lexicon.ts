import lexicon from './lexicon.json' with { type: 'json' };
import { stemSequence } from './stems.js';

/**
 * The words the sim's compressors understand in a guideline (issue 61): concepts (keep, drop,
 * shorten, concise, the field classes, …) each named by a set of words and phrases, read through
 * their Porter stems, so that "omitted", "omits" and "omission"-free paraphrases such as "leave
 * off", "get rid of" or "make it compact" mean what "omit" and "be concise" mean. The sets come
 * from WordNet 3.1's synonyms of chosen senses (scripts/sim/lexicon-concepts.ts), expanded by
 * scripts/sim/gen-lexicon.ts into lexicon.json, which ships; WordNet itself is a dev dependency.
 * A word in no set means nothing to the sim.
 */

export type Concept = keyof typeof lexicon.concepts;

/** One occurrence of a lexicon phrase in a text: the concepts it names and where it stands. */
export type Hit = { concepts: ReadonlySet<Concept>; at: number; length: number };

const BY_PHRASE: ReadonlyMap<string, ReadonlySet<Concept>> = (() => {
  const map = new Map<string, Set<Concept>>();
  for (const [concept, phrases] of Object.entries(lexicon.concepts) as [Concept, string[]][]) {
    for (const p of phrases) {
      let set = map.get(p);
      if (set === undefined) map.set(p, (set = new Set()));
      set.add(concept);
    }
  }
  return map;
})();

const LONGEST = Math.max(...[...BY_PHRASE.keys()].map((p) => p.split(' ').length));

/**
 * The lexicon's phrases in a text, left to right, the longest at each place first: "leave out"
 * is one drop, not a leave and an out; "no longer" is not a negation.
 */
export function hitsIn(text: string): Hit[] {
  const stems = stemSequence(text);
  const hits: Hit[] = [];
  for (let at = 0; at < stems.length;) {
    let found: Hit | undefined;
    for (let n = Math.min(LONGEST, stems.length - at); n >= 1 && found === undefined; n--) {
      const concepts = BY_PHRASE.get(stems.slice(at, at + n).join(' '));
      if (concepts !== undefined) found = { concepts, at, length: n };
    }
    if (found === undefined) {
      at++;
      continue;
    }
    hits.push(found);
    at += found.length;
  }
  return hits;
}

/** Where the lexicon's data comes from (lexicon.json `source`). */
export const LEXICON_SOURCE: string = lexicon.source;
