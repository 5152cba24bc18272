import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Command, Option } from 'commander';

/**
 * The command lines of README.md and docs/*.md, for test/docs.test.ts: every `acon …` line is
 * checked against the real commander program (command names, flags, choices), and the lines of
 * fenced blocks tagged `sh runnable` are run.
 */

export const REPO = resolve(import.meta.dirname, '../..');

export function docFiles(): string[] {
  const docs = join(REPO, 'docs');
  const pages = readdirSync(docs)
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => join('docs', f));
  return ['README.md', ...pages];
}

export type Fence = { info: string; body: string[]; line: number };

/** Fenced code blocks (``` or ~~~) with their info string and the line their body starts on. */
export function fences(markdown: string): Fence[] {
  const out: Fence[] = [];
  const lines = markdown.split('\n');
  let open: { marker: string; info: string; line: number; body: string[] } | null = null;
  lines.forEach((text, i) => {
    const m = /^\s*(`{3,}|~{3,})\s*(.*)$/.exec(text);
    if (open) {
      if (m && m[1]!.startsWith(open.marker) && m[2]!.trim() === '') {
        out.push({ info: open.info, body: open.body, line: open.line });
        open = null;
      } else open.body.push(text);
    } else if (m) open = { marker: m[1]!, info: m[2]!.trim(), line: i + 2, body: [] };
  });
  return out;
}

const SHELL = new Set(['sh', 'bash', 'shell', 'console', 'zsh']);

export const isRunnable = (f: Fence) => f.info.split(/\s+/).includes('runnable');
const isShell = (f: Fence) => SHELL.has(f.info.split(/\s+/)[0] ?? '');

/** A shell line with its `\` continuations joined; `line` is where it starts. */
export type ShellLine = { text: string; line: number };

export function shellLines(f: Fence): ShellLine[] {
  const out: ShellLine[] = [];
  let acc = '';
  let start = f.line;
  f.body.forEach((raw, i) => {
    const text = raw.replace(/^\s*\$ /, '');
    if (acc === '') start = f.line + i;
    if (/\\\s*$/.test(text)) {
      acc += text.replace(/\\\s*$/, ' ');
      return;
    }
    acc += text;
    if (acc.trim() !== '') out.push({ text: acc.trim(), line: start });
    acc = '';
  });
  return out;
}

/**
 * Splits a shell line into commands of words: quotes respected, `#` comments dropped, split at
 * `|`, `&&`, `||`, `;` and `&`, redirections (`> file`) left out. Good enough for docs.
 */
export function shellCommands(line: string): string[][] {
  const commands: string[][] = [];
  let words: string[] = [];
  let word: string | null = null;
  let skipNext = false;
  const endWord = () => {
    if (word !== null) {
      if (skipNext) skipNext = false;
      else words.push(word);
    }
    word = null;
  };
  const endCommand = () => {
    endWord();
    if (words.length > 0) commands.push(words);
    words = [];
  };
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === "'" || c === '"') {
      const close = line.indexOf(c, i + 1);
      const end = close === -1 ? line.length : close;
      word = (word ?? '') + line.slice(i + 1, end);
      i = end;
    } else if (c === '\\' && i + 1 < line.length) {
      word = (word ?? '') + line[i + 1];
      i++;
    } else if (/\s/.test(c)) endWord();
    else if (c === '#' && word === null) break;
    else if (c === '|' || c === ';' || c === '&') {
      endCommand();
      if (line[i + 1] === c) i++;
    } else if (c === '>' || c === '<') {
      endWord();
      if (line[i + 1] === '>') i++;
      skipNext = true;
    } else word = (word ?? '') + c;
  }
  endCommand();
  return commands;
}

/** The acon arguments of a command (`acon …`, `npx acon …`, after `VAR=value` words), or null. */
export function aconArgs(words: string[]): string[] | null {
  let i = 0;
  while (i < words.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[i]!)) i++;
  if (words[i] === 'npx') i++;
  return words[i] === 'acon' ? words.slice(i + 1) : null;
}

export type DocCommand = { file: string; line: number; args: string[]; strict: boolean };

/**
 * Every acon command line of a page: from shell-like fenced blocks (strict: choices checked too)
 * and from inline code spans starting with `acon ` (lenient: `[…]` optional parts and `a|b`
 * alternatives are usage notation there, so values are not checked).
 */
export function docCommands(file: string, markdown = readFileSync(join(REPO, file), 'utf8')) {
  const out: DocCommand[] = [];
  const fenced = fences(markdown);
  for (const f of fenced.filter(isShell)) {
    for (const l of shellLines(f)) {
      for (const words of shellCommands(l.text)) {
        const args = aconArgs(words);
        if (args) out.push({ file, line: l.line, args, strict: true });
      }
    }
  }
  const inFence = new Set<number>();
  for (const f of fenced) for (let i = -1; i <= f.body.length; i++) inFence.add(f.line + i);
  markdown.split('\n').forEach((text, i) => {
    if (inFence.has(i + 1)) return;
    for (const m of text.matchAll(/`((?:npx )?acon [^`]+)`/g)) {
      const words = m[1]!.replace(/[[\]]/g, ' ').split(/\s+/).filter(Boolean);
      const args = aconArgs(words);
      if (args) out.push({ file, line: i + 1, args, strict: false });
    }
  });
  return out;
}

type Cmd = Command & { _defaultCommandName?: string | null };

function findOption(chain: Command[], flag: string): Option | undefined {
  for (const cmd of [...chain].reverse()) {
    const o = cmd.options.find((opt) => opt.long === flag || opt.short === flag);
    if (o) return o;
  }
  if (flag === '--help' || flag === '-h') return { required: false, optional: false } as Option;
  return undefined;
}

/**
 * Problems of one acon command line against the program: an unknown command, an unknown flag, a
 * missing flag value, or (strict) a value outside the flag's choices. Empty when it parses.
 */
export function checkArgs(program: Command, args: string[], strict: boolean): string[] {
  const problems: string[] = [];
  const chain: Command[] = [program];
  let cmd = program as Cmd;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') break;
    if (arg.startsWith('-') && arg.length > 1 && !/^-\d/.test(arg)) {
      const [flag, inline] = arg.includes('=') ? arg.split(/=(.*)/s) : [arg, undefined];
      const opt = findOption(chain, flag!);
      if (!opt) {
        const where = chain.map((c) => c.name()).join(' ');
        problems.push(`unknown flag ${flag} for \`${where}\``);
        continue;
      }
      if (!opt.required && !opt.optional) continue;
      const values: string[] = [];
      if (inline !== undefined) values.push(inline);
      else if (opt.variadic) {
        while (i + 1 < args.length && !args[i + 1]!.startsWith('-')) values.push(args[++i]!);
      } else if (i + 1 < args.length && (!args[i + 1]!.startsWith('-') || opt.required)) {
        values.push(args[++i]!);
      }
      if (opt.required && values.length === 0) problems.push(`${flag} needs a value`);
      if (strict && opt.argChoices) {
        for (const v of values) {
          if (!opt.argChoices.includes(v) && !/^[A-Z][A-Z_]*$/.test(v)) {
            problems.push(`${flag} ${v}: not one of ${opt.argChoices.join(', ')}`);
          }
        }
      }
      continue;
    }
    if (cmd.commands.length > 0) {
      const sub = cmd.commands.find((c) => c.name() === arg || c.aliases().includes(arg));
      if (sub) {
        cmd = sub as Cmd;
        chain.push(sub);
        continue;
      }
      const fallback = cmd._defaultCommandName
        ? cmd.commands.find((c) => c.name() === cmd._defaultCommandName)
        : undefined;
      if (!fallback) {
        problems.push(`unknown command \`${chain.map((c) => c.name()).join(' ')} ${arg}\``);
        break;
      }
      cmd = fallback as Cmd;
      chain.push(fallback);
    }
    // a positional argument of the current command
  }
  return problems;
}

/** Every problem of every acon command line in the docs, as `file:line: acon …: problem`. */
export function checkDocs(program: () => Command, files = docFiles()): string[] {
  const problems: string[] = [];
  for (const file of files) {
    for (const c of docCommands(file)) {
      for (const p of checkArgs(program(), c.args, c.strict)) {
        problems.push(`${c.file}:${c.line}: acon ${c.args.join(' ')}: ${p}`);
      }
    }
  }
  return problems;
}

/**
 * Repository paths and npm scripts the docs name in code spans and shell blocks: every
 * `npm run NAME` must be a script of package.json, and every path under src/, scripts/, test/,
 * tasks/, guidelines/, docs/ or examples/ must exist (placeholders such as `<kind>` or `NNNN`
 * and globs are skipped).
 */
/** Paths acon or the tests create, named in the docs but not in the repository. */
const GENERATED = new Set(['guidelines/obs/ACTIVE', 'guidelines/hist/ACTIVE', 'test/artifacts/']);

export function checkReferences(files = docFiles()): string[] {
  const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  const problems: string[] = [];
  for (const file of files) {
    const lines = readFileSync(resolve(REPO, file), 'utf8').split('\n');
    lines.forEach((text, i) => {
      for (const m of text.matchAll(/npm run ([\w:-]+)/g)) {
        if (!(m[1]! in pkg.scripts))
          problems.push(`${file}:${i + 1}: npm run ${m[1]}: no such script`);
      }
      for (const m of text.matchAll(
        /`((?:src|scripts|test|tasks|guidelines|docs|examples)\/[^`\s]+)`/g,
      )) {
        const path = m[1]!.replace(/[.,:;)]+$/, '');
        if (/[<>*…{}]|NNNN|\bID\b/.test(path) || GENERATED.has(path)) continue;
        if (!existsSync(join(REPO, path))) problems.push(`${file}:${i + 1}: ${path}: no such file`);
      }
    });
  }
  return problems;
}
