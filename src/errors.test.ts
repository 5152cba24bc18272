import { describe, expect, it } from 'vitest';
import {
  AconError,
  BenchmarkError,
  BudgetExceededError,
  ConfigError,
  DatabaseError,
  GuidelineError,
  InputFileError,
  InterruptedError,
  InvalidInputError,
  NotFoundError,
  OutputFileError,
  ProviderError,
  RunBusyError,
  TaskFileError,
} from './errors.js';

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

describe('exit codes (docs/reliability.md)', () => {
  it.each([
    ['InvalidInputError', new InvalidInputError('x', { what: 'split' }), 2],
    ['InputFileError', new InputFileError('f', 'field', 'x'), 2],
    ['NotFoundError', new NotFoundError('x'), 2],
    ['DatabaseError', new DatabaseError('f', 'x'), 2],
    ['RunBusyError', new RunBusyError('x'), 2],
    ['ProviderError', new ProviderError('x', 503), 1],
    ['BenchmarkError', new BenchmarkError('x'), 1],
    ['OutputFileError', new OutputFileError('f', 'ENOSPC', 'x'), 1],
    ['BudgetExceededError', new BudgetExceededError(1, 1), 3],
    ['InterruptedError', new InterruptedError('x'), 130],
  ] as const)('%s exits %i: bad input 2, a failure while working 1', (_name, err, code) => {
    expect(err).toBeInstanceOf(AconError);
    expect(err.exitCode).toBe(code);
  });
});
