import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanEnv } from './helpers/cli.js';
import { REPO } from './helpers/doc-commands.js';
import { lockDifferences } from '../scripts/bench/baseline.js';

/**
 * The measurement scripts (scripts/bench/) run nowhere else in the suite, so one that breaks
 * stays broken until someone needs its figure: llm-overhead.ts stopped at its first call from
 * store v2 on, unnoticed. The cheap ones run here with tiny arguments; what they print is
 * checked for its shape only (no timed assertion).
 */
function spawnScript(script: string, args: string[]) {
  return spawnSync(
    process.execPath,
    ['--import', 'tsx', join(REPO, 'scripts/bench', script), ...args],
    {
      cwd: REPO,
      env: cleanEnv(),
      encoding: 'utf8',
    },
  );
}

function runScript(script: string, args: string[]) {
  const r = spawnScript(script, args);
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return r.stdout;
}

describe('the measurement scripts', () => {
  it('--baseline refuses another runtime dependency but not a dev-only one', () => {
    const lock = (packages: Record<string, { version: string; dev?: boolean }>) =>
      JSON.stringify({ packages: { '': {}, ...packages } });
    const ours = lock({ 'node_modules/openai': { version: '6.49.0' } });
    // Issue #58: the openai 7 nested under @openai/agents (dev) is gone from our lock.
    const nestedDev = lock({
      'node_modules/openai': { version: '6.49.0' },
      'node_modules/@openai/agents/node_modules/openai': { version: '7.57.0', dev: true },
    });
    expect(lockDifferences(nestedDev, ours)).toEqual([]);
    const otherRuntime = lock({ 'node_modules/openai': { version: '6.1.0' } });
    expect(lockDifferences(otherRuntime, ours)).toEqual(['openai@6.1.0']);
  });

  it('llm-overhead.ts times calls through the LLM client and its store', () => {
    expect(runScript('llm-overhead.ts', ['20', '1000'])).toMatch(
      /client overhead: [\d.]+ µs\/call/,
    );
  });

  it('step-cpu.ts runs rollouts and prints the CPU per agent step', () => {
    const out = runScript('step-cpu.ts', ['--rollouts', '2', '--steps', '3', '--concurrency', '2']);
    expect(out).toMatch(/cpu_per_step=[\d.]+ms steps=6/);
  });

  it('sim-seeds.ts runs the compare on a task set and judges every band of issue 22', () => {
    const out = JSON.parse(
      runScript('sim-seeds.ts', ['--seeds', 'shipped', '--max-tasks', '2', '--json']),
    ) as { simulated: boolean; results: { compare: { condition: string }[] }[]; held: unknown[] };
    expect(out.simulated).toBe(true);
    expect(out.results[0]?.compare.map((c) => c.condition).sort()).toEqual([
      'fifo',
      'masking',
      'naive',
      'raw',
      'summary',
    ]);
    expect(out.held).toHaveLength(6);
  });

  it('sim-seeds.ts --results reads a set measured before instead of measuring it again', () => {
    const dir = mkdtempSync(join(tmpdir(), 'acon-sim-seeds-results-'));
    try {
      const args = ['--seeds', 'shipped', '--max-tasks', '1', '--json', '--results', dir];
      type Out = { results: { compare: { condition: string; accuracy: number }[] }[] };
      const first = JSON.parse(runScript('sim-seeds.ts', args)) as Out;
      const file = join(dir, 'set-shipped.json');
      const stored = JSON.parse(readFileSync(file, 'utf8')) as { result: Out['results'][0] };
      expect(stored.result).toEqual(first.results[0]);
      // Each set says where it was measured, and the folder which commands filled it (#58).
      const { provenance } = JSON.parse(readFileSync(file, 'utf8')) as {
        provenance: { commit: string; loadBefore: string; seconds: number };
      };
      expect(provenance.commit).toMatch(/^[0-9a-f]{7,}$/);
      expect(provenance.loadBefore).toMatch(/^[\d.]+ [\d.]+ [\d.]+$/);
      expect(provenance.seconds).toBeGreaterThan(0);
      const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as {
        commands: string[];
      };
      expect(manifest.commands).toEqual([`npm run bench:sim-seeds -- ${args.join(' ')}`]);
      // An accuracy no sim run gives shows the rerun read the file rather than measured.
      const raw = stored.result.compare.find((c) => c.condition === 'raw');
      if (raw === undefined) throw new Error('no raw figures stored');
      raw.accuracy = 0.123;
      writeFileSync(file, JSON.stringify(stored));
      const again = JSON.parse(runScript('sim-seeds.ts', args)) as Out;
      expect(again.results[0]?.compare.find((c) => c.condition === 'raw')?.accuracy).toBe(0.123);
      const other = spawnScript(
        'sim-seeds.ts',
        [...args.slice(0, 2), '--max-tasks', '2', '--json'].concat(['--results', dir]),
      );
      expect(other.status).not.toBe(0);
      expect(other.stderr).toContain(`${file} was measured with`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
