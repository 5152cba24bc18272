/**
 * Flags several commands take, written once so their help reads the same everywhere:
 * `.option(...DB_OPTION)`.
 */
export const DB_OPTION = [
  '--db <file>',
  "SQLite database (default: the config's run.db, runs/acon.db)",
] as const;

export const WIDE_OPTION = [
  '--wide',
  'every column at full length (default: fit the terminal, 100 columns if unknown)',
] as const;

/** Task files that fail validation (run, compare, optimize). */
export const SKIP_INVALID_TASKS_OPTION = [
  '--skip-invalid-tasks',
  'run the valid tasks when some task files are invalid (default: stop, exit 2)',
] as const;

/** A resumed run whose tasks changed since it started (run, compare, optimize). */
export const ALLOW_TASK_CHANGES_OPTION = [
  '--allow-task-changes',
  'with --resume: go on when a task changed since the run started, naming it (default: refuse, exit 2)',
] as const;
