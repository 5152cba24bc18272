/**
 * Prints observation-token statistics (median, p90, max) over every apptown reference solution,
 * then steps and raw peak prompt tokens per split, counted with the o200k tokenizer the
 * compressors' thresholds use.
 *
 *   npm run bench:obs-tokens [-- tasks-dir]
 */
import { createApptown, observationTokenStats, splitStats } from '../../src/bench/apptown/index.js';

const bench = createApptown(process.argv[2] ? { tasksDir: process.argv[2] } : {});
const stats = await observationTokenStats(bench);
console.log(
  `apptown: ${stats.observations} observations over ${stats.tasks} reference solutions\n` +
    `median ${stats.median} tokens, p90 ${stats.p90}, max ${stats.max}; ` +
    `${stats.overThreshold} above T_obs = 1024`,
);
// Per split: reference length (agent steps) and the raw peak prompt (system prompt, tools and
// every turn, nothing compressed), the regime ACON is for (issue 13).
for (const s of await splitStats(bench)) {
  console.log(
    `${s.split.padEnd(5)} ${s.tasks} tasks, ${s.multiApp} multi-app; ` +
      `steps median ${s.steps.median}, p90 ${s.steps.p90}, mean ${s.steps.mean}; ` +
      `raw peak tokens median ${s.rawPeak.median}, p90 ${s.rawPeak.p90}, max ${s.rawPeak.max}`,
  );
}
