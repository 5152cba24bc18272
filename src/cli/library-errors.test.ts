import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { thrownOf } from '../../test/helpers/thrown.js';
import { hotpotSource } from '../bench/qa/hotpot.js';
import { requireValidTasks } from '../bench/task-problems.js';
import { writeConfigTemplate } from '../config/index.js';
import { readConfigText } from '../config/read-file.js';
import {
  AconError,
  BudgetExceededError,
  ConfigError,
  InputFileError,
  InvalidInputError,
  TaskFileError,
} from '../errors.js';
import { checkTaskDigests } from '../experiment/index.js';
import { SHARED_TASKS_OPTIONS, sharedTasksWarning } from '../optimize/plan.js';
import { GUIDELINE_PAIR, GuidelineStore, resolveGuidelinePair } from '../guidelines/index.js';
import { asUsage, cliMessage, cliText, flagOf, forFlag } from './library-errors.js';
import { UsageError } from './usage-error.js';

const thrown = (fn: () => unknown) => thrownOf(AconError, fn);

describe('library errors in the CLI', () => {
  it('writes the options a message names as the flags that set them', () => {
    // Options in kebab case, and config keys and options whose flag has another name.
    const options = ['force', 'compressorKeyEnv', 'provider', 'skipInvalidTasks', 'taskIds'];
    options.push('run.allow_task_changes', 'qa.data', 'file');
    expect(options.map(flagOf)).toEqual([
      '--force',
      '--compressor-key-env',
      '--provider',
      '--skip-invalid-tasks',
      '--tasks',
      '--allow-task-changes',
      '--qa-data',
      '--config',
    ]);
    const budget = new BudgetExceededError(1, 1, 'run-1');
    expect(budget.message).toContain(
      'raise the budget (`budget.usd`) and resume run run-1 (`resume`)',
    );
    expect(cliMessage(budget)).toContain(
      'raise the budget (--budget-usd) and resume run run-1 (--resume)',
    );
  });

  it('says a config path that is a folder in loadConfig`s terms, and as --config in the CLI`s', () => {
    const dir = mkdtempSync(join(tmpdir(), 'acon-cfg-'));
    const err = thrown(() => readConfigText(dir));
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.message).toContain('name the YAML file as `file` (e.g. path/acon.config.yaml)');
    expect(cliMessage(err)).toContain(
      'name the YAML file as --config (e.g. path/acon.config.yaml)',
    );
  });

  it('offers to skip invalid task files as `skipInvalidTasks`, and as --skip-invalid-tasks in the CLI', async () => {
    const bad = new TaskFileError('tasks/t1.yaml', 'steps', 'missing');
    const err = await requireValidTasks(
      { loadProblems: () => Promise.resolve([bad]) },
      false,
      () => {
        throw new Error('no warning expected');
      },
    ).catch((e: unknown) => e as TaskFileError);
    expect(err).toBeInstanceOf(TaskFileError);
    expect((err as Error).message).toBe(
      'tasks/t1.yaml: steps: missing; or pass `skipInvalidTasks` to run without it',
    );
    expect(cliMessage(err as TaskFileError)).toBe(
      'tasks/t1.yaml: steps: missing; or pass --skip-invalid-tasks to run without it',
    );
  });

  it('warns of skipped task files as `skipInvalidTasks`, and as --skip-invalid-tasks in the CLI', async () => {
    const bad = new TaskFileError('tasks/t1.yaml', 'steps', 'missing');
    const lines: string[] = [];
    await requireValidTasks({ loadProblems: () => Promise.resolve([bad]) }, true, (line, options) =>
      lines.push(line, cliText(line, options)),
    );
    expect(lines).toEqual([
      'skipped 1 invalid task file (`skipInvalidTasks`); the first: tasks/t1.yaml: steps: missing',
      'skipped 1 invalid task file (--skip-invalid-tasks); the first: tasks/t1.yaml: steps: missing',
    ]);
  });

  it('warns of a changed task as `run.allow_task_changes`, and as --allow-task-changes in the CLI', async () => {
    const states = new Map<string, unknown>();
    const store = {
      getState: (_run: string, key: string) => states.get(key),
      setState: (_run: string, key: string, value: unknown) => void states.set(key, value),
    };
    const bench = { name: 'b', taskDigest: (id: string) => Promise.resolve(`d-${id}`) };
    const base = { store, runId: 'run-1', allow: true, tasks: [{ id: 't1' }] };
    const lines: string[] = [];
    const warn = (line: string, options?: readonly string[]) =>
      lines.push(line, cliText(line, options));
    states.set('task-digests', { t1: 'old' });
    await checkTaskDigests({ ...base, bench, warn } as unknown as Parameters<
      typeof checkTaskDigests
    >[0]);
    expect(lines).toEqual([
      'task t1 changed since run run-1 started; going on with the new version (`run.allow_task_changes`)',
      'task t1 changed since run run-1 started; going on with the new version (--allow-task-changes)',
    ]);
  });

  it('warns that named tasks stand for every split as `taskIds`/`taskFile`, and as --tasks/--task-file', () => {
    const same = [{ id: 'a' }];
    const splits = { trainSplit: 'train', selectSplit: 'dev', evalSplit: 'test' };
    const line = sharedTasksWarning(splits, { train: same, select: same, eval: same })!;
    expect(line).toContain('Tasks named with `taskIds` or `taskFile` stand for every split');
    expect(cliText(line, SHARED_TASKS_OPTIONS)).toContain(
      'Tasks named with --tasks or --task-file stand for every split',
    );
  });

  it('says an unreadable HotpotQA file came from `qa.data`, and from --qa-data in the CLI', async () => {
    const missing = join(mkdtempSync(join(tmpdir(), 'acon-qa-')), 'nope.json');
    const err = await hotpotSource(missing, 1)
      .load()
      .catch((e: unknown) => e as InputFileError);
    expect(err).toBeInstanceOf(InputFileError);
    expect((err as Error).message).toMatch(/nope\.json: `qa\.data`: cannot read it \(ENOENT/);
    expect(cliMessage(err as InputFileError)).toMatch(
      /nope\.json: --qa-data: cannot read it \(ENOENT/,
    );
  });

  it('leaves a backquoted word that is no option of the error alone', () => {
    const err = new InvalidInputError('`force` is off; see `acon init`', {
      what: 'config file',
      options: ['force'],
    });
    expect(cliMessage(err)).toBe('--force is off; see `acon init`');
  });

  it('says a config file exists in the library`s terms, and as --force in the CLI`s', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'acon-init-')), 'acon.config.yaml');
    writeConfigTemplate(file);
    const err = thrown(() => writeConfigTemplate(file));
    expect(err).toBeInstanceOf(InvalidInputError);
    expect(err.message).toBe(`${file} already exists; pass \`force\` to overwrite it`);
    expect(cliMessage(err)).toBe(`${file} already exists; pass --force to overwrite it`);
  });

  it('names the flag a guideline pair came from, and lists the versions there are', async () => {
    const store = new GuidelineStore({ dir: mkdtempSync(join(tmpdir(), 'acon-g-')) });
    const lib = await resolveGuidelinePair('obs@actve', store).catch((e: unknown) => e);
    expect(lib).toBeInstanceOf(InvalidInputError);
    expect(lib).toMatchObject({ what: GUIDELINE_PAIR, value: 'obs@actve', valid: ['obs-0000'] });
    expect((lib as Error).message).toMatch(
      /^unknown guideline version "obs@actve"; versions: obs-0000; name one by id \(obs-0003\)/,
    );
    const cli = await forFlag('--guidelines', GUIDELINE_PAIR, () =>
      resolveGuidelinePair('obs@actve', store),
    ).catch((e: unknown) => e);
    expect(cli).toBeInstanceOf(UsageError);
    expect((cli as UsageError).exitCode).toBe(2);
    expect((cli as Error).message).toMatch(/^--guidelines: unknown guideline version "obs@actve"/);
  });

  it('passes other errors through forFlag, and turns every invalid input into usage in asUsage', async () => {
    const other = new InvalidInputError('unknown split "x"', { what: 'split' });
    await expect(forFlag('--guidelines', GUIDELINE_PAIR, () => Promise.reject(other))).rejects.toBe(
      other,
    );
    const usage = await asUsage(() => {
      throw new InvalidInputError('`maxTokens`: too small', {
        what: 'export options',
        options: ['maxTokens'],
      });
    }).catch((e: unknown) => e);
    expect(usage).toBeInstanceOf(UsageError);
    expect((usage as Error).message).toBe('--max-tokens: too small');
    const failure = new Error('disk');
    await expect(asUsage(() => Promise.reject(failure))).rejects.toBe(failure);
  });
});
