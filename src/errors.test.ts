import { describe, expect, it } from 'vitest';
import { AconError, ConfigError, GuidelineError, InputFileError, TaskFileError } from './errors.js';

describe('InputFileError', () => {
  it.each([
    ['ConfigError', ConfigError],
    ['TaskFileError', TaskFileError],
    ['GuidelineError', GuidelineError],
  ] as const)('%s keeps the file, field and detail and names itself', (name, ErrorClass) => {
    const cause = new Error('yaml: bad indentation');
    const err = new ErrorClass('tasks/a.yaml', 'difficulty', 'expected 1..3, got 7', { cause });
    expect(err).toBeInstanceOf(InputFileError);
    expect(err).toBeInstanceOf(AconError);
    expect({ name: err.name, exitCode: err.exitCode, message: err.message }).toEqual({
      name,
      exitCode: 2,
      message: 'tasks/a.yaml: difficulty: expected 1..3, got 7',
    });
    expect([err.file, err.field, err.detail, err.cause]).toEqual([
      'tasks/a.yaml',
      'difficulty',
      'expected 1..3, got 7',
      cause,
    ]);
  });

  it('lets a loader tell a task file apart from the other input files', () => {
    expect(new ConfigError('acon.config.yaml', 'run', 'x')).not.toBeInstanceOf(TaskFileError);
    expect(new GuidelineError('g.md', 'text', 'x')).not.toBeInstanceOf(TaskFileError);
  });
});
