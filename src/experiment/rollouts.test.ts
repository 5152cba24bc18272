import { describe, expect, it } from 'vitest';
import { countMessageTokens } from '../llm/tokenizer.js';
import type { ChatMessage, ToolDef } from '../llm/types.js';
import { ScriptedLlm } from '../../test/fakes/scripted-llm.js';
import type { Benchmark, TaskInfo } from '../bench/types.js';
import { ConfigSchema } from '../config/schema.js';
import { InterruptedError, RolloutLimitError } from '../errors.js';
import { SqliteRunStore } from '../store/run-store.js';
import { makeCondition } from './condition.js';
import { runRollouts, sharedPrefixTokens } from './rollouts.js';
import { simRun } from '../../test/helpers/store.js';

const tools: ToolDef[] = [
  { type: 'function', function: { name: 'f', description: 'd', parameters: {} } },
];
const system: ChatMessage = { role: 'system', content: 'You are an agent.' };
const task: ChatMessage = { role: 'user', content: 'Do the task.' };
const turn = (i: number): ChatMessage[] => [
  {
    role: 'assistant',
    content: null,
    tool_calls: [
      { id: `c${i}`, type: 'function', function: { name: 'f', arguments: `{"i":${i}}` } },
    ],
  },
  { role: 'tool', tool_call_id: `c${i}`, content: `result ${i}` },
];

describe('sharedPrefixTokens', () => {
  it('counts the leading messages a prompt shares with the one before, by content', () => {
    const t0 = turn(0);
    const t1 = turn(1);
    const steps = [
      { callId: 1, prompt: [system, task] },
      { callId: 2, prompt: [system, task, ...t0] },
      // Rebuilt copies with the same content share as much as the objects themselves.
      { callId: 3, prompt: [{ ...system }, { ...task }, ...t0.map((m) => ({ ...m })), ...t1] },
      // A compressed history: only the system prompt and the task remain in common.
      { callId: 4, prompt: [system, task, { role: 'user', content: 'summary' } as ChatMessage] },
    ];
    const shared = sharedPrefixTokens(steps, tools);
    expect([...shared.keys()]).toEqual([2, 3, 4]);
    expect(shared.get(2)).toBe(countMessageTokens([system, task], tools));
    expect(shared.get(3)).toBe(countMessageTokens([system, task, ...t0], tools));
    expect(shared.get(4)).toBe(countMessageTokens([system, task], tools));
  });

  it('is 0 when even the first message differs', () => {
    const other: ChatMessage = { role: 'system', content: 'Another system prompt.' };
    const shared = sharedPrefixTokens(
      [
        { callId: 1, prompt: [system, task] },
        { callId: 2, prompt: [other, task] },
      ],
      tools,
    );
    expect(shared.get(2)).toBe(0);
  });
});

describe('runRollouts', () => {
  const STEPS = 3;
  const tasks: TaskInfo[] = Array.from({ length: 8 }, (_, i) => ({
    id: `t${i}`,
    split: 'dev',
    instruction: `task ${i}`,
    apps: [],
    difficulty: 1,
    referenceLength: STEPS,
  }));

  /** A benchmark whose episodes end after STEPS tool calls; it logs prepare and start. */
  function standIn(prepare?: (id: string) => Promise<void>) {
    const log: string[] = [];
    const bench: Benchmark = {
      name: 'stand-in',
      listTasks: async () => tasks,
      getTask: async (id) => tasks.find((t) => t.id === id)!,
      ...(prepare
        ? { prepare: async (id: string) => (log.push(`prepare ${id}`), prepare(id)) }
        : {}),
      start: async (id) => {
        log.push(`start ${id}`);
        let step = 0;
        return {
          task: tasks.find((t) => t.id === id)!,
          systemPrompt: 'system',
          firstUserMessage: 'task',
          tools,
          act: async (m) => ({
            messages: [{ role: 'tool', tool_call_id: m.tool_calls![0]!.id, content: 'ok' }],
            done: ++step >= STEPS,
          }),
          evaluate: async () => ({ success: true, score: 1, details: [] }),
          close: async () => {},
        };
      },
    };
    return { bench, log };
  }

  async function run(
    bench: Benchmark,
    concurrency: number,
    opts: { signal?: AbortSignal; onSave?: (taskId: string) => void; maxRollouts?: number } = {},
  ) {
    const store = new SqliteRunStore(':memory:');
    const config = ConfigSchema.parse({});
    store.createRun(simRun('r', { bench: 'stand-in' }));
    if (opts.onSave) {
      const save = store.saveRollout.bind(store);
      store.saveRollout = (rollout) => {
        opts.onSave!(rollout.taskId);
        save(rollout);
      };
    }
    let n = 0;
    const llm = new ScriptedLlm({
      agent: () => ({
        role: 'assistant',
        content: null,
        tool_calls: [{ id: `c${n++}`, type: 'function', function: { name: 'f', arguments: '{}' } }],
      }),
    });
    const condition = makeCondition('raw');
    try {
      await runRollouts({
        runId: 'r',
        bench,
        jobs: tasks.map((task) => ({ condition, task })),
        llm,
        store,
        config,
        concurrency,
        ...(opts.signal ? { signal: opts.signal } : {}),
        maxRollouts: opts.maxRollouts ?? null,
      });
      return store.rollouts('r').length;
    } finally {
      stored = store.rollouts('r').map((r) => r.task_id);
      store.close();
    }
  }
  /** Task ids of the rollouts the last `run` stored. */
  let stored: string[] = [];

  it('starts the next rollout before committing the one that ended, and commits every one', async () => {
    const { bench, log } = standIn();
    expect(await run(bench, 1, { onSave: (id) => log.push(`save ${id}`) })).toBe(tasks.length);
    // With one slot: t1 starts as soon as t0's episode is over, and t0 is stored after that.
    expect(log.indexOf('start t1')).toBeLessThan(log.indexOf('save t0'));
    expect(log.filter((l) => l.startsWith('save'))).toEqual(tasks.map((t) => `save ${t.id}`));
  });

  it('still stores the rollouts that ended before a Ctrl-C, then reports the interruption', async () => {
    const abort = new AbortController();
    const { bench } = standIn();
    const start = bench.start.bind(bench);
    bench.start = (id, ctx) => {
      if (id === 't2') abort.abort();
      return start(id, ctx);
    };
    await expect(run(bench, 1, { signal: abort.signal })).rejects.toBeInstanceOf(InterruptedError);
    expect(stored).toEqual(['t0', 't1']);
  });

  it('counts rollouts in flight against maxRollouts: exactly N start and are stored', async () => {
    const { bench, log } = standIn();
    const err = await run(bench, 3, { maxRollouts: 5 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RolloutLimitError);
    expect((err as RolloutLimitError).stored).toBe(5);
    expect(stored).toHaveLength(5);
    expect(log.filter((l) => l.startsWith('start'))).toHaveLength(5);
  });

  it('stops at a rollout that cannot be stored and reports its error', async () => {
    const { bench, log } = standIn();
    const onSave = (id: string) => {
      if (id === 't1') throw new Error('disk full');
    };
    await expect(run(bench, 1, { onSave })).rejects.toThrow('disk full');
    // t2 was running when t1's commit failed; it ends and is stored, like any rollout in flight
    // at a stop. Jobs queued behind the failure do not start.
    expect(stored).toEqual(['t0', 't2']);
    expect(log.filter((l) => l.startsWith('start')).length).toBeLessThan(tasks.length);
  });

  it('prepares tasks of jobs yet to start, at most `concurrency` beyond the started ones', async () => {
    const { bench, log } = standIn(async () => {});
    expect(await run(bench, 2)).toBe(tasks.length);
    const prepared = log.filter((l) => l.startsWith('prepare')).map((l) => l.slice(8));
    expect(prepared.length).toBeGreaterThan(0);
    expect(new Set(prepared).size).toBe(prepared.length);
    for (const [i, line] of log.entries()) {
      if (!line.startsWith('prepare')) continue;
      const startedBefore = log.slice(0, i).filter((l) => l.startsWith('start')).length;
      const index = Number(line.slice('prepare t'.length));
      expect(index).toBeGreaterThanOrEqual(startedBefore);
      expect(index).toBeLessThan(startedBefore + 2);
    }
  });

  it('leaves a task that fails to prepare to its rollout', async () => {
    const { bench, log } = standIn(() => Promise.reject(new Error('no world')));
    expect(await run(bench, 2)).toBe(tasks.length);
    expect(log.filter((l) => l.startsWith('start'))).toHaveLength(tasks.length);
  });

  it('runs a benchmark without prepare', async () => {
    const { bench } = standIn();
    expect(await run(bench, 3)).toBe(tasks.length);
  });
});
