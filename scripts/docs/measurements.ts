import { mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { runCollecting } from '../bench/baseline.js';
import { REPO } from './repo.js';

/**
 * The commands whose output the docs quote (issue #58), each measured in a fresh temporary folder
 * as a user would run it after `npm ci`. `cheap` ones (seconds) are measured again by
 * test/docs-tables.test.ts, which fails when the code prints something else than the record; the
 * others take minutes of CPU and are measured only by `npm run docs:tables -- --measure NAME|all`.
 */
export type Measurement = {
  name: string;
  cheap: boolean;
  /** What it measures, for `--measure` without a name. */
  about: string;
  run: (dir: string) => Promise<Measured>;
};

export type Measured = { commands: string[]; output: Record<string, unknown> };

const BIN = join(REPO, 'bin', 'acon.js');

type Ran = { stdout: string; stderr: string };

/** The environment without acon's and OpenAI's settings: the docs quote the defaults. */
function defaultsOnly(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(env).filter(([k]) => !k.startsWith('ACON_') && !k.startsWith('OPENAI_')),
  );
}

/** Runs `command` in `cwd` with the defaults' environment; a failure throws with the end of its stderr. */
async function run(
  command: string,
  args: string[],
  cwd: string,
  env: Record<string, string> = {},
): Promise<Ran> {
  const r = await runCollecting(
    [command, ...args],
    cwd,
    { NO_COLOR: '1', ...env },
    defaultsOnly(process.env),
  );
  if (r.code === 0) return { stdout: r.stdout, stderr: r.stderr };
  throw new Error(`${command} ${args.join(' ')} exited ${r.code}:\n${r.stderr.slice(-3000)}`);
}

const acon = (args: string[], cwd: string, env?: Record<string, string>) =>
  run(process.execPath, [BIN, ...args], cwd, env);

/** Run ids and durations differ on every run; the rest of a printed table must not. */
export const maskVolatile = (text: string) =>
  text.replace(/\brun-\d{8}-\d{6}-\w+/g, 'run-…').replace(/\b\d+(\.\d+)? ?(ms|s)\b/g, '…');

/** Writes the apptown tasks of generator seed `seed` (docs/sim.md) into `dir`/tasks-seedN. */
async function seedTasks(seed: number, dir: string): Promise<{ env: Record<string, string> }> {
  const out = join(dir, `tasks-seed${seed}`);
  const tsx = join(REPO, 'node_modules', '.bin', 'tsx');
  const gen = join(REPO, 'scripts', 'bench', 'gen-apptown-tasks.ts');
  await run(tsx, [gen, '--seed', String(seed), '--out', out], REPO);
  return { env: { ACON_APPTOWN__TASKS_DIR: out } };
}

const README_STRATEGIES = 'raw,fifo,masking,summary,naive,retrieval';

/** The README's compare table: every baseline on the held-out test split. */
function compareTest(seed: number | null): Measurement['run'] {
  return async (dir) => {
    const args = ['compare', '--bench', 'apptown', '--split', 'test'];
    args.push('--strategies', README_STRATEGIES, '--json');
    const commands: string[] = [];
    let env: Record<string, string> = {};
    if (seed !== null) {
      ({ env } = await seedTasks(seed, dir));
      commands.push(`npx tsx scripts/bench/gen-apptown-tasks.ts --seed ${seed} --out $TMP`);
    }
    const { stdout } = await acon(args, dir, env);
    const prefix = seed === null ? '' : 'ACON_APPTOWN__TASKS_DIR=$TMP ';
    commands.push(`${prefix}acon ${args.join(' ')}`);
    return { commands, output: { compare: JSON.parse(stdout) as unknown } };
  };
}

/**
 * The README's main job, as printed (its tables and verdict lines), what the store holds of it
 * (the final tables, `acon runs --json`), its rollout count and the size of its HTML report.
 */
function optimize(seed: number | null): Measurement['run'] {
  return async (dir) => {
    const commands: string[] = [];
    let env: Record<string, string> = {};
    if (seed !== null) {
      ({ env } = await seedTasks(seed, dir));
      commands.push(`npx tsx scripts/bench/gen-apptown-tasks.ts --seed ${seed} --out $TMP`);
    }
    const prefix = seed === null ? '' : 'ACON_APPTOWN__TASKS_DIR=$TMP ';
    const work = join(dir, 'work');
    mkdirSync(work);
    const { stdout } = await acon(['optimize', '--bench', 'apptown'], work, env);
    const runs = JSON.parse((await acon(['runs', '--json'], work, env)).stdout) as unknown;
    const runId = /stored in \S+ as run (\S+)/.exec(stdout)?.[1];
    if (!runId) throw new Error('optimize printed no run id');
    const show = JSON.parse((await acon(['runs', 'show', runId, '--json'], work, env)).stdout) as {
      rollouts: unknown[];
    };
    await acon(['report', runId, '--html', 'report.html'], work, env);
    commands.push(
      `${prefix}acon optimize --bench apptown`,
      'acon runs --json',
      'acon runs show RUN --json',
      'acon report RUN --html report.html',
    );
    return {
      commands,
      output: {
        stdout: maskVolatile(stdout),
        run: (runs as unknown[])[0],
        rollouts: show.rollouts.length,
        reportBytes: statSync(join(work, 'report.html')).size,
      },
    };
  };
}

const COST_ROUNDS = 2;

/** The README's timing: `npm run bench:optimize-cost` as it prints it, two runs for a range. */
const optimizeCost: Measurement['run'] = async () => {
  const args = ['run', 'bench:optimize-cost', '--', '--rounds', String(COST_ROUNDS)];
  const { stdout } = await run('npm', args, REPO);
  return { commands: [`npm ${args.join(' ')}`], output: { stdout } };
};

/** A compare on one task: seconds, so the drift test re-measures it. */
const compareOneTask: Measurement['run'] = async (dir) => {
  const args = ['compare', '--bench', 'apptown', '--split', 'dev'];
  args.push('--tasks', 'dev-001-music-phone-wallet', '--strategies', 'raw,acon');
  const { stdout } = await acon(args, dir);
  return { commands: [`acon ${args.join(' ')}`], output: { stdout: maskVolatile(stdout) } };
};

/** docs/benchmarks.md's MCP table: the shipped MCP tasks' dev split, real MCP servers. */
const mcpCompare: Measurement['run'] = async (dir) => {
  const args = ['compare', '--bench', 'mcp', '--split', 'dev'];
  args.push('--strategies', 'raw,masking,naive,acon', '--json');
  const { stdout } = await acon(args, dir);
  return { commands: [`acon ${args.join(' ')}`], output: { compare: JSON.parse(stdout) } };
};

export const MEASUREMENTS: Measurement[] = [
  {
    name: 'compare-one-task',
    cheap: true,
    about: 'docs/results.md: a compare on one dev task',
    run: compareOneTask,
  },
  {
    name: 'compare-shipped',
    cheap: false,
    about: 'README, docs/sim.md: compare on the shipped test split',
    run: compareTest(null),
  },
  {
    name: 'compare-seed2',
    cheap: false,
    about: 'README, docs/sim.md: compare on the seed-2 test split',
    run: compareTest(2),
  },
  {
    name: 'compare-seed7',
    cheap: false,
    about: 'docs/sim.md: compare on the seed-7 test split',
    run: compareTest(7),
  },
  {
    name: 'mcp-compare',
    cheap: false,
    about: 'docs/benchmarks.md: compare on the MCP dev split',
    run: mcpCompare,
  },
  {
    name: 'optimize-shipped',
    cheap: false,
    about: 'README, docs/results.md: the main job on the shipped tasks',
    run: optimize(null),
  },
  {
    name: 'optimize-seed2',
    cheap: false,
    about: 'README: the main job on the seed-2 tasks',
    run: optimize(2),
  },
  {
    name: 'optimize-cost',
    cheap: false,
    about: `README: npm run bench:optimize-cost, ${COST_ROUNDS} rounds`,
    run: optimizeCost,
  },
];
