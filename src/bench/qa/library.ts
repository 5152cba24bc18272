import { leadOf, renderArticle } from './article.js';
import type { Corpus } from './corpus.js';
import { SearchIndex, type IndexedDoc } from './search-index.js';

/**
 * What the `search` and `open` tools read: the generated encyclopedia or the paragraphs of a
 * HotpotQA-format file (`--qa-data`). Articles are rendered on demand; the index is built on the
 * first search.
 */
export interface Library {
  /** Every article, as the index sees it (title and lead). */
  docs(): IndexedDoc[];
  /** The article `open` returns; `undefined` for an unknown id. */
  article(id: string): Record<string, unknown> | undefined;
  /** What a search result shows of an article (title first), beside its id and score. */
  preview(id: string): Record<string, unknown>;
  /** The BM25 index of `docs()`, built on the first search and kept by the library. */
  index(): SearchIndex;
}

/** A library's `index`: built from its docs on the first call, then the same one. */
export function lazyIndex(docs: () => IndexedDoc[]): () => SearchIndex {
  let index: SearchIndex | undefined;
  return () => (index ??= new SearchIndex(docs()));
}

/** The library of a generated corpus (its owner keeps one per corpus, so the index is built once). */
export function corpusLibrary(corpus: Corpus): Library {
  const docs = () =>
    corpus.entities.map((e) => ({ id: e.id, title: e.title, text: leadOf(e, corpus) }));
  return {
    docs,
    index: lazyIndex(docs),
    article: (id) => {
      const e = corpus.byId.get(id);
      return e ? renderArticle(e, corpus) : undefined;
    },
    preview: (id) => {
      const a = renderArticle(corpus.byId.get(id)!, corpus);
      return {
        title: a.title,
        type: a.type,
        snippet: a.summary,
        categories: a.categories,
        word_count: a.revision.word_count,
        last_edited: a.revision.last_edited,
      };
    },
  };
}
