import { describe, expect, it } from 'vitest';
import { extractSection, REFINED_OBSERVATION } from '../compress/parse.js';
import { renderPrompt } from '../prompts/template.js';
import { simObservationCompressor } from './compressor.js';
import { bears } from './relevance.js';
import { readGuideline } from './guideline-reading.js';

/** The shipped v0 observation guideline's sentence about lists. */
const V0 =
  'Rewrite the tool output so that it keeps the information that matters for the task the agent is working on and leaves out what does not. Be concise: shorten long lists and verbose records, and remove repetition and boilerplate.';
const EVERY_ITEM = 'Keep every item of a list; never cut lists short.';

const SONGS = [
  'Blue Tango',
  'Great Balls of Fire',
  'Hotel California',
  'Dancing Queen',
  'Vision of Love',
  'Just Dance',
];

/** A page of a song library: six songs, each with every field a choice reads. */
const PAGE = {
  page_index: 0,
  page_limit: 6,
  has_more: false,
  items: SONGS.map((title, i) => ({
    id: 900 + i,
    title,
    duration_seconds: 300 + 7 * i,
    play_count: 1000 + i,
  })),
};

function compress(guideline: string, task: string, observation: unknown = PAGE): string[] {
  const answer = simObservationCompressor([
    { role: 'system', content: renderPrompt('obs-compressor.system.txt', { guideline }) },
    {
      role: 'user',
      content: renderPrompt('obs-compressor.user.txt', {
        task,
        session:
          '[Turn 1]\nAssistant: Step 2 of 3: calling music.show_song_library.\nAction: call_api({"app":"music","api":"show_song_library","args":{"page_index":0,"page_limit":6}})',
        observation: JSON.stringify(observation),
      }),
    },
  ]);
  const parsed = extractSection(answer, REFINED_OBSERVATION);
  if (!parsed.ok) throw new Error(parsed.reason);
  return SONGS.filter((t) => parsed.text.includes(t));
}

describe('shortening long lists (issue 22)', () => {
  it('reads "shorten long lists" as an instruction about lists, undone by "keep every item"', () => {
    const v0 = readGuideline(V0);
    expect(v0.shortenLists).toBe(true);
    expect(v0.cutLists).toBe(true);
    expect(v0.shortenTexts).toBe(true);
    const learned = readGuideline(`${V0} ${EVERY_ITEM}`);
    expect(learned.shortenLists).toBe(false);
    expect(learned.cutLists).toBe(false);
    // "Be concise" alone keeps the records that bear on the job but cuts no other list.
    const concise = readGuideline('Keep what matters. Be concise.');
    expect(concise.shortenLists).toBe(true);
    expect(concise.cutLists).toBe(false);
  });

  it('keeps, of a long list, the records the task names', () => {
    expect(compress(V0, 'Play "Hotel California" from my library.')).toEqual(['Hotel California']);
  });

  it('copies the first half of a list none of whose records it can tie to the task', () => {
    const task = 'Which song saved in my music library is the longest? Answer with its title.';
    expect(compress(V0, task)).toEqual(SONGS.slice(0, 3));
    // Told to keep every item, it keeps them all; told nothing about lists, too.
    expect(compress(`${V0} ${EVERY_ITEM}`, task)).toEqual(SONGS);
    expect(compress('Keep what matters for the task.', task)).toEqual(SONGS);
  });

  it('keeps whole the list inside a record the task names', () => {
    const playlist = {
      id: 77,
      title: 'Kitchen Dance Party',
      songs: PAGE.items,
    };
    const task =
      'Text the family I added most recently. Then: add every song of my playlist "Kitchen Dance Party" to my queue.';
    expect(compress(V0, task, playlist)).toEqual(SONGS);
  });

  it('ties a record to the task by a value it shows or a phrase, not by one shared word or a number', () => {
    const focus =
      'Task: Text my friend: "Great to have you in my contacts!" Then: Chase emailed me a new phone number.\nAction: call_api({"app":"phone","api":"send_text_message","args":{"phone_number":"(713) 335-3084"}})';
    expect(bears({ subject: 'My new phone number' }, focus)).toBe(true);
    expect(bears({ name: 'Chase' }, focus)).toBe(true);
    expect(bears({ title: 'Great Balls of Fire' }, focus)).toBe(false);
    expect(bears({ title: 'Chapel of Love', duration_seconds: 335 }, focus)).toBe(false);
    expect(bears({ thread_id: 335 }, focus)).toBe(true);
  });
});
