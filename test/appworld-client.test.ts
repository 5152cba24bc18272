import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BenchmarkError } from '../src/errors.js';
import {
  AppWorldBusyError,
  AppWorldClient,
  AppWorldInitializeError,
  EXECUTE_MARGIN_MS,
  NO_SERVER_LIMIT_MS,
  AppWorldServerError,
  AppWorldUnreachableError,
} from '../src/bench/appworld/index.js';
import { FakeAppWorldServer, fakeFault } from './fakes/fake-appworld-server.js';
import { unusedPort } from './helpers/loopback.js';
import { ManualTimers } from './helpers/manual-timers.js';

/** Lets pending I/O callbacks and promise chains run. */
async function settle(turns = 20): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise((resolve) => setImmediate(resolve));
}

/** Lets I/O run until `ready` holds (bounded by turns of the event loop, not by time). */
async function until(ready: () => boolean, turns = 2_000): Promise<void> {
  for (let i = 0; i < turns && !ready(); i++) {
    await new Promise((resolve) => setImmediate(resolve));
  }
  if (!ready()) throw new Error('until: condition never held');
}

let server: FakeAppWorldServer;

beforeEach(async () => {
  server = await FakeAppWorldServer.start();
});

afterEach(async () => {
  await server.close();
});

function client(opts: Partial<ConstructorParameters<typeof AppWorldClient>[0]> = {}) {
  return new AppWorldClient({ url: server.url, ...opts });
}

/** A port nothing listens on: bind one, then free it. */

describe('AppWorldClient protocol', () => {
  it('initializes a task and returns instruction, supervisor and datetime', async () => {
    const c = client({ initializeOptions: { timeout_seconds: 30 } });
    const task = await c.initialize('fake_song_1', 'exp');
    expect(task).toEqual({
      task_id: 'fake_song_1',
      instruction: 'What is the title of the song with id 3 in my Spotify library?',
      supervisor: {
        first_name: 'Jordan',
        last_name: 'Reyes',
        email: 'jordan.reyes@example.com',
        phone_number: '5550142237',
      },
      datetime: '2025-03-14T09:30:00',
    });
    expect(server.requests.at(-1)).toEqual({
      method: 'POST',
      route: '/initialize',
      body: { timeout_seconds: 30, task_id: 'fake_song_1', experiment_name: 'exp' },
    });
  });

  it('executes code and returns what it printed', async () => {
    const c = client();
    await c.initialize('fake_song_1', 'exp');
    const result = await c.execute('fake_song_1', 'print(apis.spotify.show_song(song_id=3))');
    expect(result.timedOut).toBe(false);
    expect(result.reinitialized).toBe(false);
    expect(JSON.parse(result.output)).toMatchObject({ song_id: 3, title: 'Paper Lanterns' });
    expect(server.requests.at(-1)?.body).toEqual({
      task_id: 'fake_song_1',
      code: 'print(apis.spotify.show_song(song_id=3))',
    });
  });

  it("runs multi-line code, api docs and a task's canned outputs on the fake server", async () => {
    await server.close();
    server = await FakeAppWorldServer.start({
      tasks: [
        {
          id: 'canned_1',
          instruction: 'Say hi.',
          answer: null,
          outputs: { 'x = 1\nprint(x)': '1' },
        },
      ],
    });
    const c = client();
    await c.initialize('canned_1', 'exp');
    expect((await c.execute('canned_1', 'x = 1\nprint(x)')).output).toBe('1');
    const docs = await c.execute(
      'canned_1',
      '# look up the apis\nprint("spotify:")\nprint(apis.api_docs.show_api_descriptions(app_name="spotify"))',
    );
    expect(docs.output).toMatch(/^spotify:\n\[[\s\S]*"name": "show_song"/);
    const unknown = await c.execute('canned_1', 'import os\nprint(1)');
    expect(unknown.output).toContain('NameError: the fake AppWorld server does not understand');
  });

  it('returns a failed execution as output, not as an error', async () => {
    const c = client();
    await c.initialize('fake_song_1', 'exp');
    const result = await c.execute('fake_song_1', 'print(apis.spotify.show_song(song_id=99))');
    expect(result.output).toMatch(/^Execution failed\. Traceback:[\s\S]*Song not found/);
  });

  it('reports task completion', async () => {
    const c = client();
    await c.initialize('fake_song_1', 'exp');
    expect(await c.taskCompleted('fake_song_1')).toBe(false);
    await c.execute('fake_song_1', 'apis.supervisor.complete_task(answer="Paper Lanterns")');
    expect(await c.taskCompleted('fake_song_1')).toBe(true);
    expect(server.answers.get('fake_song_1')).toBe('Paper Lanterns');
  });

  it('evaluates with suppress_errors and without a report, keeping passes and failures', async () => {
    const c = client();
    await c.initialize('fake_song_1', 'exp');
    await c.execute('fake_song_1', 'apis.supervisor.complete_task(answer="Cinder Road")');
    const report = await c.evaluate('fake_song_1');
    expect(server.requests.at(-1)?.body).toEqual({
      task_id: 'fake_song_1',
      suppress_errors: true,
      report: false,
    });
    expect(report.success).toBe(false);
    expect(report.num_tests).toBe(2);
    expect(report.difficulty).toBe(1);
    expect(report.passes).toEqual([
      {
        requirement: 'assert the task was completed with apis.supervisor.complete_task',
        label: 'no_op_fail',
      },
    ]);
    expect(report.failures).toEqual([
      expect.objectContaining({
        requirement: 'assert the answer is correct',
        trace: expect.stringContaining('"Cinder Road" != "Paper Lanterns"'),
      }),
    ]);
  });

  it('saves, closes and closes all', async () => {
    const c = client();
    await c.initialize('fake_song_1', 'exp');
    await c.save('fake_song_1');
    expect(server.saved).toEqual(['fake_song_1']);
    await c.close('fake_song_1');
    // Like AppWorld, the server keeps a closed world until /close_all.
    expect(server.world).toMatchObject({ taskId: 'fake_song_1', closed: true });
    await c.close('fake_song_1'); // closing a closed world again is no error
    await c.initialize('fake_count_1', 'exp');
    await c.closeAll();
    expect(server.world).toBeNull();
    await c.close('fake_count_1'); // a world the server no longer holds counts as closed
    expect(server.requests.map((r) => r.route)).toEqual([
      '/initialize',
      '/save',
      '/close',
      '/close',
      '/initialize',
      '/close_all',
      '/close',
    ]);
  });

  it('raises the server detail of a 400 as AppWorldServerError', async () => {
    const c = client();
    await c.initialize('fake_song_1', 'exp');
    const err = await c.execute('fake_count_1', 'print(1)').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppWorldServerError);
    expect(err).toMatchObject({ route: '/execute', status: 400 });
    expect((err as Error).message).toContain('The active task world is fake_song_1.');
  });

  it("turns AppWorld's plain-text 500 on /initialize into one line that says what to check", async () => {
    const err = await client()
      .initialize('no_such_task', 'exp')
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppWorldInitializeError);
    expect((err as Error).message).toBe(
      `AppWorld server ${server.url} could not initialize task no_such_task (HTTP 500): unknown task id, or the server was started outside $APPWORLD_ROOT — start it there or with \`appworld serve environment --root <APPWORLD_ROOT>\``,
    );
    expect((err as Error).cause).toMatchObject({ status: 500, detail: 'Internal Server Error' });
  });

  it("records AppWorld's own execution time limit as a timed-out output", async () => {
    await server.close();
    server = await FakeAppWorldServer.start({
      tasks: [{ id: 'slow_1', instruction: 'Loop.', answer: null, slow: ['while True: pass'] }],
    });
    const c = client({ initializeOptions: { timeout_seconds: 7 } });
    await c.initialize('slow_1', 'exp');
    expect(await c.execute('slow_1', 'while True: pass')).toEqual({
      output: 'Execution failed. Traceback:\nExecution timed out after 7 seconds.',
      timedOut: true,
      reinitialized: false,
    });
    expect(await c.execute('slow_1', 'print("Execution failed")')).toMatchObject({
      timedOut: false,
    });
  });

  it('validates replies with zod', async () => {
    const fetchStub = vi.fn(
      async () => new Response(JSON.stringify({ output: 3 }), { status: 200 }),
    );
    const c = client({ fetch: fetchStub as unknown as typeof fetch });
    const err = await c.execute('fake_song_1', 'print(1)').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppWorldServerError);
    expect((err as Error).message).toMatch(
      /\/execute failed \(HTTP 200\): unexpected reply \{"output":3\}/,
    );
  });

  it('reports a non-JSON error page with its status', async () => {
    const fetchStub = vi.fn(async () => new Response('Internal Server Error', { status: 500 }));
    const c = client({ fetch: fetchStub as unknown as typeof fetch });
    await expect(c.taskCompleted('t_1')).rejects.toThrow(
      /\/task_completed failed \(HTTP 500\): Internal Server Error/,
    );
  });
});

describe('AppWorldClient re-initialization', () => {
  it('re-initializes once when the server lost the world, then retries', async () => {
    const c = client();
    await c.initialize('fake_song_1', 'exp');
    server.forgetWorld(); // e.g. the server restarted
    const result = await c.execute('fake_song_1', 'print("hi")');
    expect(result).toEqual({ output: 'hi\n', timedOut: false, reinitialized: true });
    expect(server.requests.map((r) => r.route)).toEqual([
      '/initialize',
      '/execute',
      '/initialize',
      '/execute',
    ]);
  });

  it('re-initializes on a task mismatch', async () => {
    const c = client();
    await c.initialize('fake_song_1', 'exp');
    await client().initialize('fake_count_1', 'exp'); // someone else took the server
    expect(await c.taskCompleted('fake_song_1')).toBe(false);
    expect(server.handled).toEqual(['fake_song_1', 'fake_count_1', 'fake_song_1']);
  });

  it('gives up after one re-initialization', async () => {
    const c = client();
    await c.initialize('fake_song_1', 'exp');
    server.failNext('/execute', fakeFault.notInitialized(), fakeFault.notInitialized());
    const err = await c.execute('fake_song_1', 'print(1)').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppWorldServerError);
    expect((err as Error).message).toContain('AppWorld has not been initialized.');
    expect(server.count('/initialize')).toBe(2);
    expect(server.count('/execute')).toBe(2);
  });

  it('does not re-initialize on other 400s', async () => {
    const c = client();
    await c.initialize('fake_song_1', 'exp');
    server.failNext('/evaluate', fakeFault.error(400, 'Evaluation failed: bad state'));
    await expect(c.evaluate('fake_song_1')).rejects.toThrow('Evaluation failed: bad state');
    expect(server.count('/initialize')).toBe(1);
  });
});

describe('AppWorldClient execution timeouts', () => {
  it('derives its execute timeout from the server limit, with a margin', () => {
    expect(client().executeTimeoutMs).toBe(100_000 + EXECUTE_MARGIN_MS);
    const limited = client({ initializeOptions: { timeout_seconds: 200 } });
    expect(limited.executeTimeoutMs).toBe(200_000 + EXECUTE_MARGIN_MS);
    expect(client({ initializeOptions: { timeout_seconds: null } }).executeTimeoutMs).toBe(
      NO_SERVER_LIMIT_MS,
    );
    expect(client({ executeTimeoutMs: 5 }).executeTimeoutMs).toBe(5);
  });

  it('after its own timeout, sends nothing to the busy server until GET / answers again', async () => {
    await server.close();
    server = await FakeAppWorldServer.start({
      tasks: [{ id: 'hang_1', instruction: 'Hang.', answer: null, hangs: ['spin()'] }],
    });
    const timers = new ManualTimers();
    const c = client({ timers, executeTimeoutMs: 10_000, busyWaitMs: 60_000 });
    await c.initialize('hang_1', 'exp');
    const running = c.execute('hang_1', 'spin()');
    await until(() => server.hanging === 1);
    timers.advance(10_000);
    const result = await running;
    expect(result).toEqual({
      output: `Execution timed out: the AppWorld server at ${server.url} gave no output within 10 s and is still running the code.`,
      timedOut: true,
      reinitialized: false,
      serverStuck: true,
    });
    expect(c.busy).toBe(true);
    const sent = server.count();
    await expect(c.taskCompleted('hang_1')).rejects.toBeInstanceOf(AppWorldBusyError);
    await c.close('hang_1'); // cleanup skips a busy server instead of waiting on it
    expect(server.count()).toBe(sent);
    // The probe waits behind the hung code, like every request to the serial server.
    timers.advance(5_000);
    await until(() => server.count('/') === 1);
    timers.advance(5_000);
    await settle();
    expect(c.busy).toBe(true);
    server.unhang();
    timers.advance(5_000);
    await until(() => server.count('/') >= 2);
    expect(await c.whenResponsive()).toBe(true);
    expect(c.busy).toBe(false);
    expect(await c.taskCompleted('hang_1')).toBe(false);
  });

  it('counts a server that stays busy past the bound as stuck', async () => {
    await server.close();
    server = await FakeAppWorldServer.start({
      tasks: [{ id: 'hang_1', instruction: 'Hang.', answer: null, hangs: ['spin()'] }],
    });
    const timers = new ManualTimers();
    const c = client({ timers, executeTimeoutMs: 10_000, busyWaitMs: 20_000 });
    await c.initialize('hang_1', 'exp');
    const running = c.execute('hang_1', 'spin()');
    await until(() => server.hanging === 1);
    timers.advance(10_000);
    await running;
    const responsive = c.whenResponsive();
    for (let i = 0; i < 4; i++) {
      timers.advance(5_000);
      await settle();
    }
    expect(await responsive).toBe(false);
    expect(c.isStuck).toBe(true);
    await expect(c.taskCompleted('hang_1')).rejects.toBeInstanceOf(AppWorldBusyError);
    await c.closeAll(); // returns at once
    expect(server.count('/close_all')).toBe(0);
  });

  it("returns the server's timeout error as the output", async () => {
    const c = client();
    await c.initialize('fake_song_1', 'exp');
    server.failNext(
      '/execute',
      fakeFault.error(400, 'Code execution timed out after 100 seconds.'),
    );
    const result = await c.execute('fake_song_1', 'while True: pass');
    expect(result).toEqual({
      output: 'Execution timed out: Code execution timed out after 100 seconds.',
      timedOut: true,
      reinitialized: false,
    });
  });
});

describe('AppWorldClient unreachable server', () => {
  it('fails on the first attempt, fast, saying how to start a server', async () => {
    const url = `http://127.0.0.1:${await unusedPort()}`;
    const fetchSpy = vi.fn(globalThis.fetch);
    const c = new AppWorldClient({ url, fetch: fetchSpy });
    const err = await c.initialize('fake_song_1', 'exp').catch((e: unknown) => e);
    // Fail-fast (issue 8) without a wall-clock bound (issue 17): the one TCP probe is refused
    // and no HTTP request (with its long timeout and retries) is ever made.
    expect(fetchSpy).not.toHaveBeenCalled();
    expect(err).toBeInstanceOf(AppWorldUnreachableError);
    expect(err).toBeInstanceOf(BenchmarkError);
    expect(err).toMatchObject({ url, reason: 'ECONNREFUSED' });
    const message = (err as Error).message;
    expect(message).toContain(`no AppWorld environment server at ${url} (ECONNREFUSED)`);
    expect(message).toContain('appworld serve environment --port 8000');
    expect(message).toContain('pip install appworld && appworld install && appworld download data');
    expect(message).toContain('--bench apptown');
    // Refused at the TCP probe: no HTTP request was even tried, let alone retried.
    expect(fetchSpy).not.toHaveBeenCalled();
  });

  it('probes again after a failure, and only once after a success', async () => {
    const port = await unusedPort();
    const c = new AppWorldClient({ url: `http://127.0.0.1:${port}` });
    await expect(c.connect()).rejects.toBeInstanceOf(AppWorldUnreachableError);
    await expect(c.connect()).rejects.toBeInstanceOf(AppWorldUnreachableError);
    const ok = client();
    await ok.connect();
    await ok.connect();
    expect(server.count()).toBe(0); // a TCP probe sends no HTTP request
  });

  it('reports a server that went away mid-run as unreachable, without retrying', async () => {
    const fetchSpy = vi.fn(globalThis.fetch);
    const c = client({ fetch: fetchSpy });
    await c.initialize('fake_song_1', 'exp');
    await server.close();
    const err = await c.execute('fake_song_1', 'print(1)').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppWorldUnreachableError);
    expect((err as Error).message).toContain('appworld serve environment --port 8000');
    expect(fetchSpy).toHaveBeenCalledTimes(2);
    server = await FakeAppWorldServer.start(); // for afterEach
  });
});
