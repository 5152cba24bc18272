import { stringify } from 'yaml';
import { TaskFileError } from '../../errors.js';
import { checkIdIsFileName, loadTaskDir, schemaError, type TaskLoad } from '../task-files.js';
import { readTaskYaml } from '../task-yaml.js';
import { templateById } from './questions.js';
import { QaTaskFileSchema, type QaTaskFile } from './task-schema.js';

export type LoadedQaTask = QaTaskFile & { file: string };
export type QaTaskLoad = TaskLoad<LoadedQaTask>;

const HINT = 'see the format at the top of src/bench/qa/task-schema.ts';

/** Parses and validates one task file; throws TaskFileError naming the file, field and fix. */
export function parseQaTaskFile(file: string, text: string): LoadedQaTask {
  const parsed = QaTaskFileSchema.safeParse(readTaskYaml(file, text), { reportInput: true });
  if (!parsed.success) throw schemaError(file, parsed.error, HINT);
  const task = parsed.data;
  checkIdIsFileName(file, task.id);
  task.objectives.forEach((o, i) => {
    const tpl = templateById(o.template);
    if (!tpl) {
      throw new TaskFileError(
        file,
        `objectives.${i}.template`,
        `unknown template "${o.template}"; fix: use a template id of src/bench/qa/questions.ts`,
      );
    }
    if (o.path.length !== tpl.hops.length + 1) {
      throw new TaskFileError(
        file,
        `objectives.${i}.path`,
        `template ${tpl.id} opens ${tpl.hops.length + 1} article(s) but the path has ${o.path.length}; fix: list the start article and one per cross-reference`,
      );
    }
    if (tpl.heldOut && task.split !== 'test') {
      throw new TaskFileError(
        file,
        `objectives.${i}.template`,
        `${tpl.id} is held out for the test split; fix: move the task to split test or use another template`,
      );
    }
  });
  return { ...task, file };
}

/** Every `*.yaml` in `dir`; a bad file becomes a problem and the others still load. */
export function loadQaTaskDir(dir: string): Promise<QaTaskLoad> {
  return loadTaskDir(dir, 'qa', parseQaTaskFile);
}

/** The YAML of a task file, as scripts/bench/gen-qa-tasks.ts writes it. */
export function renderQaTaskFile(task: QaTaskFile): string {
  return stringify(task, { lineWidth: 100 });
}
