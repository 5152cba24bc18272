import { describe, expect, it } from 'vitest';
import { countMessageTokens } from '../llm/tokenizer.js';
import type { ChatMessage, ToolDef } from '../llm/types.js';
import { ScriptedLlm } from '../../test/fakes/scripted-llm.js';
import type { Benchmark, TaskInfo } from '../bench/types.js';
import { ConfigSchema } from '../config/schema.js';
import { SqliteRunStore } from '../store/run-store.js';
import { makeCondition } from './condition.js';
import { runRollouts, sharedPrefixTokens } from './rollouts.js';

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

  async function run(bench: Benchmark, concurrency: number) {
    const store = new SqliteRunStore(':memory:');
    const config = ConfigSchema.parse({});
    store.createRun({
      id: 'r',
      kind: 'run',
      command: 'test',
      bench: 'stand-in',
      provider: 'sim',
      models: {},
      simulated: true,
      params: {},
      config: {},
    });
    let n = 0;
    const llm = new ScriptedLlm({
      agent: () => ({
        role: 'assistant',
        content: null,
        tool_calls: [{ id: `c${n++}`, type: 'function', function: { name: 'f', arguments: '{}' } }],
      }),
    });
    const condition = makeCondition('raw');
    await runRollouts({
      runId: 'r',
      bench,
      jobs: tasks.map((task) => ({ condition, task })),
      llm,
      store,
      config,
      concurrency,
    });
    const stored = store.rollouts('r').length;
    store.close();
    return stored;
  }

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
