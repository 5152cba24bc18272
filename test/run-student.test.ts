import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigSchema } from '../src/config/schema.js';
import { applyCompressorFlags } from '../src/config/compressor-flags.js';
import { FakeOpenAiServer, type FakeRequest } from './fakes/fake-openai-server.js';
import { roleOf, simBackedHandler } from './fakes/sim-backed-handler.js';
import { runAcon, tempDir } from './helpers/cli.js';
import { makeEnv, taskResolver } from './helpers/env.js';

describe('applyCompressorFlags', () => {
  it('puts both compressors on their own model and endpoint, the agent stays', () => {
    const config = ConfigSchema.parse({});
    applyCompressorFlags(config, {
      compressorModel: 'student',
      histCompressorModel: 'student-hist',
      compressorBaseUrl: 'http://127.0.0.1:8001/v1',
      compressorKeyEnv: 'STUDENT_KEY',
    });
    expect(config.endpoints.compressor).toMatchObject({
      base_url: 'http://127.0.0.1:8001/v1',
      api_key_env: 'STUDENT_KEY',
    });
    expect(config.roles.obs_compressor).toMatchObject({
      model: 'student',
      endpoint: 'compressor',
      provider: 'openai',
    });
    expect(config.roles.hist_compressor.model).toBe('student-hist');
    expect(config.roles.agent).toMatchObject({ model: 'gpt-4.1', endpoint: 'default' });
    expect(config.roles.agent.provider).toBeUndefined();
  });

  it('refuses a base URL that is not a URL, naming the option', () => {
    expect(() =>
      applyCompressorFlags(ConfigSchema.parse({}), { compressorBaseUrl: 'localhost:8001' }),
    ).toThrow(/^`compressorBaseUrl` must be a URL/);
  });
});

describe('acon run with a student compressor on its own endpoint', () => {
  let server: FakeOpenAiServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('sends only compressor calls to the student server and records its model', async () => {
    const probe = makeEnv({ provider: 'sim' });
    const taskOf = await taskResolver(probe.bench);
    server = await FakeOpenAiServer.start({
      handler: simBackedHandler({ taskOf, planFor: (id) => probe.bench.referencePlan!(id) }),
    });
    const tasks = (await probe.bench.listTasks('dev'))
      .sort((a, b) => b.referenceLength - a.referenceLength || a.id.localeCompare(b.id))
      .slice(0, 2)
      .map((t) => t.id);
    const cwd = tempDir();
    const db = join(cwd, 'acon.db');
    const r = await runAcon(
      [
        'run',
        '--split',
        'dev',
        '--tasks',
        tasks.join(','),
        '--strategy',
        'naive',
        '--db',
        db,
        '--compressor-base-url',
        server.url,
        '--compressor-model',
        'student',
        '--compressor-key-env',
        'STUDENT_KEY',
      ],
      { cwd, env: { STUDENT_KEY: 'local' } },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('compressor openai/student');
    const roles = new Set(server.chatRequests.map((q: FakeRequest) => roleOf(q)));
    expect([...roles].every((x) => x === 'obs_compressor' || x === 'hist_compressor')).toBe(true);
    expect(server.chatRequests.length).toBeGreaterThan(0);
    const sqlite = new Database(db, { readonly: true });
    const calls = sqlite
      .prepare('SELECT DISTINCT role, provider, model FROM calls ORDER BY role')
      .all() as { role: string; provider: string; model: string }[];
    sqlite.close();
    expect(calls.filter((c) => c.role !== 'agent').every((c) => c.model === 'student')).toBe(true);
    expect(calls.find((c) => c.role === 'agent')).toMatchObject({ provider: 'sim' });
  });
});

describe('acon runs diff', () => {
  it('prints teacher vs student with accuracy retention and peak tokens', async () => {
    const cwd = tempDir();
    const db = join(cwd, 'acon.db');
    const base = ['run', '--split', 'dev', '--strategy', 'naive', '--db', db, '--json'];
    const dev = (await makeEnv({ provider: 'sim' }).bench.listTasks('dev')).slice(0, 2);
    const tasks = ['--tasks', dev.map((t) => t.id).join(',')];
    const teacher = await runAcon([...base, ...tasks], { cwd });
    const student = await runAcon([...base, ...tasks, '--compressor-model', 'student'], { cwd });
    expect(teacher.code, teacher.stderr).toBe(0);
    expect(student.code, student.stderr).toBe(0);
    const idOf = (out: string) =>
      (JSON.parse(out) as { provenance: { runId: string } }).provenance.runId;
    const [a, b] = [idOf(teacher.stdout), idOf(student.stdout)];
    const diff = await runAcon(['runs', 'diff', a, b, '--db', db], { cwd });
    expect(diff.code, diff.stderr).toBe(0);
    expect(diff.stderr).toBe('');
    expect(diff.stdout).toContain(`A: SIMULATED — ${a}`);
    expect(diff.stdout).toContain('compressor sim (priced as student)');
    expect(diff.stdout).toMatch(/retain%/);
    expect(diff.stdout).toMatch(/^naive\s+2\s/m);
    // It stores nothing, so it must not end like a stored result (issue #58).
    expect(diff.stdout).not.toMatch(/stored in/);
    // One line, or two when the database path is long (the table's width is 100 columns).
    expect(diff.stdout.replace(`${db}\nrun`, `${db}: run`)).toContain(
      `read from ${db}: run A vs B`,
    );
    expect(diff.stdout.split('\n').every((l) => [...l].length <= 100)).toBe(true);
    const json = await runAcon(['runs', 'diff', a, b, '--db', db, '--json'], { cwd });
    const rows = (JSON.parse(json.stdout) as { rows: { tasks: number; retention: number }[] }).rows;
    expect(rows[0]).toMatchObject({ tasks: 2 });
  });
});
