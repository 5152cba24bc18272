/**
 * Orchestration CPU per agent step, the environment excluded (issue #16: target < 1 ms).
 *
 * Runs real rollouts in this process through the same library path as `acon run --provider
 * openai --no-cache` (runRollouts: context strategy, agent loop, LLM client with its call
 * record, endpoint queue and retry policy, a SQLite store in a temporary folder, metrics and
 * the rollout commit), against two stand-ins that answer at once:
 *
 * - a model that is not simulated (so calls take the HTTP provider's path through the client)
 *   and answers every step with one tool call, reporting usage like a real server;
 * - an environment that answers every tool call with a new JSON observation of `--obs-chars`.
 *
 * Strategies: raw, fifo, masking (those that call no compressor model).
 *
 * The CPU time of both stand-ins is measured and subtracted. Prints figures; asserts nothing.
 *
 *   npm run bench:step-cpu [-- --rollouts 128 --steps 30 --concurrency 64 --obs-chars 1500 --strategy raw]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import type { Benchmark, Episode, TaskInfo } from '../../src/bench/types.js';
import { ConfigSchema } from '../../src/config/schema.js';
import { createLlmClient } from '../../src/llm/client.js';
import type { ChatMessage, LlmProvider, ProviderResponse, ToolDef } from '../../src/llm/types.js';
import { makeCondition } from '../../src/experiment/condition.js';
import { runRollouts } from '../../src/experiment/rollouts.js';
import { openRunStore } from '../../src/store/index.js';

const { values } = parseArgs({
  options: {
    rollouts: { type: 'string', default: '128' },
    steps: { type: 'string', default: '30' },
    concurrency: { type: 'string', default: '64' },
    'obs-chars': { type: 'string', default: '1500' },
    strategy: { type: 'string', default: 'raw' },
  },
});
const rollouts = Number(values.rollouts);
const steps = Number(values.steps);
const concurrency = Number(values.concurrency);
const obsChars = Number(values['obs-chars']);
// Strategies that call no compressor model: the stand-in model only plays the agent.
const strategy = z.enum(['raw', 'fifo', 'masking']).parse(values.strategy);

/** CPU the stand-ins used (ms): subtracted from the process's. */
const standIn = { env: 0, model: 0 };
function timed<T>(bucket: keyof typeof standIn, fn: () => T): T {
  const t0 = performance.now();
  try {
    return fn();
  } finally {
    standIn[bucket] += performance.now() - t0;
  }
}

const TOOLS: ToolDef[] = ['call_api', 'complete_task'].map((name) => ({
  type: 'function',
  function: {
    name,
    description: `${name}: a tool of the stand-in environment`,
    parameters: {
      type: 'object',
      properties: { app: { type: 'string' }, api: { type: 'string' }, args: { type: 'object' } },
    },
  },
}));
const SYSTEM = `You are an agent that completes tasks through tools.\n${'Rules of the world. '.repeat(100)}`;

/** A fresh observation for each call: new content every step, as from a real environment. */
function observation(taskId: string, step: number): string {
  const item = (i: number) => ({ id: `${taskId}-${step}-${i}`, title: `item ${i}`, amount: i * 7 });
  const perItem = JSON.stringify(item(0)).length + 1;
  const count = Math.max(1, Math.round(obsChars / perItem));
  return JSON.stringify({ page: step, items: Array.from({ length: count }, (_, i) => item(i)) });
}

function episode(task: TaskInfo): Episode {
  let step = 0;
  let done = false;
  return {
    task,
    systemPrompt: SYSTEM,
    firstUserMessage: `Task ${task.id}: ${task.instruction}`,
    tools: TOOLS,
    act: async (message) =>
      timed('env', () => {
        const call = message.tool_calls![0]!;
        done = call.function.name === 'complete_task';
        const content = done ? 'Task completed.' : observation(task.id, step++);
        return { messages: [{ role: 'tool', tool_call_id: call.id, content }], done };
      }),
    evaluate: async () => ({ success: done, score: done ? 1 : 0, details: [] }),
    close: async () => {},
  };
}

const tasks: TaskInfo[] = Array.from({ length: rollouts }, (_, i) => ({
  id: `task-${String(i).padStart(4, '0')}`,
  split: 'dev',
  instruction: 'collect every item of every page, then complete the task',
  apps: ['stand-in'],
  difficulty: 1,
  referenceLength: steps,
}));
const bench: Benchmark = {
  name: 'stand-in',
  listTasks: async () => tasks,
  getTask: async (id: string) => tasks.find((t) => t.id === id)!,
  start: async (id: string) => timed('env', () => episode(tasks.find((t) => t.id === id)!)),
  referencePlan: async () => ({ steps: [] }),
} as unknown as Benchmark;

/** Answers step n of a rollout (its n-th assistant turn) with a call; the last one completes. */
const model: LlmProvider = {
  name: 'openai',
  simulated: false,
  chat: async (req) =>
    timed('model', (): ProviderResponse => {
      let step = 0;
      for (const m of req.messages) if (m.role === 'assistant') step++;
      const name = step + 1 >= steps ? 'complete_task' : 'call_api';
      const message: ChatMessage & { role: 'assistant' } = {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: `call_${step}`,
            type: 'function',
            function: { name, arguments: JSON.stringify({ app: 'stand-in', api: 'page', step }) },
          },
        ],
      };
      const chars = req.messages.reduce((n, m) => n + (m.content?.length ?? 0), 0);
      return {
        message,
        usage: { promptTokens: Math.round(chars / 4), cachedPromptTokens: 0, completionTokens: 20 },
      };
    }),
};

const dir = mkdtempSync(join(tmpdir(), 'acon-bench-step-cpu-'));
const config = ConfigSchema.parse({
  provider: 'openai',
  endpoints: { default: { base_url: 'http://127.0.0.1:9/v1', concurrency } },
  run: { concurrency },
  agent: { max_steps: steps + 5 },
});
const store = openRunStore(join(dir, 'acon.db'));
const llm = createLlmClient({ config, providers: { openai: model }, store, noCache: true });
const runId = 'run-step-cpu';
store.createRun({
  id: runId,
  kind: 'run',
  command: 'bench:step-cpu',
  bench: 'stand-in',
  provider: 'openai',
  models: {},
  simulated: false,
  params: {},
  config: config as unknown as Record<string, unknown>,
});
const condition = makeCondition(strategy);
const jobs = tasks.map((task) => ({ condition, task }));

const wall0 = performance.now();
const cpu0 = process.cpuUsage();
await runRollouts({ runId, bench, jobs, llm, store, config, concurrency });
const cpu = process.cpuUsage(cpu0);
const wallMs = performance.now() - wall0;
const calls = llm.stats().calls;
store.close();
rmSync(dir, { recursive: true, force: true });

const cpuMs = (cpu.user + cpu.system) / 1000;
const orchestration = cpuMs - standIn.env - standIn.model;
console.log(
  `strategy=${strategy} rollouts=${rollouts} steps per rollout=${steps} concurrency=${concurrency} observation=${obsChars} chars`,
);
console.log(
  `process CPU ${cpuMs.toFixed(0)} ms (wall ${wallMs.toFixed(0)} ms); stand-in environment ${standIn.env.toFixed(0)} ms and model ${standIn.model.toFixed(0)} ms subtracted`,
);
console.log(
  `cpu_per_step=${(orchestration / calls).toFixed(3)}ms steps=${calls} excluding environment (target < 1 ms)`,
);
