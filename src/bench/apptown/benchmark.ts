import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { BenchmarkError, type TaskFileError } from '../../errors.js';
import type { Benchmark, ReferencePlan, TaskInfo } from '../types.js';
import { ApptownEpisode } from './episode.js';
import type { ResolvedEvaluation } from './evaluate.js';
import { resolveTemplates } from './refs.js';
import { replayReference, toPlan, type Replay } from './replay.js';
import { findTask } from '../task-files.js';
import { loadApptownTaskDir, type LoadedTask, type TaskLoad } from './task-loader.js';
import type { Answer, Matcher } from './task-schema.js';
import { WorldCache } from './worlds.js';
import type { World } from './world.js';

export type ApptownOptions = {
  /**
   * Folder of task files.
   * @default the tasks/apptown folder shipped with acon
   */
  tasksDir?: string;
};

/** Same depth from src/bench/apptown and dist/bench/apptown, so both find the shipped tasks. */
export const DEFAULT_TASKS_DIR = fileURLToPath(new URL('../../../tasks/apptown/', import.meta.url));

/** Supervisor APIs every task uses; a task "uses" the supervisor app only beyond these. */
const PLUMBING: ReadonlySet<string> = new Set([
  'api_docs',
  'supervisor.show_account_passwords',
  'supervisor.complete_task',
]);

export function taskInfo(task: LoadedTask): TaskInfo {
  const apps: string[] = [];
  for (const s of task.reference) {
    if (PLUMBING.has(s.app) || PLUMBING.has(`${s.app}.${s.api}`) || apps.includes(s.app)) continue;
    apps.push(s.app);
  }
  return {
    id: task.id,
    split: task.split,
    instruction: task.instruction,
    apps,
    difficulty: task.difficulty,
    referenceLength: task.reference.length,
    ...(task.template !== undefined ? { template: task.template } : {}),
  };
}

type Prepared = { task: LoadedTask; replay: Replay; spec: ResolvedEvaluation };

/** The built-in offline benchmark (ARCHITECTURE §5). */
export class ApptownBenchmark implements Benchmark {
  readonly name = 'apptown';
  private loading: Promise<TaskLoad> | null = null;
  private readonly preparing = new Map<string, Promise<Prepared>>();
  private readonly worlds = new WorldCache();

  constructor(readonly tasksDir: string = DEFAULT_TASKS_DIR) {}

  private load(): Promise<TaskLoad> {
    this.loading ??= loadApptownTaskDir(this.tasksDir);
    return this.loading;
  }

  async listTasks(split?: string): Promise<TaskInfo[]> {
    const { tasks } = await this.load();
    return tasks.filter((t) => !split || t.split === split).map(taskInfo);
  }

  async getTask(id: string): Promise<TaskInfo> {
    return taskInfo(await this.taskFile(id));
  }

  /** The whole validated task file: instruction, world seed, reference solution, checks. */
  async taskDigest(id: string): Promise<string> {
    const { file: _file, ...task } = await this.taskFile(id);
    return createHash('sha256').update(JSON.stringify(task)).digest('hex').slice(0, 16);
  }

  async loadProblems(): Promise<TaskFileError[]> {
    return (await this.load()).problems;
  }

  /** The validated task file (for tools and tests that need more than TaskInfo). */
  async taskFile(id: string): Promise<LoadedTask> {
    return findTask(await this.load(), id, 'apptown');
  }

  async start(taskId: string): Promise<ApptownEpisode> {
    const { task, spec } = await this.prepared(taskId);
    const world = this.freshWorld(task);
    return new ApptownEpisode(taskInfo(task), world, spec);
  }

  async referencePlan(taskId: string): Promise<ReferencePlan> {
    return toPlan((await this.prepared(taskId)).replay);
  }

  async prepare(taskId: string): Promise<void> {
    await this.prepared(taskId);
  }

  /**
   * Replays the reference once per task: the plan and the evaluation's templates need it. The
   * promise is kept, so a rollout starting while its task is being prepared waits for that
   * instead of replaying again; a failure is not kept (the next call reports it afresh).
   */
  private prepared(taskId: string): Promise<Prepared> {
    let hit = this.preparing.get(taskId);
    if (!hit) {
      hit = this.replayTask(taskId);
      this.preparing.set(taskId, hit);
      hit.catch(() => this.preparing.delete(taskId));
    }
    return hit;
  }

  private async replayTask(taskId: string): Promise<Prepared> {
    const task = await this.taskFile(taskId);
    const replay = replayReference(task, this.freshWorld(task));
    const resolve = (v: unknown, field: string): unknown => {
      try {
        return resolveTemplates(v, replay.scope).value;
      } catch (err) {
        throw new BenchmarkError(`${task.file}: ${field}: ${(err as Error).message}`, {
          cause: err,
        });
      }
    };
    const { answer, changes, status } = task.evaluation;
    const spec: ResolvedEvaluation = {
      status,
      answer: answer === undefined ? undefined : (resolve(answer, 'evaluation.answer') as Answer),
      changes: changes.map((c, i) => ({
        ...c,
        where: resolve(c.where, `evaluation.changes.${i}.where`) as Record<string, Matcher>,
      })),
    };
    return { task, replay, spec };
  }

  private freshWorld(task: LoadedTask): World {
    const world = this.worlds.create(task.seed);
    const actual = `${world.supervisor.first_name} ${world.supervisor.last_name}`;
    if (actual !== task.supervisor) {
      throw new BenchmarkError(
        `${task.file}: supervisor is "${task.supervisor}" but seed ${task.seed} makes "${actual}"; the seeded data changed (a different @faker-js/faker version?), so regenerate the tasks`,
      );
    }
    return world;
  }
}

export function createApptown(opts: ApptownOptions = {}): ApptownBenchmark {
  return new ApptownBenchmark(opts.tasksDir);
}
