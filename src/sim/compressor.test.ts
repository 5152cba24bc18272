import { describe, expect, it } from 'vitest';
import { extractSection, HISTORY_SUMMARY, REFINED_OBSERVATION } from '../compress/parse.js';
import { renderTurns } from '../compress/render-history.js';
import { renderPrompt } from '../prompts/template.js';
import type { ChatMessage } from '../llm/types.js';
import { countTokens } from '../llm/tokenizer.js';
import { simHistoryCompressor, simObservationCompressor } from './compressor.js';
import { PLAYLIST_FACTS } from './sim.fixtures.js';

const OBSERVATION = {
  page_index: 0,
  total_items: 3,
  items: [1, 2, 3].map((i) => ({
    id: 48210 + i,
    owner_id: 60000 + i,
    title: `Mix ${i}`,
    description: `Songs for mood ${i}`,
    price: 9.99,
    created_at: '2024-05-01T10:00:00',
    url: `https://music.example/p/${i}`,
    share_token: 'sk_9f8e7d6c5b4a39281706f5e4',
    status: 'public',
  })),
};

function obsMessages(guideline: string, observation: string): ChatMessage[] {
  return [
    { role: 'system', content: renderPrompt('obs-compressor.system.txt', { guideline }) },
    {
      role: 'user',
      content: renderPrompt('obs-compressor.user.txt', {
        task: 'Buy the cheapest mix.',
        session: '(none)',
        observation,
      }),
    },
  ];
}

/** The compressed observation as the pipeline reads it (src/compress/parse.ts). */
function compressObs(guideline: string, observation: unknown = OBSERVATION): unknown {
  const answer = simObservationCompressor(
    obsMessages(
      guideline,
      typeof observation === 'string' ? observation : JSON.stringify(observation),
    ),
  );
  const parsed = extractSection(answer, REFINED_OBSERVATION);
  if (!parsed.ok) throw new Error(parsed.reason);
  try {
    return JSON.parse(parsed.text);
  } catch {
    return parsed.text;
  }
}

describe('simObservationCompressor', () => {
  it('judges a field the guideline does not name the same way whatever else the prompt says', () => {
    const g = 'Keep what matters for the task.';
    const compress = (reasoning: string, call = 'list', guideline = g) => {
      const answer = simObservationCompressor([
        { role: 'system', content: renderPrompt('obs-compressor.system.txt', { guideline }) },
        {
          role: 'user',
          content: renderPrompt('obs-compressor.user.txt', {
            task: 'Which mixes are there?',
            session: `[Turn 1]\nAssistant: ${reasoning}\nAction: call_api({"app":"music","api":"${call}","args":{}})`,
            observation: JSON.stringify(OBSERVATION),
          }),
        },
      ]);
      return answer;
    };
    const first = compress('Step 2 of 5: calling music.list.');
    // Other reasoning, another sentence outside the lexicon: the same judgement.
    expect(compress('Step 4 of 9: reading the mixes again.')).toBe(first);
    expect(compress('Step 2 of 5: calling music.list.', 'list', `${g} Be helpful.`)).toBe(first);
    // Another kind of record (another call's result) is judged on its own.
    const calls = ['browse', 'search', 'show_mixes', 'find', 'lookup', 'scan'];
    expect(calls.some((c) => compress('Step 2 of 5.', c) !== first)).toBe(true);
  });

  it('keeps a field the agent says it lacks, whatever its judgement of the field', () => {
    const g = 'Keep what matters for the task.';
    const compress = (reasoning: string) =>
      simObservationCompressor([
        { role: 'system', content: renderPrompt('obs-compressor.system.txt', { guideline: g }) },
        {
          role: 'user',
          content: renderPrompt('obs-compressor.user.txt', {
            task: 'Which mixes are there?',
            session: `[Turn 1]\nAssistant: ${reasoning}\nAction: call_api({"app":"music","api":"list","args":{}})`,
            observation: JSON.stringify(OBSERVATION),
          }),
        },
      ]);
    const fields = Object.keys(OBSERVATION.items[0]!);
    const plain = compress('Step 2 of 5: calling music.list.');
    const dropped = fields.filter((f) => !plain.includes(`"${f}"`));
    expect(dropped.length).toBeGreaterThan(0);
    for (const f of dropped) {
      const asked = compress(
        `Step 4 of 5 needs a value from step 2 that is not in my context (the \`${f}\` of items item 2 is not in my context); re-fetching it: calling music.list (\`has_more\` was true on page 0).`,
      );
      expect(asked).toContain(`"${f}"`);
    }
  });

  it('keeps whole a nested list the agent says it lacks', () => {
    const g = 'Keep what matters for the task.';
    const threads = {
      items: [1, 2, 3].map((i) => ({
        id: 600 + i,
        subject: `Subject ${i}`,
        participants: [
          { name: 'Ana Me', email: 'ana@example.com', role: 'to' },
          { name: `Person ${i}`, email: `p${i}@example.com`, role: 'from' },
        ],
      })),
    };
    const compress = (task: string, reasoning: string) =>
      simObservationCompressor([
        { role: 'system', content: renderPrompt('obs-compressor.system.txt', { guideline: g }) },
        {
          role: 'user',
          content: renderPrompt('obs-compressor.user.txt', {
            task,
            session: `[Turn 1]\nAssistant: ${reasoning}\nAction: call_api({"app":"mail","api":"show_threads","args":{}})`,
            observation: JSON.stringify(threads),
          }),
        },
      ]);
    const whole = (out: string) =>
      ['Person 1', 'p3@example.com', 'ana@example.com', '"role":"from"'].every((v) =>
        out.includes(v),
      );
    const ask =
      'Step 4 of 5 needs a value from step 2 that is not in my context (no item with participants.name=Person 2 (`participants`) and its `id`); re-fetching it: calling mail.show_threads.';
    const tasks = Array.from({ length: 12 }, (_, i) => `Task ${i}: which threads are there?`);
    // Judged on their own, the participants' fields are sometimes left out; asked for, never.
    expect(tasks.some((t) => !whole(compress(t, 'Step 2 of 5: calling mail.show_threads.')))).toBe(
      true,
    );
    for (const t of tasks) expect(whole(compress(t, ask))).toBe(true);
  });

  it('keeps each field the generic guideline does not name by a draw seeded by the task', () => {
    const g = 'Keep what matters for the task.';
    expect(compressObs(g)).toEqual(compressObs(g));
    // Over many prompts, a field whose value the task shows is kept more often than one the
    // prompt gives no evidence for.
    let shown = 0;
    let unshown = 0;
    for (let i = 0; i < 60; i++) {
      const out = simObservationCompressor([
        { role: 'system', content: renderPrompt('obs-compressor.system.txt', { guideline: g }) },
        {
          role: 'user',
          content: renderPrompt('obs-compressor.user.txt', {
            task: `Task ${i}: is Mix 1 still public?`,
            session: '(none)',
            observation: JSON.stringify(OBSERVATION),
          }),
        },
      ]);
      if (out.includes('"status"')) shown++;
      if (out.includes('"owner_id"')) unshown++;
    }
    expect(shown).toBeGreaterThan(unshown);
    expect(unshown).toBeGreaterThan(0);
  });

  it('leaves a field out "unless the task asks about it" only when the task does not', () => {
    const g =
      'Keep ids and titles. Omit `genre` and `tags` unless the task explicitly asks about them.';
    const songs = {
      items: [
        { id: 1, title: 'Blue', genre: 'jazz', tags: 'calm' },
        { id: 2, title: 'Red', genre: 'rock', tags: 'loud' },
      ],
    };
    const compress = (task: string) => {
      const answer = simObservationCompressor([
        { role: 'system', content: renderPrompt('obs-compressor.system.txt', { guideline: g }) },
        {
          role: 'user',
          content: renderPrompt('obs-compressor.user.txt', {
            task,
            session: '(none)',
            observation: JSON.stringify(songs),
          }),
        },
      ]);
      const parsed = extractSection(answer, REFINED_OBSERVATION);
      if (!parsed.ok) throw new Error(parsed.reason);
      return JSON.parse(parsed.text) as { items: Record<string, unknown>[] };
    };
    // "jazz" is a genre this output shows: every item keeps its genre, so the agent can filter.
    expect(compress('Queue my most played jazz song.').items).toEqual([
      { id: 1, title: 'Blue', genre: 'jazz' },
      { id: 2, title: 'Red', genre: 'rock' },
    ]);
    expect(compress('Queue my newest song.').items).toEqual([
      { id: 1, title: 'Blue' },
      { id: 2, title: 'Red' },
    ]);
  });

  it('keeps KEEP fields, removes DROP fields and cuts lists to MAX_ITEMS', () => {
    const out = compressObs(
      'Keep ids.\nKEEP: id, share_token\ndrop: description, page_index, created_at\nMAX_ITEMS: 2',
    ) as { items: Record<string, unknown>[] };
    expect(out.items).toHaveLength(2);
    for (const [i, item] of out.items.entries()) {
      expect(item).toMatchObject({ id: 48211 + i, share_token: 'sk_9f8e7d6c5b4a39281706f5e4' });
      expect(Object.keys(item)).not.toContain('description');
      expect(Object.keys(item)).not.toContain('created_at');
    }
    expect(Object.keys(out)).not.toContain('page_index');
  });

  it('reads the same instructions in prose', () => {
    const out = compressObs(
      'Always keep identifiers and `share_token`. Leave out descriptions, `page_index` and the dates. Keep at most 2 items of any list.',
    ) as { items: Record<string, unknown>[] };
    expect(out.items).toHaveLength(2);
    expect(out.items[0]).toMatchObject({
      id: 48211,
      owner_id: 60001,
      share_token: 'sk_9f8e7d6c5b4a39281706f5e4',
    });
    expect(Object.keys(out.items[0]!)).not.toContain('created_at');
    expect(Object.keys(out)).not.toContain('page_index');
  });

  it('keeps a KEEP container whole, except its DROP fields', () => {
    const out = compressObs('KEEP: items\nDROP: url') as { items: Record<string, unknown>[] };
    expect(out.items[0]).toEqual({ ...OBSERVATION.items[0], url: undefined });
    expect(Object.keys(out.items[0]!)).not.toContain('url');
    expect(out.items[0]).toHaveProperty('owner_id', 60001);
  });

  it('filters a text observation line by line', () => {
    const text = [
      'name: Ana',
      'user_id: 512',
      'profile_url: https://x.example/a',
      'All good.',
    ].join('\n');
    expect(compressObs('KEEP: user_id\nDROP: name, profile_url', text)).toBe(
      'user_id: 512\nAll good.',
    );
    expect(compressObs('Keep names and urls. Leave out ids.', text)).toBe(
      'name: Ana\nprofile_url: https://x.example/a\nAll good.',
    );
  });

  it('is deterministic', () => {
    const m = obsMessages('KEEP: id', JSON.stringify(OBSERVATION));
    expect(simObservationCompressor(m)).toBe(simObservationCompressor(m));
  });
});

const HISTORY = renderTurns([
  {
    assistant: {
      role: 'assistant',
      content: 'Step 1 of 3: calling auth.login with user=ana.',
      tool_calls: [
        {
          id: 'call_0',
          type: 'function',
          function: { name: 'call_api', arguments: '{"app":"auth","api":"login","args":{}}' },
        },
      ],
    },
    observations: [
      {
        role: 'tool',
        tool_call_id: 'call_0',
        content: '{"access_token":"tk_9f8e7d6c5b4a39281706f5e4d3","expires_in":3600}',
      },
    ],
  },
  apiTurn('call_1', 'music.list', {}, OBSERVATION, 'Step 2 of 3'),
]);

function histMessages(
  guideline: string,
  previous = '(none)',
  task = 'Buy the cheapest mix.',
  history = HISTORY,
): ChatMessage[] {
  return [
    { role: 'system', content: renderPrompt('hist-compressor.system.txt', { guideline }) },
    {
      role: 'user',
      content: renderPrompt('hist-compressor.user.txt', {
        task,
        previous_summary: previous,
        history,
      }),
    },
  ];
}

/** One rendered turn: the agent, at `step`, calls `app.api` with `args` and sees `result`. */
function apiTurn(
  id: string,
  api: string,
  args: Record<string, unknown>,
  result: unknown,
  step = 'Step 5 of 9',
) {
  const [app, name] = api.split('.');
  return {
    assistant: {
      role: 'assistant' as const,
      content: `${step}: calling ${api}.`,
      tool_calls: [
        {
          id,
          type: 'function' as const,
          function: { name: 'call_api', arguments: JSON.stringify({ app, api: name, args }) },
        },
      ],
    },
    observations: [{ role: 'tool' as const, tool_call_id: id, content: JSON.stringify(result) }],
  };
}

function summaryText(answer: string): string {
  const parsed = extractSection(answer, HISTORY_SUMMARY);
  if (!parsed.ok) throw new Error(parsed.reason);
  return parsed.text;
}

describe('simHistoryCompressor', () => {
  it('states progress only when the guideline asks for it, and keeps the facts it names', () => {
    const asked = summaryText(
      simHistoryCompressor(
        histMessages('Record the progress: what has been done. Keep titles and prices.'),
      ),
    );
    expect(asked).toContain('- Step 2 of 3: music.list');
    expect(asked).toContain('- Called: auth.login, music.list');
    expect(asked).toMatch(/title=Mix 3 \| .*price=9\.99/);
    const silent = summaryText(simHistoryCompressor(histMessages('Keep titles and prices.')));
    expect(silent).not.toContain('Step 2 of 3');
    expect(silent).not.toContain('Called:');
    expect(silent).toMatch(/title=Mix 3 \| .*price=9\.99/);
  });

  it('names the call each fact came from once, above its lines', () => {
    const text = summaryText(
      simHistoryCompressor(
        histMessages(
          'Keep titles and access tokens. Leave out ids, descriptions, prices, dates, urls, pagination, `share_token`, `status` and `expires_in`.',
        ),
      ),
    );
    expect(text).toContain('[auth.login]\n- access_token=tk_9f8e7d6c5b4a39281706f5e4d3');
    expect(text).toContain('[music.list]\n- items[0]: title=Mix 1 | description=Songs for mood 1');
  });

  it('writes where a record sits inside a list item: a song at its place, its album inside it', () => {
    const notes = 'Liner notes that the guideline leaves out. '.repeat(12);
    const playlist = {
      id: 5,
      title: 'Road Trip',
      notes,
      songs: [
        { id: 70, title: 'Intro', notes, album: { id: 900, title: 'First Light' } },
        { id: 71, title: 'Outro', notes, album: { id: 901, title: 'Last Light' } },
      ],
    };
    const lean = 'Keep ids and titles. Leave out `notes`.';
    const history = renderTurns([apiTurn('call_0', 'music.show', {}, playlist, 'Step 1 of 2')]);
    const text = summaryText(
      simHistoryCompressor(histMessages(lean, '(none)', 'Queue it.', history)),
    );
    expect(text).toContain(PLAYLIST_FACTS.join('\n'));
    // Carried into the next summary as written.
    const next = summaryText(simHistoryCompressor(histMessages(lean, text, 'Queue it.', '')));
    expect(next).toContain('- songs[1].album: id=901 | title=Last Light');
  });

  it("writes an object inside the response under its key, apart from the response's own fields", () => {
    const order = {
      id: 874488,
      status: 'delivered',
      shipping_address: { id: 209258, name: 'Parents', state: 'NV' },
    };
    const history = renderTurns([
      {
        assistant: {
          role: 'assistant',
          content: 'Step 2 of 3: calling shop.show_order.',
          tool_calls: [
            {
              id: 'c1',
              type: 'function',
              function: {
                name: 'call_api',
                arguments: '{"app":"shop","api":"show_order","args":{}}',
              },
            },
          ],
        },
        observations: [{ role: 'tool', tool_call_id: 'c1', content: JSON.stringify(order) }],
      },
    ]);
    const text = summaryText(
      simHistoryCompressor(
        histMessages('Keep ids, names and `status`.', '(none)', 'Return my order.', history),
      ),
    );
    expect(text).toContain('- id=874488 | status=delivered');
    expect(text).toContain('- shipping_address: id=209258 | name=Parents');
  });

  it('over its budget, cuts facts that bear on nothing before the token the agent is using', () => {
    const token = 'atk_Q7w8e9r0t1y2u3i4o5p6';
    const threads = {
      items: Array.from({ length: 30 }, (_, i) => ({
        id: 500 + i,
        subject: i === 17 ? 'Moving day plans' : `Quarterly report ${i}`,
        created_at: `2025-03-${String(1 + (i % 28)).padStart(2, '0')}T10:00:00Z`,
      })),
    };
    const history = renderTurns([
      {
        assistant: {
          role: 'assistant',
          content: 'Step 5 of 9: calling mail.show_threads.',
          tool_calls: [
            {
              id: 'call_4',
              type: 'function',
              function: {
                name: 'call_api',
                arguments: JSON.stringify({
                  app: 'mail',
                  api: 'show_threads',
                  args: { access_token: token },
                }),
              },
            },
          ],
        },
        observations: [{ role: 'tool', tool_call_id: 'call_4', content: JSON.stringify(threads) }],
      },
    ]);
    // The token was read first (an earlier summary): by age alone it would go first.
    const previous = `# History Summary\nFACTS:\n[mail.login]\n- access_token=${token} | token_type=Bearer`;
    const guideline = 'Keep ids, dates, `subject` and access tokens.';
    const messages = histMessages(
      guideline,
      previous,
      'Reply to the thread about moving day.',
      history,
    );
    const text = summaryText(simHistoryCompressor(messages));
    expect(countTokens(text)).toBeLessThanOrEqual(countTokens(`${previous}\n${history}`) / 2);
    expect(text).toContain(`access_token=${token}`);
    expect(text).toContain('subject=Moving day plans');
    // What gave way: threads about nothing the task or the calls show.
    expect(text.match(/Quarterly report/g)?.length ?? 0).toBeLessThan(30);
  });

  it('over its budget, keeps a login read but not yet passed in a call before a list that bears on nothing', () => {
    const token = 'atk_Z1x2c3v4b5n6m7a8s9d0f1g2h3j4k5l6';
    const threads = Array.from({ length: 40 }, (_, i) => ({
      id: 500 + i,
      subject: `Quarterly report ${i}`,
      created_at: `2025-03-${String(1 + (i % 28)).padStart(2, '0')}T10:00:00Z`,
    }));
    // The phone login comes first (oldest), then a long list; nothing has passed the token yet.
    const history = renderTurns([
      apiTurn(
        'call_1',
        'phone.login',
        { username: 'me@example.com', password: 'pw-123456' },
        {
          access_token: token,
          token_type: 'Bearer',
        },
      ),
      apiTurn('call_2', 'mail.show_threads', {}, threads),
    ]);
    const text = summaryText(
      simHistoryCompressor(
        histMessages(
          'Keep ids, dates, `subject` and access tokens exactly as they appear.',
          '(none)',
          'Update the contact in my phone app.',
          history,
        ),
      ),
    );
    expect(countTokens(text)).toBeLessThanOrEqual(countTokens(`(none)\n${history}`) / 2);
    expect(text).toContain(`access_token=${token}`);
    expect(text.match(/Quarterly report/g)?.length ?? 0).toBeLessThan(40);
  });

  it('over its budget, gives up other material before the items of a list when told to keep every item', () => {
    const token = 'atk_Q7w8e9r0t1y2u3i4o5p6';
    // Read last: addresses that bear on nothing the task or the calls show.
    const addresses = Array.from({ length: 60 }, (_, i) => ({
      id: 700 + i,
      name: `${100 + i} Elm Street, Springfield`,
    }));
    // Read first: the orders the task sums over, a page of 12.
    const orders = {
      page_index: 0,
      total_items: 12,
      items: Array.from({ length: 12 }, (_, i) => ({
        id: 600 + i,
        total: 100 + i,
        placed_at: `2025-03-${String(1 + i).padStart(2, '0')}T10:00:00Z`,
        tracking_number: `1Z${String(i).padStart(16, 'X')}`,
      })),
    };
    const history = renderTurns([
      apiTurn('call_3', 'shop.show_orders', { access_token: token }, orders),
      apiTurn('call_4', 'supervisor.show_addresses', {}, addresses),
    ]);
    const previous = `# History Summary\nFACTS:\n[shop.login]\n- access_token=${token} | token_type=Bearer`;
    const guideline = 'Keep ids, names, dates, amounts, `tracking_number` and access tokens.';
    const summarize = (g: string) =>
      summaryText(
        simHistoryCompressor(
          histMessages(g, previous, 'How much did my orders cost together?', history),
        ),
      );
    const orderLines = (text: string) => text.split('\n').filter((l) => /total=1\d\d\b/.test(l));
    // Without the sentence, the oldest lines give way first: orders.
    expect(orderLines(summarize(guideline)).length).toBeLessThan(12);
    const text = summarize(`${guideline} Keep every item of a list; never cut lists short.`);
    expect(countTokens(text)).toBeLessThanOrEqual(countTokens(`${previous}\n${history}`) / 2);
    expect(orderLines(text)).toHaveLength(12);
    expect(text).toContain(`access_token=${token}`);
    expect(text.match(/Elm Street/g)?.length ?? 0).toBeLessThan(60);
  });

  it('keeps, when concise, the records of a list that bear on the task, or the whole list', () => {
    const lean =
      'Keep titles. Leave out ids, descriptions, prices, dates, urls, pagination, `share_token`, `status` and `expires_in`.';
    const guideline = `${lean} Be concise.`;
    const about = summaryText(
      simHistoryCompressor(histMessages(guideline, '(none)', 'Play my mix titled "Mix 2".')),
    );
    expect(about).toContain('title=Mix 2');
    expect(about).not.toContain('title=Mix 1');
    // No record bears on the task: the summarizer cannot tell which matter and keeps them all.
    const blind = summaryText(
      simHistoryCompressor(histMessages(guideline, '(none)', 'Play my newest mix.')),
    );
    for (const i of [1, 2, 3]) expect(blind).toContain(`title=Mix ${i}`);
    // Not asked to be concise: every record stays.
    const full = summaryText(
      simHistoryCompressor(histMessages(lean, '(none)', 'Play my mix titled "Mix 2".')),
    );
    for (const i of [1, 2, 3]) expect(full).toContain(`title=Mix ${i}`);
  });

  it('leaves out, when told to drop what no longer matters, the password of an account it logged in to', () => {
    const call = (id: string, app: string, api: string, args = {}) => ({
      role: 'assistant' as const,
      content: `Step 1 of 9: calling ${app}.${api}.`,
      tool_calls: [
        {
          id,
          type: 'function' as const,
          function: { name: 'call_api', arguments: JSON.stringify({ app, api, args }) },
        },
      ],
    });
    const passwords = [
      { account_name: 'shop', password: 'Pw_shop_1234567' },
      { account_name: 'music', password: 'Pw_music_765432' },
    ];
    const history = renderTurns([
      {
        assistant: call('c1', 'supervisor', 'show_account_passwords'),
        observations: [{ role: 'tool', tool_call_id: 'c1', content: JSON.stringify(passwords) }],
      },
      {
        assistant: call('c2', 'shop', 'login', { password: 'Pw_shop_1234567' }),
        observations: [
          { role: 'tool', tool_call_id: 'c2', content: '{"access_token":"atk_shop_99"}' },
        ],
      },
    ]);
    const summarize = (guideline: string) =>
      summaryText(
        simHistoryCompressor(
          histMessages(guideline, '(none)', 'Buy a lamp, then play a song.', history),
        ),
      );
    const keep = 'Keep passwords, account names and tokens.';
    expect(summarize(keep)).toContain('Pw_shop_1234567');
    const stale = summarize(`${keep} Leave out details that no longer matter.`);
    expect(stale).not.toContain('Pw_shop_1234567');
    expect(stale).toContain('account_name=music | password=Pw_music_765432');
    expect(stale).toContain('access_token=atk_shop_99');
  });

  it('says what was done, when asked for progress: each call that acted and was not refused', () => {
    const call = (id: string, api: string, songId: number) => ({
      role: 'assistant' as const,
      content: `Step 3 of 9: calling music.${api}.`,
      tool_calls: [
        {
          id,
          type: 'function' as const,
          function: {
            name: 'call_api',
            arguments: JSON.stringify({
              app: 'music',
              api,
              args: { access_token: 'atk_1', song_id: songId },
            }),
          },
        },
      ],
    });
    const history = renderTurns([
      {
        assistant: call('c1', 'add_song_to_queue', 71),
        observations: [{ role: 'tool', tool_call_id: 'c1', content: '{"ok":true}' }],
      },
      {
        assistant: call('c2', 'add_song_to_queue', 72),
        observations: [
          { role: 'tool', tool_call_id: 'c2', content: '{"status":404,"error":"No song 72"}' },
        ],
      },
      {
        assistant: call('c3', 'show_song', 73),
        observations: [{ role: 'tool', tool_call_id: 'c3', content: '{"id":73}' }],
      },
    ]);
    const summarize = (guideline: string) =>
      summaryText(
        simHistoryCompressor(histMessages(guideline, '(none)', 'Queue my playlist.', history)),
      );
    const asked = summarize('Record the progress: what has been done.');
    expect(asked).toContain('- Done: music.add_song_to_queue song_id=71');
    expect(asked).not.toContain('song_id=72');
    expect(asked).not.toContain('- Done: music.show_song');
    expect(asked).not.toContain('atk_1');
    expect(summarize('Keep the ids.')).not.toContain('- Done:');
  });

  it('is at most half as long as what it folds', () => {
    const text = simHistoryCompressor(histMessages('KEEP: items, access_token, expires_in'));
    const input = HISTORY;
    expect(countTokens(text)).toBeLessThanOrEqual(countTokens(input) / 2);
  });

  it('keeps KEEP fields, and carries the previous summary forward', () => {
    const previous = 'PROGRESS:\n- Step 0 of 3: setup\nFACTS:\n- card_id=5521 | name=Visa';
    const text = summaryText(
      simHistoryCompressor(
        histMessages('Keep the progress.\nKEEP: id, access_token, card_id\nMAX_ITEMS: 1', previous),
      ),
    );
    expect(text).toContain('- Step 2 of 3: music.list');
    expect(text).toContain('card_id=5521');
    expect(text).toContain('access_token=tk_9f8e7d6c5b4a39281706f5e4d3');
    expect(text).toContain('id=48211');
    expect(text).not.toContain('id=48212');
  });

  it('drops a field of the previous summary that the guideline now leaves out', () => {
    const previous = 'FACTS:\n- card_id=5521 | name=Visa';
    const text = summaryText(
      // The mixes' other fields are named, so that the summary's size does not hang on a judgement.
      simHistoryCompressor(
        histMessages(
          'Leave out ids. Keep names. Leave out `description`, `url`, `share_token` and `status`.',
          previous,
        ),
      ),
    );
    expect(text).toContain('- name=Visa');
    expect(text).not.toContain('5521');
  });

  it('never turns response shapes from API docs into facts', () => {
    const docs = renderTurns([
      {
        assistant: {
          role: 'assistant',
          content: 'Step 1 of 2: calling api_docs.show_api_doc.',
          tool_calls: [
            {
              id: 'c',
              type: 'function',
              function: {
                name: 'call_api',
                arguments: '{"app":"api_docs","api":"show_api_doc","args":{}}',
              },
            },
          ],
        },
        observations: [
          {
            role: 'tool',
            tool_call_id: 'c',
            content: JSON.stringify({
              response: { id: 'integer', title: 'string', size: 'integer | null' },
            }),
          },
        ],
      },
    ]);
    const text = simHistoryCompressor(histMessages('KEEP: id, title, size', '(none)', 't', docs));
    expect(text).not.toContain('id=integer');
  });

  it('writes the four sections for the summary baseline prompt', () => {
    const messages: ChatMessage[] = [
      { role: 'system', content: renderPrompt('summary.system.txt', {}) },
      {
        role: 'user',
        content: renderPrompt('summary.user.txt', {
          task: 'Buy the cheapest mix.',
          previous_summary: '(none)',
          history: HISTORY,
        }),
      },
    ];
    const text = summaryText(simHistoryCompressor(messages));
    const headings = text.split('\n').filter((l) => /^[A-Z_]+:/.test(l));
    expect(headings.map((h) => h.split(':')[0])).toEqual([
      'USER_CONTEXT',
      'COMPLETED',
      'PENDING',
      'CURRENT_STATE',
    ]);
    expect(text).toContain('USER_CONTEXT: Buy the cheapest mix.');
    // Its prompt asks for progress and identifiers (the oldest facts give way to the size limit).
    expect(text).toContain('- Step 2 of 3: music.list');
    expect(text).toContain('id=48213');
  });
});

describe('simHistoryCompressor: what a summarizer merges and leaves out (issue 22)', () => {
  const withPrevious = (guideline: string, previous: string) =>
    summaryText(simHistoryCompressor(histMessages(guideline, previous)));

  it('merges what it reads again about a record into that record’s line', () => {
    // The earlier summary lost the price of mix 1; the turns show mix 1 again, whole.
    const previous = 'FACTS:\n[music.list]\n- id=48211 | title=Mix 1';
    const guideline =
      'Keep ids, titles and prices. Leave out `description`, `url`, `share_token` and `status`.';
    const text = withPrevious(guideline, previous);
    const lines = text.split('\n').filter((l) => l.includes('id=48211'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/title=Mix 1 \| .*price=9\.99/);
    // A line that lost its id is the same record by its title.
    const byTitle = withPrevious(guideline, 'FACTS:\n[music.list]\n- title=Mix 2');
    expect(byTitle.split('\n').filter((l) => l.includes('title=Mix 2'))).toEqual([
      expect.stringMatching(/id=48212/) as string,
    ]);
  });

  it('leaves out what was read for an app the agent acted on and left, when asked to', () => {
    const previous = [
      'PROGRESS:',
      '- Called: shop.login, shop.search_products, shop.add_product_to_cart',
      'FACTS:',
      '[shop.login]',
      '- access_token=tk_shop_0123456789abcdef',
      '[shop.search_products]',
      '- id=777 | name=Blue Kettle | price=12.5',
    ].join('\n');
    const guideline =
      'Keep ids, names and prices. Record the progress. Leave out `description`, `url`, `share_token` and `status`.';
    const kept = withPrevious(guideline, previous);
    expect(kept).toContain('Blue Kettle');
    const stale = withPrevious(`${guideline} Leave out details that no longer matter.`, previous);
    // The shop part is finished (a cart change, then other apps): its search results go, its
    // login stays, and what the agent is reading now (music.list) stays.
    expect(stale).not.toContain('Blue Kettle');
    expect(stale).toContain('tk_shop_0123456789abcdef');
    expect(stale).toContain('title=Mix 3');
  });

  it('leaves out the documentation of an API the agent has since called, when asked to', () => {
    const turns = renderTurns(
      (['doc', 'use'] as const).map((kind, i) => ({
        assistant: {
          role: 'assistant' as const,
          content: `Step ${i + 1} of 2: calling it.`,
          tool_calls: [
            {
              id: `c${i}`,
              type: 'function' as const,
              function: {
                name: 'call_api',
                arguments: JSON.stringify(
                  kind === 'doc'
                    ? {
                        app: 'api_docs',
                        api: 'show_api_doc',
                        args: { app_name: 'music', api_name: 'play' },
                      }
                    : { app: 'music', api: 'play', args: { song_id: 12 } },
                ),
              },
            },
          ],
        },
        observations: [
          {
            role: 'tool' as const,
            tool_call_id: `c${i}`,
            content:
              kind === 'doc'
                ? JSON.stringify({ api_name: 'play', description: 'Plays a song by its id.' })
                : JSON.stringify({ playing_id: 12, status: 'playing', lyrics: 'la '.repeat(400) }),
          },
        ],
      })),
    );
    const summarize = (guideline: string) =>
      summaryText(simHistoryCompressor(histMessages(guideline, '(none)', 'Play song 12.', turns)));
    const all =
      'Keep names, `description`, ids and `status`. Leave out `lyrics`. Record the progress.';
    expect(summarize(all)).toContain('Plays a song');
    const stale = summarize(`${all} Leave out details that no longer matter.`);
    expect(stale).not.toContain('Plays a song');
    expect(stale).toContain('- Called: api_docs.show_api_doc, music.play');
  });

  it('shortens long texts when told to be concise', () => {
    const long = `${'A long note that goes on and on. '.repeat(8)}The end.`;
    const observation = JSON.stringify({ items: [{ id: 5, content: long }] });
    const compress = (guideline: string, task: string) =>
      simObservationCompressor([
        { role: 'system', content: renderPrompt('obs-compressor.system.txt', { guideline }) },
        {
          role: 'user',
          content: renderPrompt('obs-compressor.user.txt', {
            task,
            session: '(none)',
            observation,
          }),
        },
      ]);
    // A prompt whose seeded draw keeps the unnamed `content` field (same draw for both guidelines).
    const task = Array.from({ length: 20 }, (_, i) => `Pin note ${i}.`).find((t) =>
      compress('Keep the ids.', t).includes('The end.'),
    )!;
    expect(task).toBeDefined();
    const concise = compress('Keep the ids. Be concise.', task);
    expect(concise).toContain('A long note');
    expect(concise).not.toContain('The end.');
  });

  it('keeps the sentences of a long text that bear on the task when it shortens it', () => {
    const body =
      'Hey Myrl, quick heads-up: I switched carriers and my new phone number is (993) 656-5889. ' +
      'The old one stops working next week. Thanks, and see you at the cleanup day on Sunday!';
    const observation = JSON.stringify({ messages: [{ id: 7, body }] });
    const compress = (task: string) =>
      simObservationCompressor([
        {
          role: 'system',
          content: renderPrompt('obs-compressor.system.txt', {
            guideline: 'Keep the ids. Shorten the `body`.',
          }),
        },
        {
          role: 'user',
          content: renderPrompt('obs-compressor.user.txt', {
            task,
            session: '(none)',
            observation,
          }),
        },
      ]);
    const relevant = compress(
      'Clemens emailed me a new phone number. Update their contact with it.',
    );
    expect(relevant).toContain('(993) 656-5889');
    expect(relevant).not.toContain('cleanup day');
    // A task the text says nothing about: its opening stays, cut short.
    const other = compress('Pin my newest note.');
    expect(other).toContain('Hey Myrl, quick heads-up');
    expect(other).not.toContain('656-5889');
  });

  it('lets API documentation go before the data the agent gathered when over its size', () => {
    const docs = Array.from(
      { length: 60 },
      (_, i) => `- name=param_${i} | type=string | description=${'documented '.repeat(6)}${i}`,
    );
    // The oldest line is data the agent gathered; the documentation came after it.
    const previous = [
      'FACTS:',
      '[files.show_directory]',
      '- id=9911 | name=old.txt',
      '[api_docs.show_api_doc]',
      ...docs,
    ].join('\n');
    const text = withPrevious(
      'Keep everything: ids, names, titles, prices, dates, tokens.',
      previous,
    );
    expect(text).toContain('id=9911 | name=old.txt');
    expect(text).toContain('access_token=tk_9f8e7d6c5b4a39281706f5e4d3');
    expect(text).not.toContain('param_0 ');
  });
});
