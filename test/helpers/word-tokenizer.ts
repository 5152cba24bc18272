import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A Hugging Face tokenizer.json in the format models ship it (version, model, pre_tokenizer, …):
 * a word-level model whose vocabulary is only `[UNK]`, after the `Whitespace` pre-tokenizer. It
 * counts one token per run of word characters and per run of punctuation, which no GPT encoding
 * does, so a test can tell which tokenizer counted.
 */
export const WORD_TOKENIZER = {
  version: '1.0',
  truncation: null,
  padding: null,
  added_tokens: [],
  normalizer: null,
  pre_tokenizer: { type: 'Whitespace' },
  post_processor: null,
  decoder: null,
  model: { type: 'WordLevel', vocab: { '[UNK]': 0 }, unk_token: '[UNK]' },
};

/** What WORD_TOKENIZER counts, computed without it: the `Whitespace` pre-tokenizer's pieces. */
export function wordCount(text: string): number {
  return text.match(/\w+|[^\w\s]+/gu)?.length ?? 0;
}

/** Writes WORD_TOKENIZER as `dir/sub/tokenizer.json` and returns the path relative to `dir`. */
export function writeWordTokenizer(dir: string, sub = 'model'): string {
  mkdirSync(join(dir, sub), { recursive: true });
  writeFileSync(join(dir, sub, 'tokenizer.json'), JSON.stringify(WORD_TOKENIZER));
  return `${sub}/tokenizer.json`;
}
