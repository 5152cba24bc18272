import { describe, expect, it } from 'vitest';
import { diffTables, sameJson } from './diff.js';
import type { Tables } from './records.js';

describe('sameJson', () => {
  it.each<[unknown, unknown]>([
    [
      { id: 1, tags: ['a', 'b'], meta: { x: null } },
      { id: 1, tags: ['a', 'b'], meta: { x: null } },
    ],
    [{ id: 1, gone: undefined }, { id: 1 }],
    [{ n: NaN }, { n: null }],
    [
      [1, [2, { a: 'x' }]],
      [1, [2, { a: 'x' }]],
    ],
    ['text', 'text'],
  ])('agrees with JSON.stringify: %j equals %j', (a, b) => {
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    expect(sameJson(a, b)).toBe(true);
  });

  it.each<[unknown, unknown]>([
    [
      { id: 1, amount: 2 },
      { id: 1, amount: 3 },
    ],
    [
      { a: 1, b: 2 },
      { b: 2, a: 1 },
    ],
    [{ tags: ['a'] }, { tags: ['a', 'b'] }],
    [{ tags: [] }, { tags: {} }],
    [{ x: '1' }, { x: 1 }],
    [{ x: null }, { x: {} }],
    [{ x: 1 }, { x: 1, y: 2 }],
  ])('agrees with JSON.stringify: %j differs from %j', (a, b) => {
    expect(JSON.stringify(a)).not.toBe(JSON.stringify(b));
    expect(sameJson(a, b)).toBe(false);
  });
});

describe('diffTables', () => {
  it('lists added, removed and updated rows of the tables asked for', () => {
    const before = {
      'notes.notes': [
        { id: 1, title: 'a', tags: ['x'] },
        { id: 2, title: 'b', tags: [] },
        { id: 3, title: 'c', tags: [] },
      ],
    } as unknown as Tables;
    const after = {
      'notes.notes': [
        { id: 1, title: 'a', tags: ['x'] },
        { id: 2, title: 'b', tags: ['new'] },
        { id: 4, title: 'd', tags: [] },
      ],
    } as unknown as Tables;
    const diff = diffTables(before, after, ['notes.notes']).get('notes.notes')!;
    expect(diff.added.map((r) => r.id)).toEqual([4]);
    expect(diff.removed.map((r) => r.id)).toEqual([3]);
    expect(diff.updated.map((u) => u.after.id)).toEqual([2]);
    expect(diffTables(before, before, ['notes.notes']).size).toBe(0);
  });
});
