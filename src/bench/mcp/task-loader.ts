import { readFile, readdir } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { stringify } from 'yaml';
import { BenchmarkError, TaskFileError } from '../../errors.js';
import { readTaskYaml } from '../task-yaml.js';
import { COMPLETE_TASK, splitToolName } from './tools.js';
import { McpTaskFileSchema, type McpTaskFile } from './task-schema.js';

export type LoadedMcpTask = McpTaskFile & { file: string };
export type McpTaskLoad = { tasks: LoadedMcpTask[]; problems: TaskFileError[] };

const HINT = 'see "Your own tools" in docs/benchmarks.md';

/** Parses and validates one task file; throws TaskFileError naming the file, field and fix. */
export function parseMcpTaskFile(file: string, text: string): LoadedMcpTask {
  const parsed = McpTaskFileSchema.safeParse(readTaskYaml(file, text));
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.path.length > 0 ? issue.path.map(String).join('.') : '(top level)';
    throw new TaskFileError(file, field, `${issue.message}; fix: ${HINT}`);
  }
  const task = parsed.data;
  const stem = basename(file).replace(/\.ya?ml$/, '');
  if (stem !== task.id) {
    throw new TaskFileError(
      file,
      'id',
      `"${task.id}" differs from the file name; fix: rename the file to ${task.id}.yaml or change id to "${stem}"`,
    );
  }
  const servers = Object.keys(task.servers);
  task.reference?.forEach((step, i) => {
    const field = `reference.${i}`;
    if (step.call !== COMPLETE_TASK) {
      const split = splitToolName(step.call);
      if (!split || !servers.includes(split.server)) {
        throw new TaskFileError(
          file,
          `${field}.call`,
          `"${step.call}" names no tool of a server of this task; fix: write <server>__<tool> with a server of ${servers.join(', ')}, or ${COMPLETE_TASK}`,
        );
      }
    }
    for (const need of step.needs) {
      if (need.from >= i) {
        throw new TaskFileError(
          file,
          `${field}.needs`,
          `"${need.value}" comes from call ${need.from}, which is not before call ${i}; fix: name an earlier call (0-based)`,
        );
      }
    }
  });
  const last = task.reference?.at(-1);
  if (last !== undefined && last.call !== COMPLETE_TASK) {
    throw new TaskFileError(
      file,
      'reference',
      `the reference ends with ${last.call}; fix: end it with a ${COMPLETE_TASK} call`,
    );
  }
  return { ...task, file };
}

/** Every `*.yaml` in `dir`; a bad file becomes a problem and the others still load. */
export async function loadMcpTaskDir(dir: string): Promise<McpTaskLoad> {
  let names: string[];
  try {
    names = (await readdir(dir)).filter((n) => /\.ya?ml$/.test(n)).sort();
  } catch (err) {
    throw new BenchmarkError(`cannot read the mcp task folder ${dir}: ${(err as Error).message}`, {
      cause: err,
    });
  }
  const tasks: LoadedMcpTask[] = [];
  const problems: TaskFileError[] = [];
  const ids = new Map<string, string>();
  for (const name of names) {
    const file = join(dir, name);
    try {
      const task = parseMcpTaskFile(file, await readFile(file, 'utf8'));
      const other = ids.get(task.id);
      if (other) {
        throw new TaskFileError(
          file,
          'id',
          `"${task.id}" is also the id of ${other}; fix: give each task a unique id`,
        );
      }
      ids.set(task.id, file);
      tasks.push(task);
    } catch (err) {
      problems.push(
        err instanceof TaskFileError
          ? err
          : new TaskFileError(
              file,
              '(file)',
              `${(err as Error).message}; fix: check the file is readable`,
              {
                cause: err,
              },
            ),
      );
    }
  }
  return { tasks, problems };
}

/** The YAML of a task file, as scripts/bench/gen-mcp-tasks.ts writes it. */
export function renderMcpTaskFile(task: McpTaskFile): string {
  return stringify(task, { lineWidth: 100 });
}
