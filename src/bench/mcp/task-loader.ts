import { stringify } from 'yaml';
import { TaskFileError } from '../../errors.js';
import { checkIdIsFileName, loadTaskDir, schemaError, type TaskLoad } from '../task-files.js';
import { readTaskYaml } from '../task-yaml.js';
import { COMPLETE_TASK, splitToolName } from './tools.js';
import { McpTaskFileSchema, type McpTaskFile } from './task-schema.js';

export type LoadedMcpTask = McpTaskFile & { file: string };
export type McpTaskLoad = TaskLoad<LoadedMcpTask>;

const HINT = 'see "Your own tools" in docs/benchmarks.md';

/** Parses and validates one task file; throws TaskFileError naming the file, field and fix. */
export function parseMcpTaskFile(file: string, text: string): LoadedMcpTask {
  const parsed = McpTaskFileSchema.safeParse(readTaskYaml(file, text), { reportInput: true });
  if (!parsed.success) throw schemaError(file, parsed.error, HINT);
  const task = parsed.data;
  checkIdIsFileName(file, task.id);
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
export function loadMcpTaskDir(dir: string): Promise<McpTaskLoad> {
  return loadTaskDir(dir, 'mcp', parseMcpTaskFile);
}

/** The YAML of a task file, as scripts/bench/gen-mcp-tasks.ts writes it. */
export function renderMcpTaskFile(task: McpTaskFile): string {
  return stringify(task, { lineWidth: 100 });
}
