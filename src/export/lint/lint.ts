import { createReadStream, existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { NotFoundError } from '../../errors.js';
import { countMessageTokens, type ChatMessage } from '../../llm/index.js';
import { FORMATS } from '../formats/index.js';
import type { ExportFormat } from '../schema.js';
import { issue, type LintMessage } from './chat-rules.js';

/** One problem, with the 1-based line number of the file it is on. */
export type LintProblem = { line: number; rule: string; message: string };

export type LintReport = {
  file: string;
  format: ExportFormat;
  /** Non-blank lines read. */
  lines: number;
  problems: LintProblem[];
};

export type LintOptions = {
  format: ExportFormat;
  /** Flag examples longer than this many tokens (o200k_base, chat framing included). */
  maxTokens?: number | null;
};

/**
 * Checks a training file line by line against its format: valid JSON, the format's zod line
 * schema, then its ordering rules (system first, user/assistant alternation, every tool call
 * paired with its result, a non-empty final assistant message; ShareGPT positions; TRL
 * prompt/completion shapes) and an optional length limit. Reads as a stream; memory holds only
 * the problems.
 */
export async function lintFile(file: string, opts: LintOptions): Promise<LintReport> {
  if (!existsSync(file)) throw new NotFoundError(`${file}: no such file`);
  const report: LintReport = { file, format: opts.format, lines: 0, problems: [] };
  const rl = createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Infinity });
  let n = 0;
  for await (const text of rl) {
    n++;
    for (const p of lintLine(text, opts)) report.problems.push({ line: n, ...p });
    if (text.trim() !== '') report.lines++;
  }
  // An empty training file is not a valid one: a fine-tuning job would reject it.
  if (report.lines === 0) {
    report.problems.push({
      line: 1,
      ...issue('empty', 'the file holds no example; export again (see acon export --help)'),
    });
  }
  return report;
}

/** The problems of one line (without line numbers). */
export function lintLine(text: string, opts: LintOptions): { rule: string; message: string }[] {
  const spec = FORMATS[opts.format];
  if (text.trim() === '')
    return [issue('blank', 'JSONL holds one example per line, with no empty lines')];
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch (e) {
    return [issue('json', e instanceof Error ? e.message : String(e))];
  }
  const parsed = spec.lineSchema.safeParse(value);
  if (!parsed.success) {
    return parsed.error.issues
      .slice(0, 3)
      .map((i) =>
        issue('schema', `${i.path.length > 0 ? i.path.join('.') : '(line)'}: ${i.message}`),
      );
  }
  const problems = spec.check(parsed.data);
  if (opts.maxTokens) {
    const tokens = countMessageTokens(asChat(spec.chat(parsed.data)));
    if (tokens > opts.maxTokens)
      problems.push(issue('tooLong', `${tokens} tokens > ${opts.maxTokens}`));
  }
  return problems;
}

/** Enough of a chat message for the token counter (tool definitions are not counted here). */
function asChat(messages: readonly LintMessage[]): ChatMessage[] {
  return messages.map((m) =>
    m.role === 'assistant'
      ? {
          role: 'assistant',
          content: m.content,
          tool_calls: m.toolCalls.map((c, i) => ({
            id: c.id ?? String(i),
            type: 'function' as const,
            function: {
              name: c.name,
              arguments:
                typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments),
            },
          })),
        }
      : { role: 'user', content: m.content ?? '' },
  );
}
