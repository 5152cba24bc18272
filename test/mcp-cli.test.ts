import { describe, expect, it } from 'vitest';
import { runAcon, tempDir } from './helpers/cli.js';

/** `--bench mcp` through the built CLI (run `npm run build` first), against the real servers. */
describe('acon with --bench mcp', () => {
  it('lists the shipped tasks as JSON, with nothing on stderr', async () => {
    const res = await runAcon(['tasks', 'list', '--bench', 'mcp', '--json'], { cwd: tempDir() });
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    const tasks = JSON.parse(res.stdout) as { id: string; split: string; apps: string[] }[];
    expect(tasks.length).toBeGreaterThanOrEqual(40);
    expect(new Set(tasks.map((t) => t.split))).toEqual(new Set(['train', 'dev', 'test']));
  });

  it('compares strategies offline on dev tasks and stores the rollouts', async () => {
    const cwd = tempDir();
    const tasks = 'mcp-dev-04-ticket-customer-emails,mcp-dev-07-team-role-emails';
    const res = await runAcon(
      ['compare', '--bench', 'mcp', '--split', 'dev', '--strategies', 'raw,naive'].concat(
        '--tasks',
        tasks,
        '--json',
      ),
      { cwd, env: { ACON_SIM__NOISE: '0' } },
    );
    expect(res.code).toBe(0);
    const out = JSON.parse(res.stdout) as {
      provenance: { bench: string; simulated: boolean };
      conditions: { condition: string; tasks: number; accuracy: number; meanSteps: number }[];
    };
    expect(out.provenance).toMatchObject({ bench: 'mcp', simulated: true });
    const raw = out.conditions.find((c) => c.condition === 'raw')!;
    expect(raw).toMatchObject({ tasks: 2, accuracy: 1 });
    expect(raw.meanSteps).toBeGreaterThanOrEqual(15);
    expect(out.conditions.map((c) => c.condition)).toEqual(['raw', 'naive']);
  });
});
