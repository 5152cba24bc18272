/**
 * A fake OpenAI-compatible model for `npm run bench:throughput`, run as its own process so it
 * does not take the orchestrator's CPU: every chat request is answered after a fixed latency L
 * with the next step of the task's reference plan (tasks are found by their instruction in the
 * first user message, the step by the assistant messages already in the prompt). Every plan is
 * padded at its start with read-only `api_docs` calls to the same length, so all rollouts take
 * the same number of steps and run in lock-step (no tail of stragglers to measure).
 *
 *   tsx scripts/bench/throughput/fake-model-server.ts <plans.json> <latency-ms>
 *
 * Prints `port <n>` once listening; GET /stats returns {calls, firstAt, lastAt} (ms) and the
 * request bodies' bytes.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

type Step = { tool: string; args: Record<string, unknown> };
type Plans = { steps: number; tasks: { instruction: string; steps: Step[] }[] };

const plans = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as Plans;
const latencyMs = Number(process.argv[3] ?? 200);
const PAD: Step = {
  tool: 'call_api',
  args: { app: 'api_docs', api: 'show_app_descriptions', args: {} },
};

/** The padded plan of each task, found once per distinct first user message. */
const planOf = new Map<string, Step[]>();
function plan(firstUser: string): Step[] {
  let hit = planOf.get(firstUser);
  if (!hit) {
    const task = plans.tasks.find((t) => firstUser.includes(t.instruction));
    if (!task) throw new Error(`no task for prompt ${firstUser.slice(0, 60)}`);
    hit = [...Array<Step>(plans.steps - task.steps.length).fill(PAD), ...task.steps];
    planOf.set(firstUser, hit);
  }
  return hit;
}

let calls = 0;
let bytes = 0;
let firstAt = 0;
let lastAt = 0;

const server = createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/stats') {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ calls, firstAt, lastAt, bytes }));
    return;
  }
  const arrived = performance.timeOrigin + performance.now();
  if (firstAt === 0) firstAt = arrived;
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const raw = Buffer.concat(chunks);
    bytes += raw.length;
    const body = JSON.parse(raw.toString('utf8')) as {
      messages: { role: string; content: string | null }[];
    };
    const firstUser = body.messages.find((m) => m.role === 'user')?.content ?? '';
    const step = body.messages.filter((m) => m.role === 'assistant').length;
    const steps = plan(firstUser);
    const next = steps[Math.min(step, steps.length - 1)]!;
    const answer = JSON.stringify({
      id: `chatcmpl-${calls}`,
      object: 'chat.completion',
      created: 0,
      model: 'fake',
      choices: [
        {
          index: 0,
          finish_reason: 'tool_calls',
          message: {
            role: 'assistant',
            content: null,
            tool_calls: [
              {
                id: `call_${step}`,
                type: 'function',
                function: { name: next.tool, arguments: JSON.stringify(next.args) },
              },
            ],
          },
        },
      ],
      // Reported like a real server, so acon never has to count the prompt itself.
      usage: {
        prompt_tokens: Math.round(raw.length / 4),
        completion_tokens: 30,
        total_tokens: Math.round(raw.length / 4) + 30,
      },
    });
    setTimeout(() => {
      res.setHeader('content-type', 'application/json');
      res.end(answer);
      calls++;
      lastAt = performance.timeOrigin + performance.now();
    }, latencyMs);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address && typeof address === 'object') console.log(`port ${address.port}`);
});
