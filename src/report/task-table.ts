import pc from 'picocolors';
import type { TaskInfo } from '../bench/index.js';
import { fitTable, wrapNotes, type Column, type FitOptions } from './fit-table.js';

const TASK_COLUMNS: Column<TaskInfo>[] = [
  { key: 'id', label: 'id', value: (t) => t.id },
  { key: 'split', label: 'split', value: (t) => t.split },
  { key: 'difficulty', label: 'difficulty', value: (t) => String(t.difficulty), align: 'right' },
  { key: 'apps', label: 'apps', value: (t) => t.apps.join(', '), flex: true },
  { key: 'calls', label: 'calls', value: (t) => String(t.referenceLength), align: 'right' },
];

/** The task list, fitting `opts.width` (the app list is shortened first). */
export function renderTaskTable(
  tasks: TaskInfo[],
  splitNames: readonly string[],
  opts: FitOptions = {},
): string {
  const { text, notes } = fitTable(tasks, TASK_COLUMNS, opts);
  const splits = splitNames
    .map((s) => `${s} ${tasks.filter((t) => t.split === s).length}`)
    .join(', ');
  const foot = [...wrapNotes(notes, opts.width ?? 100), `${tasks.length} tasks (${splits})`];
  return `${text}${foot.join('\n')}\n`;
}

export function renderTask(t: TaskInfo): string {
  return [
    `${pc.bold(t.id)}  (${t.split}, difficulty ${t.difficulty})`,
    `apps: ${t.apps.join(', ')}`,
    `reference solution: ${t.referenceLength} calls`,
    ...(t.template !== undefined ? [`template: ${t.template}`] : []),
    '',
    t.instruction,
    '',
  ].join('\n');
}
