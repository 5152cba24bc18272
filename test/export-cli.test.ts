import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { registerExport, registerLint } from '../src/cli/export.js';
import { UsageError } from '../src/cli/usage-error.js';
import { LintFailedError } from '../src/export/index.js';
import { buildFixture, RUN_ID, type Fixture } from './export-fixture.js';

let fx: Fixture | null = null;
afterEach(() => {
  vi.restoreAllMocks();
  fx?.store.close();
  fx = null;
});

/** Runs `acon <args>` on a program with only the export commands; returns what it printed. */
async function acon(args: string[]): Promise<string> {
  let out = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    out += String(chunk);
    return true;
  });
  const program = new Command('acon').option('-c, --config <file>').exitOverride();
  program.configureOutput({ writeOut: (s) => (out += s), writeErr: (s) => (out += s) });
  registerExport(program);
  registerLint(program);
  try {
    await program.parseAsync(['node', 'acon', ...args]);
  } finally {
    vi.restoreAllMocks();
  }
  return out;
}

describe('acon export / acon lint', () => {
  it('exports a run and prints the summary as JSON; the file passes lint', async () => {
    fx = buildFixture();
    const out = join(fx.dir, 'hist.jsonl');
    const printed = await acon([
      'export',
      '--role',
      'hist',
      '--format',
      'openai',
      '--out',
      out,
      '--db',
      fx.dbPath,
      '--json',
    ]);
    const summary = JSON.parse(printed) as {
      runId: string;
      simulated: boolean;
      examples: { total: number };
    };
    expect(summary).toMatchObject({ runId: RUN_ID, simulated: true, examples: { total: 4 } });
    const lint = await acon(['lint', out, '--format', 'openai']);
    expect(lint).toContain('4 examples, valid openai');
  });

  it('prints a table with the SIMULATED label', async () => {
    fx = buildFixture();
    const printed = await acon([
      'export',
      '--role',
      'obs',
      '--format',
      'trl',
      '--out',
      join(fx.dir, 'obs.jsonl'),
      '--db',
      fx.dbPath,
      '--val-ratio',
      '0.25',
    ]);
    expect(printed).toMatch(/^SIMULATED — run run-fixture/);
    expect(printed).toMatch(/^task +split +examples +tokens$/m);
    expect(printed).toMatch(/^t1 +train +\d+ +[\d,]+$/m);
    expect(printed).toMatch(/^total +\d+ train \/ \d+ val +\d+ +[\d,]+$/m);
    expect(printed).toMatch(
      /left out: 1 failed rollouts, 1 errored, 1 malformed, 1 failed compressions, 0 over --max-tokens, 1 duplicates/,
    );
  });

  it('fails lint with exit code 1 and names the lines', async () => {
    fx = buildFixture();
    const file = join(fx.dir, 'bad.jsonl');
    const ok = JSON.stringify({
      messages: [
        { role: 'user', content: 'a' },
        { role: 'assistant', content: 'b' },
      ],
    });
    writeFileSync(file, `${ok}\n${ok}\n{"messages": [{"role": "user", "content": "a"}]}\n`);
    let printed = '';
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      printed += String(chunk);
      return true;
    });
    const program = new Command('acon').exitOverride();
    registerLint(program);
    const err = await program
      .parseAsync(['node', 'acon', 'lint', file, '--format', 'openai'])
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LintFailedError);
    expect((err as LintFailedError).exitCode).toBe(1);
    expect(printed).toContain(`${file}:3: finalAssistant`);
  });

  it.each([
    [['--overflow', 'truncate'], /--overflow truncate needs --max-tokens/],
    [['--val-ratio', '2'], /--val-ratio must be ≤ 0.9, got "2"/],
    [['--max-tokens', '1.5'], /--max-tokens must be a whole number/],
    [['--run', RUN_ID, '--teacher'], /--run and --teacher exclude each other/],
  ])('rejects bad options %j with a usage error', async (extra, message) => {
    fx = buildFixture();
    const args = [
      'export',
      '--role',
      'hist',
      '--format',
      'openai',
      '--out',
      join(fx.dir, 'x.jsonl'),
      '--db',
      fx.dbPath,
      ...extra,
    ];
    const err = await acon(args).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toMatch(message);
  });

  it('shows examples in --help', async () => {
    let text = '';
    const program = new Command('acon').exitOverride();
    program.configureOutput({ writeOut: (s) => (text += s) });
    registerExport(program);
    await program.parseAsync(['node', 'acon', 'export', '--help']).catch(() => undefined);
    expect(text).toContain('Examples:');
    expect(text).toContain('acon export --role hist --format openai');
  });
});
