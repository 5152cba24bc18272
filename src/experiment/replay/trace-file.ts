import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { z } from 'zod';
import type { ChatMessage, ToolCall, Trace } from '../../domain/index.js';
import { InputFileError } from '../../errors.js';

/**
 * A JSONL file of recorded conversations, one a line, in the OpenAI chat format as an agent sends
 * it: `{"messages": [...], "tools": [...], "outcome": "success" | "failure", "id": "..."}`
 * (`tools`, `outcome` and `id` optional). Content may be a string or a list of text parts,
 * `developer` counts as `system`; every tool message must answer a tool call made before it.
 */

const TextPart = z.object({ type: z.string(), text: z.string().optional() }).loose();
const Content = z.union([z.string(), z.array(TextPart), z.null()]);
const ToolCallInput = z.object({
  id: z.string().min(1),
  type: z.literal('function').default('function'),
  function: z.object({ name: z.string().min(1), arguments: z.string() }),
});
const MessageInput = z.discriminatedUnion('role', [
  z.object({ role: z.enum(['system', 'developer']), content: Content }).loose(),
  z.object({ role: z.literal('user'), content: Content }).loose(),
  z
    .object({
      role: z.literal('assistant'),
      content: Content.optional(),
      tool_calls: z.array(ToolCallInput).optional(),
    })
    .loose(),
  z.object({ role: z.literal('tool'), tool_call_id: z.string().min(1), content: Content }).loose(),
]);
const LineInput = z
  .object({
    id: z.union([z.string().min(1), z.number()]).optional(),
    messages: z.array(MessageInput).min(1),
    tools: z.array(z.record(z.string(), z.unknown())).optional(),
    outcome: z.enum(['success', 'failure']).optional(),
    metadata: z.object({ task_id: z.string().optional() }).loose().optional(),
  })
  .loose();
type LineInput = z.infer<typeof LineInput>;

/** One line's problem: the file, the line, the field and what to do. */
export class TraceFileError extends InputFileError {
  override name = 'TraceFileError';
  constructor(
    file: string,
    readonly line: number,
    field: string,
    detail: string,
  ) {
    super(`${file}:${line}`, field, detail);
  }
}

export type TraceFile = { traces: Trace[]; problems: TraceFileError[] };

function text(content: z.infer<typeof Content> | undefined): string {
  if (typeof content === 'string') return content;
  if (!content) return '';
  return content
    .map((p) => p.text ?? '')
    .filter((t) => t !== '')
    .join('\n');
}

function fieldOf(path: readonly PropertyKey[]): string {
  return (
    path.reduce<string>(
      (s, k) => (typeof k === 'number' ? `${s}[${k}]` : s ? `${s}.${String(k)}` : String(k)),
      '',
    ) || '(line)'
  );
}

/** The line as a trace, or the first problem found in it. */
export function parseTraceLine(file: string, line: number, raw: string): Trace | TraceFileError {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (err) {
    return new TraceFileError(
      file,
      line,
      '(line)',
      `not JSON (${(err as Error).message}); write one conversation as one JSON object per line`,
    );
  }
  const parsed = LineInput.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const hint =
      issue.code === 'invalid_union' && issue.path.at(-1) !== 'content'
        ? 'role must be one of system, developer, user, assistant, tool'
        : issue.message;
    return new TraceFileError(file, line, fieldOf(issue.path), hint);
  }
  return toTrace(file, line, raw, parsed.data);
}

function toTrace(
  file: string,
  line: number,
  raw: string,
  input: LineInput,
): Trace | TraceFileError {
  const open = new Set<string>();
  const messages: ChatMessage[] = [];
  for (const [i, m] of input.messages.entries()) {
    switch (m.role) {
      case 'system':
      case 'developer':
        messages.push({ role: 'system', content: text(m.content) });
        break;
      case 'user':
        messages.push({ role: 'user', content: text(m.content) });
        break;
      case 'assistant': {
        const calls: ToolCall[] = (m.tool_calls ?? []).map((c) => ({ ...c, type: 'function' }));
        for (const c of calls) open.add(c.id);
        const content = m.content === undefined || m.content === null ? null : text(m.content);
        messages.push(
          calls.length
            ? { role: 'assistant', content, tool_calls: calls }
            : { role: 'assistant', content },
        );
        break;
      }
      case 'tool':
        if (!open.delete(m.tool_call_id)) {
          return new TraceFileError(
            file,
            line,
            `messages[${i}].tool_call_id`,
            `"${m.tool_call_id}" answers no tool call of an earlier assistant message; keep the assistant message that made the call before its result`,
          );
        }
        messages.push({ role: 'tool', tool_call_id: m.tool_call_id, content: text(m.content) });
        break;
    }
  }
  if (!messages.some((m) => m.role === 'assistant')) {
    return new TraceFileError(
      file,
      line,
      'messages',
      'has no assistant message: nothing the agent did can be replayed',
    );
  }
  const id =
    input.id === undefined
      ? createHash('sha256').update(raw).digest('hex').slice(0, 16)
      : String(input.id);
  return {
    id,
    messages,
    tools: input.tools ?? [],
    outcome: input.outcome ?? 'unknown',
    ...(input.metadata?.task_id === undefined ? {} : { taskId: input.metadata.task_id }),
    source: `${file}:${line}`,
  };
}

/** Every line of a JSONL file of conversations, with every problem found (blank lines skipped). */
export async function readTraceFile(file: string): Promise<TraceFile> {
  const traces: Trace[] = [];
  const problems: TraceFileError[] = [];
  const ids = new Map<string, number>();
  const lines = createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Infinity });
  let n = 0;
  for await (const raw of lines) {
    n++;
    if (raw.trim() === '') continue;
    const t = parseTraceLine(file, n, raw);
    if (t instanceof TraceFileError) {
      problems.push(t);
      continue;
    }
    const first = ids.get(t.id);
    if (first !== undefined) {
      problems.push(
        new TraceFileError(
          file,
          n,
          'id',
          `"${t.id}" is also the id of line ${first}; ids must be unique`,
        ),
      );
      continue;
    }
    ids.set(t.id, n);
    traces.push(t);
  }
  if (traces.length === 0 && problems.length === 0) {
    problems.push(
      new TraceFileError(
        file,
        1,
        '(file)',
        'holds no conversation; write one JSON object per line with a "messages" list',
      ),
    );
  }
  return { traces, problems };
}

/**
 * A conversation as one line of a traces file, the format {@link readTraceFile} reads back
 * (`metadata.task_id` carries the task id, when known).
 */
export function traceLine(trace: Trace): string {
  return JSON.stringify({
    id: trace.id,
    messages: trace.messages,
    ...(trace.tools.length > 0 ? { tools: trace.tools } : {}),
    ...(trace.outcome === 'unknown' ? {} : { outcome: trace.outcome }),
    ...(trace.taskId === undefined ? {} : { metadata: { task_id: trace.taskId } }),
  });
}
