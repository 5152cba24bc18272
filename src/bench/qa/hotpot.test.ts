import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { TaskFileError } from '../../errors.js';
import { createQa } from './benchmark.js';
import { replayPlan } from './qa.fixtures.js';

const FIXTURE = fileURLToPath(
  new URL('../../../test/fixtures/qa/hotpot-mini.json', import.meta.url),
);

describe('--qa-data (HotpotQA format)', () => {
  it('bundles questions into tasks, deals them to splits and indexes every paragraph once', async () => {
    const bench = await createQa({ data: FIXTURE, perTask: 2 });
    const tasks = await bench.listTasks();
    expect(tasks.map((t) => [t.id, t.split])).toEqual([
      ['hotpot-0001', 'train'],
      ['hotpot-0002', 'dev'],
      ['hotpot-0003', 'test'],
    ]);
    const first = await bench.task('hotpot-0001');
    expect(first.objectives.map((o) => o.question)).toEqual([
      'In which town was the founder of Brindle Lantern Works born?',
      'Which river flows through the capital of Quessany?',
    ]);
    // Two supporting paragraphs: search and open each; the answer is read in the second.
    expect(first.objectives[0]!.lookups.map((l) => l.query)).toEqual([
      'Brindle Lantern Works',
      'Tamsin Vell',
    ]);
    expect(first.objectives[0]!.answerAt).toBe(1);
    // A yes/no answer is in no paragraph.
    expect((await bench.task('hotpot-0002')).objectives[0]!.answerAt).toBeNull();
  });

  it('its reference solutions find the paragraphs and answer exactly', async () => {
    const bench = await createQa({ data: FIXTURE, perTask: 2 });
    for (const info of await bench.listTasks()) {
      const plan = await bench.referencePlan(info.id);
      const episode = await bench.start(info.id);
      const steps = await replayPlan(episode, plan);
      for (const s of steps.filter((s) => s.tool === 'open')) {
        expect(s.observations[0]).toContain('"sentences"');
      }
      const last = steps.at(-1)?.observations[0] ?? '';
      expect(last).toContain('submitted');
      expect((await episode.evaluate()).qa, info.id).toEqual({ exactMatch: 1, f1: 1 });
    }
  });

  it('names the question and field of a malformed file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'acon-hotpot-'));
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify([{ _id: 'x', question: 'q?', answer: 'a', context: [] }]));
    const bench = await createQa({ data: bad });
    const err = await bench.listTasks().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TaskFileError);
    expect((err as TaskFileError).message).toMatch(
      /bad\.json: \[0\]\.supporting_facts: .*HotpotQA format/,
    );

    writeFileSync(
      bad,
      JSON.stringify([
        {
          _id: 'x',
          question: 'q?',
          answer: 'a',
          supporting_facts: [['T', 0]],
          context: [['U', ['u']]],
        },
      ]),
    );
    const err2 = await (await createQa({ data: bad })).listTasks().catch((e: unknown) => e);
    expect((err2 as Error).message).toMatch(/\[0\]\.supporting_facts: "T" is not a context title/);
  });
});
