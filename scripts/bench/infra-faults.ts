/**
 * Issue #31's must-show for infrastructure failures, run by hand (not in the suite): one
 * `acon compare --provider openai` through a fake OpenAI-compatible server (answering like the
 * sim) that fails RATE of all attempts with 429/500/503 (each asking to retry after 1 ms, so
 * the run does not sit in backoff). Prints the command's exit code, its table with the listed
 * infrastructure failures, then the same after `--resume` through the same server.
 *
 *   npm run build && npx tsx scripts/bench/infra-faults.ts [RATE=0.6] [MAX_TASKS=8]
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createApptown } from '../../src/bench/apptown/index.js';
import {
  FakeOpenAiServer,
  type FakeHandler,
  type FakeReply,
} from '../../test/fakes/fake-openai-server.js';
import { simBackedHandler } from '../../test/fakes/sim-backed-handler.js';
import { taskResolver } from '../../test/helpers/env.js';

const RATE = Number(process.argv[2] ?? 0.6);
const MAX_TASKS = process.argv[3] ?? '8';
const BIN = resolve(import.meta.dirname, '../../bin/acon.js');

const unit = (key: string) => createHash('sha256').update(key).digest().readUInt32BE(0) / 2 ** 32;

function fault(u: number): FakeReply {
  const status = [429, 500, 503][Math.floor(u * 3)]!;
  return {
    kind: 'error',
    status,
    body: { error: { message: `injected ${status}`, type: 'server_error', code: null } },
    headers: { 'retry-after-ms': '1' },
  };
}

const bench = createApptown();
const sim = simBackedHandler({
  taskOf: await taskResolver(bench),
  planFor: (id) => bench.referencePlan(id),
});
const attempts = new Map<string, number>();
let requests = 0;
let faults = 0;
const handler: FakeHandler = (req) => {
  requests++;
  const n = attempts.get(req.raw) ?? 0;
  attempts.set(req.raw, n + 1);
  const u = unit(`${req.raw}#${n}`);
  if (u < RATE) {
    faults++;
    return fault(u / RATE);
  }
  return sim(req);
};
const server = await FakeOpenAiServer.start({ handler });
const cwd = mkdtempSync(join(tmpdir(), 'acon-faults-'));
writeFileSync(
  join(cwd, 'acon.config.yaml'),
  `endpoints:\n  default:\n    base_url: ${server.url}\n    api_key_env: ACON_DEMO_KEY\n`,
);

function acon(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd,
      env: { ...process.env, ACON_DEMO_KEY: 'sk-demo', NO_COLOR: '1' },
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('close', (code) => done({ code, out, err }));
  });
}

const args = ['compare', '--provider', 'openai', '--bench', 'apptown', '--split', 'dev'];
const t0 = performance.now();
const first = await acon([...args, '--strategies', 'raw,naive', '--max-tasks', MAX_TASKS, '--yes']);
const secs = ((performance.now() - t0) / 1000).toFixed(0);
console.log(
  `first invocation: exit ${first.code} in ${secs} s; ${faults} of ${requests} attempts faulted (${((100 * faults) / requests).toFixed(1)}%)`,
);
console.log(first.out);
if (first.code !== 0) console.log(first.err);
const runId = /as run (\S+)/.exec(first.out)?.[1] ?? /--resume (run-\S+)/.exec(first.out)?.[1];
if (runId) {
  const again = await acon(['compare', '--resume', runId, '--yes']);
  console.log(`--resume ${runId}: exit ${again.code}`);
  console.log(again.out);
  if (again.code !== 0) console.log(again.err);
}
await server.close();
