import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_TASKS_DIR } from '../src/bench/apptown/benchmark.js';
import { createApptown } from '../src/bench/apptown/index.js';
import { SqliteRunStore } from '../src/store/run-store.js';
import { FakeOpenAiServer, type FakeHandler } from './fakes/fake-openai-server.js';
import { simBackedHandler } from './fakes/sim-backed-handler.js';
import { runAcon, tempDir } from './helpers/cli.js';
import { taskResolver } from './helpers/env.js';

/**
 * Issue 17, as a user sees it: the compiled CLI (npm test builds first) against a fake
 * OpenAI-compatible server that answers like the sim provider.
 */

const KEY = 'sk-test-resume-e2e-5d4c3b';

let server: FakeOpenAiServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Holds every chat request after the first `open` until `release()`: the run is mid-way, always. */
function gate(inner: FakeHandler, open: number) {
  let seen = 0;
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  let reached!: () => void;
  const full = new Promise<void>((r) => (reached = r));
  const handler: FakeHandler = async (req) => {
    seen += 1;
    if (seen > open) {
      reached();
      await released;
    }
    return inner(req);
  };
  return { handler, full, release };
}

function readStore<T>(cwd: string, read: (store: SqliteRunStore) => T): T {
  const store = new SqliteRunStore(join(cwd, 'runs', 'acon.db'), { mode: 'read' });
  try {
    return read(store);
  } finally {
    store.close();
  }
}

describe('acon run --resume', () => {
  it('continues an interrupted openai run on openai, never on the current default (sim)', async () => {
    const bench = createApptown();
    const sim = simBackedHandler({
      taskOf: await taskResolver(bench),
      planFor: (id) => bench.referencePlan(id),
    });
    const held = gate(sim, 20);
    server = await FakeOpenAiServer.start({ handler: held.handler });
    const cwd = tempDir();
    // Eight dev tasks keep the test quick; the path is the same as for the whole split.
    const tasks = (await bench.listTasks('dev')).slice(0, 8).map((t) => t.id);
    const args = ['run', '--bench', 'apptown', '--split', 'dev', '--strategy', 'raw'];
    args.push('--tasks', tasks.join(','));
    // --yes: a paid provider asks before it starts (issue #24) and no terminal is there to answer.
    const first = await runAcon([...args, '--provider', 'openai', '--yes'], {
      cwd,
      env: { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: KEY },
      onSpawn: (child) => {
        void held.full.then(() => child.kill('SIGINT'));
        child.on('close', () => held.release());
      },
    });
    expect(first.code, first.stderr).toBe(130);
    // Only the stop notice: no warning from the calls in flight when Ctrl-C came.
    expect(first.stderr).not.toContain('Warning');
    const runId = /--resume (run-\S+)/.exec(first.stderr)![1]!;
    const before = readStore(cwd, (s) => ({
      rollouts: s.rollouts(runId).length,
      lastCall: Math.max(0, ...s.calls({ runId }).map((c) => c.id)),
    }));
    expect(before.rollouts).toBeLessThan(8);

    // A flag that contradicts the record is refused in one line, before anything runs.
    const conflict = await runAcon(['run', '--resume', runId, '--provider', 'sim'], {
      cwd,
      env: { OPENAI_API_KEY: KEY },
    });
    expect(conflict.code).toBe(2);
    expect(conflict.stderr).toBe(
      `error: --provider sim conflicts with run ${runId}, recorded with openai; drop --provider (--resume continues a run exactly as recorded) or start a new run\n`,
    );
    const wrongKind = await runAcon(['optimize', '--resume', runId], { cwd });
    expect(wrongKind.code).toBe(2);
    expect(wrongKind.stderr).toBe(
      `error: run ${runId} was made by \`acon run\`; continue it with: acon run --resume ${runId}\n`,
    );

    // No --provider, no OPENAI_BASE_URL: the run's own record says where to go.
    const requestsBefore = server.chatRequests.length;
    const resumed = await runAcon(['run', '--resume', runId, '--json'], {
      cwd,
      env: { OPENAI_API_KEY: KEY },
    });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toBe('');
    const result = JSON.parse(resumed.stdout) as {
      provenance: { provider: string; simulated: boolean; runId: string };
    };
    expect(result.provenance).toMatchObject({ runId, provider: 'openai', simulated: false });
    const after = readStore(cwd, (s) => ({
      rollouts: s.rollouts(runId).length,
      providers: [...new Set(s.calls({ runId }).map((c) => c.provider))].map((provider) => ({
        provider,
      })),
      newCalls: s.calls({ runId }).filter((c) => c.id > before.lastCall && !c.cached).length,
    }));
    expect(after.rollouts).toBe(8);
    expect(after.providers).toEqual([{ provider: 'openai' }]);
    // Every call of the resumed part went to the server.
    expect(after.newCalls).toBeGreaterThan(0);
    expect(server.chatRequests.length - requestsBefore).toBe(after.newCalls);
  });
});

describe('invalid task files', () => {
  it('stop a run naming the file and field, or are skipped and counted with --skip-invalid-tasks', async () => {
    const cwd = tempDir();
    const tasks = join(cwd, 'tasks');
    cpSync(DEFAULT_TASKS_DIR, tasks, { recursive: true });
    const dev = (await createApptown({ tasksDir: tasks }).listTasks('dev')).map((t) => t.id);
    const broken = join(tasks, `${dev[0]}.yaml`);
    writeFileSync(broken, `id: ${dev[0]}\nsplit: dev\n`);
    const env = { ACON_APPTOWN__TASKS_DIR: tasks };
    const args = ['run', '--split', 'dev', '--strategy', 'raw', '--tasks', dev[1]!];

    const stopped = await runAcon(args, { cwd, env });
    expect(stopped.code).toBe(2);
    expect(stopped.stderr.split('\n').filter(Boolean)).toEqual([
      expect.stringMatching(
        new RegExp(`^error: ${broken}: \\S+: .+; or pass --skip-invalid-tasks to run without it$`),
      ),
    ]);

    const skipped = await runAcon([...args, '--skip-invalid-tasks', '--json'], { cwd, env });
    expect(skipped.code, skipped.stderr).toBe(0);
    expect(skipped.stderr).toContain(
      `skipped 1 invalid task file (--skip-invalid-tasks); the first: ${broken}:`,
    );

    const named = await runAcon(
      ['run', '--strategy', 'raw', '--tasks', dev[0]!, '--skip-invalid-tasks'],
      { cwd, env },
    );
    expect(named.code).toBe(2);
    expect(named.stderr).toContain(`error: ${broken}:`);
  });
});

describe('two runs started at once on a fresh database', () => {
  it('both succeed', async () => {
    const cwd = tempDir();
    const [task] = await createApptown().listTasks('dev');
    const args = ['run', '--strategy', 'raw', '--tasks', task!.id, '--json'];
    const [a, b] = await Promise.all([runAcon(args, { cwd }), runAcon(args, { cwd })]);
    expect([a.code, b.code], a.stderr + b.stderr).toEqual([0, 0]);
    expect(readStore(cwd, (s) => s.listRuns().map((r) => r.status))).toEqual([
      'finished',
      'finished',
    ]);
  });
});

describe('one-line errors that name the fix', () => {
  it('covers a non-database file, stray ACON_ variables, an empty strategy list and an empty lint', async () => {
    const cwd = tempDir();
    const db = join(cwd, 'runs', 'acon.db');
    mkdirSync(join(cwd, 'runs'));
    writeFileSync(db, 'x');
    const runs = await runAcon(['runs'], { cwd });
    expect(runs.code).toBe(2);
    expect(runs.stderr).toBe(
      'error: runs/acon.db: not an SQLite database (it does not start with the SQLite header); restore it from a backup, or use --db (or ACON_DB) to point to another file\n',
    );
    expect(readFileSync(db, 'utf8')).toBe('x');

    const stray = await runAcon(['runs', '--db', join(cwd, 'other.db')], {
      cwd,
      env: { ACON_VERBOSE: '1', ACON_API_KEY: 'x' },
    });
    expect(stray.code, stray.stderr).toBe(0);
    expect(stray.stderr).toBe('');

    const empty = await runAcon(['compare', '--strategies', ''], { cwd });
    expect(empty.code).toBe(2);
    expect(empty.stderr.trim().split('\n')).toHaveLength(1);
    expect(empty.stderr).toContain('--strategies names no strategy');

    const file = join(cwd, 'empty.jsonl');
    writeFileSync(file, '');
    const lint = await runAcon(['lint', file, '--format', 'openai'], { cwd });
    expect(lint.code).toBe(1);
    expect(lint.stdout + lint.stderr).toContain('no examples');
  });
});
