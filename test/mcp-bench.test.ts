import { readFile, rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { Clock } from '../src/clock.js';
import { createMcp, type McpEpisode } from '../src/bench/mcp/index.js';
import type { ReferencePlan } from '../src/bench/types.js';
import { planStepCall } from '../src/bench/plan-call.fixtures.js';
import { countTokens } from '../src/llm/tokenizer.js';
import { runConditions } from '../src/experiment/run-conditions.js';
import { makeEnv } from './helpers/env.js';

const CRASH_DIR = fileURLToPath(new URL('./fixtures/mcp/crash/', import.meta.url));

/** Plays a reference plan's calls as they are (no model): what the benchmark answers to each. */
async function replay(episode: McpEpisode, plan: ReferencePlan) {
  const results = [];
  for (const [i, step] of plan.steps.entries()) {
    results.push(await episode.act(planStepCall(step, `call_${i}`)));
  }
  return results;
}

describe('the shipped mcp tasks', () => {
  const bench = createMcp();

  it('are at least 40 long tasks in train, dev and test, with templates held out in test', async () => {
    expect(await bench.loadProblems()).toEqual([]);
    const tasks = await bench.listTasks();
    expect(tasks.length).toBeGreaterThanOrEqual(40);
    const lengths = tasks.map((t) => t.referenceLength).sort((a, b) => a - b);
    expect(lengths[Math.floor(lengths.length / 2)]).toBeGreaterThanOrEqual(15);
    const templates = (split: string) =>
      new Set(tasks.filter((t) => t.split === split).map((t) => t.template));
    const seen = new Set([...templates('train'), ...templates('dev')]);
    expect(templates('dev').size).toBeGreaterThan(0);
    expect([...templates('test')].filter((t) => seen.has(t))).toEqual([]);
    // Both real servers are used, and some tasks use both.
    const servers = new Set(tasks.flatMap((t) => t.apps));
    expect([...servers].sort()).toEqual(['fs', 'memory']);
  });

  it('are exactly what scripts/bench/gen-mcp-tasks.ts makes from its seeds', async () => {
    const { generateMcpTasks } = await import('../scripts/bench/mcp-tasks/generate.js');
    const { readdir } = await import('node:fs/promises');
    const dir = fileURLToPath(new URL('../tasks/mcp/', import.meta.url));
    const expected = generateMcpTasks();
    const shipped = (await readdir(dir, { recursive: true, withFileTypes: true }))
      .filter((e) => e.isFile())
      .map((e) => `${e.parentPath}/${e.name}`.slice(dir.length).replace(/^\//, ''))
      .sort();
    expect(shipped).toEqual([...expected.keys()].sort());
    const stale: string[] = [];
    for (const [path, content] of expected) {
      if ((await readFile(`${dir}${path}`, 'utf8')) !== content) stale.push(path);
    }
    // A difference means the seeded data changed (a new @faker-js/faker?): rerun the script.
    expect(stale).toEqual([]);
  });

  it('replay their reference plans against the real servers to a success, with long observations', async () => {
    // One file task with state checks (move files) and one graph task (create entity, relations).
    const tasks = await bench.listTasks('test');
    const archive = tasks.find((t) => t.template === 'fs.archive-closed-tickets')!;
    const graph = (await bench.listTasks('dev')).find(
      (t) => t.template === 'memory.record-meeting',
    )!;
    for (const task of [archive, graph]) {
      const episode = await bench.start(task.id);
      try {
        const results = await replay(episode, await bench.referencePlan(task.id));
        expect(results.at(-1)!.done).toBe(true);
        const evaluation = await episode.evaluate();
        expect(evaluation.details.filter((d) => !d.passed)).toEqual([]);
        expect(evaluation.success).toBe(true);
        // The tools are the servers' own, prefixed by server name.
        const names = episode.tools.map((t) => t.function.name);
        expect(names).toContain(task.apps[0] === 'fs' ? 'fs__move_file' : 'memory__open_nodes');
        const longest = Math.max(
          ...results.flatMap((r) => r.messages.map((m) => countTokens(String(m.content)))),
        );
        expect(longest).toBeGreaterThan(1024);
      } finally {
        await episode.close();
      }
    }
  });

  it('score a wrong answer and a missing state change as failures', async () => {
    const task = (await bench.listTasks('test')).find(
      (t) => t.template === 'fs.archive-closed-tickets',
    )!;
    const episode = await bench.start(task.id);
    try {
      await episode.act({
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'c',
            type: 'function',
            function: { name: 'complete_task', arguments: '{"answer":"0"}' },
          },
        ],
      });
      const evaluation = await episode.evaluate();
      expect(evaluation.success).toBe(false);
      expect(evaluation.details.find((d) => d.name === 'answer')!.passed).toBe(false);
      expect(evaluation.details.some((d) => d.name.startsWith('file_absent') && !d.passed)).toBe(
        true,
      );
    } finally {
      await episode.close();
    }
  });
});

describe('a server that fails mid-rollout', () => {
  const dirs: string[] = [];
  afterAll(async () => {
    await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
  });

  it('makes a failed step naming the server and its stderr, and the run finishes', async () => {
    const env = makeEnv({
      provider: 'sim',
      bench: createMcp({ tasksDir: CRASH_DIR }),
      config: { sim: { noise: 0 } },
    });
    const result = await runConditions({
      session: env,
      kind: 'compare',
      params: {
        bench: 'mcp',
        split: 'dev',
        strategies: ['raw'],
        tasks: ['mcp-crash'],
        guidelines: null,
      },
      command: 'test',
    });
    const runId = result.provenance.runId;
    expect(env.store.getRun(runId).status).toBe('finished');
    const [row] = env.store.rollouts(runId);
    expect(row!.status).toBe('error');
    expect(row!.error).toMatch(/^step 2: MCP server "flaky" stopped while running die/);
    expect(row!.error).toContain('fake-mcp: fatal: the disk is on fire');
    expect(row!.success).toBe(false);
    // The step is in the trajectory: the agent's call and the failure as its observation.
    const steps = env.store.stepRecords(row!.id);
    expect(steps).toHaveLength(3);
    expect(JSON.stringify(steps[2]!.observations)).toContain('MCP server \\"flaky\\" stopped');
    expect(row!.episode_meta).toMatchObject({
      failedSteps: [{ step: 2, server: 'flaky', tool: 'flaky__die' }],
    });
    env.store.close();
  });

  it('fails a call that outlives its timeout (injected timers) and stops the rollout', async () => {
    const pending: { fn: () => void; ms: number }[] = [];
    const timers: Pick<Clock, 'setTimeout' | 'clearTimeout'> = {
      setTimeout: (fn, ms) => {
        const t = { fn, ms };
        pending.push(t);
        return t;
      },
      clearTimeout: (h) => {
        const i = pending.indexOf(h as (typeof pending)[number]);
        if (i !== -1) pending.splice(i, 1);
      },
    };
    const bench = createMcp({ tasksDir: CRASH_DIR, timers });
    const episode = await bench.start('mcp-hang');
    try {
      const acting = episode.act({
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'c', type: 'function', function: { name: 'flaky__hang', arguments: '{}' } },
        ],
      });
      // The call is waiting on the server: fire its timeout (the task's timeout_ms).
      await expect.poll(() => pending.find((t) => t.ms === 5000)).toBeDefined();
      pending.find((t) => t.ms === 5000)!.fn();
      for (const t of pending.splice(0)) t.fn();
      const result = await acting;
      expect(result.done).toBe(true);
      expect(result.error).toMatch(/MCP server "flaky" did not answer hang within 5000 ms/);
      expect((await episode.evaluate()).success).toBe(false);
    } finally {
      const closing = episode.close();
      for (let i = 0; i < 50 && pending.length === 0; i++)
        await new Promise((r) => setImmediate(r));
      for (const t of pending.splice(0)) t.fn();
      await closing;
    }
  });

  it('fails to start with the command and the server stderr', async () => {
    const { mkdtemp, writeFile } = await import('node:fs/promises');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const dir = await mkdtemp(join(tmpdir(), 'acon-mcp-bad-'));
    dirs.push(dir);
    await writeFile(
      join(dir, 'bad.yaml'),
      [
        'id: bad',
        'split: dev',
        'instruction: x',
        'servers:',
        '  broken:',
        '    command: ${node}',
        '    args: ["-e", "console.error(\'cannot open the database\'); process.exit(2)"]',
        'evaluation:',
        '  answer: x',
      ].join('\n'),
    );
    const bench = createMcp({ tasksDir: dir });
    await expect(bench.start('bad')).rejects.toThrow(
      /MCP server "broken" could not be started[\s\S]*cannot open the database/,
    );
    expect(await readFile(join(dir, 'bad.yaml'), 'utf8')).toContain('broken');
  });
});

describe('a task that offers a tool its server does not have', () => {
  it('is refused with every tool the server has, not the filtered list', async () => {
    const { mkdtemp, writeFile } = await import('node:fs/promises');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const dir = await mkdtemp(join(tmpdir(), 'acon-mcp-tools-'));
    const fake = fileURLToPath(new URL('./fakes/fake-mcp-server.mjs', import.meta.url));
    await writeFile(
      join(dir, 'typo.yaml'),
      [
        'id: typo',
        'split: dev',
        'instruction: x',
        'servers:',
        '  fake:',
        '    command: ${node}',
        `    args: [${JSON.stringify(fake)}]`,
        '    tools: [echo, no_such_tool]',
        'evaluation:',
        '  answer: x',
      ].join('\n'),
    );
    await expect(createMcp({ tasksDir: dir }).start('typo')).rejects.toThrow(
      'has no tool no_such_tool (it has echo, die, hang)',
    );
    await rm(dir, { recursive: true, force: true });
  });
});

describe('the task file example of docs/benchmarks.md', () => {
  it('loads and its reference plan succeeds against the real servers', async () => {
    const { mkdir, mkdtemp, writeFile } = await import('node:fs/promises');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const doc = await readFile(new URL('../docs/benchmarks.md', import.meta.url), 'utf8');
    const section = doc.slice(doc.indexOf('### Writing a task file'));
    const yaml = /```yaml\n([\s\S]*?)\n```/.exec(section)![1]!;
    const dir = await mkdtemp(join(tmpdir(), 'acon-mcp-doc-'));
    try {
      await mkdir(join(dir, 'drive/notes'), { recursive: true });
      await writeFile(join(dir, 'drive/notes/q1.md'), 'Q1 budget: 4200 USD\n');
      await writeFile(join(dir, 'graph.jsonl'), '');
      await writeFile(join(dir, 'budget-summary.yaml'), yaml);
      const bench = createMcp({ tasksDir: dir });
      expect(await bench.loadProblems()).toEqual([]);
      const episode = await bench.start('budget-summary');
      try {
        expect(episode.tools.map((t) => t.function.name).slice(0, 3)).toEqual([
          'fs__read_text_file',
          'fs__write_file',
          'fs__list_directory',
        ]);
        await replay(episode, await bench.referencePlan('budget-summary'));
        expect(await episode.evaluate()).toMatchObject({ success: true, score: 1 });
      } finally {
        await episode.close();
      }

      // The simulated agent, not the plan: the filesystem server answers in plain text (a
      // listing, then the file's text), and the agent reads the total from it (issue #58).
      const env = makeEnv({ provider: 'sim', bench, config: { sim: { noise: 0 } } });
      const result = await runConditions({
        session: env,
        kind: 'compare',
        params: {
          bench: 'mcp',
          split: 'train',
          strategies: ['raw'],
          tasks: ['budget-summary'],
          guidelines: null,
        },
        command: 'test',
      });
      const [row] = env.store.rollouts(result.provenance.runId);
      expect(row!.evaluation.details.filter((d) => !d.passed)).toEqual([]);
      expect(row!.success).toBe(true);
      env.store.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('a server over streamable HTTP', () => {
  it('offers its tools, answers with structured content, sends the headers and ends the session', async () => {
    const { FakeMcpHttpServer } = await import('./fakes/fake-mcp-http-server.js');
    const { mkdtemp, writeFile } = await import('node:fs/promises');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const server = await FakeMcpHttpServer.start({ 'launch-date': '2026-06-01' });
    const dir = await mkdtemp(join(tmpdir(), 'acon-mcp-http-'));
    try {
      await writeFile(
        join(dir, 'http.yaml'),
        [
          'id: http',
          'split: dev',
          'instruction: When is the launch?',
          'servers:',
          '  kv:',
          `    url: ${server.url}`,
          '    headers: { Authorization: "Bearer ${env:KV_TOKEN}" }',
          'evaluation:',
          '  answer: "2026-06-01"',
        ].join('\n'),
      );
      const bench = createMcp({ tasksDir: dir, env: { KV_TOKEN: 'tok-1' } });
      const episode = await bench.start('http');
      const call = (name: string, args: string) =>
        episode.act({
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c', type: 'function', function: { name, arguments: args } }],
        });
      try {
        expect(episode.tools.map((t) => t.function.name)).toEqual(['kv__lookup', 'complete_task']);
        const found = await call('kv__lookup', '{"key":"launch-date"}');
        expect(JSON.parse(found.messages[0]!.content as string)).toEqual({
          key: 'launch-date',
          value: '2026-06-01',
        });
        const missing = await call('kv__lookup', '{"key":"budget"}');
        expect(missing.messages[0]!.content).toBe('Error: no key budget');
        expect(missing.error).toBeUndefined();
        await call('complete_task', '{"answer":"2026-06-01"}');
        expect((await episode.evaluate()).success).toBe(true);
      } finally {
        await episode.close();
      }
      expect(server.authorization.every((a) => a === 'Bearer tok-1')).toBe(true);
      expect(server.opened).toHaveLength(1);
      expect(server.ended).toEqual(server.opened);
    } finally {
      await server.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
