import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { createApptown } from '../src/bench/apptown/index.js';
import { FakeOpenAiServer } from './fakes/fake-openai-server.js';
import { simBackedHandler } from './fakes/sim-backed-handler.js';
import { runAcon, tempDir } from './helpers/cli.js';
import { REPO } from './helpers/doc-commands.js';
import { SHORT_TASKS_DIR, SHORT_TASKS_ENV, taskResolver } from './helpers/env.js';

/**
 * Issue #54: the "paper-faithful run" sections of docs/runtime.md and docs/configuration.md
 * work as written. The config is read out of each page (the first YAML block under the
 * heading), written as the user would write it, and run against a fake that refuses what
 * OpenAI's reasoning models refuse (`max_tokens`, a temperature other than 1). Only what a user
 * sets outside the file differs: the fake's URL (`OPENAI_BASE_URL`), the short tasks and low
 * thresholds (`ACON_…` overrides) so the two tasks compress and the optimizer has work.
 */
const PAGES = ['docs/runtime.md', 'docs/configuration.md'];
const KEY = 'sk-test-paper-3b7a';

/** The first ```yaml block of the section headed "A paper-faithful run". */
function paperConfig(page: string): { text: string; value: unknown } {
  const md = readFileSync(join(REPO, page), 'utf8');
  const heading = /^(#+) A paper-faithful run\s*$/m.exec(md);
  expect(heading, `${page} has no "A paper-faithful run" section`).not.toBeNull();
  const rest = md.slice(heading!.index + heading![0].length);
  const next = new RegExp(`^#{1,${heading![1]!.length}} `, 'm').exec(rest);
  const section = next ? rest.slice(0, next.index) : rest;
  const block = /```yaml\n([\s\S]*?)```/.exec(section);
  expect(block, `${page}: the paper-faithful section has no yaml block`).not.toBeNull();
  return { text: block![1]!, value: parse(block![1]!) };
}

let server: FakeOpenAiServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('the paper-faithful run of the docs', () => {
  it('is the same config on both pages: o3 as analyzer and updater, on openai', () => {
    const [runtime, configuration] = PAGES.map(paperConfig);
    expect(configuration!.value).toEqual(runtime!.value);
    expect(runtime!.value).toMatchObject({
      provider: 'openai',
      roles: { analyzer: { model: 'o3' }, updater: { model: 'o3' } },
    });
  });

  it('runs as written: optimize --max-tasks 2 --candidates 2 exits 0 against the contract fake', async () => {
    const { text } = paperConfig(PAGES[0]!);
    const bench = createApptown({ tasksDir: SHORT_TASKS_DIR });
    const handler = simBackedHandler({
      taskOf: await taskResolver(bench),
      planFor: (id) => bench.referencePlan(id),
    });
    server = await FakeOpenAiServer.start({ modelRules: true, handler });
    const cwd = tempDir();
    writeFileSync(join(cwd, 'acon.config.yaml'), text);
    const env = {
      ...SHORT_TASKS_ENV,
      OPENAI_API_KEY: KEY,
      OPENAI_BASE_URL: server.url,
      ACON_CONTEXT__T_OBS: '64',
      ACON_CONTEXT__T_HIST: '400',
    };
    const res = await runAcon(
      ['optimize', '--bench', 'apptown', '--max-tasks', '2', '--candidates', '2', '--yes'],
      { cwd, env },
    );
    expect(res.code, res.stderr).toBe(0);
    const chats = server.chatRequests;
    const models = new Set(chats.map((r) => r.body?.model));
    // The paper's models, gpt-4.1 from the defaults: the agent, the compressors; o3 optimizes.
    expect([...models].sort()).toEqual(['gpt-4.1', 'o3']);
    for (const r of chats) {
      if (r.body?.model === 'o3') {
        expect(r.body.max_tokens).toBeUndefined();
        expect(r.body.temperature).toBeUndefined();
        expect(r.body.max_completion_tokens).toBeGreaterThan(0);
      } else {
        expect(r.body?.max_completion_tokens).toBeUndefined();
      }
    }
    expect(chats.filter((r) => r.body?.model === 'o3').length).toBeGreaterThan(0);
  });
});
