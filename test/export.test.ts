import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { NotFoundError, UsageError } from '../src/errors.js';
import { countMessageTokens } from '../src/llm/tokenizer.js';
import {
  exportDataset,
  lintFile,
  type ExportFormat,
  type ExportOptions,
  type ExportRole,
} from '../src/export/index.js';
import { renderExportSummary } from '../src/report/export-summary.js';
import { SqliteRunStore } from '../src/store/run-store.js';
import {
  buildFixture,
  FAILED_TASK,
  FAKE_KEY,
  RUN_ID,
  TASKS,
  type Fixture,
} from './export-fixture.js';
import { simRun } from './helpers/store.js';

const FORMATS: ExportFormat[] = ['openai', 'trl', 'sharegpt', 'axolotl'];
const ROLES: ExportRole[] = ['obs', 'hist', 'agent'];

let fx: Fixture | null = null;
afterEach(() => {
  fx?.store.close();
  fx = null;
});
function fixture(): Fixture {
  fx = buildFixture();
  return fx;
}

const lines = (file: string): string[] => readFileSync(file, 'utf8').split('\n').filter(Boolean);
/** Task ids planted in the examples' text (`<task>t1</task>`, `Task t1:`). */
const tasksIn = (file: string): Set<string> =>
  new Set(lines(file).flatMap((l) => [...l.matchAll(/\b(t[0-9])\b/g)].map((m) => m[1]!)));
function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

async function run(f: Fixture, opts: Omit<ExportOptions, 'out'> & { out?: string }) {
  const out = opts.out ?? join(f.dir, 'out', `${opts.format}-${opts.role}.jsonl`);
  const summary = await exportDataset({ ...opts, out }, { store: f.store, version: '0.0.0-test' });
  return { out, summary };
}

describe('exportDataset', () => {
  it.each(FORMATS.flatMap((format) => ROLES.map((role) => [format, role] as const)))(
    'writes %s %s files that pass their own lint (train and validation)',
    async (format, role) => {
      const f = fixture();
      const { summary } = await run(f, { format, role, valRatio: 0.25 });
      expect(summary.examples.train).toBeGreaterThan(0);
      expect(summary.examples.val).toBeGreaterThan(0);
      for (const file of [summary.files.train, summary.files.val!]) {
        const report = await lintFile(file, { format });
        expect(report.problems).toEqual([]);
      }
    },
  );

  it('builds compressor examples from the recorded system prompt, the input and the answer', async () => {
    const f = fixture();
    const { out, summary } = await run(f, { format: 'openai', role: 'obs' });
    const first = JSON.parse(lines(out)[0]!) as { messages: { role: string; content: string }[] };
    expect(first.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant']);
    expect(first.messages[0]!.content).toContain('<guideline>');
    expect(first.messages[1]!.content).toContain('<observation>');
    expect(first.messages[2]!.content).toMatch(/^# Refined Observation/);
    // The retried call becomes a clean two-message prompt with the corrected answer.
    const retry = lines(out)
      .map((l) => JSON.parse(l) as typeof first)
      .find((l) => l.messages[2]!.content.includes('songs: 7, 9'));
    expect(retry?.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant']);
    expect(summary.skipped).toMatchObject({
      failedRollout: 1,
      errored: 1,
      malformed: 1,
      failedEvent: 1,
      duplicate: 1,
    });
  });

  it('excludes failed trajectories by default and includes them with includeFailed', async () => {
    const f = fixture();
    const off = await run(f, { format: 'openai', role: 'hist' });
    expect(tasksIn(off.out)).toEqual(new Set(TASKS));
    expect(off.summary.byTask.map((t) => t.taskId)).not.toContain(FAILED_TASK);
    const on = await run(f, {
      format: 'openai',
      role: 'hist',
      includeFailed: true,
      out: join(f.dir, 'all.jsonl'),
    });
    expect(tasksIn(on.out)).toContain(FAILED_TASK);
    expect(on.summary.skipped.failedRollout).toBe(0);
  });

  it('leaves the summary baseline out of hist exports unless its condition is asked for', async () => {
    const f = fixture();
    const def = await run(f, { format: 'openai', role: 'hist' });
    expect(readFileSync(def.out, 'utf8')).not.toContain('USER_CONTEXT');
    const only = await run(f, {
      format: 'openai',
      role: 'hist',
      conditions: ['summary'],
      out: join(f.dir, 's.jsonl'),
    });
    expect(only.summary.examples.total).toBe(1);
    expect(readFileSync(only.out, 'utf8')).toContain('USER_CONTEXT');
  });

  it('splits train and validation by task: no task is on both sides', async () => {
    const f = fixture();
    for (const role of ROLES) {
      const { summary } = await run(f, { format: 'openai', role, valRatio: 0.5, seed: 3 });
      const train = tasksIn(summary.files.train);
      const val = tasksIn(summary.files.val!);
      expect(train.size).toBeGreaterThan(0);
      expect(val.size).toBeGreaterThan(0);
      expect([...train].filter((t) => val.has(t))).toEqual([]);
      expect(
        summary.byTask
          .filter((t) => t.split === 'val')
          .map((t) => t.taskId)
          .sort(),
      ).toEqual([...val].sort());
    }
  });

  it('draws validation tasks from tasks that can contribute examples', async () => {
    const f = fixture();
    for (let seed = 0; seed < 8; seed++) {
      const { summary } = await run(f, { format: 'openai', role: 'hist', valRatio: 0.2, seed });
      // 4 successful tasks: one is held out, and never the failed one (which has no examples).
      expect(summary.examples.val).toBe(1);
    }
  });

  it('writes an identical example once', async () => {
    const f = fixture();
    const { out, summary } = await run(f, { format: 'openai', role: 'obs' });
    expect(summary.skipped.duplicate).toBe(1);
    expect(new Set(lines(out)).size).toBe(lines(out).length);
  });

  it('drops or truncates examples over --max-tokens and counts them', async () => {
    const f = fixture();
    const dropped = await run(f, { format: 'openai', role: 'obs', maxTokens: 1000 });
    expect(dropped.summary.skipped.overLength).toBe(1);
    expect(dropped.summary.truncated).toBe(0);
    const cut = await run(f, {
      format: 'openai',
      role: 'obs',
      maxTokens: 1000,
      overflow: 'truncate',
      out: join(f.dir, 'cut.jsonl'),
    });
    expect(cut.summary.skipped.overLength).toBe(0);
    expect(cut.summary.truncated).toBe(1);
    expect(cut.summary.examples.total).toBe(dropped.summary.examples.total + 1);
    for (const l of lines(cut.out)) {
      const { messages } = JSON.parse(l) as { messages: Parameters<typeof countMessageTokens>[0] };
      expect(countMessageTokens(messages)).toBeLessThanOrEqual(1000);
    }
    expect((await lintFile(cut.out, { format: 'openai', maxTokens: 1000 })).problems).toEqual([]);
  });

  it('names its longest example, so a trainer’s max length can be set to hold it', async () => {
    const f = fixture();
    const all = await run(f, { format: 'openai', role: 'obs' });
    const longest = Math.max(
      ...lines(all.out).map((l) =>
        countMessageTokens(
          (JSON.parse(l) as { messages: Parameters<typeof countMessageTokens>[0] }).messages,
        ),
      ),
    );
    expect(all.summary.tokens.longest).toBe(longest);
    const text = renderExportSummary(all.summary, { color: false });
    expect(text).toContain(`longest example ${longest.toLocaleString('en-US')} tokens`);
    expect(text).toContain('--max-tokens');
    // Over the limit, lint finds exactly the examples the export would have dropped.
    const report = await lintFile(all.out, { format: 'openai', maxTokens: longest - 1 });
    expect(report.problems.map((p) => p.rule)).toEqual(['tooLong']);
  });

  it('never writes an API key, an Authorization header or a Bearer token, in any file', async () => {
    const f = fixture();
    let scrubbed = 0;
    for (const format of FORMATS) {
      for (const role of ROLES) {
        const { summary } = await run(f, { format, role, valRatio: 0.25, includeFailed: true });
        scrubbed += summary.scrubbed;
      }
    }
    expect(scrubbed).toBeGreaterThan(0);
    const files = filesUnder(join(f.dir, 'out'));
    expect(files.length).toBeGreaterThan(24);
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      expect(text, file).not.toContain(FAKE_KEY);
      expect(text, file).not.toMatch(/sk-[A-Za-z0-9_-]{8,}/);
      expect(text, file).not.toMatch(/authorization/i);
      expect(text, file).not.toContain('Bearer');
    }
  });

  it('gives byte-identical files when the same run is exported twice', async () => {
    const f = fixture();
    for (const format of FORMATS) {
      const a = await run(f, {
        format,
        role: 'agent',
        valRatio: 0.25,
        out: join(f.dir, 'a', 'agent.jsonl'),
      });
      const snapshot = new Map(filesUnder(join(f.dir, 'a')).map((p) => [p, readFileSync(p)]));
      const b = await run(f, {
        format,
        role: 'agent',
        valRatio: 0.25,
        out: join(f.dir, 'a', 'agent.jsonl'),
      });
      expect(b.summary).toEqual(a.summary);
      for (const [p, bytes] of snapshot) expect(readFileSync(p).equals(bytes), p).toBe(true);
    }
  });

  it('records provenance in the meta file and the summary, never in the lines', async () => {
    const f = fixture();
    const { out, summary } = await run(f, { format: 'sharegpt', role: 'obs', valRatio: 0.25 });
    expect(summary).toMatchObject({ runId: RUN_ID, provider: 'sim', simulated: true });
    const meta = JSON.parse(readFileSync(summary.files.meta, 'utf8')) as Record<
      string,
      Record<string, unknown>
    >;
    expect(meta.source).toMatchObject({ runId: RUN_ID, provider: 'sim', simulated: true });
    expect(meta.acon).toEqual({ version: '0.0.0-test' });
    expect(meta.warning).toMatch(/^SIMULATED/);
    expect(meta.counts).toMatchObject({ examples: summary.examples, skipped: summary.skipped });
    const data = readFileSync(out, 'utf8') + readFileSync(summary.files.val!, 'utf8');
    expect(data).not.toContain(RUN_ID);
    expect(data).not.toMatch(/simulated|sim-compressor/i);
  });

  it('writes the LLaMA-Factory dataset_info.json entry and the Axolotl snippet next to the data', async () => {
    const f = fixture();
    const sg = await run(f, {
      format: 'sharegpt',
      role: 'agent',
      valRatio: 0.25,
      out: join(f.dir, 'lf', 'acon_agent.jsonl'),
    });
    const info = JSON.parse(readFileSync(join(f.dir, 'lf', 'dataset_info.json'), 'utf8')) as Record<
      string,
      Record<string, unknown>
    >;
    expect(Object.keys(info)).toEqual(['acon_agent', 'acon_agent.val']);
    expect(info.acon_agent).toMatchObject({
      file_name: 'acon_agent.jsonl',
      formatting: 'sharegpt',
      columns: { messages: 'conversations', system: 'system', tools: 'tools' },
    });
    expect(sg.summary.files.sidecars).toEqual([join(f.dir, 'lf', 'dataset_info.json')]);
    const ax = await run(f, {
      format: 'axolotl',
      role: 'hist',
      out: join(f.dir, 'ax', 'hist.jsonl'),
    });
    const yaml = readFileSync(join(f.dir, 'ax', 'hist.axolotl.yaml'), 'utf8');
    expect(yaml).toContain(`path: "${ax.out}"`);
    expect(yaml).toContain('type: chat_template');
    expect(yaml).toContain('field_messages: messages');
    expect(yaml).not.toContain('test_datasets');
  });

  it('exports agent turns with their tools, joined user messages, and only the last answer trained', async () => {
    const f = fixture();
    const { out, summary } = await run(f, { format: 'openai', role: 'agent' });
    // Steps 0, 1 and 3 of four tasks; step 2 answered without a tool call.
    expect(summary.examples.total).toBe(12);
    expect(summary.skipped.malformed).toBe(4);
    type Line = {
      messages: { role: string; content?: string; weight?: number }[];
      tools?: unknown[];
    };
    const parsed = lines(out).map((l) => JSON.parse(l) as Line);
    expect(parsed.every((l) => l.tools?.length === 1)).toBe(true);
    const withSummary = parsed.find((l) =>
      l.messages.some((m) => m.content?.includes('Summary of turns')),
    )!;
    expect(withSummary.messages.map((m) => m.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'assistant',
    ]);
    expect(withSummary.messages.map((m) => m.weight)).toEqual([
      undefined,
      undefined,
      0,
      undefined,
      undefined,
    ]);
  });

  it('exports the finished optimize run by default, not a newer run without rollouts', async () => {
    const f = fixture();
    f.store.createRun(simRun('run-empty'));
    const { summary } = await run(f, { format: 'openai', role: 'hist' });
    expect(summary.runId).toBe(RUN_ID);
    await expect(run(f, { format: 'openai', role: 'hist', run: 'run-empty' })).rejects.toThrow(
      NotFoundError,
    );
    await expect(run(f, { format: 'openai', role: 'hist', run: 'run-nope' })).rejects.toThrow(
      /no run run-nope/,
    );
  });

  it('runs the injected teacher when there is no run, or when guidelines are given', async () => {
    const f = fixture();
    const empty = new SqliteRunStore(join(f.dir, 'empty.db'));
    try {
      const out = join(f.dir, 'teacher.jsonl');
      await expect(
        exportDataset({ format: 'openai', role: 'hist', out }, { store: empty }),
      ).rejects.toThrow(/--teacher/);
      await expect(
        exportDataset({ format: 'openai', role: 'hist', out, teacher: true }, { store: empty }),
      ).rejects.toThrow(UsageError);
      const calls: (string | null)[] = [];
      // The fake teacher "runs" by pointing at the fixture's database.
      const teacherStore = f.store;
      const runTeacher = async (g: string | null) => {
        calls.push(g);
        return RUN_ID;
      };
      const s1 = await exportDataset(
        { format: 'openai', role: 'hist', out, teacher: 'obs@1,hist@1' },
        { store: teacherStore, runTeacher },
      );
      expect(s1.runId).toBe(RUN_ID);
      await exportDataset(
        { format: 'openai', role: 'hist', out, teacher: true },
        { store: teacherStore, runTeacher },
      );
      expect(calls).toEqual(['obs@1,hist@1']); // a run exists, so bare --teacher does not run it again
      await expect(
        exportDataset(
          { format: 'openai', role: 'hist', out, teacher: true },
          { store: empty, runTeacher },
        ),
      ).rejects.toThrow(/no run run-fixture/);
      expect(calls).toEqual(['obs@1,hist@1', null]);
      await expect(
        exportDataset(
          { format: 'openai', role: 'hist', out, teacher: true, run: RUN_ID },
          { store: teacherStore, runTeacher },
        ),
      ).rejects.toThrow(UsageError);
    } finally {
      empty.close();
    }
  });
});
