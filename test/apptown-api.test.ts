import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  APPS,
  callApi,
  createApptown,
  createWorld,
  toolCallMessage,
} from '../src/bench/apptown/index.js';
import { answerMatches } from '../src/bench/apptown/normalize.js';
import { CATALOGUES, type World } from '../src/bench/apptown/world.js';

const SEED = 4409;

function loginTo(world: World, app: string): string {
  const passwords = callApi(world, 'supervisor', 'show_account_passwords', {}).body as {
    account_name: string;
    password: string;
  }[];
  const password = passwords.find((p) => p.account_name === app)?.password;
  const res = callApi(world, app, 'login', { username: world.supervisor.email, password });
  expect(res.status).toBe(200);
  return (res.body as { access_token: string }).access_token;
}

describe('apptown apps', () => {
  it('builds the same world from the same seed, and a different one from another seed', () => {
    const a = createWorld(SEED);
    const b = createWorld(SEED);
    expect(JSON.stringify(a.data['wallet.transactions'])).toBe(
      JSON.stringify(b.data['wallet.transactions']),
    );
    expect(createWorld(SEED + 1).supervisor.email).not.toBe(a.supervisor.email);
  });

  it("copies a table on first touch: equal to the initial rows, and changes stay in the episode's world", () => {
    const world = createWorld(SEED);
    for (const table of Object.keys(world.initial) as (keyof World['initial'])[]) {
      // structuredClone is the reference deep copy; the world's own copy must match it exactly.
      expect(world.data[table]).toStrictEqual(structuredClone(world.initial[table]));
    }
    const playlist = world.data['music.playlists'][0]!;
    playlist.song_ids.push(1);
    expect(world.initial['music.playlists'][0]!.song_ids).not.toContain(1);
    expect(createWorld(SEED).data['music.playlists'][0]).toStrictEqual(
      world.initial['music.playlists'][0],
    );
  });

  it('reads the catalogues no API writes from the initial rows, which refuse writes', () => {
    const world = createWorld(SEED);
    for (const table of CATALOGUES) expect(world.data[table]).toBe(world.initial[table]);
    expect(world.data['music.playlists'].length).toBeGreaterThan(0);
    const song = world.data['music.songs'][0]!;
    expect(() => song.artists.push({ id: 1, name: 'Someone' })).toThrow(TypeError);
    expect(() => world.data['shop.products'].pop()).toThrow(TypeError);
    // Only copied tables can change, so only they are compared when an episode is evaluated.
    expect(world.touchedTables()).toEqual(['music.playlists']);
  });

  it('gives every row a distinctive 5-6 digit id, unique across the world', () => {
    const world = createWorld(SEED);
    const ids = Object.values(world.initial).flatMap((rows: { id: number }[]) =>
      rows.map((r) => r.id),
    );
    expect(ids.length).toBeGreaterThan(1000);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.every((id) => id >= 10_000 && id <= 999_999)).toBe(true);
  });

  it('returns a long deterministic access token per app, and rejects bad logins with 401', () => {
    const world = createWorld(SEED);
    const token = loginTo(world, 'wallet');
    expect(token.length).toBeGreaterThan(40);
    expect(loginTo(createWorld(SEED), 'wallet')).toBe(token);
    expect(loginTo(world, 'music')).not.toBe(token);
    const wrong = callApi(world, 'wallet', 'login', {
      username: world.supervisor.email,
      password: 'guess',
    });
    expect(wrong).toEqual({
      status: 401,
      body: { status: 401, error: 'Invalid username or password.' },
    });
  });

  it.each([
    { name: 'no token', token: null, args: {}, status: 401, text: 'access_token' },
    {
      name: "another app's token",
      token: 'music',
      args: {},
      status: 401,
      text: 'not valid for wallet',
    },
    {
      name: 'an argument out of range',
      token: 'wallet',
      args: { page_limit: 50 },
      status: 422,
      text: "argument 'page_limit'",
    },
    {
      name: 'an unknown argument',
      token: 'wallet',
      args: { colour: 'red' },
      status: 422,
      text: "unknown argument(s) 'colour'",
    },
    {
      name: 'a wrong type',
      token: 'wallet',
      args: { direction: 3 },
      status: 422,
      text: "argument 'direction'",
    },
  ])(
    'answers a call with $name with $status naming the problem',
    ({ token, args, status, text }) => {
      const world = createWorld(SEED);
      const access = token ? { access_token: loginTo(world, token) } : {};
      const res = callApi(world, 'wallet', 'show_transactions', { ...access, ...args });
      expect(res.status).toBe(status);
      expect((res.body as { error: string }).error).toContain(text);
    },
  );

  it('answers unknown apps, APIs and ids with 404', () => {
    const world = createWorld(SEED);
    const access_token = loginTo(world, 'wallet');
    expect(callApi(world, 'bank', 'login', {}).status).toBe(404);
    expect(callApi(world, 'wallet', 'pay', { access_token }).status).toBe(404);
    const missing = callApi(world, 'wallet', 'show_transaction', {
      access_token,
      transaction_id: 1,
    });
    expect(missing).toEqual({
      status: 404,
      body: { status: 404, error: 'Transaction with id 1 not found' },
    });
  });

  it('paginates lists: 5 items by default, at most 20', () => {
    const world = createWorld(SEED);
    const access_token = loginTo(world, 'music');
    const first = callApi(world, 'music', 'search_songs', { access_token }).body as {
      items: unknown[];
      total_items: number;
      has_more: boolean;
    };
    expect(first.items).toHaveLength(5);
    expect(first.total_items).toBeGreaterThan(100);
    expect(first.has_more).toBe(true);
    const big = callApi(world, 'music', 'search_songs', {
      access_token,
      page_limit: 20,
      page_index: 2,
    });
    expect((big.body as { items: unknown[] }).items).toHaveLength(20);
  });

  it("lists show short records, as AppWorld's list APIs do; the record's show API has the rest, and api_docs documents the short one", () => {
    const world = createWorld(SEED);
    const cases = [
      { app: 'music', list: 'search_songs', show: 'show_song', arg: 'song_id', gone: 'stream_url' },
      {
        app: 'shop',
        list: 'search_products',
        show: 'show_product',
        arg: 'product_id',
        gone: 'seller',
      },
      {
        app: 'phone',
        list: 'search_contacts',
        show: 'show_contact',
        arg: 'contact_id',
        gone: 'birthday',
      },
    ];
    for (const c of cases) {
      const access_token = loginTo(world, c.app);
      const page = callApi(world, c.app, c.list, { access_token }).body as {
        items: Record<string, unknown>[];
      };
      const item = page.items[0]!;
      // What a task selects and compares on stays in the list.
      expect(item, c.list).toHaveProperty('id');
      expect(item, c.list).not.toHaveProperty(c.gone);
      const full = callApi(world, c.app, c.show, { access_token, [c.arg]: item.id }).body as Record<
        string,
        unknown
      >;
      expect(full, c.show).toHaveProperty(c.gone);
      expect(Object.keys(full).length, c.show).toBeGreaterThan(Object.keys(item).length);
      const doc = callApi(world, 'api_docs', 'show_api_doc', { app_name: c.app, api_name: c.list })
        .body as { response_schemas: { success: { items: Record<string, unknown>[] } } };
      expect(Object.keys(doc.response_schemas.success.items[0]!)).toEqual(Object.keys(item));
    }
  });

  it('documents every API with its parameters through api_docs', () => {
    const world = createWorld(SEED);
    const apps = callApi(world, 'api_docs', 'show_app_descriptions', {}).body as { name: string }[];
    expect(apps.map((a) => a.name)).toEqual(APPS.map((a) => a.name));
    for (const app of APPS) {
      for (const api of app.apis) {
        const doc = callApi(world, 'api_docs', 'show_api_doc', {
          app_name: app.name,
          api_name: api.name,
        });
        expect(doc.status).toBe(200);
      }
    }
    const doc = callApi(world, 'api_docs', 'show_api_doc', {
      app_name: 'wallet',
      api_name: 'show_transactions',
    }).body as { parameters: { name: string; required: boolean; constraints: string[] }[] };
    expect(doc.parameters.find((p) => p.name === 'access_token')?.required).toBe(true);
    expect(doc.parameters.find((p) => p.name === 'page_limit')?.constraints).toEqual([
      '>= 1',
      '<= 20',
    ]);
  });
});

describe('apptown episode', () => {
  // Small tasks in the first task format keep these checks readable (test/fixtures/apptown).
  const bench = createApptown({
    tasksDir: fileURLToPath(new URL('./fixtures/apptown/', import.meta.url)),
  });

  it('turns malformed tool calls into error observations instead of throwing', async () => {
    const episode = await bench.start('wallet-balance-1');
    const bad = await episode.act(toolCallMessage('a', 'call_api', '{"app": "wallet", '));
    expect(bad.messages).toEqual([
      { role: 'tool', tool_call_id: 'a', content: expect.stringContaining('not valid JSON') },
    ]);
    const wrongShape = await episode.act(toolCallMessage('b', 'call_api', { app: 5 }));
    expect(wrongShape.messages[0]?.content).toContain('"status": 422');
    const unknown = await episode.act(toolCallMessage('c', 'delete_everything', {}));
    expect(unknown.messages[0]?.content).toContain('unknown tool');
    const doubleEncoded = await episode.act(
      toolCallMessage('d', 'call_api', {
        app: 'api_docs',
        api: 'show_api_descriptions',
        args: '{"app_name": "notes"}',
      }),
    );
    expect(doubleEncoded.messages[0]?.content).toContain('create_note');
    const text = await episode.act({ role: 'assistant', content: 'thinking...' });
    expect(text.messages[0]?.role).toBe('user');
    expect(text.done).toBe(false);
  });

  it('is done after complete_task and refuses further actions', async () => {
    const episode = await bench.start('wallet-balance-1');
    const done = await episode.act(
      toolCallMessage('a', 'complete_task', { answer: '1', status: 'success' }),
    );
    expect(done.done).toBe(true);
    const after = await episode.act(
      toolCallMessage('b', 'call_api', { app: 'api_docs', api: 'show_app_descriptions' }),
    );
    expect(after.messages[0]?.content).toContain('already complete');
  });

  it('offers call_api and complete_task and names the supervisor in the first message', async () => {
    const episode = await bench.start('wallet-balance-1');
    expect(episode.tools.map((t) => t.function.name)).toEqual(['call_api', 'complete_task']);
    expect(episode.firstUserMessage).toContain(
      (await bench.taskFile('wallet-balance-1')).supervisor,
    );
    expect(episode.systemPrompt).toContain('api_docs');
  });

  it('marks the values each reference step copies from earlier responses', async () => {
    const plan = await bench.referencePlan('wallet-balance-1');
    expect(plan.steps.map((s) => s.tool)).toEqual([
      'call_api',
      'call_api',
      'call_api',
      'complete_task',
    ]);
    const [passwords, login, account, complete] = plan.steps;
    expect(passwords?.needs).toEqual([]);
    // The password comes from step 0; the username is the email the prompt gives.
    // Each need also says how the agent finds its record (sim v3, issue #22); here only what
    // is copied and from where is checked.
    expect(login?.needs).toMatchObject([
      { value: (login?.args.args as { password: string }).password, fromStep: 0 },
    ]);
    expect(login?.needs).toHaveLength(1);
    const token = (account?.args.args as { access_token: string }).access_token;
    expect(account?.needs).toMatchObject([{ value: token, fromStep: 1 }]);
    expect(account?.needs).toHaveLength(1);
    expect(complete?.needs).toMatchObject([{ value: complete?.args.answer, fromStep: 2 }]);
    expect(complete?.needs).toHaveLength(1);
  });

  it('says where the agent learns each value it needs (issue 61)', async () => {
    const plan = await bench.referencePlan('mail-pay-share-1');
    const needs = plan.steps.flatMap((s) => s.needs);
    // "Wallet" is in the instruction, so its password is selected by a value the task states;
    // "mail" is not, and no docs response was read, so only the passwords response shows it.
    const byAccount = (name: string) =>
      needs.find(
        (n) =>
          n.select?.kind === 'match' &&
          n.select.field === 'account_name' &&
          n.select.value === name,
      );
    expect(byAccount('wallet')?.in).toBe('task');
    expect(byAccount('mail')?.in).toBe('observation');
    // A value read by position or out of a response's text is an observation's.
    expect(
      needs.filter((n) => n.select?.kind !== 'match').every((n) => n.in === 'observation'),
    ).toBe(true);
  });

  it('lists values an agent reads out of text as needs too', async () => {
    const plan = await bench.referencePlan('mail-pay-share-1');
    const pay = plan.steps.find((s) => (s.args as { api?: string }).api === 'send_money');
    const amount = String((pay?.args.args as { amount: number }).amount);
    expect(pay?.needs.map((n) => n.value)).toContain(amount);
  });
});

describe('apptown answers', () => {
  it.each([
    [3, '3.0', true],
    [3, ' "3" ', true],
    [1250.5, '$1,250.50', true],
    ['Blue Hour', 'blue hour.', true],
    ['Blue Hour', 'Blue Hours', false],
    [['a', 'B', 'c'], 'c, b, A', true],
    [['a', 'b'], 'a, b, c', false],
    [null, null, true],
    [null, 'something', false],
  ] as const)('expected %j, given %j: %s', (expected, given, ok) => {
    expect(answerMatches(expected as never, given)).toBe(ok);
  });
});
