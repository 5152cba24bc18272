import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { experimentName } from '../src/bench/appworld/index.js';
import { SqliteRunStore } from '../src/store/run-store.js';
import { appWorldAgentHandler } from './fakes/appworld-agent-handler.js';
import { FakeAppWorldServer, type FakeAppWorldTask } from './fakes/fake-appworld-server.js';
import { FakeOpenAiServer, reply } from './fakes/fake-openai-server.js';
import { runAcon, tempDir } from './helpers/cli.js';
import { unusedPort } from './helpers/loopback.js';

/**
 * Issue 12, end to end with the compiled CLI (`npm run build` first): an AppWorld install made
 * of dataset files only (`$APPWORLD_ROOT/data/datasets/<split>.txt`), a fake AppWorld server
 * that keeps its outputs under that root like the real one, and a fake OpenAI-compatible model
 * (test/fakes/appworld-agent-handler.ts: it solves song and note tasks, answers counting tasks
 * off by one). Task ids look like AppWorld's, `<scenario>_<n>`.
 */

const KEY = 'sk-test-appworld-splits-9f8e';

const song = (id: string, songId: number, title: string): FakeAppWorldTask => ({
  id,
  instruction: `What is the title of the song with id ${songId} in my Spotify library?`,
  answer: title,
});
const count = (id: string): FakeAppWorldTask => ({
  id,
  instruction: 'How many songs are in my Spotify library?',
  answer: '3',
});
const note = (id: string): FakeAppWorldTask => ({
  id,
  instruction: 'Create a note titled "groceries" with the body "milk, eggs" in my notes app.',
  answer: null,
});

/** Per split: the tasks; each split has one scenario that fails (a counting task in it). */
const SPLITS: Record<string, FakeAppWorldTask[]> = {
  train: [
    song('a1a1a1a_1', 3, 'Paper Lanterns'),
    song('a1a1a1a_2', 1, 'Harbor Lights'),
    count('b2b2b2b_1'),
  ],
  dev: [song('c3c3c3c_1', 2, 'Cinder Road'), count('c3c3c3c_2'), note('d4d4d4d_1')],
  test_normal: [song('e5e5e5e_1', 3, 'Paper Lanterns'), note('e5e5e5e_2'), count('f6f6f6f_1')],
  test_challenge: [song('g7g7g7g_1', 2, 'Cinder Road')],
};
const ALL_TASKS = Object.values(SPLITS).flat();

/** An AppWorld root holding only the dataset files (AppWorld's own data is not ours to ship). */
function appworldRoot(): string {
  const root = tempDir('acon-appworld-root-');
  mkdirSync(join(root, 'data', 'datasets'), { recursive: true });
  for (const [split, tasks] of Object.entries(SPLITS)) {
    writeFileSync(
      join(root, 'data', 'datasets', `${split}.txt`),
      `${tasks.map((t) => t.id).join('\n')}\n`,
    );
  }
  return root;
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((c) => c()));
});

async function startWorld(root: string): Promise<FakeAppWorldServer> {
  const server = await FakeAppWorldServer.start({ tasks: ALL_TASKS, root });
  closers.push(() => server.close());
  return server;
}

async function startModel(): Promise<FakeOpenAiServer> {
  const model = await FakeOpenAiServer.start({ handler: appWorldAgentHandler() });
  closers.push(() => model.close());
  return model;
}

function readRollouts(cwd: string, runId: string) {
  const store = new SqliteRunStore(join(cwd, 'runs', 'acon.db'));
  try {
    return store.rollouts(runId);
  } finally {
    store.close();
  }
}

describe('acon tasks list --bench appworld', () => {
  it('lists exactly the ids of $APPWORLD_ROOT/data/datasets/train.txt, with no server', async () => {
    const root = appworldRoot();
    const res = await runAcon(
      ['tasks', 'list', '--bench', 'appworld', '--split', 'train', '--json'],
      {
        cwd: tempDir(),
        env: { APPWORLD_ROOT: root },
      },
    );
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    const listed = JSON.parse(res.stdout) as { id: string; split: string }[];
    expect(listed.map((t) => t.id)).toEqual(SPLITS.train!.map((t) => t.id));
    expect(new Set(listed.map((t) => t.split))).toEqual(new Set(['train']));
  });

  it('reads appworld.root from the config, and lists every split without --split', async () => {
    const root = appworldRoot();
    const cwd = tempDir();
    writeFileSync(join(cwd, 'acon.config.yaml'), `appworld:\n  root: ${JSON.stringify(root)}\n`);
    const res = await runAcon(['tasks', 'list', '--bench', 'appworld'], {
      cwd,
      env: { APPWORLD_ROOT: '' },
    });
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    for (const t of ALL_TASKS) expect(res.stdout).toContain(t.id);
    expect(res.stdout).toContain('10 tasks (train 3, dev 3, test_normal 3, test_challenge 1)');
  });

  it('shows instructions from GET /tasks/{id} when a server answers, without initializing', async () => {
    const root = appworldRoot();
    const server = await startWorld(root);
    const cwd = tempDir();
    writeFileSync(join(cwd, 'acon.config.yaml'), `appworld:\n  urls: [${server.url}]\n`);
    const env = { APPWORLD_ROOT: root };
    const res = await runAcon(
      ['tasks', 'list', '--bench', 'appworld', '--split', 'dev', '--json'],
      { cwd, env },
    );
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    const listed = JSON.parse(res.stdout) as { id: string; instruction: string }[];
    expect(listed.map((t) => [t.id, t.instruction])).toEqual(
      SPLITS.dev!.map((t) => [t.id, t.instruction]),
    );
    const shown = await runAcon(['tasks', 'show', 'a1a1a1a_2', '--bench', 'appworld'], {
      cwd,
      env,
    });
    expect(shown.stderr).toBe('');
    expect(shown.stdout).toContain(
      'What is the title of the song with id 1 in my Spotify library?',
    );
    expect(server.count('/initialize')).toBe(0);
    expect(server.requests.filter((r) => r.route.startsWith('/tasks/'))).toHaveLength(4);
  });

  it('refuses a split AppWorld does not have, naming the ones it has', async () => {
    const res = await runAcon(['tasks', 'list', '--bench', 'appworld', '--split', 'test'], {
      cwd: tempDir(),
      env: { APPWORLD_ROOT: appworldRoot() },
    });
    expect(res.code).toBe(2);
    expect(res.stdout).toBe('');
    expect(res.stderr.trim()).toBe(
      'error: --split: appworld has no split "test"; use one of train, dev, test_normal, test_challenge',
    );
  });
});

describe('acon optimize --bench appworld', () => {
  it('prints the plan of the default splits with no server running (--dry-run)', async () => {
    const port = await unusedPort();
    const cwd = tempDir();
    const res = await runAcon(
      [
        'optimize',
        '--bench',
        'appworld',
        '--dry-run',
        '--appworld-url',
        `http://127.0.0.1:${port}`,
      ],
      { cwd, env: { APPWORLD_ROOT: appworldRoot() } },
    );
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect(res.stdout).toContain('tasks: 3 train, 3 selection, 3 evaluation');
    expect(res.stdout).toMatch(/cost \(estimate\): ~\$\d+\.\d\d at most/);
    expect(res.stdout).toContain('appworld needs a real model; run it with --provider openai');
    expect(res.stdout).not.toContain('SIMULATED');
  });

  it('runs to the end with no split flags: train, dev, then test_normal; SGC in --json', async () => {
    const root = appworldRoot();
    const [world, model] = [await startWorld(root), await startModel()];
    const cwd = tempDir();
    writeFileSync(join(cwd, 'acon.config.yaml'), 'context:\n  t_obs: 20\n  t_hist: 40\n');
    const res = await runAcon(
      [
        'optimize',
        '--bench',
        'appworld',
        '--provider',
        'openai',
        // A paid-run estimate above $5 asks first (issue #24); the fake model costs nothing.
        '--yes',
        '--candidates',
        '2',
        '--appworld-url',
        world.url,
        '--json',
      ],
      { cwd, env: { APPWORLD_ROOT: root, OPENAI_BASE_URL: model.url, OPENAI_API_KEY: KEY } },
    );
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    const result = JSON.parse(res.stdout) as {
      runId: string;
      plan: { tasks: { train: number; select: number; eval: number } };
      tables: { split: string; rows: { version: string; accuracy: number; sgc?: number }[] }[];
    };
    expect(result.plan.tasks).toEqual({ train: 3, select: 3, eval: 3 });
    expect(result.tables.map((t) => t.split)).toEqual(['dev', 'test_normal']);
    // raw solves the song and note tasks and fails the counting one in each split: 2 of 3 tasks,
    // 1 of 2 scenarios (the counting task's scenario fails as a whole).
    for (const t of result.tables) {
      const raw = t.rows.find((r) => r.version === 'raw');
      expect(raw).toMatchObject({ accuracy: 2 / 3, sgc: 0.5 });
    }

    // Split discipline: test_challenge is never touched; every task ran in the split it belongs to.
    const rollouts = readRollouts(cwd, result.runId);
    expect(rollouts.some((r) => r.task_id.startsWith('g7'))).toBe(false);
    for (const r of rollouts) {
      const split = Object.entries(SPLITS).find(([, ts]) => ts.some((t) => t.id === r.task_id));
      expect(r.split).toBe(split?.[0]);
    }

    // One experiment per (run, condition): recorded with the rollout, its outputs kept apart.
    for (const r of rollouts) {
      const name = experimentName('acon', result.runId, r.condition);
      expect(r.episode_meta).toMatchObject({ experiment_name: name, timed_out_steps: [] });
      const log = join(world.outputDir(name, r.task_id), 'logs', 'environment_io.md');
      expect(readFileSync(log, 'utf8')).toContain('apis.supervisor.complete_task');
    }
    const inits = world.experimentNames.map((n, i) => `${n}/${world.handled[i]}`);
    expect(new Set(inits).size).toBe(inits.length);
    expect(world.clobbered).toBe(0);
    expect(world.overlaps).toBe(0);
  });
});

describe('experiment names of AppWorld conditions', () => {
  it('gives two conditions of one task two experiment names and two output folders', async () => {
    const root = appworldRoot();
    const [world, model] = [await startWorld(root), await startModel()];
    const cwd = tempDir();
    const res = await runAcon(
      [
        'compare',
        '--bench',
        'appworld',
        '--provider',
        'openai',
        '--strategies',
        'raw,masking',
        '--tasks',
        'a1a1a1a_1',
        '--appworld-url',
        world.url,
      ],
      { cwd, env: { APPWORLD_ROOT: root, OPENAI_BASE_URL: model.url, OPENAI_API_KEY: KEY } },
    );
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/^raw\s+1\s+100\.0 \[100\.0–100\.0\]\s+100\.0\s/m);
    const runId = /as run (\S+)/.exec(res.stdout)?.[1] ?? '';
    const names = world.experimentNames;
    expect(names).toHaveLength(2);
    expect(new Set(names)).toEqual(
      new Set([experimentName('acon', runId, 'raw'), experimentName('acon', runId, 'masking')]),
    );
    for (const name of names) {
      expect(
        existsSync(join(world.outputDir(name, 'a1a1a1a_1'), 'logs', 'environment_io.md')),
      ).toBe(true);
    }
    expect(world.clobbered).toBe(0);
  });

  it('reuses the experiment name of an interrupted rollout on --resume', async () => {
    const root = appworldRoot();
    const world = await startWorld(root);
    // The model fails every agent call of one task until the test lets it answer.
    let broken = true;
    const model = await FakeOpenAiServer.start({
      handler: appWorldAgentHandler({
        override: (role, req) =>
          broken && role === 'agent' && JSON.stringify(req.body).includes('with id 1 ')
            ? reply.error(400, 'model unavailable')
            : undefined,
      }),
    });
    closers.push(() => model.close());
    const cwd = tempDir();
    writeFileSync(
      join(cwd, 'acon.config.yaml'),
      'endpoints:\n  default:\n    base_url: http://127.0.0.1:9/v1\n    max_retries: 0\n',
    );
    const env = { APPWORLD_ROOT: root, OPENAI_BASE_URL: model.url, OPENAI_API_KEY: KEY };
    const args = [
      'run',
      '--bench',
      'appworld',
      '--provider',
      'openai',
      '--strategy',
      'raw',
      '--split',
      'train',
      '--concurrency',
      '1',
      '--appworld-url',
      world.url,
    ];
    const first = await runAcon(args, { cwd, env });
    expect(first.code).not.toBe(0);
    const store = new SqliteRunStore(join(cwd, 'runs', 'acon.db'));
    const runId = store.listRuns()[0]?.id ?? '';
    store.close();
    expect(runId).toMatch(/^run-/);
    const before = world.experimentNames.length;
    broken = false;
    const resumed = await runAcon(
      [
        'run',
        '--resume',
        runId,
        '--bench',
        'appworld',
        '--provider',
        'openai',
        '--appworld-url',
        world.url,
      ],
      { cwd, env },
    );
    expect(resumed.stderr).toBe('');
    expect(resumed.code).toBe(0);
    // Every initialization, before and after the resume, used the run's one raw experiment name.
    expect(world.experimentNames.length).toBeGreaterThan(before);
    expect(new Set(world.experimentNames)).toEqual(new Set([experimentName('acon', runId, 'raw')]));
    expect(readRollouts(cwd, runId)).toHaveLength(3);
  });
});
