import { describe, expect, it } from 'vitest';
import type { ReferencePlan } from '../bench/types.js';
import type { ChatMessage, ToolCall } from '../llm/types.js';
import { corrupt, parseAgentMarker, simAgentTurn, type SimAgentOptions } from './agent.js';
import { PLAYLIST_FACTS } from './sim.fixtures.js';

const TOKEN = 'tok_a1b2c3d4e5';
const PID = '48213';

/** login → list (gives PID) → show(PID) → answer. */
const PLAN: ReferencePlan = {
  steps: [
    { tool: 'call_api', args: { app: 'auth', api: 'login', args: { user: 'ana' } }, needs: [] },
    {
      tool: 'call_api',
      args: { app: 'music', api: 'list', args: { access_token: TOKEN } },
      needs: [{ value: TOKEN, fromStep: 0 }],
    },
    {
      tool: 'call_api',
      args: { app: 'music', api: 'show', args: { access_token: TOKEN, playlist_id: Number(PID) } },
      needs: [
        { value: TOKEN, fromStep: 0 },
        { value: PID, fromStep: 1 },
      ],
    },
    { tool: 'complete_task', args: { answer: 'done', status: 'success' }, needs: [] },
  ],
};

const OPTS: SimAgentOptions = { seed: 7, refetchLimit: 2, noise: 0 };
const CTX = { taskId: 't1', step: 0 };

const head: ChatMessage[] = [
  { role: 'system', content: 'You are an agent.' },
  { role: 'user', content: 'Open my playlist.' },
];

/** Appends a turn (the agent's message and a tool result) to a conversation. */
function turn(messages: ChatMessage[], result: string, step: number): ChatMessage[] {
  const assistant = simAgentTurn(PLAN, messages, { ...CTX, step }, OPTS);
  const call = assistant.tool_calls![0]!;
  return [...messages, assistant, { role: 'tool', tool_call_id: call.id, content: result }];
}

function call(messages: ChatMessage[], step: number, opts = OPTS): ToolCall {
  return simAgentTurn(PLAN, messages, { ...CTX, step }, opts).tool_calls![0]!;
}

const tokenResult = JSON.stringify({ access_token: TOKEN });
const listFull = JSON.stringify({ items: [{ id: Number(PID), title: 'Road Trip' }] });
const listNoIds = JSON.stringify({ items: [{ title: 'Road Trip' }] });

/** A plan step that queues the i-th song (id 70 + i) of the list `music.show` returned at step 0. */
function queueSong(i: number): ReferencePlan['steps'][number] {
  return {
    tool: 'call_api',
    args: { app: 'music', api: 'queue', args: { song_id: 70 + i } },
    needs: [
      {
        value: String(70 + i),
        fromStep: 0,
        field: 'id',
        select: { kind: 'index', list: 'songs', index: i },
        arg: 'song_id',
      },
    ],
  };
}

/**
 * A list of three songs shown, then queued one by one: the plan of the list-progress tests, new
 * for each (the agent keeps what it derived from a plan with the plan object).
 */
function queuePlan(): ReferencePlan {
  return {
    steps: [
      { tool: 'call_api', args: { app: 'music', api: 'show', args: {} }, needs: [] },
      queueSong(0),
      queueSong(1),
      queueSong(2),
    ],
  };
}
const SONGS = JSON.stringify({ songs: [70, 71, 72].map((id) => ({ id })) });

describe('simAgentTurn', () => {
  it('answers with reasoning and one tool call whose arguments are a JSON string', () => {
    const msg = simAgentTurn(PLAN, head, CTX, OPTS);
    expect(msg.role).toBe('assistant');
    expect(msg.content).toBe('Step 1 of 4: calling auth.login with user=ana.');
    expect(msg.tool_calls).toHaveLength(1);
    const c = msg.tool_calls![0]!;
    expect(c).toMatchObject({ id: 'call_0', type: 'function', function: { name: 'call_api' } });
    expect(JSON.parse(c.function.arguments)).toEqual(PLAN.steps[0]!.args);
  });

  it('follows the plan while every needed value is in its context', () => {
    let m = turn(head, tokenResult, 0);
    m = turn(m, listFull, 1);
    expect(JSON.parse(call(m, 2).function.arguments)).toEqual(PLAN.steps[2]!.args);
    m = turn(m, '{"ok":true}', 2);
    expect(call(m, 3).function.name).toBe('complete_task');
  });

  it('re-fetches the producing step when a value is missing, then guesses after R failures', () => {
    let m = turn(head, tokenResult, 0);
    m = turn(m, listNoIds, 1);
    // Step 3 needs the playlist id, which the (compressed) list result lacks.
    const first = simAgentTurn(PLAN, m, { ...CTX, step: 2 }, OPTS);
    expect(JSON.parse(first.tool_calls![0]!.function.arguments)).toEqual(PLAN.steps[1]!.args);
    expect(first.content).toContain('re-fetching it (re-fetches so far: step 2 ×1)');
    m = turn(m, listNoIds, 2);
    expect(JSON.parse(call(m, 3).function.arguments)).toEqual(PLAN.steps[1]!.args);
    m = turn(m, listNoIds, 3);
    // Two failed re-fetches (R = 2): the agent guesses a wrong id and moves on.
    const guess = simAgentTurn(PLAN, m, { ...CTX, step: 4 }, OPTS);
    const args = JSON.parse(guess.tool_calls![0]!.function.arguments);
    expect(args.api).toBe('show');
    expect(args.args.playlist_id).not.toBe(Number(PID));
    // A made-up id of the same shape, never derived from the value it cannot see.
    expect(String(args.args.playlist_id)).toMatch(/^\d{5}$/);
    expect(guess.content).toContain('guessing it');
    m = turn(m, '{"error":"not found"}', 4);
    expect(call(m, 5).function.name).toBe('complete_task');
  });

  it('stops re-fetching a value once it reappears', () => {
    let m = turn(head, tokenResult, 0);
    m = turn(m, listNoIds, 1);
    m = turn(m, listFull, 2); // the re-fetch was not compressed
    expect(JSON.parse(call(m, 3).function.arguments)).toEqual(PLAN.steps[2]!.args);
  });

  it('guesses at once with refetchLimit 0', () => {
    let m = turn(head, tokenResult, 0);
    m = turn(m, listNoIds, 1);
    const c = call(m, 2, { ...OPTS, refetchLimit: 0 });
    expect(JSON.parse(c.function.arguments).api).toBe('show');
  });

  it('re-fetches the deepest missing producer first', () => {
    // Neither the token nor the id is visible: the token's producer (login) comes first.
    const m: ChatMessage[] = [
      ...head,
      { role: 'assistant', content: 'Step 2 of 4: calling music.list.', tool_calls: [] },
      { role: 'user', content: '(earlier turns summarized: nothing kept)' },
    ];
    const c = call(m, 5);
    expect(JSON.parse(c.function.arguments)).toEqual(PLAN.steps[0]!.args);
  });

  it('repeats its own call it sees to read a result again, without re-reading its inputs', () => {
    // Issue #58: ticket → its customer's file → the customer's email. Masking replaced both
    // results; the agent's call of the customer file is still in view, so it repeats it instead of
    // first re-reading the ticket (which, in a window of M results, pushed out the next one).
    const plan: ReferencePlan = {
      steps: [
        { tool: 'fs__read_text_file', args: { path: 'tickets/T-7003.json' }, needs: [] },
        {
          tool: 'fs__read_text_file',
          args: { path: 'customers/C-6890.json' },
          needs: [{ value: 'C-6890', fromStep: 0 }],
        },
        {
          tool: 'complete_task',
          args: { answer: 'wes@example.com' },
          needs: [{ value: 'wes@example.com', fromStep: 1 }],
        },
      ],
    };
    const results = [
      JSON.stringify({ id: 'T-7003', customer_id: 'C-6890' }),
      JSON.stringify({ id: 'C-6890', email: 'wes@example.com' }),
    ];
    let m: ChatMessage[] = head;
    for (const [step, result] of results.entries()) {
      const assistant = simAgentTurn(plan, m, { ...CTX, step }, OPTS);
      const id = assistant.tool_calls![0]!.id;
      m = [...m, assistant, { role: 'tool', tool_call_id: id, content: result }];
    }
    const masked = m.map((x) =>
      x.role === 'tool' ? { ...x, content: 'Previous 4 lines omitted for brevity.' } : x,
    );
    const again = simAgentTurn(plan, masked, { ...CTX, step: 2 }, OPTS);
    expect(again.content).toContain('re-fetching it');
    expect(JSON.parse(again.tool_calls![0]!.function.arguments)).toEqual(plan.steps[1]!.args);
    // Its call of the customer file out of view too: it must read the ticket first, as before.
    const noCall = masked.filter(
      (x) => !(x.role === 'assistant' && (x.content ?? '').startsWith('Step 2 of 3')),
    );
    const deeper = simAgentTurn(plan, noCall, { ...CTX, step: 2 }, OPTS);
    expect(JSON.parse(deeper.tool_calls![0]!.function.arguments)).toEqual(plan.steps[0]!.args);
  });

  it('matches values on token boundaries only', () => {
    let m = turn(head, tokenResult, 0);
    // 482130 contains 48213 but is another number: still missing.
    m = turn(m, JSON.stringify({ items: [{ id: 482130 }] }), 1);
    expect(JSON.parse(call(m, 2).function.arguments).api).toBe('list');
  });

  it('resumes the plan from a summary when no reasoning line is left', () => {
    const m: ChatMessage[] = [
      ...head,
      {
        role: 'user',
        content: `[Context summary]\nCOMPLETED:\n- Step 1 of 4: auth.login\n- Step 2 of 4: music.list\nFACTS:\n- access_token=${TOKEN} | id=${PID}`,
      },
    ];
    expect(JSON.parse(call(m, 9).function.arguments)).toEqual(PLAN.steps[2]!.args);
  });

  it('gives the same answer to the same request', () => {
    let m = turn(head, tokenResult, 0);
    m = turn(m, listNoIds, 1);
    const a = simAgentTurn(PLAN, m, { ...CTX, step: 2 }, { ...OPTS, noise: 0.5 });
    const b = simAgentTurn(PLAN, m, { ...CTX, step: 2 }, { ...OPTS, noise: 0.5 });
    expect(a).toEqual(b);
  });

  it('tries a step again when it sees its call answered with an error, at most R times', () => {
    const error = JSON.stringify({ status: 404, error: 'Not found: no playlist with that id' });
    const m = turn(turn(head, tokenResult, 0), listFull, 1);
    // Its call of step 3 had a mistyped id (a slip) and was refused.
    const slipped = (step: number): ChatMessage[] => {
      const args = { ...PLAN.steps[2]!.args, args: { access_token: TOKEN, playlist_id: 48218 } };
      const id = `call_${step}`;
      return [
        {
          role: 'assistant',
          content: 'Step 3 of 4: calling music.show with playlist_id=48218.',
          tool_calls: [
            {
              id,
              type: 'function',
              function: { name: 'call_api', arguments: JSON.stringify(args) },
            },
          ],
        },
        { role: 'tool', tool_call_id: id, content: error },
      ];
    };
    let failed = [...m, ...slipped(2)];
    const again = simAgentTurn(PLAN, failed, { ...CTX, step: 3 }, OPTS);
    expect(JSON.parse(again.tool_calls![0]!.function.arguments)).toEqual(PLAN.steps[2]!.args);
    expect(again.content).toContain('Step 3 of 4: my last call returned an error; trying again');
    // After R = 2 failed tries it moves on.
    failed = [...failed, ...slipped(3), ...slipped(4)];
    expect(call(failed, 5).function.name).toBe('complete_task');
    // The very call that failed is all it could try again: it moves on at once.
    const same = turn(m, error, 2);
    expect(call(same, 3).function.name).toBe('complete_task');
    // A result that is not an error (even one with an "error" field) is a done step.
    const ok = turn(
      turn(head, tokenResult, 0),
      JSON.stringify({ items: [{ id: Number(PID) }], error: null }),
      1,
    );
    expect(JSON.parse(call(ok, 2).function.arguments)).toMatchObject({ api: 'show' });
  });

  it('does not copy a value from its own call that was refused', () => {
    // The login result is out of view; the agent's list call with a mistyped token was refused.
    const args = { ...PLAN.steps[1]!.args, args: { access_token: 'tok_a1b2c3d4e9' } };
    const m: ChatMessage[] = [
      ...head,
      {
        role: 'assistant',
        content: 'Step 2 of 4: calling music.list.',
        tool_calls: [
          {
            id: 'c1',
            type: 'function',
            function: { name: 'call_api', arguments: JSON.stringify(args) },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: '{"status":401,"error":"Unauthorized"}' },
    ];
    const next = simAgentTurn(PLAN, m, { ...CTX, step: 2 }, OPTS);
    expect(next.content).toContain('re-fetching it');
    expect(JSON.parse(next.tool_calls![0]!.function.arguments)).toEqual(PLAN.steps[0]!.args);
  });

  it('takes the items a summary says were done as handled when working through a list', () => {
    const plan = queuePlan();
    const summary = (done: string) =>
      `# History Summary\nPROGRESS:\n- Step 3 of 4: music.queue\n${done}FACTS:\n- id=70\n- id=71\n- id=72`;
    const shown = (done: string): ChatMessage[] => [
      ...head,
      { role: 'user', content: summary(done) },
      {
        role: 'assistant',
        content: 'Step 1 of 4: calling music.show.',
        tool_calls: [
          {
            id: 'c0',
            type: 'function',
            function: { name: 'call_api', arguments: '{"app":"music","api":"show","args":{}}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'c0', content: SONGS },
    ];
    const songOf = (m: ChatMessage[]) =>
      (
        JSON.parse(
          simAgentTurn(plan, m, { ...CTX, step: 9 }, OPTS).tool_calls![0]!.function.arguments,
        ) as { args: { song_id: number } }
      ).args.song_id;
    // Without the progress lines it cannot see songs 70 and 71 queued: it queues 70 again.
    expect(songOf(shown(''))).toBe(70);
    const done = '- Done: music.queue song_id=70\n- Done: music.queue song_id=71\n';
    expect(songOf(shown(done))).toBe(72);
  });

  it('queues the item again, not the next one, when its call for the item was refused', () => {
    const plan = queuePlan();
    const assistant = (id: string, content: string, args: unknown): ChatMessage => ({
      role: 'assistant',
      content,
      tool_calls: [
        { id, type: 'function', function: { name: 'call_api', arguments: JSON.stringify(args) } },
      ],
    });
    const queued = (id: string, song: number, reply: string, extra = {}): ChatMessage[] => [
      assistant(id, `Step ${song - 68} of 4: calling music.queue with song_id=${song}.`, {
        app: 'music',
        api: 'queue',
        args: { song_id: song, ...extra },
      }),
      { role: 'tool', tool_call_id: id, content: reply },
    ];
    const m: ChatMessage[] = [
      ...head,
      assistant('c0', 'Step 1 of 4: calling music.show.', { app: 'music', api: 'show', args: {} }),
      { role: 'tool', tool_call_id: 'c0', content: SONGS },
      ...queued('c1', 70, '{"message":"Queued.","position":1}'),
      // A slipped token: the call for song 71 was refused, so song 71 is not queued yet.
      ...queued('c2', 71, '{"status":401,"error":"Unauthorized"}', { access_token: 'tok_x' }),
    ];
    const next = simAgentTurn(plan, m, { ...CTX, step: 3 }, OPTS);
    expect(next.content).toContain('my last call returned an error; trying again');
    expect(JSON.parse(next.tool_calls![0]!.function.arguments)).toMatchObject({
      args: { song_id: 71 },
    });
  });

  it('finds a thread by who it is with and what it is about, in a response or a summary', () => {
    const select = {
      kind: 'match' as const,
      field: 'participants.name',
      value: 'Aidan Hudson',
      prefix: false,
      and: [{ field: 'subject', value: 'My new phone number', prefix: false }],
    };
    const plan: ReferencePlan = {
      steps: [
        { tool: 'call_api', args: { app: 'mail', api: 'show_threads', args: {} }, needs: [] },
        {
          tool: 'call_api',
          args: { app: 'mail', api: 'show_thread', args: { thread_id: 803 } },
          needs: [{ value: '803', fromStep: 0, field: 'id', select, arg: 'thread_id' }],
        },
      ],
    };
    const thread = (id: number, subject: string, who: string) => ({
      id,
      subject,
      participants: [{ name: 'Ana Me' }, { name: who }],
    });
    const opened = (messages: ChatMessage[], opts = OPTS) => {
      const a = simAgentTurn(plan, messages, { ...CTX, step: 5 }, opts);
      const args = JSON.parse(a.tool_calls![0]!.function.arguments) as {
        api: string;
        args: { thread_id?: number };
      };
      return { api: args.api, id: args.args.thread_id, thought: a.content ?? '' };
    };
    const threads = {
      items: [
        thread(801, 'My new phone number', 'Bea Smith'),
        thread(802, 'Lunch on Friday', 'Aidan Hudson'),
        thread(803, 'My new phone number', 'Aidan Hudson'),
      ],
    };
    const call: ToolCall = {
      id: 'c0',
      type: 'function',
      function: { name: 'call_api', arguments: '{"app":"mail","api":"show_threads","args":{}}' },
    };
    const inView = (result: unknown): ChatMessage[] => [
      ...head,
      { role: 'assistant', content: 'Step 1 of 2: calling mail.show_threads.', tool_calls: [call] },
      { role: 'tool', tool_call_id: 'c0', content: JSON.stringify(result) },
    ];
    expect(opened(inView(threads)).id).toBe(803);
    // A summary: the lines under an item are that item's (two pages, both with an items[0]).
    const summary = [
      '# History Summary',
      'PROGRESS:',
      '- Step 1 of 2: mail.show_threads',
      'FACTS:',
      '[mail.show_threads]',
      '- items[0]: id=801 | subject=My new phone number',
      '- items[0].participants[1]: name=Bea Smith',
      '- items[1]: id=802 | subject=Lunch on Friday',
      '- items[1].participants[1]: name=Aidan Hudson',
      '- items[0]: id=803 | subject=My new phone number',
      '- items[0].participants[1]: name=Cy Young',
      '- items[1]: id=803 | subject=My new phone number',
      '- items[1].participants[1]: name=Aidan Hudson',
    ].join('\n');
    expect(opened([...head, { role: 'user', content: summary }]).id).toBe(803);
    // Without the participants it cannot tell which is meant: it reads the list again, saying
    // what it lacks.
    const bare = { items: threads.items.map(({ id, subject }) => ({ id, subject })) };
    const blind = opened(inView(bare));
    expect(blind.api).toBe('show_threads');
    expect(blind.thought).toContain('no `participants` in my context');
    // Without the subjects it goes by what it can check: the threads with Aidan, not Bea's.
    const noSubjects = {
      items: threads.items.map(({ id, participants }) => ({ id, participants })),
    };
    const narrowed = opened(inView(noSubjects));
    expect(narrowed.api).toBe('show_threads');
    expect(narrowed.thought).toContain('no `subject` in my context');
    // Once it stops re-fetching, it takes one of Aidan's threads, not the first one listed.
    expect([802, 803]).toContain(opened(inView(noSubjects), { ...OPTS, refetchLimit: 0 }).id);
  });

  it("takes a response's own field from a summary, not the field of an object inside it", () => {
    const plan: ReferencePlan = {
      steps: [
        { tool: 'call_api', args: { app: 'shop', api: 'show_order', args: {} }, needs: [] },
        {
          tool: 'call_api',
          args: { app: 'shop', api: 'initiate_return', args: { order_id: 874488 } },
          needs: [
            {
              value: '874488',
              fromStep: 0,
              field: 'id',
              select: { kind: 'root' },
              arg: 'order_id',
            },
          ],
        },
      ],
    };
    const summary = [
      '# History Summary',
      'PROGRESS:',
      '- Step 1 of 2: shop.show_order',
      'FACTS:',
      '[shop.show_order]',
      '- id=874488 | status=delivered | total=375.46',
      '- shipping_address: id=209258 | name=Parents | state=NV',
    ].join('\n');
    const a = simAgentTurn(
      plan,
      [...head, { role: 'user', content: summary }],
      { ...CTX, step: 3 },
      OPTS,
    );
    const args = JSON.parse(a.tool_calls![0]!.function.arguments) as { args: { order_id: number } };
    expect(args.args.order_id).toBe(874488);
  });

  /** A playlist shown at step 1, then its first two songs queued; the agent's turn after a summary. */
  const QUEUE_PLAN: ReferencePlan = {
    steps: [
      { tool: 'call_api', args: { app: 'music', api: 'show', args: {} }, needs: [] },
      queueSong(0),
      queueSong(1),
    ],
  };
  const turnAfterSummary = (facts: string[], done = '') =>
    simAgentTurn(
      QUEUE_PLAN,
      [
        ...head,
        {
          role: 'user',
          content: `# History Summary\nPROGRESS:\n- Step 1 of 3: music.show\n${done}FACTS:\n${facts.join('\n')}`,
        },
      ],
      { ...CTX, step: 5 },
      OPTS,
    );

  it('works through the items a summary places in the list, not the records around them', () => {
    const songOf = (done: string) => {
      const args = turnAfterSummary(PLAYLIST_FACTS, done).tool_calls![0]!.function.arguments;
      return (JSON.parse(args) as { args: { song_id: number } }).args.song_id;
    };
    expect(songOf('')).toBe(70);
    // Song 70 done: the next is song 71, not the album listed after song 70.
    expect(songOf('- Done: music.queue song_id=70\n')).toBe(71);
  });

  it("re-reads a list whose items a summary kept without the field, not taking the list's own", () => {
    // The songs' lines lost their `id`; the playlist's and the albums' kept theirs.
    const turn = turnAfterSummary([
      '[music.show]',
      '- id=5 | title=Road Trip',
      '- songs[0]: title=Intro',
      '- songs[0].album: id=900 | title=First Light',
      '- songs[1]: title=Outro',
    ]);
    const call = JSON.parse(turn.tool_calls![0]!.function.arguments) as { api: string };
    expect(call.api).toBe('show');
    expect(turn.content).toContain('re-fetching it');
    expect(turn.content).toContain('the `id` of songs item 1 is not in my context');
  });

  it('slips on some tasks with noise, deterministically by seed, task and plan step', () => {
    const slipped = (seed: number) =>
      [...Array(20).keys()].filter((task) => {
        const c = simAgentTurn(
          PLAN,
          head,
          { taskId: `t${task}`, step: 0 },
          {
            ...OPTS,
            seed,
            noise: 0.5,
          },
        ).tool_calls![0]!;
        return c.function.arguments !== JSON.stringify(PLAN.steps[0]!.args);
      });
    expect(slipped(1).length).toBeGreaterThan(3);
    expect(slipped(1).length).toBeLessThan(17);
    expect(slipped(1)).toEqual(slipped(1));
    expect(slipped(1)).not.toEqual(slipped(2));
    // The turn number does not matter (a re-fetch earlier must not move the slip elsewhere).
    const turns = [...Array(20).keys()].map((step) => call(head, step, { ...OPTS, noise: 0.5 }));
    expect(new Set(turns.map((c) => c.function.arguments)).size).toBe(1);
    // A slip changes an argument, never the app or API called.
    for (let step = 0; step < 20; step++) {
      const args = JSON.parse(call(head, step, { ...OPTS, noise: 1 }).function.arguments);
      expect([args.app, args.api]).toEqual(['auth', 'login']);
      expect(args.args.user).not.toBe('ana');
    }
  });
});

describe('a slip', () => {
  /** The playlist ids step 3 was called with over 40 tasks, where it slipped on that argument. */
  function slippedIds(playlists: number[]): number[] {
    const list = JSON.stringify({ items: playlists.map((id) => ({ id, title: `List ${id}` })) });
    // Songs of another call are in view too: ids, but not of playlists.
    const songs: ChatMessage[] = [
      {
        role: 'assistant',
        content: 'Looking at my songs first.',
        tool_calls: [
          {
            id: 'songs',
            type: 'function',
            function: {
              name: 'call_api',
              arguments: JSON.stringify({ app: 'music', api: 'songs', args: {} }),
            },
          },
        ],
      },
      {
        role: 'tool',
        tool_call_id: 'songs',
        content: JSON.stringify({ items: [{ id: 91001 }, { id: 91002 }, { id: 91003 }] }),
      },
    ];
    const seen = turn(turn([...head, ...songs], tokenResult, 0), list, 1);
    return [...Array(40).keys()]
      .map((task) => {
        const c = simAgentTurn(PLAN, seen, { taskId: `t${task}`, step: 2 }, { ...OPTS, noise: 1 });
        return JSON.parse(c.tool_calls![0]!.function.arguments) as {
          args: { playlist_id: number };
        };
      })
      .map((a) => a.args.playlist_id)
      .filter((id) => id !== Number(PID));
  }

  it('takes the same field of another record of the same kind in view, which an API accepts', () => {
    const ids = slippedIds([Number(PID), 48214, 48215]);
    expect(ids.length).toBeGreaterThan(5);
    for (const id of ids) expect([48214, 48215]).toContain(id);
    expect(new Set(ids).size).toBe(2);
  });

  it('mistypes the value when no other record of its kind is in view (songs are not playlists)', () => {
    const ids = slippedIds([Number(PID)]);
    expect(ids.length).toBeGreaterThan(5);
    // One digit changed: a typo of the one id in view, not a value read from elsewhere.
    for (const id of ids) {
      const differ = [...String(id)].filter((c, i) => c !== PID[i]);
      expect({ id, differ: differ.length }).toEqual({ id, differ: 1 });
    }
  });
});

describe('corrupt', () => {
  it.each(['48213', 'tok_a1b2c3', 'Road Trip', '12.50'])('changes %s but keeps its shape', (v) => {
    const wrong = corrupt(v, 7, 't1');
    expect(wrong).not.toBe(v);
    expect(wrong).toHaveLength(v.length);
    expect(corrupt(v, 7, 't1')).toBe(wrong);
  });
});

describe('parseAgentMarker', () => {
  it('reads the step, kind and re-fetch counts back from the reasoning', () => {
    expect(
      parseAgentMarker(
        'Step 3 of 9 needs a value from step 2 that is not in my context; re-fetching it (re-fetches so far: step 1 ×2, step 2 ×1): calling music.list.',
      ),
    ).toEqual({
      step: 2,
      of: 9,
      kind: 'refetch',
      attempts: new Map([
        [0, 2],
        [1, 1],
      ]),
      gaveUp: [],
      action: 'music.list',
    });
    expect(parseAgentMarker('no marker here')).toBeUndefined();
  });
});

describe('a value read out of a response (issue 61)', () => {
  const NUMBER = '(913) 858-3211';
  const READ: ReferencePlan = {
    steps: [
      { tool: 'call_api', args: { app: 'mail', api: 'show_thread', args: {} }, needs: [] },
      { tool: 'call_api', args: { app: 'phone', api: 'show_contacts', args: {} }, needs: [] },
      {
        tool: 'call_api',
        args: { app: 'phone', api: 'update_contact', args: { phone_number: NUMBER } },
        needs: [{ value: NUMBER, fromStep: 0 }],
      },
      { tool: 'complete_task', args: { answer: null, status: 'success' }, needs: [] },
    ],
  };
  const after = (thread: string, contacts: string): ChatMessage[] => {
    const out: ChatMessage[] = [...head];
    for (const [step, result] of [thread, contacts].entries()) {
      const a = simAgentTurn(READ, out, { ...CTX, step }, OPTS);
      out.push(a, { role: 'tool', tool_call_id: a.tool_calls![0]!.id, content: result });
    }
    return out;
  };
  const contacts = JSON.stringify({ items: [{ name: 'Bea', phone_number: NUMBER }] });
  const next = (messages: ChatMessage[]) =>
    JSON.parse(
      simAgentTurn(READ, messages, { ...CTX, step: 2 }, OPTS).tool_calls![0]!.function.arguments,
    );

  it('reads it in the response of the call that returned it', () => {
    const thread = JSON.stringify({ messages: [{ body: `My new phone number is ${NUMBER}.` }] });
    expect(next(after(thread, contacts))).toMatchObject({ api: 'update_contact' });
  });

  it('does not search the rest of its context for the value it was never told', () => {
    // The email's body was cut; the same digits elsewhere (another contact's number) are not
    // where the task said the value is, and the agent cannot know they are the ones.
    const cut = JSON.stringify({ messages: [{ subject: 'My new phone number' }] });
    expect(next(after(cut, contacts))).toMatchObject({ api: 'show_thread' });
  });
});

describe('simAgentTurn knows only what it was told (issue 61)', () => {
  /** list files → move a.pdf → move b.pdf → answer; the file names only the listing states. */
  const move = (name: string, id: number): ReferencePlan['steps'][number] => ({
    tool: 'call_api',
    args: { app: 'files', api: 'move', args: { file_id: id } },
    needs: [
      {
        value: String(id),
        fromStep: 0,
        field: 'id',
        select: { kind: 'match', field: 'name', value: name, prefix: false },
        arg: 'file_id',
        in: 'observation',
      },
    ],
  });
  const FILES: ReferencePlan = {
    steps: [
      { tool: 'call_api', args: { app: 'files', api: 'list', args: {} }, needs: [] },
      move('a.pdf', 11),
      move('b.pdf', 12),
      { tool: 'complete_task', args: { answer: null, status: 'success' }, needs: [] },
    ],
  };
  const listed = (items: unknown[]): ChatMessage[] => [
    ...head,
    {
      role: 'assistant',
      content: 'Step 1 of 4: calling files.list.',
      tool_calls: [
        {
          id: 'c0',
          type: 'function',
          function: { name: 'call_api', arguments: JSON.stringify(FILES.steps[0]!.args) },
        },
      ],
    },
    { role: 'tool', tool_call_id: 'c0', content: JSON.stringify({ items }) },
  ];
  const next = (m: ChatMessage[]) => simAgentTurn(FILES, m, { ...CTX, step: 1 }, OPTS);

  it('passes over an item only a response named when the response in view no longer shows it', () => {
    const msg = next(listed([{ id: 12, name: 'b.pdf' }]));
    expect(JSON.parse(msg.tool_calls![0]!.function.arguments)).toMatchObject({
      args: { file_id: 12 },
    });
    expect(msg.content).toMatch(/^Step 3 of 4: .*Nothing to do at step 2 /);
    // It never names the value it could not see.
    expect(msg.content).not.toContain('a.pdf');
  });

  it('re-reads the listing when it no longer sees it, without naming the value', () => {
    const m = listed([]);
    m[m.length - 1] = {
      role: 'tool',
      tool_call_id: 'c0',
      content: 'Previous 3 lines omitted for brevity.',
    };
    const msg = next(m);
    expect(msg.content).toMatch(/re-fetching it/);
    expect(msg.content).not.toContain('a.pdf');
  });

  it('stops paging where the page it sees says the list ended, whatever its plan has', () => {
    const page = (p: number) => ({
      tool: 'call_api',
      args: { app: 'files', api: 'list', args: { page_index: p, page_limit: 2 } },
      needs: [],
    });
    const PAGED: ReferencePlan = {
      steps: [page(0), page(1), page(2), FILES.steps[3]!],
    };
    const m = listed([]);
    m[m.length - 1] = {
      role: 'tool',
      tool_call_id: 'c0',
      content: JSON.stringify({ has_more: false, items: [{ id: 11, name: 'a.pdf' }] }),
    };
    m[m.length - 2] = {
      ...m[m.length - 2]!,
      tool_calls: [
        {
          id: 'c0',
          type: 'function',
          function: { name: 'call_api', arguments: JSON.stringify(page(0).args) },
        },
      ],
    } as ChatMessage;
    const msg = simAgentTurn(PAGED, m, { ...CTX, step: 1 }, OPTS);
    expect(msg.tool_calls![0]!.function.name).toBe('complete_task');
    expect(msg.content).toContain('Nothing to do at step 2-3 (files.list has no page 1');
  });
});
