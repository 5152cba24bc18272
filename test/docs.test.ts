import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../src/cli/main.js';
import { ACON_BIN, cleanEnv, tempDir } from './helpers/cli.js';
import {
  REPO,
  checkArgs,
  checkDocs,
  checkReferences,
  docCommands,
  docFiles,
  fences,
  isRunnable,
  shellCommands,
  shellLines,
} from './helpers/doc-commands.js';

/** README.md and docs/: every acon command line parses, and every `sh runnable` block runs. */

describe('docs command lines', () => {
  it('finds the command lines of fenced blocks and inline code', () => {
    const md = [
      'Run `acon runs show RUN --failed` or:',
      '```sh',
      'npx acon compare --bench apptown \\',
      '  --split dev   # a comment --bogus',
      'ACON_DB=x.db acon runs --json | jq . > out.json && echo done',
      '```',
    ].join('\n');
    const found = docCommands('x.md', md).map((c) => [c.line, c.args.join(' '), c.strict]);
    expect(found).toEqual([
      [3, 'compare --bench apptown --split dev', true],
      [5, 'runs --json', true],
      [1, 'runs show RUN --failed', false],
    ]);
  });

  it('splits shell lines at pipes, && and ; and drops comments and redirections', () => {
    expect(shellCommands(`acon a --x 'b c' | jq "." > f.json && acon d # acon e`)).toEqual([
      ['acon', 'a', '--x', 'b c'],
      ['jq', '.'],
      ['acon', 'd'],
    ]);
  });

  it('reports unknown commands, unknown flags and values outside a flag’s choices', () => {
    const check = (line: string) => checkArgs(buildProgram(), line.split(' '), true);
    expect(check('optimize --bench apptown --max-tasks 2 --dry-run')).toEqual([]);
    expect(check('runs show RUN --failed')).toEqual([]);
    expect(check('runs')).toEqual([]);
    expect(check('optimize --max-taskz 2')).toEqual([
      'unknown flag --max-taskz for `acon optimize`',
    ]);
    expect(check('frobnicate --x')).toEqual(['unknown command `acon frobnicate`']);
    expect(check('export --role obs --format jsonl --out x.jsonl')).toEqual([
      '--format jsonl: not one of openai, trl, sharegpt, axolotl',
    ]);
  });

  it('uses only commands and flags the CLI has, in README.md and every docs/ page', () => {
    expect(checkDocs(buildProgram)).toEqual([]);
  });

  it('names only npm scripts and repository files that exist', () => {
    expect(checkReferences()).toEqual([]);
  });

  it('reports an npm script or a file that does not exist', () => {
    const dir = tempDir('acon-docs-refs-');
    const file = join(dir, 'page.md');
    writeFileSync(file, 'Run `npm run docs:nope`, see `src/cli/nope.ts` and `src/cli/main.ts`.\n');
    expect(checkReferences([file])).toEqual([
      `${file}:1: npm run docs:nope: no such script`,
      `${file}:1: src/cli/nope.ts: no such file`,
    ]);
  });

  it('fails when a flag the docs use is renamed in the CLI', () => {
    // The README's tour uses `optimize --max-tasks`; rename it the way a refactor would.
    const renamed = () => {
      const program = buildProgram();
      const optimize = program.commands.find((c) => c.name() === 'optimize')!;
      const option = optimize.options.find((o) => o.long === '--max-tasks')!;
      option.long = '--first-tasks';
      return program;
    };
    const problems = checkDocs(renamed, ['README.md']);
    expect(problems.length).toBeGreaterThan(0);
    expect(problems.every((p) => p.includes('unknown flag --max-tasks'))).toBe(true);
  });
});

/** Placeholders runnable lines may use, filled in from the folder's database. */
function fillPlaceholders(line: string, run: (args: string[]) => string): string {
  if (!/\b(RUN|ROLLOUT)\b/.test(line)) return line;
  const runs = JSON.parse(run(['runs', '--json'])) as { id: string }[];
  const runId = runs[0]?.id;
  if (!runId) throw new Error(`"${line}" needs a run, but none is stored yet`);
  let out = line.replace(/\bRUN\b/g, runId);
  if (/\bROLLOUT\b/.test(out)) {
    const show = JSON.parse(run(['runs', 'show', runId, '--json'])) as {
      rollouts: { id: string }[];
    };
    out = out.replace(/\bROLLOUT\b/g, show.rollouts[0]!.id);
  }
  return out;
}

/** A bin folder where `acon` and `npx acon` run this checkout's build, never a registry. */
function shimBin(dir: string): string {
  const bin = join(dir, '.bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'acon'), `#!/bin/sh\nexec node ${JSON.stringify(ACON_BIN)} "$@"\n`);
  writeFileSync(
    join(bin, 'npx'),
    `#!/bin/sh\nif [ "$1" = acon ]; then shift; exec node ${JSON.stringify(ACON_BIN)} "$@"; fi\n` +
      `echo "docs test: only npx acon is allowed, got: npx $*" >&2; exit 127\n`,
  );
  chmodSync(join(bin, 'acon'), 0o755);
  chmodSync(join(bin, 'npx'), 0o755);
  return bin;
}

const runnablePages = docFiles().filter((f) =>
  fences(readFileSync(join(REPO, f), 'utf8')).some(isRunnable),
);

describe('docs runnable blocks', () => {
  it('has runnable blocks in the README and the pages that teach commands', () => {
    expect(runnablePages).toEqual(expect.arrayContaining(['README.md', 'docs/method.md']));
  });

  it.each(runnablePages)(
    'runs every line of the runnable blocks of %s in a fresh folder',
    (file) => {
      const dir = tempDir('acon-docs-');
      const bin = shimBin(dir);
      const env = cleanEnv({ PATH: `${bin}:${process.env.PATH ?? ''}`, CI: 'true' });
      const acon = (args: string[]) => {
        const r = spawnSync('node', [ACON_BIN, ...args], { cwd: dir, env, encoding: 'utf8' });
        if (r.status !== 0) throw new Error(`acon ${args.join(' ')}: ${r.stderr}`);
        return r.stdout;
      };
      const blocks = fences(readFileSync(join(REPO, file), 'utf8')).filter(isRunnable);
      for (const block of blocks) {
        for (const l of shellLines(block)) {
          for (const words of shellCommands(l.text)) {
            // Runnable blocks hold acon commands (and plain shell such as export or ls), never
            // anything that installs or downloads.
            expect(words[0], `${file}:${l.line}`).not.toMatch(/^(npm|pip|curl|wget|apt-get)$/);
          }
          const line = fillPlaceholders(l.text, acon);
          const r = spawnSync('bash', ['-euo', 'pipefail', '-c', line], {
            cwd: dir,
            env,
            encoding: 'utf8',
          });
          expect(
            r.status,
            `${file}:${l.line}: ${line}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`,
          ).toBe(0);
        }
      }
    },
    300_000,
  );
});
