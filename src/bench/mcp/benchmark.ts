import { copyFile, cp, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BenchmarkError, type TaskFileError } from '../../errors.js';
import type { Benchmark, ReferencePlan, TaskInfo } from '../types.js';
import { systemClock, type Clock } from '../../clock.js';
import { McpConnection } from './connection.js';
import { McpEpisode } from './episode.js';
import { resolveServer } from './placeholders.js';
import { findTask } from '../task-files.js';
import { loadMcpTaskDir, type LoadedMcpTask, type McpTaskLoad } from './task-loader.js';

/** Same depth from src/bench/mcp and dist/bench/mcp, so both find the shipped tasks. */
export const DEFAULT_MCP_TASKS_DIR = fileURLToPath(new URL('../../../tasks/mcp/', import.meta.url));

export type McpOptions = {
  /** Folder of task files. @default the tasks/mcp folder shipped with acon */
  tasksDir?: string;
  /** @default the system's timers */
  timers?: Pick<Clock, 'setTimeout' | 'clearTimeout'>;
  /** Longest wait for a server to start and list its tools. @default 30000 */
  connectTimeoutMs?: number;
  /** Longest wait for one tool call when the task sets none. @default 60000 */
  callTimeoutMs?: number;
  /** Where rollouts' workdirs are made. @default the OS temp folder */
  tempRoot?: string;
  /** Environment for `${env:…}` placeholders. @default process.env */
  env?: NodeJS.ProcessEnv;
};

export function mcpTaskInfo(task: LoadedMcpTask): TaskInfo {
  return {
    id: task.id,
    split: task.split,
    instruction: task.instruction,
    apps: Object.keys(task.servers),
    difficulty: task.difficulty,
    referenceLength: task.reference?.length ?? 0,
    ...(task.template !== undefined ? { template: task.template } : {}),
  };
}

/** Tools from MCP servers, tasks from YAML files (ARCHITECTURE §5, issue 26). */
export class McpBenchmark implements Benchmark {
  readonly name = 'mcp';
  private loading: Promise<McpTaskLoad> | null = null;
  private readonly timers: Pick<Clock, 'setTimeout' | 'clearTimeout'>;

  constructor(private readonly opts: McpOptions = {}) {
    this.timers = opts.timers ?? systemClock;
  }

  get tasksDir(): string {
    return this.opts.tasksDir ?? DEFAULT_MCP_TASKS_DIR;
  }

  private load(): Promise<McpTaskLoad> {
    this.loading ??= loadMcpTaskDir(this.tasksDir);
    return this.loading;
  }

  async listTasks(split?: string): Promise<TaskInfo[]> {
    const { tasks } = await this.load();
    return tasks.filter((t) => !split || t.split === split).map(mcpTaskInfo);
  }

  async getTask(id: string): Promise<TaskInfo> {
    return mcpTaskInfo(await this.taskFile(id));
  }

  async loadProblems(): Promise<TaskFileError[]> {
    return (await this.load()).problems;
  }

  async taskFile(id: string): Promise<LoadedMcpTask> {
    return findTask(await this.load(), id, 'mcp');
  }

  /**
   * A fresh workdir (a copy of the fixture's files) and graph file, then one session per
   * server, all started together; a server that fails to start stops the others and removes
   * the workdir.
   */
  async start(taskId: string): Promise<McpEpisode> {
    const task = await this.taskFile(taskId);
    const tmp = await mkdtemp(join(this.opts.tempRoot ?? tmpdir(), 'acon-mcp-'));
    const where = { tmp, workdir: join(tmp, 'work'), memoryFile: join(tmp, 'memory.jsonl') };
    const opened = new Map<string, McpConnection>();
    try {
      const base = dirname(task.file);
      if (task.fixture.files)
        await cp(resolve(base, task.fixture.files), where.workdir, { recursive: true });
      else await mkdir(where.workdir);
      if (task.fixture.graph) await copyFile(resolve(base, task.fixture.graph), where.memoryFile);
      const scope = { ...where, taskFile: task.file, env: this.opts.env ?? process.env };
      const entries = Object.entries(task.servers);
      const results = await Promise.allSettled(
        entries.map(async ([name, spec]) => {
          const conn = await McpConnection.open(name, resolveServer(spec, scope), {
            timers: this.timers,
            connectTimeoutMs: this.opts.connectTimeoutMs ?? 30_000,
            callTimeoutMs: spec.timeout_ms ?? this.opts.callTimeoutMs ?? 60_000,
            ...(spec.tools ? { allow: spec.tools } : {}),
          });
          opened.set(name, conn);
        }),
      );
      const failure = results.find((r) => r.status === 'rejected');
      if (failure) throw failure.reason;
      // Tools in the task file's order of servers, whatever order they started in.
      const ordered = new Map(entries.map(([name]) => [name, opened.get(name)!]));
      return new McpEpisode(mcpTaskInfo(task), ordered, task.evaluation, where);
    } catch (err) {
      await Promise.all([...opened.values()].map((c) => c.close()));
      await rm(tmp, { recursive: true, force: true });
      throw err;
    }
  }

  async referencePlan(taskId: string): Promise<ReferencePlan> {
    const task = await this.taskFile(taskId);
    if (!task.reference) {
      throw new BenchmarkError(
        `${task.file}: the task has no reference plan, which the sim provider follows; add one or set \`provider\` to openai`,
        { options: ['provider'] },
      );
    }
    return {
      steps: task.reference.map((s) => ({
        tool: s.call,
        args: s.args,
        needs: s.needs.map((n) => ({ value: n.value, fromStep: n.from })),
        ...(s.choices.length > 0 ? { choices: s.choices } : {}),
      })),
    };
  }
}

export function createMcp(opts: McpOptions = {}): McpBenchmark {
  return new McpBenchmark(opts);
}
