import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { InvalidInputError } from '../src/errors.js';
import type { AssistantMessage } from '../src/llm/types.js';
import {
  appWorldSystemPrompt,
  AppWorldUnreachableError,
  createAppWorld,
  type AppWorldBenchmark,
} from '../src/bench/appworld/index.js';
import { runEpisode } from '../src/agent/loop.js';
import { createRaw } from '../src/agent/context/raw.js';
import { defaultTokenCounter } from '../src/agent/context/messages.js';
import {
  FAKE_APPWORLD_TASKS,
  FakeAppWorldServer,
  type FakeAppWorldTask,
} from './fakes/fake-appworld-server.js';
import { ScriptedLlm } from './fakes/scripted-llm.js';
import { unusedPort } from './helpers/loopback.js';
import { ManualTimers } from './helpers/manual-timers.js';

const servers: FakeAppWorldServer[] = [];
const benches: AppWorldBenchmark[] = [];

async function startServer(opts: Parameters<typeof FakeAppWorldServer.start>[0] = {}) {
  const s = await FakeAppWorldServer.start(opts);
  servers.push(s);
  return s;
}

function bench(urls: string[], taskIds = ['fake_song_1', 'fake_count_1', 'fake_note_1']) {
  const b = createAppWorld({ urls, experimentPrefix: 'acon-test', taskIds });
  benches.push(b);
  return b;
}

function say(content: string | null, toolCalls?: AssistantMessage['tool_calls']): AssistantMessage {
  return { role: 'assistant', content, ...(toolCalls ? { tool_calls: toolCalls } : {}) };
}

const py = (code: string) => say(`I will run this.\n\`\`\`python\n${code}\n\`\`\``);

/** Lets pending I/O callbacks and promise chains run. */
async function settle(turns = 10): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise((resolve) => setImmediate(resolve));
}

beforeEach(() => {
  vi.stubEnv('APPWORLD_ROOT', '');
});

afterEach(async () => {
  vi.unstubAllEnvs();
  await Promise.all(benches.splice(0).map((b) => b.close()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

describe('AppWorld episode', () => {
  it('runs a task: code in, printed output out, done after complete_task, evaluated', async () => {
    const server = await startServer();
    const episode = await bench([server.url]).start('fake_song_1');

    expect(episode.tools).toEqual([]);
    expect(episode.systemPrompt).toBe(appWorldSystemPrompt());
    expect(episode.systemPrompt).toContain('```python');
    expect(episode.systemPrompt).toContain('apis.api_docs.show_api_descriptions(app_name=');
    expect(episode.systemPrompt).toContain('apis.api_docs.show_api_doc(app_name=');
    // The reference agents' instructions and a worked demonstration (issue 12).
    for (const part of [
      'apis.supervisor.show_account_passwords()',
      'access_token',
      'page_index += 1',
      'contacts in the phone app',
      'file_system app',
      '00:00:00 to 23:59:59',
      'a number in digits',
      'complete_task(status="fail")',
      'Never ask the supervisor',
      'apis.supervisor.complete_task(answer=',
    ]) {
      expect(episode.systemPrompt).toContain(part);
    }
    expect(episode.firstUserMessage).toMatchInlineSnapshot(`
      "Task: What is the title of the song with id 3 in my Spotify library?

      Your supervisor (the person you work for):
      - Name: Jordan Reyes
      - Email: jordan.reyes@example.com
      - Phone number: 5550142237

      Current date and time: 2025-03-14T09:30:00"
    `);
    expect(episode.task).toEqual({
      id: 'fake_song_1',
      split: 'custom',
      instruction: 'What is the title of the song with id 3 in my Spotify library?',
      apps: [],
      difficulty: 1,
      referenceLength: 0,
    });

    const look = await episode.act(py('print(apis.spotify.show_song(song_id=3))'));
    expect(look.done).toBe(false);
    expect(look.messages).toHaveLength(1);
    expect(look.messages[0]?.role).toBe('user');
    expect(look.messages[0]?.content).toMatch(/^Output:\n\{[\s\S]*"title": "Paper Lanterns"/);

    const finish = await episode.act(py('apis.supervisor.complete_task(answer="Paper Lanterns")'));
    expect(finish).toEqual({
      messages: [
        {
          role: 'user',
          content: 'Output:\nExecution successful.',
        },
      ],
      done: true,
    });

    expect(await episode.evaluate()).toEqual({
      success: true,
      score: 1,
      details: [
        {
          name: 'assert the task was completed with apis.supervisor.complete_task',
          passed: true,
          detail: 'no_op_fail',
        },
        { name: 'assert the answer is correct', passed: true, detail: 'no_op_fail' },
      ],
    });
    await episode.close();
    await episode.close(); // twice is fine
    expect(server.count('/close')).toBe(1);
    expect(server.world).toMatchObject({ taskId: 'fake_song_1', closed: true });
  });

  it('answers a message without a code block with an observation, running nothing', async () => {
    const server = await startServer();
    const episode = await bench([server.url]).start('fake_song_1');
    const result = await episode.act(say('I think the answer is Paper Lanterns.'));
    expect(result.done).toBe(false);
    expect(result.messages).toEqual([
      { role: 'user', content: expect.stringMatching(/^No code was run: .*```python/) },
    ]);
    expect(server.count('/execute')).toBe(0);
    await episode.close();
  });

  it('answers stray tool calls with tool messages so the chat stays valid', async () => {
    const server = await startServer();
    const episode = await bench([server.url]).start('fake_song_1');
    const result = await episode.act(
      say('```python\nprint("x")\n```', [
        { id: 'call_1', type: 'function', function: { name: 'execute', arguments: '{}' } },
      ]),
    );
    expect(result.messages).toEqual([
      { role: 'tool', tool_call_id: 'call_1', content: expect.stringMatching(/no tools/) },
      { role: 'user', content: 'Output:\nx' },
    ]);
    await episode.close();
  });

  it('runs only the first of several blocks and says so', async () => {
    const server = await startServer();
    const episode = await bench([server.url]).start('fake_song_1');
    const result = await episode.act(say('```python\nprint("a")\n```\n```python\nprint("b")\n```'));
    expect(result.messages[0]?.content).toBe(
      'Output:\na\n\nNote: only the first code block was run; 1 more was ignored. Write one code block per turn.',
    );
    expect(server.world?.executions).toEqual(['print("a")']);
    await episode.close();
  });

  it('tells the agent when its world was re-initialized', async () => {
    const server = await startServer();
    const episode = await bench([server.url]).start('fake_song_1');
    server.forgetWorld();
    const result = await episode.act(py('print("again")'));
    expect(result.messages[0]?.content).toMatch(
      /^Output:\nagain\n\nNote: the AppWorld server had lost/,
    );
    expect(server.count('/initialize')).toBe(2);
    await episode.close();
  });

  it('keeps failed requirements with their trace in the evaluation', async () => {
    const server = await startServer();
    const b = bench([server.url]);
    const episode = await b.start('fake_note_1');
    await episode.act(
      py('apis.notes.create_note(title="groceries", body="milk")\napis.supervisor.complete_task()'),
    );
    const evaluation = await episode.evaluate();
    expect(evaluation.success).toBe(false);
    expect(evaluation.score).toBeCloseTo(3 / 4);
    expect(evaluation.details.filter((d) => !d.passed)).toEqual([
      {
        name: 'assert a note titled "groceries" with body "milk, eggs" was created',
        passed: false,
        detail: expect.stringContaining('AssertionError: notes are ["todo","groceries"]'),
      },
    ]);
    await episode.close();
    // The instruction is known since the start, the difficulty since the evaluation.
    expect(await b.getTask('fake_note_1')).toMatchObject({
      instruction: expect.stringContaining('groceries'),
      difficulty: 2,
    });
  });

  it('maps plain-string requirements too', async () => {
    const server = await startServer({ requirementsAs: 'strings' });
    const episode = await bench([server.url]).start('fake_count_1');
    await episode.act(py('apis.supervisor.complete_task(answer=4)'));
    expect(await episode.evaluate()).toEqual({
      success: false,
      score: 0.5,
      details: [
        {
          name: 'assert the task was completed with apis.supervisor.complete_task',
          passed: true,
          detail: '',
        },
        { name: 'assert the answer is correct', passed: false, detail: 'failed' },
      ],
    });
    await episode.close();
  });
});

describe('AppWorld agent turns in the loop', () => {
  it('keeps each message only up to the end of the code block it ran', async () => {
    const server = await startServer();
    const episode = await bench([server.url]).start('fake_song_1', {
      runId: 'r1',
      condition: 'raw',
    });
    // The model runs its first block, then imagines the output and answers from it.
    const look =
      'I look the song up.\n```python\nprint(apis.spotify.show_song(song_id=3))\n```\n' +
      'Output:\n{"title": "Made Up"}\n```python\napis.supervisor.complete_task(answer="Made Up")\n```';
    const finish = '```python\napis.supervisor.complete_task(answer="Paper Lanterns")\n```';
    const llm = new ScriptedLlm({ agent: [look, finish] });
    const result = await runEpisode({
      episode,
      strategy: createRaw(defaultTokenCounter),
      llm,
      callCtx: { runId: 'r1', rolloutId: 'x', taskId: 'fake_song_1' },
    });
    expect(result.evaluation.success).toBe(true);
    expect(server.world?.executions).toEqual([
      'print(apis.spotify.show_song(song_id=3))',
      'apis.supervisor.complete_task(answer="Paper Lanterns")',
    ]);
    expect(result.trajectory.turns[0]?.assistant.content).toBe(
      'I look the song up.\n```python\nprint(apis.spotify.show_song(song_id=3))\n```',
    );
    // The step record keeps what the model really said; the next prompt sees only the cut.
    expect(result.steps[0]?.assistant.content).toBe(look);
    const secondPrompt = llm.callsOf('agent')[1]?.req.messages ?? [];
    expect(JSON.stringify(secondPrompt)).not.toContain('Made Up');
    expect(episode.meta()).toEqual({
      experiment_name: 'acon-test_r1_raw',
      timed_out_steps: [],
    });
  });

  it('runs a reply of bare Python without a fence as code', async () => {
    const server = await startServer();
    const episode = await bench([server.url]).start('fake_song_1');
    const llm = new ScriptedLlm({
      agent: [
        'print(apis.spotify.show_song(song_id=3))',
        'Let me think about what to do next.',
        'apis.supervisor.complete_task(answer="Paper Lanterns")',
      ],
    });
    const result = await runEpisode({
      episode,
      strategy: createRaw(defaultTokenCounter),
      llm,
      callCtx: { runId: 'r1', rolloutId: 'x', taskId: 'fake_song_1' },
    });
    expect(server.world?.executions).toEqual([
      'print(apis.spotify.show_song(song_id=3))',
      'apis.supervisor.complete_task(answer="Paper Lanterns")',
    ]);
    expect(result.trajectory.turns[1]?.observations[0]?.content).toContain('No code was run');
    expect(result).toMatchObject({ stopReason: 'completed', evaluation: { success: true } });
  });

  it('records the steps AppWorld stopped for time with the episode', async () => {
    const server = await startServer({
      tasks: [{ id: 'slow_1', instruction: 'Loop.', answer: null, slow: ['while True: pass'] }],
    });
    const episode = await bench([server.url], ['slow_1']).start('slow_1');
    await episode.act(py('print(1)'));
    const slow = await episode.act(py('while True: pass'));
    expect(slow.messages[0]?.content).toContain('Execution timed out after 100 seconds.');
    expect(slow.messages[0]?.content).toContain('ran out of time');
    expect(episode.meta()).toEqual({ experiment_name: 'acon-test', timed_out_steps: [1] });
  });
});

describe('AppWorld benchmark', () => {
  it('lists the named tasks; instructions are empty until a task starts', async () => {
    const b = bench(['http://127.0.0.1:1'], ['fake_song_1', 'fake_count_1']);
    expect(await b.listTasks('train')).toEqual([
      {
        id: 'fake_song_1',
        split: 'custom',
        instruction: '',
        apps: [],
        difficulty: 1,
        referenceLength: 0,
      },
      {
        id: 'fake_count_1',
        split: 'custom',
        instruction: '',
        apps: [],
        difficulty: 1,
        referenceLength: 0,
      },
    ]);
  });

  it('says where task ids come from when none are given', async () => {
    const b = createAppWorld({ urls: ['http://127.0.0.1:1'], experimentPrefix: 'x' });
    const err = await b.listTasks('train').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidInputError);
    expect((err as Error).message).toMatch(
      /set APPWORLD_ROOT .* or name the tasks with `taskIds` ID,ID or a task-id file/,
    );
  });

  it('fails fast when a server is unreachable, naming it', async () => {
    const live = await startServer();
    const dead = `http://127.0.0.1:${await unusedPort()}`;
    const b = bench([live.url, dead]);
    const err = await b.connect().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppWorldUnreachableError);
    expect((err as Error).message).toContain(
      `no AppWorld environment server at ${dead} (ECONNREFUSED)`,
    );
    expect((err as Error).message).toContain('--bench apptown');
  });

  it('fails fast in start when the server is unreachable, and frees the server', async () => {
    const dead = `http://127.0.0.1:${await unusedPort()}`;
    const b = bench([dead]);
    await expect(b.start('fake_song_1')).rejects.toBeInstanceOf(AppWorldUnreachableError);
    await expect(b.start('fake_song_1')).rejects.toBeInstanceOf(AppWorldUnreachableError);
  });

  it('frees the server when initialize fails', async () => {
    const server = await startServer();
    const b = bench([server.url], ['nope_1', 'fake_song_1']);
    await expect(b.start('nope_1')).rejects.toThrow('could not initialize task nope_1 (HTTP 500)');
    const episode = await b.start('fake_song_1');
    await episode.close();
  });

  it('waits for a free server before starting another task', async () => {
    const server = await startServer();
    const b = bench([server.url]);
    const first = await b.start('fake_song_1');
    let secondStarted = false;
    const second = b.start('fake_count_1').then((e) => {
      secondStarted = true;
      return e;
    });
    await settle();
    expect(secondStarted).toBe(false);
    expect(server.count('/initialize')).toBe(1);
    await first.close();
    const episode = await second;
    expect(episode.task.id).toBe('fake_count_1');
    await episode.close();
    expect(server.overlaps).toBe(0);
  });

  it('runs several worlds in parallel, one task per server at a time', async () => {
    const a = await startServer({ name: 'a', executeDelayMs: 20 });
    const c = await startServer({ name: 'c', executeDelayMs: 20 });
    const b = bench([a.url, c.url]);
    await b.connect();
    let open = 0;
    let maxOpen = 0;
    const tasks = ['fake_song_1', 'fake_count_1', 'fake_note_1', 'fake_song_1'];
    const results = await Promise.all(
      tasks.map(async (id) => {
        const episode = await b.start(id);
        open++;
        maxOpen = Math.max(maxOpen, open);
        try {
          await episode.act(py('print(apis.spotify.show_library())'));
          await episode.act(py('apis.supervisor.complete_task(answer="3")'));
          return await episode.evaluate();
        } finally {
          open--;
          await episode.close();
        }
      }),
    );
    expect(results.map((r) => r.success)).toEqual([false, true, false, false]);
    expect(maxOpen).toBe(2);
    expect(a.handled.length).toBeGreaterThanOrEqual(1);
    expect(c.handled.length).toBeGreaterThanOrEqual(1);
    expect(a.handled.length + c.handled.length).toBe(4);
    expect(a.overlaps + c.overlaps).toBe(0);
    expect([...a.handled, ...c.handled].sort()).toEqual([...tasks].sort());
  });

  it('closes every world on the servers it used', async () => {
    const server = await startServer();
    const b = bench([server.url]);
    await b.start('fake_song_1');
    await b.close();
    expect(server.count('/close_all')).toBe(1);
    expect(server.world).toBeNull();
  });
});

describe('AppWorld against a serial server (the real one answers one request at a time)', () => {
  const HANG: FakeAppWorldTask = {
    id: 'hang_1',
    instruction: 'Spin.',
    answer: null,
    hangs: ['spin()'],
  };
  const tasks = [HANG, ...FAKE_APPWORLD_TASKS];

  /** The scripted agent: spins on hang_1, answers the song tasks, completes the rest. */
  function agent(): ScriptedLlm {
    return new ScriptedLlm({
      agent: (req) => {
        const first = String(req.messages[1]?.content ?? '');
        if (first.includes('Spin.')) return '```python\nspin()\n```';
        if (first.includes('title of the song')) {
          return '```python\napis.supervisor.complete_task(answer="Paper Lanterns")\n```';
        }
        if (first.includes('How many songs')) {
          return '```python\napis.supervisor.complete_task(answer="3")\n```';
        }
        return '```python\napis.notes.create_note(title="groceries", body="milk, eggs")\napis.supervisor.complete_task()\n```';
      },
    });
  }

  /** Runs each task id as one rollout through the benchmark, all at once, like `acon run`. */
  async function runAll(b: AppWorldBenchmark, ids: string[], llm: ScriptedLlm) {
    return Promise.all(
      ids.map(async (id, i) => {
        const episode = await b.start(id, { runId: 'r1', condition: 'raw' });
        try {
          return await runEpisode({
            episode,
            strategy: createRaw(defaultTokenCounter),
            llm,
            callCtx: { runId: 'r1', rolloutId: `r${i}`, taskId: id },
            maxSteps: 3,
          });
        } finally {
          await episode.close();
        }
      }),
    );
  }

  it('never interleaves the requests of two rollouts on one server', async () => {
    const server = await startServer({ tasks, executeDelayMs: 5 });
    const b = bench([server.url], ['fake_song_1', 'fake_count_1']);
    const results = await runAll(b, ['fake_song_1', 'fake_count_1'], agent());
    expect(results.map((r) => r.evaluation.success)).toEqual([true, true]);
    const ids = server.requests.map((r) => (r.body as { task_id?: string }).task_id);
    // Each task's requests form one block: initialize … close, then the next task's.
    const blocks = ids.filter((id, i) => id !== ids[i - 1]);
    expect(blocks).toEqual(['fake_song_1', 'fake_count_1']);
    expect(server.maxInFlight).toBe(1);
  });

  /**
   * Virtual time runs on while the healthy server still answers; so that only the hung request
   * and the probes can time out (however slowly this machine runs), the others carry no signal.
   */
  const onlyHungTimesOut: typeof fetch = (input, init) => {
    const probe = init?.method === undefined || init.method === 'GET';
    const hung = typeof init?.body === 'string' && init.body.includes('spin()');
    return fetch(input, probe || hung ? init : { ...init, signal: null });
  };

  it('a hung /execute costs its rollout a timed-out step; the run finishes on the other server', async () => {
    const a = await startServer({ tasks, name: 'a' });
    const c = await startServer({ tasks, name: 'c' });
    const timers = new ManualTimers();
    const EXECUTE_MS = 130_000;
    const BUSY_MS = 130_000;
    const ids = ['hang_1', 'fake_song_1', 'fake_count_1', 'fake_note_1'];
    const b = createAppWorld({
      urls: [a.url, c.url],
      experimentPrefix: 'acon-test',
      taskIds: ids,
      client: {
        timers,
        executeTimeoutMs: EXECUTE_MS,
        busyWaitMs: BUSY_MS,
        fetch: onlyHungTimesOut,
      },
    });
    benches.push(b);
    let finished = false;
    const run = runAll(b, ids, agent()).finally(() => (finished = true));
    // Virtual time moves while the code hangs; the run must end within the bounds.
    for (let i = 0; i < 10_000 && !finished; i++) {
      await settle(5);
      if (a.hanging + c.hanging > 0) timers.advance(1_000);
    }
    const results = await run;
    expect(timers.now).toBeLessThanOrEqual(EXECUTE_MS + BUSY_MS + 10_000);
    const hung = results[0]!;
    expect(hung.stopReason).toBe('error');
    expect(hung.error).toMatch(
      /^step 0: Execution timed out: the AppWorld server at .* gave no output within 130 s/,
    );
    expect(hung.evaluation).toMatchObject({ success: false, score: 0 });
    expect(hung.trajectory.turns[0]?.observations[0]?.content).toContain('this episode stops here');
    expect(results.slice(1).map((r) => r.evaluation.success)).toEqual([true, true, true]);
    // The stuck server got no further work and no requests while it was busy.
    const stuck = a.hanging === 1 ? a : c;
    const other = stuck === a ? c : a;
    expect(stuck.handled).toEqual(['hang_1']);
    expect(other.handled.sort()).toEqual(['fake_count_1', 'fake_note_1', 'fake_song_1']);
    expect(stuck.requests.filter((r) => r.method === 'POST').map((r) => r.route)).toEqual([
      '/initialize',
      '/execute',
    ]);
    // Cleanup returns without waiting on the stuck server.
    let closed = false;
    const closing = b.close().then(() => (closed = true));
    await settle(50);
    expect(closed).toBe(true);
    await closing;
    expect(stuck.count('/close_all')).toBe(0);
    expect(other.count('/close_all')).toBe(1);
  });
});
