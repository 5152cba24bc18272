/**
 * Replays every shipped `--bench mcp` task's reference plan against the real MCP servers (no
 * model) and prints, per split, how many plans succeed, the tool calls per task and how large
 * the observations are (issue 26: median >= 15 calls, observations over 1,024 tokens common):
 *
 *   npx tsx scripts/bench/mcp-replay.ts [tasks/mcp]
 */
import { createMcp } from '../../src/bench/mcp/index.js';
import { planStepCall } from '../../src/bench/plan-call.fixtures.js';
import { countTokens } from '../../src/llm/tokenizer.js';
import { median } from '../../src/metrics/metrics.js';

const bench = createMcp(process.argv[2] ? { tasksDir: process.argv[2] } : {});
for (const split of ['train', 'dev', 'test']) {
  const tasks = await bench.listTasks(split);
  const calls: number[] = [];
  const obs: number[] = [];
  const failed: string[] = [];
  for (const task of tasks) {
    const plan = await bench.referencePlan(task.id);
    const episode = await bench.start(task.id);
    try {
      for (const [i, step] of plan.steps.entries()) {
        const r = await episode.act(planStepCall(step, `c${i}`));
        if (step.tool !== 'complete_task')
          obs.push(countTokens(String(r.messages[0]?.content ?? '')));
      }
      calls.push(plan.steps.length);
      const evaluation = await episode.evaluate();
      if (!evaluation.success)
        failed.push(`${task.id}: ${JSON.stringify(evaluation.details.filter((d) => !d.passed))}`);
    } finally {
      await episode.close();
    }
  }
  const over = obs.filter((t) => t > 1024).length;
  process.stdout.write(
    `${split}: ${tasks.length} tasks, ${tasks.length - failed.length} plans succeed; calls/task median ${median(calls)} (min ${Math.min(...calls)}, max ${Math.max(...calls)}); observations: median ${median(obs)} tokens, ${over}/${obs.length} (${Math.round((100 * over) / obs.length)}%) over 1,024, max ${Math.max(...obs)}\n`,
  );
  for (const f of failed) process.stdout.write(`  FAILED ${f}\n`);
}
