import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { InvalidInputError } from '../../errors.js';

/** AppWorld's dataset splits (files `data/datasets/<split>.txt` of an AppWorld install). */
export const APPWORLD_SPLITS = ['train', 'dev', 'test_normal', 'test_challenge'] as const;

/** The split reported for tasks given by id that no dataset file lists. */
export const CUSTOM_SPLIT = 'custom';

/** AppWorld task ids look like `82e2fac_1`; anything path- or shell-like is a mistake. */
const TASK_ID = /^[A-Za-z0-9][\w.-]*$/;

/** The options of a TaskIdSource that name tasks, as the messages below name them. */
const TASK_OPTIONS = ['taskIds', 'taskFile'];

export const NO_TASK_SOURCE_HINT =
  'AppWorld task ids come from your AppWorld install: set APPWORLD_ROOT to the folder where you ran ' +
  '`appworld download data` (acon reads $APPWORLD_ROOT/data/datasets/<split>.txt, splits ' +
  `${APPWORLD_SPLITS.join(', ')}), or name the tasks with \`taskIds\` ID,ID or a task-id file ` +
  '(`taskFile`, one id per line)';

/** An error about where AppWorld task ids come from (`what`), naming the options that give them. */
function invalid(message: string, what: string, value?: string, opts?: ErrorOptions) {
  return new InvalidInputError(message, { what, value, options: TASK_OPTIONS }, opts);
}

export type TaskIdSourceOptions = {
  /** Tasks named on the command line; they replace every split's list. */
  taskIds?: readonly string[];
  /** A file of task ids (one a line, `#` comments); added to `taskIds`. */
  taskFile?: string;
  /** An AppWorld install (the folder holding `data/`), for the split lists. */
  appworldRoot?: string;
};

export type TaskRef = { id: string; split: string };

/**
 * Where AppWorld task ids come from: tasks named by the user (with --tasks or a task-id file)
 * if any, else the split lists of the user's AppWorld install. AppWorld's data may not be
 * redistributed (ARCHITECTURE §5), so acon ships no task list of its own.
 */
export class TaskIdSource {
  private explicit: Promise<string[]> | undefined;
  private readonly splits = new Map<string, Promise<string[]>>();

  constructor(private readonly opts: TaskIdSourceOptions) {}

  /**
   * The ids of a split, or of every split that exists when none is named. Tasks named by the
   * user are returned whatever the split: they are what the user wants run.
   */
  async list(split?: string): Promise<TaskRef[]> {
    const explicit = await this.explicitIds();
    if (explicit.length > 0) {
      return Promise.all(explicit.map(async (id) => ({ id, split: await this.splitOf(id) })));
    }
    const root = this.requireRoot();
    if (split !== undefined) {
      const ids = await this.splitIds(root, checkSplit(split));
      return ids.map((id) => ({ id, split }));
    }
    const all: TaskRef[] = [];
    for (const name of APPWORLD_SPLITS) {
      const ids = await this.splitIds(root, name).catch((): string[] => []);
      all.push(...ids.map((id) => ({ id, split: name })));
    }
    if (all.length === 0) {
      throw invalid(
        `no AppWorld task lists in ${datasetsDir(root)}: run \`appworld download data\` in ${root}`,
        'AppWorld split',
      );
    }
    return all;
  }

  /** The split whose list has the id, or `custom` (also when no AppWorld install is known). */
  async splitOf(id: string): Promise<string> {
    checkTaskId(id, 'task id');
    const root = this.opts.appworldRoot;
    if (!root) return CUSTOM_SPLIT;
    for (const name of APPWORLD_SPLITS) {
      const ids = await this.splitIds(root, name).catch((): string[] => []);
      if (ids.includes(id)) return name;
    }
    return CUSTOM_SPLIT;
  }

  private requireRoot(): string {
    const root = this.opts.appworldRoot;
    if (!root) throw invalid(`no AppWorld tasks to run. ${NO_TASK_SOURCE_HINT}`, 'AppWorld tasks');
    return root;
  }

  private explicitIds(): Promise<string[]> {
    this.explicit ??= (async () => {
      const ids = (this.opts.taskIds ?? []).map((id) => checkTaskId(id.trim(), '`taskIds`'));
      if (this.opts.taskFile) ids.push(...(await readTaskFile(this.opts.taskFile)));
      return [...new Set(ids)];
    })();
    return this.explicit;
  }

  private splitIds(root: string, split: string): Promise<string[]> {
    let ids = this.splits.get(split);
    if (!ids) {
      const file = join(datasetsDir(root), `${split}.txt`);
      ids = readIdFile(file).catch((err: unknown) => {
        if (err instanceof InvalidInputError) throw err;
        throw invalid(
          `cannot read AppWorld split ${split} from ${file} (${errorCode(err)}): run ` +
            `\`appworld download data\` in ${root}, or point APPWORLD_ROOT at the folder that has data/datasets`,
          'AppWorld split',
          split,
          { cause: err },
        );
      });
      this.splits.set(split, ids);
    }
    return ids;
  }
}

function datasetsDir(root: string): string {
  return join(root, 'data', 'datasets');
}

function checkSplit(split: string): string {
  if (!(APPWORLD_SPLITS as readonly string[]).includes(split)) {
    throw new InvalidInputError(
      `unknown AppWorld split "${split}": use one of ${APPWORLD_SPLITS.join(', ')}`,
      { what: 'AppWorld split', value: split, valid: APPWORLD_SPLITS },
    );
  }
  return split;
}

function checkTaskId(id: string, where: string): string {
  if (!TASK_ID.test(id)) {
    const message = `${where}: "${id}" is not an AppWorld task id (ids look like 82e2fac_1)`;
    throw invalid(message, 'AppWorld task id', id);
  }
  return id;
}

/** Ids one a line; blank lines and `#` comments are skipped, commas also separate ids. */
export function parseTaskIds(text: string, where: string): string[] {
  const ids: string[] = [];
  for (const [index, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.replace(/#.*$/, '');
    for (const part of line.split(',')) {
      const id = part.trim();
      if (id) ids.push(checkTaskId(id, `${where}:${index + 1}`));
    }
  }
  return ids;
}

async function readIdFile(file: string): Promise<string[]> {
  return parseTaskIds(await readFile(file, 'utf8'), file);
}

async function readTaskFile(file: string): Promise<string[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    const message = `cannot read task-id file ${file} (${errorCode(err)})`;
    throw invalid(message, 'task-id file', file, { cause: err });
  }
  const ids = parseTaskIds(text, file);
  if (ids.length === 0)
    throw invalid(`task-id file ${file} lists no task ids`, 'task-id file', file);
  return ids;
}

function errorCode(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string') return code;
  return err instanceof Error ? err.message : String(err);
}
