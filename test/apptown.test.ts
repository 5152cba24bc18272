import { describe, expect, it } from 'vitest';
import {
  createApptown,
  runPlan,
  toolCallMessage,
  type ApptownEpisode,
} from '../src/bench/apptown/index.js';

const bench = createApptown();
const tasks = await bench.listTasks();
const files = new Map(
  await Promise.all(tasks.map(async (t) => [t.id, await bench.taskFile(t.id)] as const)),
);

async function call(episode: ApptownEpisode, app: string, api: string, args = {}) {
  const { messages } = await episode.act(toolCallMessage('x', 'call_api', { app, api, args }));
  return JSON.parse(messages[0]?.content ?? 'null') as Record<string, unknown>;
}

/** An agent that finishes the task and then does one thing nobody asked for. */
async function strayChange(episode: ApptownEpisode, touched: string[]) {
  const passwords = (await call(episode, 'supervisor', 'show_account_passwords')) as unknown as {
    account_name: string;
    password: string;
  }[];
  const profile = await call(episode, 'supervisor', 'show_profile');
  const app = (['notes', 'files', 'phone', 'music', 'mail'] as const).find(
    (a) => !touched.some((t) => t.startsWith(`${a}.`)),
  );
  if (!app) throw new Error('every stray-change app is touched by the task');
  const password = passwords.find((p) => p.account_name === app)?.password;
  const { access_token } = await call(episode, app, 'login', { username: profile.email, password });
  const res =
    app === 'notes'
      ? await call(episode, 'notes', 'create_note', { access_token, title: 'stray' })
      : app === 'files'
        ? await call(episode, 'files', 'create_file', {
            access_token,
            file_path: '/stray.txt',
            content: 'x',
          })
        : app === 'phone'
          ? await call(episode, 'phone', 'add_contact', {
              access_token,
              first_name: 'Stray',
              phone_number: '555-0100',
            })
          : app === 'music'
            ? await call(episode, 'music', 'create_playlist', { access_token, title: 'stray' })
            : await call(episode, 'mail', 'send_email', {
                access_token,
                to_emails: ['stray@example.com'],
                subject: 'stray',
                body: 'x',
              });
  expect(res.status).toBeUndefined();
}

/** Nearest-rank percentile, as obs-stats computes it. */
function pct(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(1, Math.ceil((p / 100) * sorted.length)) - 1] ?? 0;
}

describe('apptown tasks', () => {
  it('ships at least 120 tasks: train >= 40, dev >= 35, test >= 35, all loading cleanly', async () => {
    expect(await bench.loadProblems()).toEqual([]);
    const count = (split: string) => tasks.filter((t) => t.split === split).length;
    expect(tasks.length).toBeGreaterThanOrEqual(120);
    expect(count('train')).toBeGreaterThanOrEqual(40);
    expect(count('dev')).toBeGreaterThanOrEqual(35);
    expect(count('test')).toBeGreaterThanOrEqual(35);
  });

  it('are long-horizon: median >= 20 calls, p90 >= 35, >= 40% multi-app, several seeds', () => {
    // Issue 13: AppWorld-like trajectories of 20 to 40 steps, where compression matters.
    const lengths = tasks.map((t) => t.referenceLength);
    expect(pct(lengths, 50)).toBeGreaterThanOrEqual(20);
    expect(pct(lengths, 90)).toBeGreaterThanOrEqual(35);
    expect(tasks.filter((t) => t.apps.length >= 2).length).toBeGreaterThanOrEqual(
      tasks.length * 0.4,
    );
    const all = [...files.values()];
    expect(all.filter((t) => t.evaluation.answer !== undefined).length).toBeGreaterThanOrEqual(30);
    expect(all.filter((t) => t.evaluation.changes.length > 0).length).toBeGreaterThanOrEqual(60);
    expect(new Set(all.map((t) => t.seed)).size).toBeGreaterThanOrEqual(10);
  });

  it('start with api_docs discovery, log in to several apps and page through lists', () => {
    const all = [...files.values()];
    for (const t of all) {
      expect(`${t.reference[0]?.app}.${t.reference[0]?.api}`).toBe(
        'api_docs.show_app_descriptions',
      );
    }
    const logins = (t: (typeof all)[number]) => t.reference.filter((s) => s.api === 'login').length;
    expect(all.filter((t) => logins(t) >= 2).length).toBeGreaterThanOrEqual(all.length * 0.8);
    // A third page: page_index 2 of some list.
    const threePages = all.filter((t) => t.reference.some((s) => s.args.page_index === 2));
    expect(threePages.length).toBeGreaterThanOrEqual(all.length * 0.3);
  });

  it('compute answers and targets from data: choices, sums and counts across pages', () => {
    const all = [...files.values()];
    const ops = (t: (typeof all)[number]) =>
      t.reference.flatMap((s) => (s.choose ?? []).map((c) => c.op));
    expect(all.filter((t) => ops(t).length > 0).length).toBeGreaterThanOrEqual(all.length / 3);
    // Sums and counts over paged records are still rare in the generated set (2 of 124 tasks;
    // most choices are max/min over paged lists): both must occur until the generator makes more.
    const allOps = new Set(all.flatMap(ops));
    expect([...allOps].sort()).toEqual(expect.arrayContaining(['count', 'max', 'min', 'sum']));
  });

  it('hold out at least 8 templates for test that neither train nor dev use', () => {
    for (const t of tasks) expect(t.template, t.id).toEqual(expect.any(String));
    const parts = (split: string) =>
      new Set(tasks.filter((t) => t.split === split).flatMap((t) => (t.template ?? '').split('+')));
    const seen = new Set([...parts('train'), ...parts('dev')]);
    const test = parts('test');
    expect([...test].filter((p) => seen.has(p))).toEqual([]);
    expect(test.size).toBeGreaterThanOrEqual(8);
    const testTemplates = new Set(tasks.filter((t) => t.split === 'test').map((t) => t.template));
    expect(testTemplates.size).toBeGreaterThanOrEqual(8);
  });
});

describe('apptown evaluation', () => {
  it.each(tasks.map((t) => t.id))('%s: the reference solution passes', async (id) => {
    const episode = await bench.start(id);
    const plan = await bench.referencePlan(id);
    const observations = await runPlan(episode, plan);
    expect(observations.filter((o) => /"status": [45]\d\d/.test(o))).toEqual([]);
    // The sim agent checks that each needed value is verbatim in its context (ARCHITECTURE §6).
    const unseen = plan.steps.flatMap((step, i) =>
      step.needs.filter((n) => n.fromStep >= i || !observations[n.fromStep]?.includes(n.value)),
    );
    expect(unseen).toEqual([]);
    const result = await episode.evaluate();
    expect(result.details.filter((d) => !d.passed)).toEqual([]);
    expect(result).toMatchObject({ success: true, score: 1 });
  });

  it.each(tasks.map((t) => t.id))('%s: doing nothing fails', async (id) => {
    const episode = await bench.start(id);
    const { done } = await episode.act(
      toolCallMessage('c1', 'complete_task', { answer: null, status: 'success' }),
    );
    expect(done).toBe(true);
    const result = await episode.evaluate();
    expect(result.success).toBe(false);
    if ((files.get(id)?.evaluation.changes.length ?? 0) > 0) {
      expect(result.details.some((d) => d.name.includes('row(s)') && !d.passed)).toBe(true);
    }
  });

  const questions = tasks.filter((t) => {
    const answer = files.get(t.id)?.evaluation.answer;
    return answer !== undefined && answer !== null;
  });
  it.each(questions.map((t) => t.id))('%s: a wrong answer fails', async (id) => {
    const episode = await bench.start(id);
    await runPlan(episode, await bench.referencePlan(id), { answer: 'Zanzibar 98765' });
    const result = await episode.evaluate();
    expect(result.success).toBe(false);
    expect(result.details.find((d) => d.name === 'answer')?.passed).toBe(false);
  });

  // The collateral check is the evaluator's, the same for every task: every third task tries it.
  it.each(tasks.filter((_, i) => i % 3 === 0).map((t) => t.id))(
    '%s: an extra change to an unrelated table fails the collateral check',
    async (id) => {
      const touched = files.get(id)?.evaluation.changes.map((c) => c.table) ?? [];
      const episode = await bench.start(id);
      await runPlan(episode, await bench.referencePlan(id), {
        beforeComplete: () => strayChange(episode, touched),
      });
      const result = await episode.evaluate();
      expect(result.success).toBe(false);
      expect(result.details.find((d) => d.name === 'no collateral damage')?.passed).toBe(false);
    },
  );
});
