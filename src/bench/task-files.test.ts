import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { BenchmarkError, TaskFileError } from '../errors.js';
import { parseQaTaskFile } from './qa/task-loader.js';
import { checkIdIsFileName, findTask, loadTaskDir, schemaError } from './task-files.js';

const Schema = z.strictObject({ id: z.string(), split: z.enum(['train', 'test']) });
type Task = z.infer<typeof Schema> & { file: string };

/** A parser as the benchmarks write theirs: YAML is not needed to test the folder's rules. */
function parse(file: string, text: string): Task {
  const parsed = Schema.safeParse(JSON.parse(text), { reportInput: true });
  if (!parsed.success) throw schemaError(file, parsed.error, 'see the example');
  checkIdIsFileName(file, parsed.data.id);
  return { ...parsed.data, file };
}

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'acon-task-files-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const write = (name: string, body: unknown) =>
  writeFileSync(join(dir, name), typeof body === 'string' ? body : JSON.stringify(body));

describe('loadTaskDir', () => {
  it('loads the valid files in name order and keeps one problem per invalid file', async () => {
    write('b.yaml', { id: 'b', split: 'test' });
    write('a.yaml', { id: 'a', split: 'train' });
    write('c.yaml', { id: 'c', split: 'dev' });
    write('d.yaml', { id: 'other', split: 'test' });
    write('notes.txt', 'not a task');
    const { tasks, problems } = await loadTaskDir(dir, 'demo', parse);
    expect(tasks.map((t) => t.id)).toEqual(['a', 'b']);
    expect(problems.map((p) => [p.file, p.field])).toEqual([
      [join(dir, 'c.yaml'), 'split'],
      [join(dir, 'd.yaml'), 'id'],
    ]);
    expect(problems[0]!.message).toContain('fix: use one of: train, test');
    expect(problems[1]!.message).toContain('rename the file to other.yaml or change id to "d"');
  });

  it('refuses a second file with the same id, naming the first', async () => {
    write('a.yaml', { id: 'a', split: 'train' });
    write('a.yml', { id: 'a', split: 'test' });
    const { tasks, problems } = await loadTaskDir(dir, 'demo', parse);
    expect(tasks).toHaveLength(1);
    expect(problems[0]!.message).toContain(`is also the id of ${join(dir, 'a.yaml')}`);
  });

  it('turns an error that is not a TaskFileError into one naming the file', async () => {
    write('a.yaml', '{ not json');
    const { problems } = await loadTaskDir(dir, 'demo', parse);
    expect(problems[0]).toBeInstanceOf(TaskFileError);
    expect(problems[0]!.field).toBe('(file)');
    expect(problems[0]!.message).toContain('fix: check the file is readable');
  });

  it('names the benchmark and the folder it cannot read', async () => {
    const missing = join(dir, 'nope');
    await expect(loadTaskDir(missing, 'demo', parse)).rejects.toThrow(
      new RegExp(`cannot read the demo task folder ${missing}`),
    );
  });
});

describe('schemaError', () => {
  it('says how to fix a missing field, and how many more problems the file has', () => {
    const result = Schema.safeParse({}, { reportInput: true });
    const err = schemaError('/t/x.yaml', result.error!, 'see the example');
    expect(err.field).toBe('id');
    expect(err.message).toContain('fix: add the required field "id"');
    expect(err.message).toContain('(and 1 more problem(s))');
  });

  it('names unknown keys with the hint', () => {
    const result = Schema.safeParse({ id: 'x', split: 'test', sp1it: 1 }, { reportInput: true });
    const err = schemaError('/t/x.yaml', result.error!, 'see the example');
    expect(err.message).toContain('fix: remove "sp1it" (see the example)');
  });
});

describe('findTask', () => {
  it('throws the problem of a task whose file is invalid, and names the list command otherwise', async () => {
    write('a.yaml', { id: 'a', split: 'train' });
    write('b.yaml', { id: 'b', split: 'dev' });
    const load = await loadTaskDir(dir, 'demo', parse);
    expect(findTask(load, 'a', 'demo').file).toBe(join(dir, 'a.yaml'));
    expect(() => findTask(load, 'b', 'demo')).toThrow(TaskFileError);
    expect(() => findTask(load, 'zz', 'demo')).toThrow(BenchmarkError);
    expect(() => findTask(load, 'zz', 'demo')).toThrow(
      'unknown demo task "zz"; list them with: acon tasks list --bench demo',
    );
  });
});

describe('the benchmarks’ parsers', () => {
  it('give a qa task file the same field-by-field fixes as apptown', () => {
    let error: TaskFileError | undefined;
    try {
      parseQaTaskFile('/t/q1.yaml', 'id: q1\nsplit: validation\n');
    } catch (err) {
      error = err as TaskFileError;
    }
    expect(error).toBeInstanceOf(TaskFileError);
    expect(error!.message).toMatch(/fix: (add the required field|use one of)/);
  });
});
