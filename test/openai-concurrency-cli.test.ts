import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createApptown } from '../src/bench/apptown/index.js';
import { FakeOpenAiServer } from './fakes/fake-openai-server.js';
import { simBackedHandler } from './fakes/sim-backed-handler.js';
import { runAcon, tempDir } from './helpers/cli.js';
import { SHORT_TASKS_DIR, SHORT_TASKS_ENV, taskResolver } from './helpers/env.js';

/**
 * Issue 16: with more than 10 calls in flight, every call used to add an abort listener to the
 * run's one signal and Node printed MaxListenersExceededWarning on stderr.
 */
let server: FakeOpenAiServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('acon run --provider openai with many calls in flight', () => {
  it('prints nothing on stderr at 14 rollouts in flight against a 16-slot endpoint', async () => {
    const bench = createApptown({ tasksDir: SHORT_TASKS_DIR });
    const answer = simBackedHandler({
      taskOf: await taskResolver(bench),
      planFor: (id) => bench.referencePlan(id),
    });
    // The first 11 requests (the 14 rollouts' first calls) are held until all 11 have arrived, so
    // more than 10 calls are in flight however fast this machine answers; a latency alone left
    // that to the CPU (a slow, busy machine reached exactly 10).
    const HELD = 11;
    let arrived = 0;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    server = await FakeOpenAiServer.start({
      latencyMs: 20,
      handler: async (req) => {
        if (arrived < HELD) {
          if (++arrived === HELD) release();
          await gate;
        }
        return answer(req);
      },
    });
    const cwd = tempDir();
    writeFileSync(
      join(cwd, 'acon.config.yaml'),
      `endpoints:\n  default:\n    base_url: ${server.url}\n    concurrency: 16\n`,
    );
    const tasks = (await bench.listTasks('dev')).slice(0, 14).map((t) => t.id);
    const res = await runAcon(
      ['run', '--strategy', 'raw', '--provider', 'openai', '--concurrency', '14'].concat(
        '--tasks',
        tasks.join(','),
      ),
      { cwd, env: { ...SHORT_TASKS_ENV, OPENAI_API_KEY: 'sk-test-concurrency-1a2b' } },
    );
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect(server.maxInFlight).toBeGreaterThan(10);
  });
});
