import { TaskFileError } from '../../errors.js';
import {
  checkIdIsFileName,
  loadTaskDir,
  schemaError,
  type TaskLoad as Load,
} from '../task-files.js';
import { readTaskYaml } from '../task-yaml.js';
import { APPS, findApi } from './apps/index.js';
import { refsIn } from './refs.js';
import { TaskFileSchema, type TaskFile } from './task-schema.js';

export type LoadedTask = TaskFile & { file: string };
export type TaskLoad = Load<LoadedTask>;

const SCHEMA_HINT = 'see the format at the top of src/bench/apptown/task-schema.ts';

/** Checks zod cannot express: step ids, known APIs, templates pointing backwards, the hand-in. */
function checkSemantics(file: string, task: TaskFile): void {
  const fail = (field: string, detail: string) => {
    throw new TaskFileError(file, field, detail);
  };
  checkIdIsFileName(file, task.id);
  const seen = new Set<string>();
  task.reference.forEach((step, i) => {
    if (seen.has(step.id))
      fail(`reference.${i}.id`, `duplicate step id "${step.id}"; fix: give every step its own id`);
    if (!findApi(step.app, step.api)) {
      const app = APPS.find((a) => a.name === step.app);
      fail(
        `reference.${i}.api`,
        app
          ? `app "${step.app}" has no API "${step.api}"; fix: use one of ${app.apis.map((a) => a.name).join(', ')}`
          : `unknown app "${step.app}"; fix: use one of ${APPS.map((a) => a.name).join(', ')}`,
      );
    }
    checkRefs(file, `reference.${i}.args`, step.args, seen);
    for (const from of Object.keys(step.reads ?? {})) {
      if (!seen.has(from)) {
        fail(
          `reference.${i}.reads.${from}`,
          `"${from}" is not an earlier step; fix: name the step whose response holds the value`,
        );
      }
    }
    (step.choose ?? []).forEach((c, j) => {
      checkRefs(file, `reference.${i}.choose.${j}.value`, c.value, seen);
      for (const from of c.from) {
        if (!seen.has(from)) {
          fail(
            `reference.${i}.choose.${j}.from`,
            `"${from}" is not an earlier step; fix: name the steps whose responses hold the items`,
          );
        }
      }
    });
    seen.add(step.id);
  });
  const last = task.reference[task.reference.length - 1];
  if (last && (last.app !== 'supervisor' || last.api !== 'complete_task')) {
    fail(
      `reference.${task.reference.length - 1}`,
      'the last step must hand in the task; fix: end with app: supervisor, api: complete_task',
    );
  }
  checkRefs(file, 'evaluation.answer', task.evaluation.answer, seen);
  task.evaluation.changes.forEach((c, i) =>
    checkRefs(file, `evaluation.changes.${i}.where`, c.where, seen),
  );
}

function checkRefs(file: string, field: string, value: unknown, earlier: Set<string>): void {
  try {
    for (const ref of refsIn(value)) {
      if (ref.root !== 'supervisor' && !earlier.has(ref.root)) {
        throw new Error(
          `{{${ref.source}}} refers to "${ref.root}", which is not an earlier step; fix: use the id of an earlier step`,
        );
      }
    }
  } catch (err) {
    throw new TaskFileError(file, field, (err as Error).message, { cause: err });
  }
}

/** Parse and validate one task file; throws TaskFileError naming the file, the field and the fix. */
export function parseTaskFile(file: string, text: string): LoadedTask {
  const parsed = TaskFileSchema.safeParse(readTaskYaml(file, text), { reportInput: true });
  if (!parsed.success) throw schemaError(file, parsed.error, SCHEMA_HINT);
  checkSemantics(file, parsed.data);
  return { ...parsed.data, file };
}

/** Load every `*.yaml` in `dir`; a bad file becomes a problem and the others still load. */
export function loadApptownTaskDir(dir: string): Promise<TaskLoad> {
  return loadTaskDir(dir, 'apptown', parseTaskFile);
}
