import { appendFileSync, existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { listenOnLoopback } from '../helpers/loopback.js';

/**
 * A fake AppWorld environment server (`appworld serve environment`) for tests: node:http on
 * 127.0.0.1, a random free port, the same JSON protocol (POST routes answering
 * `{"output": ...}`, errors as HTTP 400 `{"detail": ...}`, 422 for a missing field), and a few
 * scripted tasks whose worlds are small dicts. Like the real server (`appworld/serve/environment.py`):
 * - serial: FastAPI runs its `async def` handlers' blocking code on the event loop, so a request
 *   (even `GET /`) waits until the one before it is answered; a hung `/execute` holds every
 *   request behind it;
 * - one world per process: `/initialize` replaces (closes) whatever world the process held, and
 *   routes for any other task id then answer 400 "The active task world is …";
 * - `/close` closes the world but keeps it: same-task routes still reach it (code then fails on
 *   the closed database), other tasks still get the 400; only `/close_all` forgets it;
 * - `GET /tasks/{task_id}` answers a task's instruction without initializing a world;
 * - what code prints is returned as printed, trailing newline included; `print` of a list or
 *   dict prints JSON, compact under 100 characters and indented by 1 from there (AppWorld's
 *   preamble redefines `print` that way); a failed execution returns only the traceback;
 * - `/initialize` of a task it cannot load answers a plain-text HTTP 500 "Internal Server Error";
 * - with a `root`, `/initialize` deletes and recreates
 *   `<root>/experiments/outputs/<experiment_name>/tasks/<task_id>/`, and every `/execute` is
 *   logged there; `clobbered` counts initializations that deleted another episode's outputs;
 * - code that prints nothing answers "Execution successful."; code listed in a task's `slow`
 *   answers "Execution failed. Traceback:\nExecution timed out after N seconds." (N from the
 *   `timeout_seconds` of `/initialize`, 100 by default); code listed in `hangs` never answers
 *   (code SIGALRM cannot interrupt) until `unhang()`, and blocks the server meanwhile.
 * Its apps, data and tasks are our own (AppWorld's data may not be redistributed).
 *
 * @example
 * const server = await FakeAppWorldServer.start();
 * const bench = createAppWorld({ urls: [server.url], experimentName: 't', taskIds: ['fake_song_1'] });
 * // … the agent sends print(apis.spotify.show_song(song_id=3)), then
 * //   apis.supervisor.complete_task(answer="Paper Lanterns") …
 * expect(server.count('/execute')).toBe(2);
 * expect(server.answers.get('fake_song_1')).toBe('Paper Lanterns');
 * await server.close();
 *
 * The code `/execute` understands, one statement a line (anything else fails like Python would):
 * - `print(<call or string literal>)` prints the result (JSON for objects), a bare call runs it;
 * - `apis.spotify.show_song(song_id=N)`, `apis.spotify.show_library()`;
 * - `apis.notes.show_notes()`, `apis.notes.create_note(title="…", body="…")`;
 * - `apis.api_docs.show_app_descriptions()`, `.show_api_descriptions(app_name=…)`,
 *   `.show_api_doc(app_name=…, api_name=…)`; `apis.supervisor.show_profile()`;
 * - `apis.supervisor.complete_task(answer=…)` or `complete_task()`: completes the task and
 *   records the answer;
 * - a task's own `outputs`: exact code (trimmed) → printed output, checked first.
 */

export type FakeSupervisor = {
  first_name: string;
  last_name: string;
  email: string;
  phone_number: string;
};

export type FakeSong = { song_id: number; title: string; artist: string; duration_seconds: number };
export type FakeNote = { note_id: number; title: string; body: string };

/** A task's world: a small dict the canned APIs read and change. */
export type FakeState = { songs: FakeSong[]; notes: FakeNote[] };

/** What evaluation looks at. */
export type FakeWorld = {
  taskId: string;
  state: FakeState;
  completed: boolean;
  /** The `answer=` of complete_task; null for `complete_task()` or before completion. */
  answer: string | null;
  /** Code executed in this world, in order. */
  executions: string[];
  closed: boolean;
  experimentName: string;
  /** AppWorld's per-execution time limit for this world. */
  timeoutSeconds: number;
};

export type FakeCheck = {
  requirement: string;
  /** Null when the requirement holds, else the failure trace. */
  check(world: FakeWorld, task: FakeAppWorldTask): string | null;
};

export type FakeAppWorldTask = {
  id: string;
  instruction: string;
  /** @default 1 */
  difficulty?: number;
  /**
   * The answer `complete_task(answer=…)` must give (compared trimmed, case-insensitively);
   * null: the task wants `complete_task()` with no answer.
   */
  answer: string | null;
  /** Checks on top of "completed" and "answer"; `num_tests` counts them all. */
  checks?: FakeCheck[];
  /** The world's initial state. @default FAKE_STATE */
  state?: FakeState;
  /** Exact code (trimmed) → printed output, checked before the canned APIs. */
  outputs?: Record<string, string>;
  /** @default FAKE_SUPERVISOR */
  supervisor?: FakeSupervisor;
  /** @default '2025-03-14T09:30:00' */
  datetime?: string;
  /** Code (trimmed) that runs into AppWorld's time limit. */
  slow?: string[];
  /** Code (trimmed) that never finishes: the server hangs until `unhang()` (or `close()`). */
  hangs?: string[];
};

export const FAKE_SUPERVISOR: FakeSupervisor = {
  first_name: 'Jordan',
  last_name: 'Reyes',
  email: 'jordan.reyes@example.com',
  phone_number: '5550142237',
};

export const FAKE_STATE: FakeState = {
  songs: [
    { song_id: 1, title: 'Harbor Lights', artist: 'The Tidewaters', duration_seconds: 214 },
    { song_id: 2, title: 'Cinder Road', artist: 'Mara Quell', duration_seconds: 187 },
    { song_id: 3, title: 'Paper Lanterns', artist: 'Odd Sparrow', duration_seconds: 242 },
  ],
  notes: [{ note_id: 1, title: 'todo', body: 'call the plumber' }],
};

/** The scripted tasks every fake server knows unless given others. */
export const FAKE_APPWORLD_TASKS: readonly FakeAppWorldTask[] = [
  {
    id: 'fake_song_1',
    instruction: 'What is the title of the song with id 3 in my Spotify library?',
    difficulty: 1,
    answer: 'Paper Lanterns',
  },
  {
    id: 'fake_count_1',
    instruction: 'How many songs are in my Spotify library?',
    difficulty: 1,
    answer: '3',
  },
  {
    id: 'fake_note_1',
    instruction: 'Create a note titled "groceries" with the body "milk, eggs" in my notes app.',
    difficulty: 2,
    answer: null,
    checks: [
      {
        requirement: 'assert a note titled "groceries" with body "milk, eggs" was created',
        check: (w) =>
          w.state.notes.some((n) => n.title === 'groceries' && n.body === 'milk, eggs')
            ? null
            : failureTrace(
                'assert any(n.title == "groceries" and n.body == "milk, eggs" for n in notes)',
                `notes are ${JSON.stringify(w.state.notes.map((n) => n.title))}`,
              ),
      },
      {
        requirement: 'assert the existing notes were not changed',
        check: (w) =>
          w.state.notes.some((n) => n.note_id === 1 && n.body === 'call the plumber')
            ? null
            : failureTrace('assert notes[1].body == "call the plumber"', 'note 1 changed'),
      },
    ],
  },
];

/** An error the server answers with, as the real server words them. */
export type FakeFault = { status: number; detail: unknown };

export const fakeFault = {
  notInitialized: (): FakeFault => ({ status: 400, detail: 'AppWorld has not been initialized.' }),
  taskMismatch: (active: string, requested: string): FakeFault => ({
    status: 400,
    detail: `The active task world is ${active}. But you have requested to operate on ${requested}`,
  }),
  error: (status: number, detail: unknown): FakeFault => ({ status, detail }),
};

export type FakeAppWorldServerOptions = {
  /** @default FAKE_APPWORLD_TASKS */
  tasks?: readonly FakeAppWorldTask[];
  /** Delay before answering `/execute`. @default 0 */
  executeDelayMs?: number;
  /** Send passes/failures as plain requirement strings (some servers do). @default 'objects' */
  requirementsAs?: 'objects' | 'strings';
  /** A label for messages. */
  name?: string;
  /** An AppWorld root: outputs go to `<root>/experiments/outputs/<experiment>/tasks/<id>/`. */
  root?: string;
};

export type FakeAppWorldRequest = { method: string; route: string; body: unknown };

const ROUTES = [
  '/initialize',
  '/execute',
  '/task_completed',
  '/evaluate',
  '/save',
  '/close',
  '/close_all',
] as const;

export class FakeAppWorldServer {
  /** Every request received, in arrival order. */
  readonly requests: FakeAppWorldRequest[] = [];
  /** Task ids initialized on this server, in order (re-initializations included). */
  readonly handled: string[] = [];
  /** The last `complete_task` answer per task id. */
  readonly answers = new Map<string, string | null>();
  /** Task ids saved with `/save`. */
  readonly saved: string[] = [];
  /** `experiment_name` of every `/initialize`, in order. */
  readonly experimentNames: string[] = [];
  /**
   * Initializations that deleted a task output folder holding another episode's executions:
   * two episodes writing under one experiment name, which acon must never let happen.
   */
  clobbered = 0;
  readonly root: string | undefined;
  /** Delay before answering `/execute`; may be changed between calls. */
  executeDelayMs: number;
  /** Awaited before each `/execute` is answered (a test's barrier between servers). */
  beforeExecute: (() => Promise<void>) | null = null;
  /** The world the server holds (one at a time, like AppWorld). */
  world: FakeWorld | null = null;
  readonly name: string;
  private readonly tasks: Map<string, FakeAppWorldTask>;
  private readonly requirementsAs: 'objects' | 'strings';
  private readonly faults = new Map<string, FakeFault[]>();
  private overlapCount = 0;
  private current = 0;
  private peak = 0;
  private readonly timers = new Set<{ timer: NodeJS.Timeout; done: () => void }>();
  /** The request being served: the next one waits for it (the real server is serial). */
  private serving: Promise<void> = Promise.resolve();
  /** Wakes the `/execute` calls hung on a task's `hangs` code. */
  private readonly hung = new Set<() => void>();

  private constructor(
    private readonly server: Server,
    opts: FakeAppWorldServerOptions,
  ) {
    this.tasks = new Map((opts.tasks ?? FAKE_APPWORLD_TASKS).map((t) => [t.id, t]));
    this.executeDelayMs = opts.executeDelayMs ?? 0;
    this.requirementsAs = opts.requirementsAs ?? 'objects';
    this.name = opts.name ?? 'fake-appworld';
    this.root = opts.root;
  }

  /** The output folder of a task under an experiment (when the server has a root). */
  outputDir(experimentName: string, taskId: string): string {
    if (!this.root) throw new Error('fake AppWorld: no root');
    return join(this.root, 'experiments', 'outputs', experimentName, 'tasks', taskId);
  }

  static async start(opts: FakeAppWorldServerOptions = {}): Promise<FakeAppWorldServer> {
    const server = createServer();
    const instance = new FakeAppWorldServer(server, opts);
    server.on(
      'request',
      (req: IncomingMessage, res: ServerResponse) => void instance.serve(req, res),
    );
    await listenOnLoopback(server);
    return instance;
  }

  /** `http://127.0.0.1:<port>`, as `appworld.urls` takes it. */
  get url(): string {
    const { port } = this.server.address() as AddressInfo;
    return `http://127.0.0.1:${port}`;
  }

  /** Requests received on a route (e.g. `/execute`), or on all routes. */
  count(route?: string): number {
    return route === undefined
      ? this.requests.length
      : this.requests.filter((r) => r.route === route).length;
  }

  /**
   * How often a task was initialized while another task's world was still open: two episodes
   * sharing this server, which must never happen (AppWorld holds one world per process).
   */
  get overlaps(): number {
    return this.overlapCount;
  }

  /** Most requests ever in flight at once. */
  get maxInFlight(): number {
    return this.peak;
  }

  /** Answers the next request(s) on `route` with these errors instead of serving them. */
  failNext(route: (typeof ROUTES)[number], ...faults: FakeFault[]): this {
    this.faults.set(route, [...(this.faults.get(route) ?? []), ...faults]);
    return this;
  }

  /** Drops the world, as a restarted server would: task routes then say "not initialized". */
  forgetWorld(): void {
    this.world = null;
  }

  /** `/execute` calls hung right now (code listed in a task's `hangs`). */
  get hanging(): number {
    return this.hung.size;
  }

  /** Lets every hung `/execute` finish (it answers as if the code printed nothing). */
  unhang(): void {
    for (const wake of this.hung) wake();
    this.hung.clear();
  }

  async close(): Promise<void> {
    this.unhang();
    for (const t of this.timers) {
      clearTimeout(t.timer);
      t.done();
    }
    this.timers.clear();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    this.current++;
    this.peak = Math.max(this.peak, this.current);
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const raw = Buffer.concat(chunks).toString('utf8');
      const route = (req.url ?? '/').split('?')[0] ?? '/';
      const method = req.method ?? 'GET';
      let body: unknown = undefined;
      try {
        body = raw ? JSON.parse(raw) : {};
      } catch {
        body = undefined;
      }
      this.requests.push({ method, route, body });
      // One request at a time, in arrival order, like the real server's blocking handlers.
      const before = this.serving;
      let finished!: () => void;
      this.serving = new Promise((resolve) => (finished = resolve));
      await before;
      try {
        await this.answer(res, method, route, body);
      } finally {
        finished();
      }
    } finally {
      this.current--;
    }
  }

  private async answer(
    res: ServerResponse,
    method: string,
    route: string,
    body: unknown,
  ): Promise<void> {
    if (method === 'GET' && route === '/') {
      send(res, 200, { message: `Welcome to the fake AppWorld server ${this.name}` });
      return;
    }
    const shown = /^\/tasks\/([^/]+)$/.exec(route);
    if (method === 'GET' && shown) {
      const task = this.tasks.get(decodeURIComponent(shown[1] ?? ''));
      // Task.load raises for an unknown id: uvicorn's bare 500.
      send(res, task ? 200 : 500, task ? ok(taskDict(task)).body : INTERNAL_SERVER_ERROR);
      return;
    }
    if (method !== 'POST' || !(ROUTES as readonly string[]).includes(route)) {
      send(res, 404, { detail: 'Not Found' });
      return;
    }
    if (body === undefined || typeof body !== 'object' || body === null) {
      send(res, 422, {
        detail: [{ type: 'json_invalid', loc: ['body'], msg: 'JSON decode error' }],
      });
      return;
    }
    const fault = this.faults.get(route)?.shift();
    const result = fault
      ? faultReply(fault)
      : await this.route(route, body as Record<string, unknown>);
    send(res, result.status, result.body);
  }

  private async route(
    route: string,
    body: Record<string, unknown>,
  ): Promise<{ status: number; body: unknown }> {
    if (route === '/close_all') {
      if (this.world) this.world.closed = true;
      this.world = null;
      return ok(null);
    }
    const taskId = body.task_id;
    if (typeof taskId !== 'string') return missing('task_id');
    if (route === '/initialize') return this.initialize(taskId, body);

    const world = this.world;
    if (!world) return faultReply(fakeFault.notInitialized());
    if (world.taskId !== taskId) return faultReply(fakeFault.taskMismatch(world.taskId, taskId));
    const task = this.tasks.get(taskId);
    if (!task) throw new Error(`fake AppWorld: world of unknown task ${taskId}`);
    switch (route) {
      case '/execute': {
        if (typeof body.code !== 'string') return missing('code');
        await this.sleep(this.executeDelayMs);
        await this.beforeExecute?.();
        if (task.hangs?.includes(body.code.trim())) {
          await new Promise<void>((resolve) => this.hung.add(resolve));
        }
        world.executions.push(body.code);
        const output = this.execute(world, task, body.code);
        if (this.root) {
          appendFileSync(
            join(this.outputDir(world.experimentName, taskId), 'logs', 'environment_io.md'),
            `\n\`\`\`python\n${body.code}\n\`\`\`\n\n\`\`\`\n${output}\n\`\`\`\n`,
          );
        }
        return ok(output);
      }
      case '/task_completed':
        return ok(world.completed);
      case '/evaluate':
        return ok(this.evaluate(world, task));
      case '/save':
        this.saved.push(taskId);
        return ok(null);
      case '/close':
        // AppWorld's world.close(): the server keeps the (closed) world until /close_all.
        world.closed = true;
        return ok(null);
      default:
        return { status: 404, body: { detail: 'Not Found' } };
    }
  }

  private initialize(
    taskId: string,
    body: Record<string, unknown>,
  ): { status: number; body: unknown } {
    const task = this.tasks.get(taskId);
    // AppWorld's Task.load raises and FastAPI answers with uvicorn's bare 500.
    if (!task) return { status: 500, body: INTERNAL_SERVER_ERROR };
    if (this.world && !this.world.closed && this.world.taskId !== taskId) this.overlapCount++;
    const experimentName =
      typeof body.experiment_name === 'string' ? body.experiment_name : 'default';
    const timeoutSeconds = typeof body.timeout_seconds === 'number' ? body.timeout_seconds : 100;
    this.experimentNames.push(experimentName);
    if (this.root) this.resetOutputs(experimentName, taskId);
    this.handled.push(taskId);
    // One world per process: the previous world is closed, whichever task it was.
    if (this.world) this.world.closed = true;
    this.world = {
      taskId,
      state: structuredClone(task.state ?? FAKE_STATE),
      completed: false,
      answer: null,
      executions: [],
      closed: false,
      experimentName,
      timeoutSeconds,
    };
    return ok(taskDict(task));
  }

  /** What AppWorld does first on initialize: delete the task's output folder, then recreate it. */
  private resetOutputs(experimentName: string, taskId: string): void {
    const dir = this.outputDir(experimentName, taskId);
    const logs = join(dir, 'logs');
    if (existsSync(logs) && readdirSync(logs).length > 0) this.clobbered++;
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(logs, { recursive: true });
  }

  private execute(world: FakeWorld, task: FakeAppWorldTask, code: string): string {
    if (world.closed) {
      return 'Execution failed. Traceback:\nsqlite3.ProgrammingError: (sqlite3.ProgrammingError) Cannot operate on a closed database.';
    }
    if (task.slow?.includes(code.trim())) {
      return `Execution failed. Traceback:\nExecution timed out after ${world.timeoutSeconds} seconds.`;
    }
    const canned = task.outputs?.[code.trim()];
    if (canned !== undefined) return canned;
    let stdout = '';
    for (const [index, line] of code.split('\n').entries()) {
      const statement = line.trim();
      if (statement === '' || statement.startsWith('#')) continue;
      try {
        const print = /^print\((.*)\)$/.exec(statement);
        const value = evalExpression(world, print?.[1]?.trim() ?? statement, this.answers);
        if (print) stdout += `${pythonPrinted(value)}\n`;
      } catch (err) {
        const { type, message } =
          err instanceof FakeApiError ? err : { type: 'Exception', message: String(err) };
        // AppWorld drops what was printed before the error and returns the traceback alone.
        return [
          'Execution failed. Traceback:',
          `  File "<python-input>", line ${index + 1}, in <module>`,
          `    ${statement}`,
          `${type}: ${message}`,
        ].join('\n');
      }
    }
    return stdout.trim() === '' ? 'Execution successful.' : stdout;
  }

  private evaluate(world: FakeWorld, task: FakeAppWorldTask) {
    const checks: FakeCheck[] = [
      {
        requirement: 'assert the task was completed with apis.supervisor.complete_task',
        check: (w) => (w.completed ? null : failureTrace('assert task_completed()', 'False')),
      },
      {
        requirement:
          task.answer === null ? 'assert no answer was given' : 'assert the answer is correct',
        check: (w, t) => answerFailure(w, t),
      },
      ...(task.checks ?? []),
    ];
    const passes: unknown[] = [];
    const failures: unknown[] = [];
    for (const c of checks) {
      const trace = c.check(world, task);
      if (this.requirementsAs === 'strings') {
        (trace === null ? passes : failures).push(c.requirement);
      } else if (trace === null) {
        passes.push({ requirement: c.requirement, label: 'no_op_fail' });
      } else {
        failures.push({ requirement: c.requirement, trace, label: 'no_op_fail' });
      }
    }
    return {
      success: failures.length === 0,
      difficulty: task.difficulty ?? 1,
      num_tests: checks.length,
      passes,
      failures,
    };
  }

  private sleep(ms: number): Promise<void> {
    if (ms <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const entry = {
        done: resolve,
        timer: setTimeout(() => {
          this.timers.delete(entry);
          resolve();
        }, ms),
      };
      this.timers.add(entry);
    });
  }
}

function taskDict(task: FakeAppWorldTask) {
  return {
    task_id: task.id,
    instruction: task.instruction,
    supervisor: task.supervisor ?? FAKE_SUPERVISOR,
    datetime: task.datetime ?? '2025-03-14T09:30:00',
  };
}

/**
 * What `print(value)` writes in AppWorld's shell: its preamble prints a list or dict as
 * `json.dumps`, with `indent=1` once the compact form reaches 100 characters; anything else as
 * Python's `str` would.
 */
export function pythonPrinted(value: unknown): string {
  if (value === null || value === undefined) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value !== 'object') return String(value);
  const compact = pythonJson(value);
  return compact.length >= 100 ? JSON.stringify(value, null, 1) : compact;
}

/** Python's `json.dumps` without indent: `", "` and `": "` between items. */
function pythonJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(pythonJson).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    const items = Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}: ${pythonJson(v)}`);
    return `{${items.join(', ')}}`;
  }
  return JSON.stringify(value ?? null);
}

class FakeApiError extends Error {
  constructor(
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

function failureTrace(assertion: string, message: string): string {
  return `\`\`\`python\n${assertion}\n\`\`\`\n----------\nAssertionError: ${message}`;
}

function normalize(answer: string): string {
  return answer.trim().toLowerCase();
}

function answerFailure(w: FakeWorld, t: FakeAppWorldTask): string | null {
  if (t.answer === null) {
    return w.answer === null
      ? null
      : failureTrace('assert answer is None', `${JSON.stringify(w.answer)} is not None`);
  }
  if (w.answer !== null && normalize(w.answer) === normalize(t.answer)) return null;
  return failureTrace(
    'assert answer == expected_answer',
    `${JSON.stringify(w.answer)} != ${JSON.stringify(t.answer)}`,
  );
}

const CALL = /^apis\.(\w+)\.(\w+)\((.*)\)$/;
const KWARG =
  /(\w+)\s*=\s*("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|-?\d+(?:\.\d+)?|True|False|None)\s*(?:,|$)/gy;

/** A Python literal as the canned APIs take it: strings, numbers, True/False/None. */
function literal(text: string): unknown {
  if (text === 'True') return true;
  if (text === 'False') return false;
  if (text === 'None') return null;
  if (/^["']/.test(text)) return text.slice(1, -1).replace(/\\(.)/g, '$1');
  return Number(text);
}

function parseKwargs(text: string): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  const source = text.trim();
  KWARG.lastIndex = 0;
  let end = 0;
  for (let m = KWARG.exec(source); m; m = KWARG.exec(source)) {
    args[m[1] ?? ''] = literal(m[2] ?? '');
    end = KWARG.lastIndex;
    while (source[end] === ' ') end++;
    KWARG.lastIndex = end;
  }
  if (end < source.length) {
    throw new FakeApiError('SyntaxError', `the fake server cannot read the arguments "${text}"`);
  }
  return args;
}

function evalExpression(
  world: FakeWorld,
  expr: string,
  answers: Map<string, string | null>,
): unknown {
  if (/^("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')$/.test(expr)) return literal(expr);
  const call = CALL.exec(expr);
  if (!call) {
    throw new FakeApiError('NameError', `the fake AppWorld server does not understand "${expr}"`);
  }
  const [, app = '', api = '', rawArgs = ''] = call;
  return callApi(world, app, api, parseKwargs(rawArgs), answers);
}

function notFound(what: string): FakeApiError {
  return new FakeApiError(
    'Exception',
    `Response status code is 404:\n{"message":"${what} not found."}`,
  );
}

function callApi(
  world: FakeWorld,
  app: string,
  api: string,
  args: Record<string, unknown>,
  answers: Map<string, string | null>,
): unknown {
  const { state } = world;
  switch (`${app}.${api}`) {
    case 'spotify.show_song': {
      const song = state.songs.find((s) => s.song_id === args.song_id);
      if (!song) throw notFound('Song');
      return song;
    }
    case 'spotify.show_library':
      return state.songs;
    case 'notes.show_notes':
      return state.notes;
    case 'notes.create_note': {
      if (typeof args.title !== 'string' || typeof args.body !== 'string') {
        throw new FakeApiError(
          'Exception',
          'Response status code is 422: title and body are required',
        );
      }
      const note_id = Math.max(0, ...state.notes.map((n) => n.note_id)) + 1;
      state.notes.push({ note_id, title: args.title, body: args.body });
      return { message: 'Note created.', note_id };
    }
    case 'api_docs.show_app_descriptions':
      return [
        { name: 'spotify', description: 'A music streaming app.' },
        { name: 'notes', description: 'A note-taking app.' },
        { name: 'supervisor', description: 'Information about the supervisor; ends the task.' },
      ];
    case 'api_docs.show_api_descriptions':
      return (API_DESCRIPTIONS[String(args.app_name)] ?? []).map(([name, description]) => ({
        name,
        description,
      }));
    case 'api_docs.show_api_doc': {
      const entry = API_DESCRIPTIONS[String(args.app_name)]?.find(([n]) => n === args.api_name);
      if (!entry) throw notFound('API');
      return { app_name: args.app_name, api_name: entry[0], description: entry[1], parameters: [] };
    }
    case 'supervisor.show_profile':
      return FAKE_SUPERVISOR;
    case 'supervisor.complete_task': {
      world.completed = true;
      const answer = args.answer;
      world.answer = answer === undefined || answer === null ? null : String(answer);
      answers.set(world.taskId, world.answer);
      return null;
    }
    default:
      throw new FakeApiError('AttributeError', `No API named '${api}' found in the ${app} app.`);
  }
}

const API_DESCRIPTIONS: Record<string, [string, string][]> = {
  spotify: [
    ['show_song', 'Show details of a song by its song_id.'],
    ['show_library', 'Show all songs in the library.'],
  ],
  notes: [
    ['show_notes', 'Show all notes.'],
    ['create_note', 'Create a note with a title and a body.'],
  ],
  supervisor: [
    ['show_profile', 'Show the supervisor profile.'],
    ['complete_task', 'Mark the task as complete, with an answer if the task asks a question.'],
  ],
};

function faultReply(fault: FakeFault): { status: number; body: unknown } {
  return { status: fault.status, body: { detail: fault.detail } };
}

function ok(output: unknown): { status: number; body: unknown } {
  return { status: 200, body: { output } };
}

function missing(field: string): { status: number; body: unknown } {
  return {
    status: 422,
    body: { detail: [{ type: 'missing', loc: ['body', field], msg: 'Field required' }] },
  };
}

/** Marks a reply sent as plain text, as uvicorn sends an unhandled exception. */
const INTERNAL_SERVER_ERROR = Symbol('Internal Server Error');

function send(res: ServerResponse, status: number, body: unknown): void {
  if (res.destroyed) return;
  if (body === INTERNAL_SERVER_ERROR) {
    res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' });
    res.end('Internal Server Error');
    return;
  }
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}
