import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runAcon, tempDir } from './helpers/cli.js';
import { writeWordTokenizer } from './helpers/word-tokenizer.js';
import { copyOfSharedOptimize, SHARED_OPTIMIZE_ENV } from './helpers/shared-optimize.js';

/**
 * Issue #57: `acon replay` scores guideline pairs on recorded conversations, as a run of its own
 * (kind `replay`) whose calls are recorded; a file with a bad line is refused with its line and
 * field before anything is stored.
 */

describe('acon replay', () => {
  let cwd: string;
  let db: string;
  let recorded: string;

  beforeAll(async () => {
    cwd = tempDir();
    db = join(cwd, 'acon.db');
    const r = await runAcon(
      [
        'compare',
        '--split',
        'train',
        '--strategies',
        'raw',
        '--max-tasks',
        '4',
        '--db',
        db,
        '--json',
      ],
      { cwd },
    );
    expect(r.code, r.stderr).toBe(0);
    recorded = (JSON.parse(r.stdout) as { provenance: { runId: string } }).provenance.runId;
  }, 120_000);

  it('prints agreement and probe recall per pair, SIMULATED, and a verdict; stores a replay run', async () => {
    const r = await runAcon(['replay', '--traces', recorded, '--db', db], { cwd });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^SIMULATED — replay of run-/);
    expect(r.stdout).toMatch(/provider sim/);
    expect(r.stdout).toMatch(/^v0 +obs-0000 +hist-0000 +\d+\.\d/m);
    expect(r.stdout).toMatch(/agree%/);
    expect(r.stdout).toMatch(/probe%/);
    expect(r.stdout).toMatch(/not accuracy/);
    expect(r.stdout).toMatch(/^verdict: /m);
    const runId = /as run (run-\S+)/.exec(r.stdout)![1]!;
    const runs = await runAcon(['runs', '--db', db, '--json'], { cwd });
    const row = (JSON.parse(runs.stdout) as { id: string; kind: string; status: string }[]).find(
      (x) => x.id === runId,
    );
    expect(row).toMatchObject({ kind: 'replay', status: 'finished' });
    const show = await runAcon(['runs', 'show', runId, '--db', db, '--json'], { cwd });
    expect(show.code, show.stderr).toBe(0);

    const json = await runAcon(['replay', '--traces', recorded, '--db', db, '--json'], { cwd });
    expect(json.code, json.stderr).toBe(0);
    const result = JSON.parse(json.stdout) as {
      rows: {
        label: string;
        metrics: { agreement: number | null; probeRecall: number | null; compressedSteps: number };
      }[];
      simulated: boolean;
    };
    expect(result.simulated).toBe(true);
    expect(result.rows.map((x) => x.label)).toEqual(['v0', 'active']);
    expect(result.rows[0]!.metrics.compressedSteps).toBeGreaterThan(0);
  }, 120_000);

  it("counts thresholds and peaks in the config's agent tokenizer and names it (issue #54)", async () => {
    const plain = await runAcon(['replay', '--traces', recorded, '--db', db, '--json'], { cwd });
    expect(plain.code, plain.stderr).toBe(0);
    const dir = tempDir();
    const file = join(dir, writeWordTokenizer(dir));
    const config = join(dir, 'acon.config.yaml');
    writeFileSync(config, `roles:\n  agent: { model: gpt-4.1, tokenizer: "hf:${file}" }\n`);
    const args = ['replay', '--traces', recorded, '--db', db, '--config', config];
    const hf = await runAcon([...args, '--json'], { cwd });
    expect(hf.code, hf.stderr).toBe(0);
    type Result = {
      tokenizer?: string;
      rows: { metrics: { fullPeakTokens: number | null } }[];
    };
    const a = JSON.parse(plain.stdout) as Result;
    const b = JSON.parse(hf.stdout) as Result;
    expect(a.tokenizer).toBe('o200k');
    expect(b.tokenizer).toBe(`hf:${file}`);
    // The same conversations, counted by another tokenizer: the full-context peak differs.
    expect(b.rows[0]!.metrics.fullPeakTokens).not.toBe(a.rows[0]!.metrics.fullPeakTokens);
    const table = await runAcon(args, { cwd });
    // The provenance line names it (wrapped to the terminal's width).
    expect(table.stdout.replace(/\s+/g, ' ')).toContain(`· tokens hf:${file}`);
  }, 120_000);

  it('continues a replay run with --resume, answering from what was recorded', async () => {
    const first = await runAcon(['replay', '--traces', recorded, '--db', db, '--json'], { cwd });
    const { runId, rows } = JSON.parse(first.stdout) as { runId: string; rows: unknown };
    const again = await runAcon(['replay', '--resume', runId, '--db', db, '--json'], { cwd });
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ runId, rows });
    const conflict = await runAcon(
      ['replay', '--resume', runId, '--guidelines', 'v0', '--db', db],
      { cwd },
    );
    expect(conflict.code).toBe(2);
    expect(conflict.stderr).toMatch(/--guidelines v0 conflicts with run/);
  }, 120_000);

  const good = JSON.stringify({
    id: 'c1',
    messages: [
      { role: 'user', content: 'Pay Ann.' },
      { role: 'assistant', content: 'done' },
    ],
  });
  it.each([
    ['a line that is not JSON', [good, '{"messages": ['], /:2: \(line\): not JSON/],
    [
      'a message with an unknown role',
      [JSON.stringify({ messages: [{ role: 'wizard', content: 'x' }] })],
      /:1: messages\[0\]\.role: role must be one of system, developer, user, assistant, tool/,
    ],
    [
      'a tool message without its call',
      [
        JSON.stringify({
          messages: [
            { role: 'user', content: 'x' },
            { role: 'tool', tool_call_id: 'call_9', content: 'y' },
            { role: 'assistant', content: 'ok' },
          ],
        }),
      ],
      /:1: messages\[1\]\.tool_call_id: "call_9" answers no tool call/,
    ],
    ['an empty file', ['', ''], /:1: \(file\): holds no conversation/],
  ])(
    'refuses %s with its line and field, exit 2, nothing stored',
    async (_what, lines, message) => {
      const dir = tempDir();
      const file = join(dir, 'traces.jsonl');
      writeFileSync(file, lines.join('\n'));
      const fresh = join(dir, 'none', 'acon.db');
      for (const command of [['replay', '--traces', file, '--db', fresh]]) {
        const r = await runAcon(command, { cwd: dir });
        expect(r.code, r.stderr).toBe(2);
        expect(r.stdout).toBe('');
        expect(r.stderr).toMatch(message);
        expect(existsSync(fresh)).toBe(false);
        expect(existsSync(join(dir, 'runs'))).toBe(false);
      }
    },
    60_000,
  );

  /** `optimize --traces` of the recorded run: hist only, UT only, two candidates, no promotion. */
  const histUtFromTraces = () => [
    'optimize',
    '--traces',
    recorded,
    '--target',
    'hist',
    '--phases',
    'ut',
    '--candidates',
    '2',
    '--no-promote',
    '--db',
    db,
    '--json',
  ];

  it('optimize --traces learns from the recorded run alone and stores guideline versions', async () => {
    const r = await runAcon(histUtFromTraces(), { cwd });
    expect(r.code, r.stderr).toBe(0);
    const result = JSON.parse(r.stdout) as {
      runId: string;
      stages: { stage: string; cases: number; candidates: { id: string | null }[] }[];
      heldout: { version: string; metrics: { agreement: number | null } }[];
      files: string[];
      promoted: string[];
    };
    expect(result.stages.map((s) => s.stage)).toEqual(['trace-ut:hist:r1']);
    expect(result.heldout.map((h) => h.version)).toEqual(['v0 hist', 'UT hist']);
    expect(result.promoted).toEqual([]);
    const written = result.stages[0]!.candidates.flatMap((c) => (c.id ? [c.id] : []));
    expect(result.files.length).toBe(written.length);
    // Only the replay's roles and the optimizer's: no environment rollout was run.
    const runs = await runAcon(['runs', 'show', result.runId, '--db', db, '--json'], { cwd });
    expect((JSON.parse(runs.stdout) as { rollouts: unknown[] }).rollouts).toEqual([]);
    const log = await runAcon(['guidelines', 'log', '--kind', 'hist'], { cwd });
    for (const id of written) expect(log.stdout).toContain(id);
    // --resume continues the recorded run from its checkpoints: the same stages, no new files.
    const again = await runAcon(['optimize', '--resume', result.runId, '--db', db, '--json'], {
      cwd,
    });
    expect(again.code, again.stderr).toBe(0);
    const resumed = JSON.parse(again.stdout) as typeof result;
    expect(resumed.runId).toBe(result.runId);
    expect(resumed.stages).toEqual(result.stages);
    expect(resumed.heldout).toEqual(result.heldout);
    expect(resumed.files).toEqual(result.files);
  }, 120_000);

  it("optimize --traces decides by the config's optimize.alpha, as an environment optimize does", async () => {
    const r = await runAcon(histUtFromTraces(), { cwd, env: { ACON_OPTIMIZE__ALPHA: '0.3' } });
    expect(r.code, r.stderr).toBe(0);
    const result = JSON.parse(r.stdout) as {
      stages: { candidates: { reason: string; metrics: unknown }[] }[];
    };
    const reasons = result.stages
      .flatMap((s) => s.candidates)
      .filter((c) => c.metrics !== null)
      .map((c) => c.reason);
    expect(reasons.length).toBeGreaterThan(0);
    for (const reason of reasons) expect(reason).toMatch(/alpha 0\.3\b/);
  }, 120_000);

  it('runs traces writes the run as a traces file that replay reads to the same scores', async () => {
    const out = await runAcon(['runs', 'traces', recorded, '--db', db], { cwd });
    expect(out.code, out.stderr).toBe(0);
    expect(out.stderr).toBe('');
    const lines = out.stdout
      .trimEnd()
      .split('\n')
      .map(
        (l) =>
          JSON.parse(l) as {
            id: string;
            messages: { role: string }[];
            outcome?: string;
            metadata?: { task_id?: string };
          },
      );
    expect(lines).toHaveLength(4);
    expect(lines.every((l) => l.outcome === 'success' || l.outcome === 'failure')).toBe(true);
    expect(lines.every((l) => typeof l.metadata?.task_id === 'string')).toBe(true);
    expect(lines.every((l) => l.messages[0]!.role === 'system')).toBe(true);

    const file = join(cwd, 'raw-train.jsonl');
    const named = await runAcon(['runs', 'traces', `${recorded}:raw`, '--db', db, '--out', file], {
      cwd,
    });
    expect(named.code, named.stderr).toBe(0);
    expect(named.stdout).toBe('');
    expect(readFileSync(file, 'utf8')).toBe(out.stdout);

    const fromRun = await runAcon(['replay', '--traces', recorded, '--db', db, '--json'], { cwd });
    const fromFile = await runAcon(['replay', '--traces', file, '--db', db, '--json'], { cwd });
    expect(fromFile.code, fromFile.stderr).toBe(0);
    type Scored = { traces: number; rows: { metrics: unknown }[] };
    const a = JSON.parse(fromRun.stdout) as Scored;
    const b = JSON.parse(fromFile.stdout) as Scored;
    expect(b.traces).toBe(a.traces);
    expect(b.rows.map((r) => r.metrics)).toEqual(a.rows.map((r) => r.metrics));
  }, 180_000);

  it('runs traces refuses a condition the run lacks and a source that is not a run', async () => {
    const missing = await runAcon(['runs', 'traces', `${recorded}:masking`, '--db', db], { cwd });
    expect(missing.code).toBe(2);
    expect(missing.stdout).toBe('');
    expect(missing.stderr).toMatch(/no condition "masking".*conditions: raw/);
    const notRun = await runAcon(['runs', 'traces', 'traffic.jsonl', '--db', db], { cwd });
    expect(notRun.code).toBe(2);
    expect(notRun.stdout).toBe('');
    expect(notRun.stderr).toMatch(/not a run id/);
  });

  it('optimize --traces refuses flags of an environment optimize instead of ignoring them', async () => {
    for (const flag of [
      ['--max-rollouts', '5'],
      ['--max-tasks', '2'],
    ]) {
      const r = await runAcon(['optimize', '--traces', recorded, ...flag, '--db', db], { cwd });
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain(`${flag[0]} belongs to an environment optimize`);
    }
  });

  it('refuses an unknown pair name, listing the forms it takes', async () => {
    const r = await runAcon(
      ['replay', '--traces', recorded, '--guidelines', 'v0,obs@99', '--db', db],
      {
        cwd,
      },
    );
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/obs-0099 not found/);
  });
});

describe('acon replay on the README optimize', () => {
  it('prints agreement and probe recall for v0 and for the final guidelines', async () => {
    const { cwd, result } = await copyOfSharedOptimize();
    expect(result.code, result.stderr).toBe(0);
    const rec = await runAcon(
      ['compare', '--split', 'train', '--strategies', 'raw', '--max-tasks', '4', '--json'],
      { cwd, env: SHARED_OPTIMIZE_ENV },
    );
    expect(rec.code, rec.stderr).toBe(0);
    const runId = (JSON.parse(rec.stdout) as { provenance: { runId: string } }).provenance.runId;
    const r = await runAcon(['replay', '--traces', runId, '--guidelines', 'v0,active'], {
      cwd,
      env: SHARED_OPTIMIZE_ENV,
    });
    expect(r.code, r.stderr).toBe(0);
    const row = (label: string) =>
      new RegExp(
        `^${label} +(obs-\\d{4}) +(hist-\\d{4}) +(\\d+\\.\\d) +\\d+/\\d+ +(\\d+\\.\\d)`,
        'm',
      ).exec(r.stdout);
    const v0 = row('v0');
    const final = row('active');
    expect(v0?.slice(1, 3)).toEqual(['obs-0000', 'hist-0000']);
    expect(final, r.stdout).not.toBeNull();
    // The active pair is what the optimize promoted: its ids are the ones it printed.
    for (const id of final!.slice(1, 3)) {
      if (!id.endsWith('0000')) expect(result.stdout).toContain(id);
    }
    expect(r.stdout).toMatch(/^verdict: /m);
  }, 300_000);
});
