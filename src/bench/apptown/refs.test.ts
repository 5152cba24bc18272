import { describe, expect, it } from 'vitest';
import { followPath, parseRef, resolveTemplates } from './refs.js';

const page = {
  items: [
    { id: 801, subject: 'My new phone number', participants: [{ name: 'Me' }, { name: 'Bea' }] },
    { id: 802, subject: 'Lunch', participants: [{ name: 'Me' }, { name: 'Aidan' }] },
    { id: 803, subject: 'My new phone number', participants: [{ name: 'Me' }, { name: 'Aidan' }] },
  ],
};

describe('refs', () => {
  it('matches a field of a nested list, and every condition joined by &', () => {
    expect(followPath(page, parseRef('s1.items[participants.name=Aidan].id'))).toBe(802);
    const both = 's1.items[participants.name=Aidan&subject=My new phone number].id';
    expect(followPath(page, parseRef(both))).toBe(803);
    expect(() =>
      followPath(page, parseRef('s1.items[participants.name=Cy&subject=Lunch].id')),
    ).toThrow('no item with participants.name=Cy and subject=Lunch in a list of 3');
  });

  it('reads an & inside a value as part of it', () => {
    const albums = { items: [{ id: 5, title: 'The Mockingbird & The Crow' }] };
    expect(followPath(albums, parseRef('s1.items[title=The Mockingbird & The Crow].id'))).toBe(5);
  });

  it('tells the sim agent how to find the record: by both conditions', () => {
    const scope = { steps: new Map([['s1', { index: 4, result: page }]]), supervisor: {} };
    const { value, needs } = resolveTemplates(
      { thread_id: '{{s1.items[participants.name=Aidan&subject=My new phone number].id}}' },
      scope,
    );
    expect(value).toEqual({ thread_id: 803 });
    expect(needs).toEqual([
      {
        value: '803',
        fromStep: 4,
        field: 'id',
        arg: 'thread_id',
        select: {
          kind: 'match',
          field: 'participants.name',
          value: 'Aidan',
          prefix: false,
          and: [{ field: 'subject', value: 'My new phone number', prefix: false }],
        },
      },
    ]);
  });
});
