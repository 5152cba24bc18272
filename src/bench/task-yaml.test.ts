import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TaskFileError } from '../errors.js';
import { parseTaskYamlText, readTaskYaml, TASK_YAML_INDEX, textHash } from './task-yaml.js';

const TASKS = join(import.meta.dirname, '..', '..', 'tasks');

function shippedFiles(): { file: string; text: string }[] {
  return readdirSync(TASKS, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .flatMap((d) =>
      readdirSync(join(TASKS, d.name))
        .filter((n) => /\.ya?ml$/.test(n))
        .map((n) => ({ file: n, text: readFileSync(join(TASKS, d.name, n), 'utf8') })),
    );
}

describe('readTaskYaml', () => {
  it('reads every shipped task file as the YAML parser does (index or not)', () => {
    const files = shippedFiles();
    expect(files.length).toBeGreaterThan(100);
    for (const { file, text } of files) {
      expect(readTaskYaml(file, text), file).toEqual(parseTaskYamlText(file, text));
    }
  });

  it('answers a shipped file from the index built by npm run build', () => {
    if (!existsSync(TASK_YAML_INDEX)) return; // no build: every file is parsed (the test above)
    const index = JSON.parse(readFileSync(TASK_YAML_INDEX, 'utf8')) as Record<string, string>;
    const { file, text } = shippedFiles()[0]!;
    const stored = index[textHash(text)];
    expect(
      stored,
      `${file} is missing from ${TASK_YAML_INDEX.pathname}: npm run build`,
    ).toBeDefined();
    expect(JSON.parse(stored!)).toEqual(parseTaskYamlText(file, text));
  });

  it('parses a text the index does not know, and names the line of a syntax error', () => {
    const { file, text } = shippedFiles()[0]!;
    const edited = `${text}\n# edited\n`;
    expect(readTaskYaml(file, edited)).toEqual(parseTaskYamlText(file, text));
    expect(() => readTaskYaml('bad.yaml', 'id: a\n  b: [\n')).toThrow(TaskFileError);
    expect(() => readTaskYaml('bad.yaml', 'id: a\n  b: [\n')).toThrow(/bad\.yaml: line \d/);
  });

  it('gives each caller its own value (callers may change what they read)', () => {
    const { file, text } = shippedFiles()[0]!;
    const first = readTaskYaml(file, text) as Record<string, unknown>;
    first.id = 'changed';
    expect((readTaskYaml(file, text) as Record<string, unknown>).id).not.toBe('changed');
  });
});
