import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { createApptown } from '../src/bench/apptown/index.js';
import { OptimizeResultSchema } from '../src/optimize/optimize.js';
import { FakeOpenAiServer } from './fakes/fake-openai-server.js';
import { simBackedHandler } from './fakes/sim-backed-handler.js';
import { SHORT_TASKS_DIR, SHORT_TASKS_ENV, taskResolver } from './helpers/env.js';
import { runAcon, tempDir } from './helpers/cli.js';
import {
  copyOfSharedOptimize,
  SHARED_OPTIMIZE_ARGS,
  SHARED_OPTIMIZE_ENV,
} from './helpers/shared-optimize.js';

/** What the result table prints, without the trailing "stored … as run …" line. */
function table(stdout: string): string {
  return stdout.replace(/stored in .* as run \S+\n?$/m, '');
}

function runIdOf(stdout: string): string {
  const m = /as run (\S+)/.exec(stdout);
  if (!m) throw new Error(`no run id in: ${stdout}`);
  return m[1]!;
}

// These run over the short first task set (test/helpers/env.ts says why).

let server: FakeOpenAiServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('acon end to end, as a user runs it', () => {
  it('Ctrl-C mid-run and --resume give the same table as an uninterrupted run, redoing nothing', async () => {
    // The model is a fake server answering like sim; in the interrupted run it holds every
    // request after half of what the whole run needs, so Ctrl-C always lands mid-run, however
    // loaded the machine (no polling race).
    const bench = createApptown({ tasksDir: SHORT_TASKS_DIR });
    const sim = simBackedHandler({
      taskOf: await taskResolver(bench),
      planFor: (id) => bench.referencePlan(id),
    });
    const tasks = (await bench.listTasks('dev')).slice(0, 4).map((t) => t.id);
    // --no-cache: with the cache, whichever condition asks first pays for an identical call,
    // and that order is the scheduler's, so the cost columns would differ between runs.
    const args = ['compare', '--strategies', 'raw,masking,naive', '--tasks', tasks.join(',')];
    args.push('--no-cache');
    let seen = 0;
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let full!: () => void;
    const heldBack = new Promise<void>((r) => (full = r));
    let gateAt = Infinity;
    server = await FakeOpenAiServer.start({
      handler: async (req) => {
        seen += 1;
        if (seen > gateAt) {
          full();
          await released;
        }
        return sim(req);
      },
    });
    const env = {
      ...SHORT_TASKS_ENV,
      OPENAI_BASE_URL: server.url,
      OPENAI_API_KEY: 'sk-test-cli-e2e',
    };
    const withProvider = [...args, '--provider', 'openai'];
    const straight = await runAcon(withProvider, { cwd: tempDir(), env });
    expect(straight.code, straight.stderr).toBe(0);

    const cwd = tempDir();
    const db = join(cwd, 'runs', 'acon.db');
    gateAt = Math.floor(seen / 2);
    seen = 0;
    const interrupted = await runAcon(withProvider, {
      cwd,
      env,
      onSpawn: (child) => {
        void heldBack.then(() => child.kill('SIGINT'));
        child.on('close', () => release());
      },
    });
    expect(interrupted.code).toBe(130);
    const m = /--resume (run-\S+)/.exec(interrupted.stderr);
    expect(m, interrupted.stderr).not.toBeNull();
    const runId = m![1]!;

    const conn = new Database(db, { readonly: true });
    const before = conn.prepare('SELECT id, condition, task_id FROM rollouts').all() as {
      id: string;
    }[];
    conn.close();
    expect(before.length).toBeGreaterThan(0);
    expect(before.length).toBeLessThan(12); // 4 tasks × 3 strategies

    const resumed = await runAcon(['compare', '--resume', runId, '--no-cache'], { cwd, env });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(table(resumed.stdout)).toBe(table(straight.stdout));

    const after = new Database(db, { readonly: true });
    const ids = new Set(
      (after.prepare('SELECT id FROM rollouts').all() as { id: string }[]).map((r) => r.id),
    );
    for (const r of before) expect(ids.has(r.id)).toBe(true);
    // Each stored rollout has exactly one agent call per step: finished work was not redone.
    const mismatched = after
      .prepare(
        `SELECT r.id FROM rollouts r WHERE r.steps !=
           (SELECT COUNT(*) FROM calls c WHERE c.rollout = r.n AND c.role = 'agent')`,
      )
      .all();
    expect(mismatched).toEqual([]);
    expect(
      (after.prepare('SELECT status FROM runs WHERE id = ?').get(runId) as { status: string })
        .status,
    ).toBe('finished');
    after.close();
  });

  it('runs the README main command, shows the guideline diff and exports the clean hist teacher set', async () => {
    // The short tasks' prompts stay under the default T_hist (4,096) once the obs compressor
    // shortens long lists (issue 22), so their history is folded only at a lower threshold:
    // without folds there is no hist teacher set to export (SHARED_OPTIMIZE_ENV sets 2048).
    const shortEnv = SHARED_OPTIMIZE_ENV;
    const dryCwd = tempDir();
    const dry = await runAcon([...SHARED_OPTIMIZE_ARGS, '--dry-run'], {
      cwd: dryCwd,
      env: shortEnv,
    });
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('plan: ut:obs:r1');
    expect(dry.stdout).toContain('SIMULATED');
    // A dry run writes nothing: no database, no guideline files.
    expect(existsSync(join(dryCwd, 'runs'))).toBe(false);
    expect(existsSync(join(dryCwd, 'guidelines'))).toBe(false);

    // `acon optimize --bench apptown` in a fresh folder, run once for the test run and shared
    // with the files that only need its folder (test/helpers/shared-optimize.ts); what follows
    // runs in a copy of that folder.
    const { cwd, result: opt } = await copyOfSharedOptimize();
    expect(opt.code, opt.stderr).toBe(0);
    expect(opt.stdout).toContain('SIMULATED');
    expect(opt.stdout).toMatch(/UTCO/);
    // The test table has the paper's baselines and each compressor's own rows (issue #23).
    const testTable = opt.stdout.slice(opt.stdout.indexOf('apptown/test'));
    // A row shared by versions with the same guidelines is named `A=B` (a phase accepted nothing).
    const versions = testTable
      .split('\n')
      .flatMap(
        (l) =>
          /^(\S+(?: (?:obs|hist|both))?(?:=\S+ (?:obs|hist|both))*)\s/.exec(l)?.[1]?.split('=') ??
          [],
      );
    for (const v of ['raw', 'fifo', 'masking', 'summary', 'retrieval', 'UT obs', 'UT hist']) {
      expect(versions, testTable).toContain(v);
    }
    // Result tables fit 100 columns when the width is unknown (issue 15).
    expect(Math.max(...opt.stdout.split('\n').map((l) => [...l].length))).toBeLessThanOrEqual(100);
    const files = /new guideline files \((\d+)\)/.exec(opt.stdout);
    expect(Number(files?.[1])).toBeGreaterThanOrEqual(2);
    const final = /final guidelines: (obs-\d+), (hist-\d+)/.exec(opt.stdout)!;
    expect(final[1]).not.toBe('obs-0000');

    const log = await runAcon(['guidelines', 'log', '--json'], { cwd, env: shortEnv });
    expect(log.code).toBe(0);
    expect(log.stdout).toContain(final[1]!);

    const diff = await runAcon(['guidelines', 'diff', 'obs-0000', final[1]!], {
      cwd,
      env: shortEnv,
    });
    expect(diff.code).toBe(0);
    // The learned guideline adds prose (sim v3 writes no KEEP: lines, issue #22).
    expect(diff.stdout).toMatch(/^\+[^+\n]+\S/m);

    const out = join(cwd, 'f.jsonl');
    const exp = await runAcon(['export', '--format', 'openai', '--role', 'hist', '--out', out], {
      cwd,
      env: shortEnv,
    });
    expect(exp.code, exp.stderr).toBe(0);
    const lines = readFileSync(out, 'utf8').trim().split('\n');
    // Only the final guidelines' successful train rollouts count (the short task set has few).
    expect(lines.length).toBeGreaterThanOrEqual(1);
    // The clean teacher set: train tasks only, under the final hist version only. Selection
    // faces new task patterns by default (issue 56: grouped for apptown), and the pair check may
    // keep hist v0 active (v0 kept, or a learned obs guideline chosen with hist v0): export then
    // says it takes the newest run's final version, and prints nothing else.
    const activeFile = join(cwd, 'guidelines', 'hist', 'ACTIVE');
    const activeHist = existsSync(activeFile)
      ? readFileSync(activeFile, 'utf8').trim()
      : 'hist-0000';
    expect(exp.stderr).toBe(
      activeHist !== final[2]
        ? `warning: no optimize run ended with the active hist guideline (${activeHist}); exporting ` +
            `the newest optimize run ${runIdOf(opt.stdout)} (apptown, final ${final[2]}); ` +
            `choose another with --run\n`
        : '',
    );
    const meta = JSON.parse(readFileSync(join(cwd, 'f.meta.json'), 'utf8')) as {
      sources: { splits: Record<string, number>; guidelines: Record<string, number> };
    };
    expect(meta.sources.splits).toEqual({ train: lines.length });
    expect(meta.sources.guidelines).toEqual({ [final[2]!]: lines.length });
    const lint = await runAcon(['lint', out, '--format', 'openai'], { cwd, env: shortEnv });
    expect(lint.code, lint.stdout + lint.stderr).toBe(0);
    // The same rows in --json: the finished run resumed prints its result again (after the export
    // above read it), with nothing left to run (a second optimize cost 35 s of CPU, issue #28).
    const json = await runAcon(['optimize', '--resume', runIdOf(opt.stdout), '--json'], {
      cwd,
      env: shortEnv,
    });
    expect(json.code, json.stderr).toBe(0);
    // `acon schema optimize` prints this schema: the output must parse with it.
    const result = OptimizeResultSchema.parse(JSON.parse(json.stdout));
    expect(result.runId).toBe(runIdOf(opt.stdout));
    const jsonTest = result.tables.find((t) => t.split === 'test')!;
    expect(jsonTest.rows.flatMap((r) => r.version.split('='))).toEqual(
      expect.arrayContaining([
        'raw',
        'fifo',
        'masking',
        'summary',
        'retrieval',
        'UT obs',
        'UT hist',
      ]),
    );
    expect(jsonTest.rows.find((r) => r.version.split('=').includes('UT obs'))!.condition).toMatch(
      /,-\]$/,
    );
    expect(runIdOf(opt.stdout)).toMatch(/^run-/);
    // About 25 s on an idle 2-core machine; a loaded one needs headroom.
  }, 300_000);
});
