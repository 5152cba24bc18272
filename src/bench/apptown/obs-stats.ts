import { countMessageTokens, countTokens, type ChatMessage } from '../../llm/index.js';
import type { ApptownBenchmark } from './benchmark.js';
import { toolCallMessage } from './drive.js';

export type ObsTokenStats = {
  tasks: number;
  observations: number;
  median: number;
  p90: number;
  max: number;
  /** Observations above the default T_obs of 1024 tokens (ARCHITECTURE §1). */
  overThreshold: number;
};

/** Reference length and raw peak prompt of the tasks of one split (issue 13). */
export type SplitStats = {
  split: string;
  tasks: number;
  steps: { median: number; p90: number; mean: number };
  /** The last prompt of a reference rollout with nothing compressed: system, task, every turn. */
  rawPeak: { median: number; p90: number; max: number };
  /** Tasks whose reference uses two or more apps. */
  multiApp: number;
  observations: number;
  /** Observations above the default T_obs of 1024 tokens. */
  overThreshold: number;
};

/** Nearest-rank percentile of sorted numbers (p in 0..100). */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1] as number;
}

type Replayed = { split: string; apps: number; observations: string[]; peak: number };

/** Every task's reference solution sent through the adapter, as a perfect agent would. */
async function replayAll(bench: ApptownBenchmark): Promise<Replayed[]> {
  const out: Replayed[] = [];
  for (const task of await bench.listTasks()) {
    const episode = await bench.start(task.id);
    const plan = await bench.referencePlan(task.id);
    const messages: ChatMessage[] = [
      { role: 'system', content: episode.systemPrompt },
      { role: 'user', content: episode.firstUserMessage },
    ];
    const observations: string[] = [];
    for (const [i, step] of plan.steps.entries()) {
      const call = toolCallMessage(`call_${i + 1}`, step.tool, step.args);
      const result = await episode.act(call);
      messages.push(call, ...result.messages);
      for (const m of result.messages) if (m.role === 'tool') observations.push(m.content);
    }
    // The agent's last prompt holds every turn but the last (its own answer).
    const last = messages.length - 2;
    const peak = countMessageTokens(messages.slice(0, Math.max(2, last)), episode.tools);
    await episode.close();
    out.push({ split: task.split, apps: task.apps.length, observations, peak });
  }
  return out;
}

/**
 * Token counts (o200k, the same counter the compressors' thresholds use) of every observation
 * an agent sees when it follows each task's reference solution through the adapter.
 */
export async function observationTokenStats(
  bench: ApptownBenchmark,
  count: (text: string) => number = countTokens,
): Promise<ObsTokenStats> {
  const tasks = await bench.listTasks();
  const counts: number[] = [];
  for (const task of tasks) {
    const episode = await bench.start(task.id);
    const plan = await bench.referencePlan(task.id);
    for (const [i, step] of plan.steps.entries()) {
      const result = await episode.act(toolCallMessage(`call_${i + 1}`, step.tool, step.args));
      for (const m of result.messages) if (m.role === 'tool') counts.push(count(m.content));
    }
    await episode.close();
  }
  counts.sort((a, b) => a - b);
  return {
    tasks: tasks.length,
    observations: counts.length,
    median: percentile(counts, 50),
    p90: percentile(counts, 90),
    max: counts[counts.length - 1] ?? 0,
    overThreshold: counts.filter((c) => c > 1024).length,
  };
}

/** Steps and raw peak prompt tokens of the reference solutions, per split. */
export async function splitStats(bench: ApptownBenchmark): Promise<SplitStats[]> {
  const all = await replayAll(bench);
  const splits = [...new Set(all.map((r) => r.split))];
  return splits.map((split) => {
    const rows = all.filter((r) => r.split === split);
    const steps = rows.map((r) => r.observations.length).sort((a, b) => a - b);
    const peaks = rows.map((r) => r.peak).sort((a, b) => a - b);
    return {
      split,
      tasks: rows.length,
      steps: {
        median: percentile(steps, 50),
        p90: percentile(steps, 90),
        mean: Math.round((steps.reduce((s, n) => s + n, 0) / rows.length) * 10) / 10,
      },
      rawPeak: {
        median: percentile(peaks, 50),
        p90: percentile(peaks, 90),
        max: peaks[peaks.length - 1] ?? 0,
      },
      multiApp: rows.filter((r) => r.apps >= 2).length,
      observations: rows.reduce((n, r) => n + r.observations.length, 0),
      overThreshold: rows.reduce(
        (n, r) => n + r.observations.filter((o) => countTokens(o) > 1024).length,
        0,
      ),
    };
  });
}
