import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { reply, type FakeHandler, type FakeRequest } from '../fakes/fake-openai-server.js';

/** Marks the compressor prompts (src/prompts/*-compressor.system.txt) apart from agent calls. */
export const OBS_PROMPT = 'You compress tool observations';
export const HIST_PROMPT = 'You compress the interaction history';

/** The request body of a fake-server request, parsed loosely (frameworks send content parts). */
export function bodyOf(
  req: FakeRequest,
): { messages: { role: string; content?: unknown }[] } & Record<string, unknown> {
  return JSON.parse(req.raw) as { messages: { role: string; content?: unknown }[] };
}

function systemText(req: FakeRequest): string {
  const first = bodyOf(req).messages[0];
  return first?.role === 'system' && typeof first.content === 'string' ? first.content : '';
}

export function isCompressorCall(req: FakeRequest): boolean {
  const s = systemText(req);
  return s.includes(OBS_PROMPT) || s.includes(HIST_PROMPT);
}

/** A compressed tool result: short and recognisable. */
export const SHORT = (n: number | string) => `{"kept":"record ${n}"}`;

/**
 * Answers compressor calls like a compressor would (`# Refined Observation` / `# History
 * Summary`), and everything else with `agent(req)`.
 */
export function compressorHandler(agent: FakeHandler): FakeHandler {
  return (req) => {
    const answer = compressorAnswer(systemText(req), req.raw);
    return answer === null ? agent(req) : reply.text(answer);
  };
}

/** The summary `compressorAnswer` writes for a history fold. */
export const SUMMARY = 'DONE: listed the records.';

/**
 * A compressor's answer to acon's compressor prompt (`system`, and the request's text), or null
 * for a request that is not a compressor's: the rule behind every fake compressor model of the
 * adapter tests, whatever framework interface it is written against.
 */
export function compressorAnswer(system: string, text: string): string | null {
  if (system.includes(OBS_PROMPT)) {
    // A pure function of the observation, as a deterministic compressor would be.
    const seed = /<observation>[\s\S]*?item (\d+)-0/.exec(text)?.[1] ?? '?';
    return `# Refined Observation\n${SHORT(seed)}`;
  }
  if (system.includes(HIST_PROMPT)) return `# History Summary\n${SUMMARY}`;
  return null;
}

/** A tool result of about `tokens` tokens (JSON records with varied words). */
export function bigToolResult(seed: number, tokens = 1600): string {
  const rows = [];
  for (let i = 0; rows.length * 21 < tokens; i++) {
    rows.push({
      id: seed * 1000 + i,
      name: `item ${seed}-${i}`,
      note: `alpha beta gamma ${i * 7}`,
    });
  }
  return JSON.stringify(rows);
}

/**
 * System, task, then `turns` tool calls: even turns answered with a result over T_obs (about
 * 2,000 tokens), odd turns with one under it (about 900 tokens), so the history grows past T_hist.
 */
export function longConversation(turns: number): ChatCompletionMessageParam[] {
  const messages: ChatCompletionMessageParam[] = [
    { role: 'system', content: 'You are a careful agent.' },
    { role: 'user', content: 'List every record and report the total.' },
  ];
  for (let t = 0; t < turns; t++) {
    messages.push({
      role: 'assistant',
      content: null,
      tool_calls: [
        {
          id: `call_${t}`,
          type: 'function',
          function: { name: 'list_records', arguments: `{"page":${t}}` },
        },
      ],
    });
    messages.push({
      role: 'tool',
      tool_call_id: `call_${t}`,
      content: bigToolResult(t, t % 2 === 0 ? 2000 : 900),
    });
  }
  return messages;
}

/** Every tool message answers a tool call of the assistant message before it. */
export function pairingIntact(
  messages: readonly { role: string; tool_call_id?: string; tool_calls?: { id: string }[] }[],
): boolean {
  let open = new Set<string>();
  for (const m of messages) {
    if (m.role === 'assistant') open = new Set((m.tool_calls ?? []).map((c) => c.id));
    else if (m.role === 'tool') {
      if (!m.tool_call_id || !open.has(m.tool_call_id)) return false;
      open.delete(m.tool_call_id);
    } else if (open.size > 0) return false;
  }
  return true;
}

/**
 * A scripted agent model: the first `turns` calls ask for `list_records` page n (n = 0, 1, …),
 * the next one answers with text.
 */
export function toolLoopAgent(turns: number): FakeHandler {
  let n = 0;
  return () => {
    const page = n++;
    return page < turns
      ? reply.toolCalls([{ id: `call_${page}`, name: 'list_records', arguments: { page } }])
      : reply.text('total: 42');
  };
}

/** The tool of `toolLoopAgent`: a page of records, over T_obs on even pages, under it on odd ones. */
export function listRecords(page: number): string {
  return bigToolResult(page, page % 2 === 0 ? 2000 : 900);
}

/** Tool results of a request as the model saw them, and what the request tells about compression. */
export function inspectAgentRequest(req: FakeRequest) {
  const messages = bodyOf(req).messages as {
    role: string;
    content?: unknown;
    tool_call_id?: string;
    tool_calls?: { id: string }[];
  }[];
  const text = (c: unknown) =>
    typeof c === 'string'
      ? c
      : Array.isArray(c)
        ? c.map((p: { text?: string }) => p.text ?? '').join('\n')
        : '';
  const tools = messages.filter((m) => m.role === 'tool').map((m) => text(m.content));
  return {
    messages,
    tools,
    summarized: messages.some(
      (m) => m.role === 'user' && text(m.content).includes('[Context summary]'),
    ),
    compressedTools: tools.filter((t) => t.startsWith('{"kept"')).length,
  };
}
