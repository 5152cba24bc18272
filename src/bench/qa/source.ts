import type { TaskFileError } from '../../errors.js';
import type { Library } from './library.js';
import type { QaTask } from './task.js';

/** Where a QA benchmark's tasks and articles come from. */
export type QaSource = {
  /** Tasks and the problems of files that did not load. */
  load(): Promise<{ tasks: QaTask[]; problems: TaskFileError[] }>;
  /** The articles of a task (loaded on first use: listing tasks never builds a corpus). */
  library(task: QaTask): Library;
  /** Throws when a task no longer matches its articles. */
  verify?(task: QaTask): void;
};
