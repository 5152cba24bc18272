import MiniSearch from 'minisearch';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../seeded-random.js';
import { Bm25Index } from './bm25.js';

/** The same documents in our index and in MiniSearch's, as the retrieval baseline used it. */
function both(texts: readonly string[]) {
  const ours = new Bm25Index();
  const theirs = new MiniSearch<{ id: number; text: string }>({
    fields: ['text'],
    searchOptions: { combineWith: 'OR' },
  });
  texts.forEach((text, id) => {
    ours.add(id, text);
    theirs.add({ id, text });
  });
  const expected = (query: string) =>
    new Map(theirs.search(query).map((r) => [Number(r.id), r.score]));
  return { ours, expected };
}

describe('Bm25Index', () => {
  it("gives MiniSearch's own scores bit for bit, for queries that repeat terms", () => {
    // Seeded: the same texts in every run. Few words, so terms repeat within and across turns;
    // punctuation, case and a leading separator change how MiniSearch counts a text's length.
    const random = seededRandom('retrieval scores', 28);
    const words = [
      'id',
      'name',
      '"amount":',
      'Road',
      'trip',
      'ROAD',
      '48213',
      'wallet',
      'é',
      '12.5',
    ];
    const text = (n: number) =>
      Array.from({ length: n }, () => words[Math.floor(random() * words.length)]).join(' ');
    for (let round = 0; round < 50; round++) {
      const turns = 1 + Math.floor(random() * 20);
      const { ours, expected } = both(Array.from({ length: turns }, (_, id) => text(5 + id * 3)));
      const query = `${text(8)}\n${text(40)}`;
      const want = expected(query);
      expect(want.size).toBeGreaterThan(0);
      expect(ours.scores(query)).toEqual(want);
    }
  });

  it('agrees with MiniSearch on a long rollout of JSON observations, at every step', () => {
    // The running average of the lengths is rounded 200 times here, as in a long rollout.
    const random = seededRandom('retrieval json', 3);
    const observation = (i: number) =>
      JSON.stringify({
        page_index: i % 4,
        items: Array.from({ length: 1 + Math.floor(random() * 6) }, (_, j) => ({
          id: 1000 + Math.floor(random() * 50),
          title: ['Blue Train', 'So What', 'Naima', 'Giant Steps'][(i + j) % 4],
          play_count: Math.floor(random() * 900),
        })),
        has_more: random() < 0.5,
      });
    const texts = Array.from({ length: 200 }, (_, i) => `Step ${i}: reading\n${observation(i)}`);
    for (const step of [1, 7, 60, 200]) {
      const { ours, expected } = both(texts.slice(0, step));
      const query = `Play the song with the most plays\n${observation(step)}`;
      expect(ours.scores(query)).toEqual(expected(query));
    }
  });

  it('finds nothing for terms no document holds, and refuses a document id twice', () => {
    const { ours } = both(['the weather in Lisbon', 'playlist Road Trip']);
    expect(ours.scores('gardening, cooking')).toEqual(new Map());
    expect([...ours.scores('road trip').keys()]).toEqual([1]);
    expect(() => ours.add(1, 'again')).toThrow(/already indexed/);
  });
});
