import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createApptown } from '../src/bench/apptown/index.js';
import { FakeOpenAiServer } from './fakes/fake-openai-server.js';
import { simBackedHandler } from './fakes/sim-backed-handler.js';
import { runAcon, tempDir } from './helpers/cli.js';
import { SHORT_TASKS_DIR, taskResolver } from './helpers/env.js';

const KEY = 'sk-test-ECHOED-7c6b5a4d3e2f';

let server: FakeOpenAiServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Occurrences of the key in every file under `dir` (the database, its -wal, reports, exports). */
function occurrences(dir: string): Record<string, number> {
  const found: Record<string, number> = {};
  const walk = (d: string) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const path = join(d, entry.name);
      if (entry.isDirectory()) walk(path);
      else {
        const n = readFileSync(path).toString('latin1').split(KEY).length - 1;
        if (n > 0) found[path] = n;
      }
    }
  };
  walk(dir);
  return found;
}

describe('an endpoint that echoes the API key (issue #31)', () => {
  it('leaves the key in no stored row, report, rollout view or export', async () => {
    const bench = createApptown({ tasksDir: SHORT_TASKS_DIR });
    const sim = simBackedHandler({
      taskOf: await taskResolver(bench),
      planFor: (id) => bench.referencePlan(id),
    });
    // Every answer repeats the request's Authorization header, as a debugging proxy might.
    server = await FakeOpenAiServer.start({
      handler: async (req) => {
        const answer = await sim(req);
        if (answer.kind !== 'completion') return answer;
        return {
          ...answer,
          content: `${answer.content ?? ''} [auth ${req.headers.authorization}]`,
        };
      },
    });
    const cwd = tempDir();
    const env = {
      ACON_APPTOWN__TASKS_DIR: SHORT_TASKS_DIR,
      ACON_SIM__NOISE: '0',
      OPENAI_BASE_URL: server.url,
      OPENAI_API_KEY: KEY,
    };
    const run = await runAcon(
      ['run', '--strategy', 'acon', '--split', 'train', '--max-tasks', '2', '--provider', 'openai'],
      { cwd, env },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(server.chatRequests.length).toBeGreaterThan(0);
    const runId = /as run (\S+)/.exec(run.stdout)![1]!;

    const show = await runAcon(['runs', 'show', runId, '--json'], { cwd, env });
    const { rollouts } = JSON.parse(show.stdout) as { rollouts: { id: string }[] };
    const views = await Promise.all(
      [['--json'], ['--full']].map((flags) =>
        runAcon(['rollout', 'show', rollouts[0]!.id, ...flags], { cwd, env }),
      ),
    );
    const report = await runAcon(['report', runId, '--html', 'report.html'], { cwd, env });
    expect(report.code, report.stderr).toBe(0);
    const exported = await runAcon(
      ['export', '--run', runId, '--role', 'agent', '--format', 'openai', '--out', 'agent.jsonl'],
      { cwd, env },
    );
    expect(exported.code, exported.stderr).toBe(0);

    // The answers did reach acon with the key in them…
    expect(views[0]!.stdout).toContain('[auth Bearer [REDACTED]]');
    // …and it is nowhere: not in what the commands printed, not in a file.
    for (const out of [run, show, ...views, report, exported]) {
      expect(out.stdout + out.stderr).not.toContain(KEY);
    }
    expect(existsSync(join(cwd, 'runs', 'acon.db'))).toBe(true);
    expect(occurrences(cwd)).toEqual({});
  });

  it('refuses a key given where a variable name belongs, without printing or storing it', async () => {
    const cwd = tempDir();
    const res = await runAcon(
      [
        'run',
        '--provider',
        'openai',
        '--compressor-base-url',
        'http://127.0.0.1:9/v1',
        '--compressor-key-env',
        KEY,
      ],
      { cwd, env: { OPENAI_API_KEY: 'sk-other-1234567890' } },
    );
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('--compressor-key-env takes the NAME of an environment variable');
    expect(res.stdout + res.stderr).not.toContain(KEY);
    expect(occurrences(cwd)).toEqual({});
  });
});

describe('a key shaped like a variable name (issue #60)', () => {
  const GROQ_LIKE = 'gsk_BBBBkeyAsEnvName1234567890abcdefXYZ';

  it('is refused as --compressor-key-env without being printed', async () => {
    const cwd = tempDir();
    const res = await runAcon(
      [
        'run',
        '--provider',
        'openai',
        '--compressor-base-url',
        'http://127.0.0.1:9/v1',
        '--compressor-key-env',
        GROQ_LIKE,
      ],
      { cwd, env: { OPENAI_API_KEY: 'sk-other-1234567890' } },
    );
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('this looks like an API key, not a variable name');
    expect(res.stdout + res.stderr).not.toContain(GROQ_LIKE);
    expect(readdirSync(cwd)).toEqual([]);
  });

  it('is refused as api_key_env in acon.config.yaml without being printed', async () => {
    const cwd = tempDir();
    const config = join(cwd, 'acon.config.yaml');
    writeFileSync(
      config,
      `provider: openai\nendpoints:\n  default:\n    base_url: http://127.0.0.1:9/v1\n    api_key_env: ${GROQ_LIKE}\n`,
    );
    const res = await runAcon(['run', '--strategy', 'raw', '--max-tasks', '1'], { cwd });
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('this looks like an API key, not a variable name');
    expect(res.stdout + res.stderr).not.toContain(GROQ_LIKE);
    expect(readdirSync(cwd)).toEqual(['acon.config.yaml']);
  });
});

describe('credentials inside a base URL (issue #60, case 4)', () => {
  const PASS = 'sk-proj-URLPASS-5e4d3c2b1a';
  const QUERY_KEY = 'AIzaQUERYKEY0987654321';

  it('are in no stored field (runs, rollouts, calls, run state), no printed line and no export', async () => {
    const bench = createApptown({ tasksDir: SHORT_TASKS_DIR });
    const sim = simBackedHandler({
      taskOf: await taskResolver(bench),
      planFor: (id) => bench.referencePlan(id),
    });
    // The answers repeat the URL they were sent to, as a debugging proxy might.
    const echoed = () => `http://user:${PASS}@127.0.0.1/v1?api_key=${QUERY_KEY}`;
    server = await FakeOpenAiServer.start({
      handler: async (req) => {
        const answer = await sim(req);
        if (answer.kind !== 'completion') return answer;
        return { ...answer, content: `${answer.content ?? ''} [called at ${echoed()}]` };
      },
    });
    const cwd = tempDir();
    const baseUrl = server.url.replace('http://', `http://user:${PASS}@`);
    writeFileSync(
      join(cwd, 'acon.config.yaml'),
      [
        'provider: openai',
        'endpoints:',
        '  default:',
        `    base_url: ${baseUrl}`,
        // An unreachable second URL with a key in its query: its calls fail, and their errors
        // (stored and printed) name the endpoint.
        `    extra_base_urls: ["http://127.0.0.1:9/v1?api_key=${QUERY_KEY}"]`,
        '',
      ].join('\n'),
    );
    const env = {
      ACON_APPTOWN__TASKS_DIR: SHORT_TASKS_DIR,
      ACON_SIM__NOISE: '0',
      OPENAI_API_KEY: 'sk-test-other-0011223344',
    };
    const run = await runAcon(
      ['run', '--strategy', 'acon', '--split', 'train', '--max-tasks', '2'],
      {
        cwd,
        env,
      },
    );
    expect(server.chatRequests.length).toBeGreaterThan(0);
    const runId = /run (\S+)/.exec(run.stdout + run.stderr)![1]!;
    const show = await runAcon(['runs', 'show', runId, '--json'], { cwd, env });
    const list = await runAcon(['runs', '--json'], { cwd, env });
    const exported = await runAcon(
      ['export', '--run', runId, '--role', 'agent', '--format', 'openai', '--out', 'agent.jsonl'],
      { cwd, env },
    );
    for (const out of [run, show, list, exported]) {
      expect(out.stdout + out.stderr).not.toContain(PASS);
      expect(out.stdout + out.stderr).not.toContain(QUERY_KEY);
    }
    const db = join(cwd, 'runs', 'acon.db');
    expect(existsSync(db)).toBe(true);
    // The run's config is kept, with the URL's credentials replaced.
    expect(show.stdout + readFileSync(db).toString('latin1')).toContain('[REDACTED]@127.0.0.1');
    const found = (secret: string) =>
      readdirSync(cwd, { recursive: true, withFileTypes: true })
        .filter((e) => e.isFile() && e.name !== 'acon.config.yaml')
        .map((e) => join(e.parentPath, e.name))
        .filter((p) => readFileSync(p).toString('latin1').includes(secret));
    expect(found(PASS)).toEqual([]);
    expect(found(QUERY_KEY)).toEqual([]);
  });
});
