import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../errors.js';
import { TaskIdSource, parseTaskIds } from './task-ids.js';

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'acon-appworld-'));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function install(splits: Record<string, string>): Promise<string> {
  const datasets = join(dir, 'data', 'datasets');
  await mkdir(datasets, { recursive: true });
  for (const [split, text] of Object.entries(splits)) {
    await writeFile(join(datasets, `${split}.txt`), text);
  }
  return dir;
}

describe('parseTaskIds', () => {
  it('reads one id a line, skipping blanks and comments, and splits on commas', () => {
    expect(
      parseTaskIds('# train tasks\n82e2fac_1\n\n  82e2fac_2  # second\na_1,b_2\n', 'f'),
    ).toEqual(['82e2fac_1', '82e2fac_2', 'a_1', 'b_2']);
  });

  it('names the file and line of a bad id', () => {
    expect(() => parseTaskIds('ok_1\n../etc/passwd\n', 'ids.txt')).toThrow(
      'ids.txt:2: "../etc/passwd" is not an AppWorld task id',
    );
  });
});

describe('TaskIdSource', () => {
  it('explains where task ids come from when there is no source', async () => {
    const source = new TaskIdSource({});
    const err = await source.list('train').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidInputError);
    expect((err as Error).message).toMatch(/APPWORLD_ROOT/);
    expect((err as Error).message).toMatch(/data\/datasets\/<split>\.txt/);
    expect((err as Error).message).toMatch(/`taskIds` ID,ID/);
    expect((err as Error).message).toMatch(/task-id file/);
  });

  it('reads a split from the AppWorld install', async () => {
    const root = await install({ train: 'aaa_1\naaa_2\n', dev: 'bbb_1\n' });
    const source = new TaskIdSource({ appworldRoot: root });
    expect(await source.list('train')).toEqual([
      { id: 'aaa_1', split: 'train' },
      { id: 'aaa_2', split: 'train' },
    ]);
    expect(await source.list()).toEqual([
      { id: 'aaa_1', split: 'train' },
      { id: 'aaa_2', split: 'train' },
      { id: 'bbb_1', split: 'dev' },
    ]);
    expect(await source.splitOf('bbb_1')).toBe('dev');
    expect(await source.splitOf('zzz_9')).toBe('custom');
  });

  it('rejects an unknown split and a missing split file with the fix', async () => {
    const root = await install({ train: 'aaa_1\n' });
    const source = new TaskIdSource({ appworldRoot: root });
    await expect(source.list('test')).rejects.toThrow(
      'unknown AppWorld split "test": use one of train, dev, test_normal, test_challenge',
    );
    await expect(source.list('test_normal')).rejects.toThrow(/ENOENT.*appworld download data/);
  });

  it('uses named tasks and a task file instead of any split', async () => {
    const root = await install({ dev: 'bbb_1\n' });
    const file = join(dir, 'ids.txt');
    await writeFile(file, 'ccc_1\nbbb_1\n');
    const source = new TaskIdSource({ taskIds: ['bbb_1'], taskFile: file, appworldRoot: root });
    expect(await source.list('train')).toEqual([
      { id: 'bbb_1', split: 'dev' },
      { id: 'ccc_1', split: 'custom' },
    ]);
  });

  it('names a missing task file', async () => {
    const source = new TaskIdSource({ taskFile: join(dir, 'nope.txt') });
    await expect(source.list()).rejects.toThrow(/cannot read task-id file .*nope\.txt \(ENOENT\)/);
  });
});
