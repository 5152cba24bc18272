import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { countTokens } from '../../llm/tokenizer.js';
import { contrastivePairs } from '../../optimize/contrastive.js';
import type { RolloutRow } from '../../domain/index.js';
import { DEFAULT_QA_TASKS_DIR, createQa, qaPairRule } from './benchmark.js';
import { DEFAULT_CORPUS_SEED, KIND_COUNTS, generateCorpus } from './corpus.js';
import { renderArticle } from './article.js';
import { generateTaskFiles } from './generate-tasks.js';
import { corpusLibrary } from './library.js';
import { renderQaTaskFile } from './task-loader.js';
import { TEMPLATES } from './questions.js';
import { replayPlan } from './qa.fixtures.js';

describe('the generated encyclopedia', () => {
  it('is identical across two generations with the same seed, and differs with another', () => {
    const a = generateCorpus(DEFAULT_CORPUS_SEED);
    const b = generateCorpus(DEFAULT_CORPUS_SEED);
    expect(b.entities).toEqual(a.entities);
    const id = a.entities[1234]!.id;
    expect(renderArticle(b.byId.get(id)!, b)).toEqual(renderArticle(a.byId.get(id)!, a));
    expect(generateCorpus(DEFAULT_CORPUS_SEED + 1).entities[0]).not.toEqual(a.entities[0]);
  });

  it('has at least 2,000 articles with unique titles and resolvable cross-references', () => {
    const c = generateCorpus(DEFAULT_CORPUS_SEED);
    expect(c.entities.length).toBe(Object.values(KIND_COUNTS).reduce((s, n) => s + n, 0));
    expect(c.entities.length).toBeGreaterThanOrEqual(2000);
    expect(new Set(c.entities.map((e) => e.title)).size).toBe(c.entities.length);
    for (const e of c.entities) {
      for (const id of Object.values(e.links)) expect(c.byId.has(id)).toBe(true);
    }
  });

  it('finds an article by its title with the BM25 index', () => {
    const c = generateCorpus(DEFAULT_CORPUS_SEED);
    const index = corpusLibrary(c).index();
    const target = c.entities.find((e) => e.kind === 'organisation')!;
    expect(index.search(target.title, 6).hits[0]?.id).toBe(target.id);
  });
});

describe('tasks/qa', () => {
  it('are identical to a fresh generation with the same seed (the files were made by another)', async () => {
    const files = generateTaskFiles(DEFAULT_CORPUS_SEED);
    expect(files.length).toBeGreaterThanOrEqual(100);
    for (const task of files) {
      const shipped = await readFile(join(DEFAULT_QA_TASKS_DIR, `${task.id}.yaml`), 'utf8');
      expect(shipped, `${task.id}: regenerate with scripts/bench/gen-qa-tasks.ts`).toBe(
        renderQaTaskFile(task),
      );
    }
  });

  it('has 1–16 questions a task, ≥100 tasks, and held-out templates only in test', async () => {
    const bench = await createQa();
    const tasks = await bench.listTasks();
    expect(tasks.length).toBeGreaterThanOrEqual(100);
    expect(await bench.loadProblems()).toEqual([]);
    const counts = new Set<number>();
    const heldOut = new Set(TEMPLATES.filter((t) => t.heldOut).map((t) => t.id));
    for (const info of tasks) {
      const task = await bench.task(info.id);
      counts.add(task.objectives.length);
      const held = task.objectives.filter((o) => heldOut.has(o.template)).length;
      if (info.split === 'test') expect(held).toBeGreaterThan(0);
      else expect(held).toBe(0);
    }
    expect([...counts].sort((a, b) => a - b)).toEqual([1, 2, 4, 8, 16]);
  });

  it('reference solutions answer every question exactly; p90 observation ≥ 1,024 tokens', async () => {
    const bench = await createQa();
    const tokens: number[] = [];
    // Two tasks of every size (1, 2, 4, 8 and 16 questions) keep the test fast.
    const sample = (await bench.listTasks('dev')).filter((t) => /-[12]$/.test(t.id));
    expect(sample.length).toBe(10);
    for (const info of sample) {
      const episode = await bench.start(info.id);
      const steps = await replayPlan(episode, await bench.referencePlan(info.id));
      const observations = steps.flatMap((s) => s.observations);
      for (const o of observations.slice(0, -1)) tokens.push(countTokens(o));
      const evaluation = await episode.evaluate();
      expect(evaluation, info.id).toMatchObject({
        success: true,
        score: 1,
        qa: { exactMatch: 1, f1: 1 },
      });
    }
    tokens.sort((a, b) => a - b);
    expect(tokens[Math.floor(0.9 * (tokens.length - 1))]).toBeGreaterThanOrEqual(1024);
  });

  it('scores wrong, missing and unsubmitted answers', async () => {
    const bench = await createQa();
    const id = 'qa-dev-02q-1';
    const episode = await bench.start(id);
    const act = (name: string, args: unknown) =>
      episode.act({
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'c', type: 'function', function: { name, arguments: JSON.stringify(args) } },
        ],
      });
    const short = await act('submit_answers', { answers: ['x'] });
    expect(short.done).toBe(false);
    expect(short.messages[0]?.content).toContain('expected 2 answer(s)');
    const task = await bench.task(id);
    const done = await act('submit_answers', { answers: [task.objectives[0]!.answers[0], 'nope'] });
    expect(done.done).toBe(true);
    expect((await episode.evaluate()).qa).toEqual({ exactMatch: 0.5, f1: 0.5 });
    const untouched = await bench.start(id);
    expect(await untouched.evaluate()).toMatchObject({ success: false, score: 0 });
  });
});

describe('the QA contrastive-pair rule', () => {
  const row = (task: string, success: boolean, score: number, steps = 10) =>
    ({ task_id: task, success, score, steps }) as RolloutRow;

  it('pairs a compressed run whose F1 is more than 0.05 below the full run', () => {
    const full = [row('a', false, 0.8), row('b', true, 1), row('c', false, 0.5), row('d', true, 1)];
    const comp = [
      row('a', false, 0.7),
      row('b', true, 1, 20),
      row('c', false, 0.47),
      row('d', false, 0.96),
    ];
    const pairs = contrastivePairs(full, comp, { stepsRatio: 1.5, rule: qaPairRule });
    expect(pairs.map((p) => [p.taskId, p.kind])).toEqual([
      ['a', 'failure'],
      ['b', 'elongation'],
    ]);
  });
});
