import { stemmer } from 'stemmer';

/**
 * Word stems (Porter), so that "played", "plays" and `play_count` meet in `play` (issue 61): the
 * sim reads words through their morphology, not through a list of spellings.
 */

/** Parts shorter than this (`id`, `at`, `is`) occur in every text and tell nothing apart. */
const MIN_STEM_CHARS = 3;

/** The stems of the words of a text, or of the parts of a field name (`play_count`, `owner.email`). */
export function stemsOf(text: string): Set<string> {
  const words = text
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z]+/);
  return new Set(words.filter((w) => w.length >= MIN_STEM_CHARS).map((w) => stemmer(w)));
}

/** Whether a text names a field: a word of it shares its stem with a part of the name. */
export function namesField(text: string | Set<string>, field: string): boolean {
  const stems = typeof text === 'string' ? stemsOf(text) : text;
  return [...stemsOf(field)].some((s) => stems.has(s));
}

/** The words of a text, lower case, contractions opened (`don't` is `do not`), hyphens split. */
export function wordsOf(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/[\u2018\u2019]/g, "'")
    .replace(/\bwon't\b/g, 'will not')
    .replace(/\bcan't\b/g, 'can not')
    .replace(/n't\b/g, ' not')
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== '');
}

/** The Porter stems of a text's words in order, every word counted (numbers as they are). */
export function stemSequence(text: string): string[] {
  return wordsOf(text).map((w) => (/^[a-z]+$/.test(w) ? stemmer(w) : w));
}

/** A phrase as the lexicon writes it: its stems joined by spaces (`leave out` is `leav out`). */
export function phraseKey(text: string): string {
  return stemSequence(text).join(' ');
}
