import { LRUCache } from 'lru-cache';
import type { SourcedFacts } from './fields.js';
import { detached } from './text.js';

/**
 * What the simulated compressors work out again and again within a run (issue #28): a compressor
 * asks about the same keys for every item of a list, against the one evidence text of its call,
 * and reads a summary's lines again at every merge. Owned by the sim provider that answers the
 * calls (index.ts), never by a module (issue 61, ARCHITECTURE §2): a memo leaks nothing between
 * runs, tests or library users. Every answer is a pure function of its key, so a memo changes how
 * fast the sim answers, never what.
 */
export class CompressorMemo {
  /** `\bword`, case-insensitive, by word of a key. */
  private readonly wordStarts = new LRUCache<string, RegExp>({ max: 4096 });
  /** Whether the evidence shows a key, by evidence text, then key. */
  private readonly shown = new LRUCache<string, Map<string, boolean>>({ max: 8 });
  /** The default judgement's draw, by judgement seed and key. */
  private readonly draws = new LRUCache<string, number>({ max: 16_384 });
  /** Content words of the evidence and topic texts of the latest calls. */
  private readonly words = new LRUCache<string, Set<string>>({ max: 8 });
  /** Parsed summary lines (fields.ts `parseSourcedFactLine`), by line. */
  private readonly factLines = new LRUCache<string, { parsed: SourcedFacts | undefined }>({
    max: 16_384,
  });

  wordStart(word: string): RegExp {
    return remember(this.wordStarts, word, () => new RegExp(`\\b${word}`, 'i'));
  }

  keyShown(evidence: string, key: string, find: () => boolean): boolean {
    const byKey = remember(this.shown, evidence, () => new Map<string, boolean>());
    let shown = byKey.get(key);
    if (shown === undefined) byKey.set(key, (shown = find()));
    return shown;
  }

  draw(id: string, make: () => number): number {
    return remember(this.draws, id, make);
  }

  contentWords(text: string, make: () => Set<string>): Set<string> {
    return remember(this.words, text, make);
  }

  /**
   * `parse(copy)` of a line, remembered under the copy (`detached`): a line sliced from a prompt
   * would keep the whole prompt alive as a key, and so would the values parsed from it.
   */
  factLine(
    line: string,
    parse: (copy: string) => SourcedFacts | undefined,
  ): SourcedFacts | undefined {
    const hit = this.factLines.get(line);
    if (hit !== undefined) return hit.parsed;
    const copy = detached(line);
    const parsed = parse(copy);
    this.factLines.set(copy, { parsed });
    return parsed;
  }
}

function remember<V extends object | number>(
  cache: LRUCache<string, V>,
  key: string,
  make: () => V,
): V {
  let value = cache.get(key);
  if (value === undefined) {
    value = make();
    cache.set(key, value);
  }
  return value;
}
