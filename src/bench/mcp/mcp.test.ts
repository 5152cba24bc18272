import { describe, expect, it } from 'vitest';
import { answerMatches } from './evaluate.js';
import { packageBin, resolvePlaceholders } from './placeholders.js';
import { parseMcpTaskFile } from './task-loader.js';
import { renderResult, splitToolName, toToolDef, toolName } from './tools.js';

const GOOD = `id: t1
split: dev
instruction: Read a.md.
servers:
  fs:
    command: \${node}
    args: ["\${package:@modelcontextprotocol/server-filesystem}", "\${workdir}"]
evaluation:
  answer: x
reference:
  - call: fs__read_text_file
    args: { path: a.md }
  - call: complete_task
    args: { answer: x }
    needs: [{ value: x, from: 0 }]
`;

describe('parseMcpTaskFile', () => {
  it('reads a valid task file with its defaults', () => {
    const task = parseMcpTaskFile('/t/t1.yaml', GOOD);
    expect(task.evaluation).toEqual({ answer: 'x', match: 'text', checks: [] });
    expect(task.servers.fs).toMatchObject({ command: '${node}', env: {} });
    expect(task.reference![1]!.needs).toEqual([{ value: 'x', from: 0 }]);
  });

  it.each([
    [GOOD.replace('fs__read_text_file', 'mem__read'), 'reference.0.call', 'names no tool'],
    [GOOD.replace('from: 0', 'from: 1'), 'reference.1.needs', 'not before call 1'],
    [GOOD.replace('call: complete_task', 'call: fs__list_directory'), 'reference', 'ends with'],
    [GOOD.replace('  answer: x\n', '  match: set\n'), 'evaluation', 'answer, checks, or both'],
    [GOOD.replace('  fs:', '  "1fs":'), 'servers.1fs', 'a letter'],
    [GOOD.replace('id: t1', 'id: t2'), 'id', 'differs from the file name'],
  ])('names the field and the fix of a bad file (%#)', (text, field, detail) => {
    let error: { field?: string; message?: string } = {};
    try {
      parseMcpTaskFile('/t/t1.yaml', text);
    } catch (err) {
      error = err as typeof error;
    }
    expect(error.field).toBe(field);
    expect(error.message).toContain(detail);
    expect(error.message).toContain('fix:');
  });
});

describe('answerMatches', () => {
  it.each([
    ['INV-123', ' inv-123. ', 'text', true],
    ['INV-123', 'INV-124', 'text', false],
    ['a@x.io, b@y.io', 'B@y.io;a@x.io', 'set', true],
    ['a@x.io, b@y.io', 'a@x.io', 'set', false],
    ['1234.5', '$1,234.50', 'number', true],
    ['1234.5', '1234.51', 'number', false],
  ] as const)('%s vs %s (%s) → %s', (expected, got, match, ok) => {
    expect(answerMatches(expected, got, match)).toBe(ok);
  });
});

describe('tools', () => {
  it('prefixes tool names with the server and splits them back', () => {
    expect(toolName('fs', 'read.text file')).toBe('fs__read_text_file');
    expect(splitToolName('memory__open_nodes')).toEqual({ server: 'memory', tool: 'open_nodes' });
    expect(splitToolName('complete_task')).toBeUndefined();
  });

  it('turns an MCP tool into a function tool without the $schema key', () => {
    const def = toToolDef('fs', {
      name: 'list_directory',
      description: 'List.',
      inputSchema: { $schema: 'x', type: 'object', properties: { path: { type: 'string' } } },
    });
    expect(def).toEqual({
      type: 'function',
      function: {
        name: 'fs__list_directory',
        description: '[fs] List.',
        parameters: { type: 'object', properties: { path: { type: 'string' } } },
      },
    });
  });

  it('renders text once, structured content when there is no text, and errors', () => {
    expect(
      renderResult({
        content: [{ type: 'text', text: 'hi' }],
        structuredContent: { content: 'hi' },
      }),
    ).toBe('hi');
    expect(renderResult({ content: [], structuredContent: { n: 1 } })).toBe('{\n  "n": 1\n}');
    expect(
      renderResult({ isError: true, content: [{ type: 'text', text: 'Error: ENOENT' }] }),
    ).toBe('Error: ENOENT');
    expect(
      renderResult({ content: [{ type: 'image', mimeType: 'image/png', data: 'AAAA' }] }),
    ).toBe('[image content image/png, 4 base64 characters]');
  });
});

describe('placeholders', () => {
  const scope = { workdir: '/w', memoryFile: '/m.jsonl', taskFile: '/t/a.yaml', env: { K: 'v' } };

  it('resolves workdir, memory file, task folder, env and installed packages', () => {
    expect(resolvePlaceholders('${workdir}|${memory_file}|${task_dir}|${env:K}', scope)).toBe(
      '/w|/m.jsonl|/t|v',
    );
    expect(packageBin('@modelcontextprotocol/server-memory', '/t/a.yaml')).toMatch(
      /server-memory\/dist\/index\.js$/,
    );
  });

  it('refuses unknown placeholders, unset variables and missing packages', () => {
    expect(() => resolvePlaceholders('${home}', scope)).toThrow(/unknown placeholder/);
    expect(() => resolvePlaceholders('${env:NOPE}', scope)).toThrow(/NOPE/);
    expect(() => packageBin('@acon/no-such-server', '/t/a.yaml')).toThrow(/not installed/);
  });
});
