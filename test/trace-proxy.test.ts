import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { createApptown } from '../src/bench/apptown/index.js';
import { ConfigSchema } from '../src/config/schema.js';
import type { AssistantMessage, ChatMessage } from '../src/domain/message.js';
import { runTraces, traceLine } from '../src/experiment/index.js';
import type { RunningProxy } from '../src/runtime/proxy/start-proxy.js';
import { startLocalProxy } from './helpers/local-proxy.js';
import { openRunStore } from '../src/store/index.js';
import { FakeOpenAiServer } from './fakes/fake-openai-server.js';
import { simBackedHandler } from './fakes/sim-backed-handler.js';
import { runAcon, tempDir } from './helpers/cli.js';
import { SHORT_TASKS_DIR, SHORT_TASKS_ENV, taskResolver } from './helpers/env.js';

/**
 * Issue #57, from production traffic: an agent of the user's own, written with the real `openai`
 * client, runs apptown tasks through `acon proxy --record` against an upstream model (a fake
 * server answering like the sim, reached over HTTP). The recorded conversations become a traces
 * JSONL file, and `acon replay` and `acon optimize --traces` learn from that file alone, with
 * the same model reached through `--provider openai`: no environment is reset or re-run.
 */

let upstream: FakeOpenAiServer | undefined;
let proxy: RunningProxy | undefined;
afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
  await upstream?.close();
  upstream = undefined;
});

describe('optimize from traffic recorded by acon proxy --record', () => {
  it('records the openai client through the proxy, writes JSONL, replays and optimizes from it', async () => {
    const bench = createApptown({ tasksDir: SHORT_TASKS_DIR });
    upstream = await FakeOpenAiServer.start({
      handler: simBackedHandler({
        taskOf: await taskResolver(bench),
        planFor: (id) => bench.referencePlan(id),
      }),
    });
    const cwd = tempDir();
    const db = join(cwd, 'proxy.db');
    // Recording with compression out of reach: the conversations are the agent's full context.
    const config = ConfigSchema.parse({
      provider: 'sim',
      context: { t_obs: 1_000_000_000, t_hist: 1_000_000_000 },
    });
    proxy = await startLocalProxy({ config, upstream: upstream.url, record: db, log: () => {} });
    const client = new OpenAI({ baseURL: proxy.url, apiKey: 'sk-user-agent', maxRetries: 0 });

    // The user's agent: a plain loop over chat completions and the tools' results.
    const tasks = (await bench.listTasks('train')).slice(0, 6);
    for (const task of tasks) {
      const episode = await bench.start(task.id);
      const messages: ChatMessage[] = [
        { role: 'system', content: episode.systemPrompt },
        { role: 'user', content: episode.firstUserMessage },
      ];
      for (let step = 0; step < 40; step++) {
        const res = await client.chat.completions.create({
          model: 'gpt-4.1',
          messages: messages as OpenAI.ChatCompletionMessageParam[],
          tools: episode.tools as OpenAI.ChatCompletionTool[],
        });
        const m = res.choices[0]!.message;
        const assistant: AssistantMessage = m.tool_calls?.length
          ? {
              role: 'assistant',
              content: m.content,
              tool_calls: m.tool_calls.map((c) => ({
                id: c.id,
                type: 'function' as const,
                function: {
                  name: (c as { function: { name: string } }).function.name,
                  arguments: (c as { function: { arguments: string } }).function.arguments,
                },
              })),
            }
          : { role: 'assistant', content: m.content };
        messages.push(assistant);
        const out = await episode.act(assistant);
        messages.push(...out.messages);
        if (out.done || !m.tool_calls?.length) break;
      }
      await episode.close();
    }
    const runId = proxy.runId!;
    await proxy.close();
    proxy = undefined;

    // The recorded conversations as a traces file (one conversation a line), written by the CLI
    // as a user would, and the same lines as the library reads them from the database.
    const file = join(cwd, 'traffic.jsonl');
    const written = await runAcon(['runs', 'traces', runId, '--db', db, '--out', file], { cwd });
    expect(written.code, written.stderr).toBe(0);
    expect(written.stderr).toBe('');
    expect(written.stdout).toBe('');
    const store = openRunStore(db, { mode: 'read' });
    const traces = runTraces(store, runId);
    store.close();
    expect(readFileSync(file, 'utf8')).toBe(traces.map((t) => `${traceLine(t)}\n`).join(''));
    const lines = readFileSync(file, 'utf8')
      .trimEnd()
      .split('\n')
      .map(
        (l) =>
          JSON.parse(l) as {
            messages: { role: string }[];
            outcome?: string;
          },
      );
    expect(lines.length).toBe(tasks.length);
    // A proxy run does not know whether a conversation succeeded: no outcome is written.
    expect(lines.every((l) => l.outcome === undefined)).toBe(true);
    expect(lines.every((l) => l.messages.some((m) => m.role === 'tool'))).toBe(true);

    const env = {
      ...SHORT_TASKS_ENV,
      OPENAI_BASE_URL: upstream.url,
      OPENAI_API_KEY: 'sk-test-trace-proxy',
      // Small enough that the compressors fire on these short conversations.
      ACON_CONTEXT__T_OBS: '256',
      ACON_CONTEXT__T_HIST: '2048',
    };
    const replay = await runAcon(
      ['replay', '--traces', file, '--provider', 'openai', '--db', join(cwd, 'acon.db'), '--json'],
      { cwd, env },
    );
    expect(replay.code, replay.stderr).toBe(0);
    const scored = JSON.parse(replay.stdout) as {
      simulated: boolean;
      traces: number;
      rows: { metrics: { compressedSteps: number; agreement: number | null } }[];
    };
    expect(scored.simulated).toBe(false);
    expect(scored.traces).toBe(tasks.length);
    expect(scored.rows[0]!.metrics.compressedSteps).toBeGreaterThan(0);
    expect(scored.rows[0]!.metrics.agreement).not.toBeNull();

    const opt = await runAcon(
      [
        'optimize',
        '--traces',
        file,
        '--provider',
        'openai',
        '--phases',
        'ut',
        '--candidates',
        '2',
      ].concat(['--no-promote', '--db', join(cwd, 'acon.db'), '--json']),
      { cwd, env },
    );
    expect(opt.code, opt.stderr).toBe(0);
    const result = JSON.parse(opt.stdout) as {
      source: string;
      stages: { stage: string; cases: number }[];
      heldout: { version: string }[];
    };
    expect(result.source).toBe(file);
    expect(result.stages.map((s) => s.stage)).toEqual(['trace-ut:obs:r1', 'trace-ut:hist:r1']);
    expect(result.stages.some((s) => s.cases > 0)).toBe(true);
    expect(result.heldout.map((h) => h.version)).toContain('UT both');
    // The client's key went upstream through the proxy and never into what was recorded.
    expect(JSON.stringify(traces)).not.toContain('sk-user-agent');
  }, 300_000);
});
