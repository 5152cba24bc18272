import { afterEach, describe, expect, it } from 'vitest';
import { FakeOpenAiServer, reply } from './fakes/fake-openai-server.js';
import { runAcon, tempDir } from './helpers/cli.js';
import { SHORT_TASKS_ENV } from './helpers/env.js';

const KEY = 'sk-test-interrupt-5e4d';

let server: FakeOpenAiServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('Ctrl-C', () => {
  it('stops a run waiting out a one-hour Retry-After at once (issue #31)', async () => {
    let asked!: () => void;
    const firstRequest = new Promise<void>((resolve) => (asked = resolve));
    server = await FakeOpenAiServer.start({
      handler: () => {
        asked();
        return reply.rateLimit({ retryAfterSeconds: 3600 });
      },
    });
    const cwd = tempDir();
    const res = await runAcon(
      ['run', '--strategy', 'raw', '--split', 'dev', '--max-tasks', '1', '--provider', 'openai'],
      {
        cwd,
        env: { ...SHORT_TASKS_ENV, OPENAI_BASE_URL: server.url, OPENAI_API_KEY: KEY },
        // The retry sleep starts as the 429 arrives; a moment later Ctrl-C comes. Before the
        // fix the process printed "interrupted" and then waited out the sleep (120 s at most).
        onSpawn: (child) =>
          void firstRequest.then(() => setTimeout(() => child.kill('SIGINT'), 200)),
      },
    );
    expect(res.code, res.stderr).toBe(130);
    expect(res.stderr).toContain('--resume');
    expect(server.chatRequests.length).toBe(1);
  });
});
