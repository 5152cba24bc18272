import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteRunStore } from '../src/store/run-store.js';
import { appWorldAgentHandler } from './fakes/appworld-agent-handler.js';
import {
  FAKE_APPWORLD_TASKS,
  FakeAppWorldServer,
  type FakeAppWorldTask,
} from './fakes/fake-appworld-server.js';
import { FakeOpenAiServer } from './fakes/fake-openai-server.js';
import { runAcon, tempDir } from './helpers/cli.js';
import { unusedPort } from './helpers/loopback.js';

/**
 * Issue 8, end to end: the compiled CLI (`npm run build` first) drives fake AppWorld
 * environment servers with a fake OpenAI-compatible model playing the code agent and every
 * other role (test/fakes/appworld-agent-handler.ts). The scripted agent solves fake_song_1 and
 * fake_note_1 and answers fake_count_1 off by one.
 */

const KEY = 'sk-test-appworld-e2e-0a1b2c';

/** A fourth task for the parallel test: the fake server knows three. */
const SONG_2: FakeAppWorldTask = {
  id: 'fake_song_2',
  instruction: 'What is the title of the song with id 1 in my Spotify library?',
  answer: 'Harbor Lights',
};

/** Compress every observation of a fake task and fold the history from the third step on. */
const COMPRESSING_CONFIG = 'context:\n  t_obs: 20\n  t_hist: 40\n';

const appworldServers: FakeAppWorldServer[] = [];
let llm: FakeOpenAiServer | undefined;

afterEach(async () => {
  await Promise.all(appworldServers.splice(0).map((s) => s.close()));
  await llm?.close();
  llm = undefined;
});

async function startAppWorld(tasks: readonly FakeAppWorldTask[] = FAKE_APPWORLD_TASKS) {
  const server = await FakeAppWorldServer.start({ tasks, name: `aw${appworldServers.length}` });
  appworldServers.push(server);
  return server;
}

async function startModel(): Promise<FakeOpenAiServer> {
  llm = await FakeOpenAiServer.start({ handler: appWorldAgentHandler() });
  return llm;
}

function openaiEnv(model: FakeOpenAiServer): Record<string, string> {
  return { OPENAI_BASE_URL: model.url, OPENAI_API_KEY: KEY };
}

function readStore<T>(cwd: string, read: (store: SqliteRunStore) => T): T {
  const store = new SqliteRunStore(join(cwd, 'runs', 'acon.db'));
  try {
    return read(store);
  } finally {
    store.close();
  }
}

describe('acon run --bench appworld', () => {
  it('runs tasks end to end and stores outcomes with the failed requirements', async () => {
    const [world, model] = [await startAppWorld(), await startModel()];
    const cwd = tempDir();
    const res = await runAcon(
      [
        'run',
        '--bench',
        'appworld',
        '--tasks',
        'fake_song_1,fake_count_1',
        '--provider',
        'openai',
        '--appworld-url',
        world.url,
      ],
      { cwd, env: openaiEnv(model) },
    );
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect(res.stdout).toContain('appworld/dev · provider openai · agent openai/');
    expect(res.stdout).not.toContain('SIMULATED');
    expect(res.stdout).toMatch(/^acon\[obs-0000,hist-0000\]\s+2\s+50\.0 \[/m);

    // The agent looked the API up, fetched, then completed: three /execute calls per task.
    expect(world.handled).toEqual(['fake_song_1', 'fake_count_1']);
    expect(world.count('/execute')).toBe(6);
    expect(world.answers).toEqual(
      new Map([
        ['fake_song_1', 'Paper Lanterns'],
        ['fake_count_1', '4'],
      ]),
    );
    expect(model.chatRequests.every((r) => r.headers.authorization === `Bearer ${KEY}`)).toBe(true);

    const runId = /as run (\S+)/.exec(res.stdout)?.[1] ?? '';
    const { run, rollouts } = readStore(cwd, (store) => ({
      run: store.getRun(runId),
      rollouts: store.rollouts(runId),
    }));
    expect(run).toMatchObject({ status: 'finished', provider: 'openai', bench: 'appworld' });
    expect(Boolean(run.simulated)).toBe(false);
    const byTask = new Map(rollouts.map((r) => [r.task_id, r]));
    expect(byTask.get('fake_song_1')).toMatchObject({ success: true, score: 1, steps: 3 });
    const failed = byTask.get('fake_count_1');
    expect(failed).toMatchObject({ success: false, score: 0.5, steps: 3, split: 'custom' });
    expect(failed?.evaluation.details).toEqual([
      {
        name: 'assert the task was completed with apis.supervisor.complete_task',
        passed: true,
        detail: 'no_op_fail',
      },
      {
        name: 'assert the answer is correct',
        passed: false,
        detail: expect.stringContaining('AssertionError: "4" != "3"') as unknown,
      },
    ]);
  });

  it('spreads tasks over several servers, one world per server at a time', async () => {
    const tasks = [...FAKE_APPWORLD_TASKS, SONG_2];
    const [a, b, model] = [
      await startAppWorld(tasks),
      await startAppWorld(tasks),
      await startModel(),
    ];
    // No server answers code until both hold a world: the two are busy at once, whatever the
    // machine's load (a barrier, not a delay).
    let bothBusy!: () => void;
    const barrier = new Promise<void>((r) => (bothBusy = r));
    a.beforeExecute = b.beforeExecute = () => {
      if (a.handled.length > 0 && b.handled.length > 0) bothBusy();
      return barrier;
    };
    const cwd = tempDir();
    const res = await runAcon(
      [
        'run',
        '--bench',
        'appworld',
        '--provider',
        'openai',
        '--strategy',
        'raw',
        '--appworld-url',
        a.url,
        b.url,
        '--concurrency',
        '2',
        '--tasks',
        tasks.map((t) => t.id).join(','),
      ],
      { cwd, env: openaiEnv(model) },
    );
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/^raw\s+4\s+75\.0 \[/m);
    expect(a.handled.length).toBeGreaterThan(0);
    expect(b.handled.length).toBeGreaterThan(0);
    expect([...a.handled, ...b.handled].sort()).toEqual(tasks.map((t) => t.id).sort());
    for (const server of [a, b]) {
      expect(server.overlaps).toBe(0);
      expect(server.maxInFlight).toBe(1);
    }
    // And the two servers were busy at the same time: some rollouts overlap.
    const runId = /as run (\S+)/.exec(res.stdout)?.[1] ?? '';
    const spans = readStore(cwd, (store) => store.rollouts(runId)).map((r) => [
      Date.parse(r.started_at),
      Date.parse(r.finished_at),
    ]);
    const overlapping = spans.some(([s1 = 0, e1 = 0], i) =>
      spans.some(([s2 = 0, e2 = 0], j) => i !== j && s1 < e2 && s2 < e1),
    );
    expect(overlapping).toBe(true);
  });

  it('fails at once with how to start a server when none is running', async () => {
    const port = await unusedPort();
    const res = await runAcon(
      [
        'run',
        '--bench',
        'appworld',
        '--tasks',
        'x',
        '--provider',
        'openai',
        '--appworld-url',
        `http://127.0.0.1:${port}`,
      ],
      { cwd: tempDir(), env: { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', OPENAI_API_KEY: KEY } },
    );
    // Fail-fast is structural (one TCP probe, no retries; see appworld-client.test.ts), so no
    // wall-clock bound here: the single line says what to do.
    expect(res.code).not.toBe(0);
    expect(res.stdout).toBe('');
    const lines = res.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`no AppWorld environment server at http://127.0.0.1:${port}`);
    expect(lines[0]).toContain('appworld serve environment --port 8000');
    expect(lines[0]).toContain('--bench apptown');
    expect(res.stderr).not.toContain('    at ');
  });

  it('refuses the sim provider, which needs reference solutions', async () => {
    const world = await startAppWorld();
    const res = await runAcon(
      ['run', '--bench', 'appworld', '--tasks', 'fake_song_1', '--appworld-url', world.url],
      { cwd: tempDir() },
    );
    expect(res.code).toBe(2);
    expect(res.stderr.trim()).toBe(
      'error: the sim provider needs reference solutions, which appworld does not have; use --provider openai (or --bench apptown to run offline)',
    );
    expect(world.count()).toBe(0);
  });
});

describe('acon compare and optimize --bench appworld', () => {
  it('compares strategies on the same tasks, compressing with the obs and hist compressors', async () => {
    const [world, model] = [await startAppWorld(), await startModel()];
    const cwd = tempDir();
    writeFileSync(join(cwd, 'acon.config.yaml'), COMPRESSING_CONFIG);
    const res = await runAcon(
      [
        'compare',
        '--bench',
        'appworld',
        '--provider',
        'openai',
        '--strategies',
        'raw,masking,acon',
        '--tasks',
        'fake_song_1,fake_count_1,fake_note_1',
        '--appworld-url',
        world.url,
      ],
      { cwd, env: openaiEnv(model) },
    );
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect(res.stdout).toContain('appworld/dev · provider openai');
    expect(res.stdout).toMatch(/^raw\s+3\s+66\.7 \[/m);
    expect(res.stdout).toMatch(/^masking\s+3\s+66\.7 \[/m);
    // v0 keeps no titles: the compressed song task fails.
    expect(res.stdout).toMatch(/^acon\[obs-0000,hist-0000\]\s+3\s+33\.3 \[/m);
    expect(world.handled).toHaveLength(9);
    expect(world.overlaps).toBe(0);
    const roles = model.chatRequests.map((r) => r.body?.messages[0]?.content ?? '');
    expect(roles.some((s) => s.includes('# Refined Observation'))).toBe(true);
    expect(roles.some((s) => s.includes('# History Summary'))).toBe(true);
  });

  it('optimizes guidelines on AppWorld tasks and prints its stages and final tables', async () => {
    const [world, model] = [await startAppWorld(), await startModel()];
    const cwd = tempDir();
    writeFileSync(join(cwd, 'acon.config.yaml'), COMPRESSING_CONFIG);
    const res = await runAcon(
      [
        'optimize',
        '--bench',
        'appworld',
        '--provider',
        'openai',
        // A paid-run estimate above $5 asks first (issue #24); the fake model costs nothing.
        '--yes',
        '--tasks',
        'fake_song_1,fake_count_1,fake_note_1',
        '--train-split',
        'x',
        '--select-split',
        'x',
        '--eval-split',
        'x',
        '--candidates',
        '2',
        '--max-tasks',
        '3',
        '--appworld-url',
        world.url,
      ],
      { cwd, env: openaiEnv(model) },
    );
    expect(res.code, res.stderr).toBe(0);
    // stderr carries the plan, the stage log (the progress display) and one warning: the same
    // three tasks train, select and evaluate (issue #24); nothing else, and in particular no
    // MaxListenersExceededWarning from the endpoint queue.
    const [first, ...rest] = res.stderr.split('\n');
    expect(first).toMatch(/^warning: the same tasks serve several roles .* not held out/);
    expect(rest.join('\n')).not.toMatch(/warning|error/i);
    expect(res.stderr).toContain('plan: ut:obs:r1');
    expect(res.stdout).toContain('stages:');
    for (const stage of ['ut:obs:r1', 'ut:hist:r1', 'co:obs:r1', 'co:hist:r1']) {
      expect(res.stdout).toContain(`  ${stage} (isolated): `);
    }
    // The utility phase's candidate solves the one failed compressed song task it learned from,
    // and nothing else changes: 1 won / 0 lost of 3 is a sign-test p of 1/2, not accepted at
    // alpha 0.1 (issue 56), so every phase keeps v0 and the rows merge (A=B).
    expect(res.stdout).toMatch(
      /ut:obs:r1 \(isolated\): 1 contrastive pairs on train, 1 analyses \(0 failed\), 2 candidates →\s+kept\s+obs-0000/,
    );
    expect(res.stdout).toMatch(
      /obs-0001 rejected: more solved but not significant: 1 won \/ 0 lost of 3/,
    );
    expect(res.stdout).toContain('appworld/x · provider openai');
    expect(res.stdout).toMatch(/^raw\s+raw\s+3\s+66\.7 \[/m);
    expect(res.stdout).toMatch(/^v0 obs=UT obs=UTCO obs\s+acon\[obs-0000,-\]\s+3\s+33\.3 \[/m);
    expect(res.stdout).toMatch(
      /^verdict pair: no guideline beat v0 on selection; v0 stays active/m,
    );
    expect(res.stdout).toContain('final guidelines: obs-');
    expect(world.overlaps).toBe(0);
    const formats = new Set(
      model.chatRequests.map(
        (r) =>
          (r.body?.response_format as { json_schema?: { name: string } } | undefined)?.json_schema
            ?.name,
      ),
    );
    expect(formats).toEqual(
      new Set([undefined, 'utility_analysis', 'compression_analysis', 'guideline_update']),
    );
  });
});
