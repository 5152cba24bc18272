import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeConfigTemplate } from '../config/index.js';
import { BudgetExceededError, InvalidInputError } from '../errors.js';
import { GUIDELINE_PAIR, GuidelineStore, resolveGuidelinePair } from '../guidelines/index.js';
import { asUsage, cliMessage, flagOf, forFlag } from './library-errors.js';
import { UsageError } from './usage-error.js';

describe('library errors in the CLI', () => {
  it('writes the options a message names as the flags that set them', () => {
    expect(['force', 'compressorKeyEnv', 'taskIds', 'run.allow_task_changes'].map(flagOf)).toEqual([
      '--force',
      '--compressor-key-env',
      '--tasks',
      '--allow-task-changes',
    ]);
    const budget = new BudgetExceededError(1, 1, 'run-1');
    expect(budget.message).toContain(
      'raise the budget (`budget.usd`) and resume run run-1 (`resume`)',
    );
    expect(cliMessage(budget)).toContain(
      'raise the budget (--budget-usd) and resume run run-1 (--resume)',
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
    const err = (() => {
      try {
        writeConfigTemplate(file);
      } catch (e) {
        return e as InvalidInputError;
      }
    })()!;
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
