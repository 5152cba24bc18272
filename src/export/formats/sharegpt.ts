import { basename } from 'node:path';
import { z } from 'zod';
import { UsageError } from '../../errors.js';
import type { ChatMessage, ToolCall } from '../../llm/index.js';
import { issue, type LintIssue, type LintMessage } from '../lint/chat-rules.js';
import { datasetName } from '../paths.js';
import type { TrainingExample } from '../schema.js';
import type { FormatSpec, SidecarContext } from './types.js';

/**
 * ShareGPT as LLaMA-Factory reads it (`formatting: sharegpt`):
 * `{"conversations": [{"from", "value"}…], "system"?: "…", "tools"?: "<JSON list>"}`.
 * LLaMA-Factory wants `human`/`observation` at odd positions and `gpt`/`function_call` at even
 * ones, so several tool results of one turn become one observation (joined by a blank line), a
 * user message right after tool results joins that observation, and an assistant's text beside
 * its tool calls is dropped (a `function_call` value holds only the calls). The system prompt
 * goes in the `system` column. `dataset_info.json` next to the data gets the entries.
 */

export const SHAREGPT_FROM = ['system', 'human', 'gpt', 'function_call', 'observation'] as const;
export const ShareGptTurnSchema = z.strictObject({
  from: z.enum(SHAREGPT_FROM),
  value: z.string(),
});
export const ShareGptLineSchema = z.strictObject({
  conversations: z.array(ShareGptTurnSchema).min(1),
  system: z.string().optional(),
  tools: z.string().optional(),
});
export type ShareGptLine = z.infer<typeof ShareGptLineSchema>;
type Turn = z.infer<typeof ShareGptTurnSchema>;

/** `{"name", "arguments"}` (arguments as an object when they parse), a list for several calls. */
function functionCallValue(calls: readonly ToolCall[]): string {
  const one = (c: ToolCall) => {
    let args: unknown = c.function.arguments;
    try {
      args = JSON.parse(c.function.arguments) as unknown;
    } catch {
      // keep the string
    }
    return { name: c.function.name, arguments: args };
  };
  return JSON.stringify(calls.length === 1 ? one(calls[0]!) : calls.map(one));
}

function toConversations(messages: readonly ChatMessage[]): Turn[] {
  const out: Turn[] = [];
  const push = (from: Turn['from'], value: string, mergeAfter: readonly Turn['from'][]) => {
    const prev = out.at(-1);
    if (prev && mergeAfter.includes(prev.from)) prev.value = `${prev.value}\n\n${value}`;
    else out.push({ from, value });
  };
  for (const m of messages) {
    switch (m.role) {
      case 'system':
        break;
      case 'user':
        push(out.at(-1)?.from === 'observation' ? 'observation' : 'human', m.content, [
          'human',
          'observation',
        ]);
        break;
      case 'tool':
        push('observation', m.content, ['observation']);
        break;
      case 'assistant':
        if (m.tool_calls && m.tool_calls.length > 0)
          out.push({ from: 'function_call', value: functionCallValue(m.tool_calls) });
        else out.push({ from: 'gpt', value: m.content ?? '' });
        break;
    }
  }
  return out;
}

const ODD: ReadonlySet<string> = new Set(['human', 'observation']);
const EVEN: ReadonlySet<string> = new Set(['gpt', 'function_call']);

function checkShareGpt(line: ShareGptLine): LintIssue[] {
  const issues: LintIssue[] = [];
  let turns = line.conversations;
  if (turns[0]?.from === 'system') {
    if (line.system !== undefined)
      issues.push(issue('sharegptSystem', 'a "system" column and a first "system" turn'));
    turns = turns.slice(1);
  }
  turns.forEach((t, i) => {
    const pos = i + 1;
    if (t.from === 'system') {
      issues.push(issue('systemFirst', `turn ${pos} is a system turn`));
    } else if (pos % 2 === 1 && !ODD.has(t.from)) {
      issues.push(
        issue(
          'sharegptOrder',
          `turn ${pos} is "${t.from}"; odd turns are "human" or "observation"`,
        ),
      );
    } else if (pos % 2 === 0 && !EVEN.has(t.from)) {
      issues.push(
        issue(
          'sharegptOrder',
          `turn ${pos} is "${t.from}"; even turns are "gpt" or "function_call"`,
        ),
      );
    }
    if (t.from === 'observation' && turns[i - 1]?.from !== 'function_call') {
      issues.push(
        issue('toolWithoutCall', `turn ${pos} is an observation that follows no function_call`),
      );
    }
    if (t.from === 'function_call' && !isCallValue(t.value)) {
      issues.push(
        issue(
          'sharegptFunction',
          `turn ${pos} must be JSON {"name", "arguments"} or a list of them`,
        ),
      );
    }
    if (
      t.from === 'function_call' &&
      i < turns.length - 1 &&
      turns[i + 1]?.from !== 'observation'
    ) {
      issues.push(
        issue('unpairedCall', `the function_call in turn ${pos} is not followed by an observation`),
      );
    }
  });
  if (turns[0] && turns[0].from !== 'human') {
    issues.push(issue('firstUser', `turn 1 is "${turns[0].from}"`));
  }
  const last = turns.at(-1);
  if (!last) {
    issues.push(issue('finalAssistant', 'there are no turns after the system prompt'));
  } else if (!EVEN.has(last.from)) {
    issues.push(issue('finalAssistant', `the last turn is "${last.from}"`));
  } else if (last.value.trim() === '') {
    issues.push(issue('emptyFinal', `turn ${turns.length} is empty`));
  }
  if (line.tools !== undefined && !isJsonList(line.tools)) {
    issues.push(
      issue(
        'sharegptTools',
        'LLaMA-Factory reads "tools" as a string holding a JSON list of functions',
      ),
    );
  }
  return issues;
}

function isCallValue(value: string): boolean {
  const isCall = (v: unknown) =>
    v !== null &&
    typeof v === 'object' &&
    typeof (v as { name?: unknown }).name === 'string' &&
    'arguments' in v;
  try {
    const v = JSON.parse(value) as unknown;
    return Array.isArray(v) ? v.length > 0 && v.every(isCall) : isCall(v);
  } catch {
    return false;
  }
}

function isJsonList(value: string): boolean {
  try {
    return Array.isArray(JSON.parse(value));
  } catch {
    return false;
  }
}

function shareGptChat(line: ShareGptLine): LintMessage[] {
  const role = {
    system: 'system',
    human: 'user',
    gpt: 'assistant',
    function_call: 'assistant',
    observation: 'tool',
  } as const;
  const sys: LintMessage[] =
    line.system !== undefined
      ? [{ role: 'system', content: line.system, toolCalls: [], toolCallId: null }]
      : [];
  return [
    ...sys,
    ...line.conversations.map((t) => ({
      role: role[t.from],
      content: t.value,
      toolCalls: [],
      toolCallId: null,
    })),
  ];
}

/** The dataset_info.json entry of one data file. */
export function datasetInfoEntry(file: string, hasTools: boolean): Record<string, unknown> {
  return {
    file_name: basename(file),
    formatting: 'sharegpt',
    columns: {
      messages: 'conversations',
      system: 'system',
      ...(hasTools ? { tools: 'tools' } : {}),
    },
    tags: {
      role_tag: 'from',
      content_tag: 'value',
      user_tag: 'human',
      assistant_tag: 'gpt',
      observation_tag: 'observation',
      function_tag: 'function_call',
      system_tag: 'system',
    },
  };
}

/** Adds (or replaces) this export's entries, keeping any other datasets already listed. */
export function mergeDatasetInfo(existing: string | null, ctx: SidecarContext): string {
  let info: Record<string, unknown> = {};
  if (existing !== null && existing.trim() !== '') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(existing) as unknown;
    } catch (e) {
      throw new UsageError(
        `${ctx.paths.datasetInfo} is not valid JSON, so the export's entries cannot be added to it; fix or remove the file`,
        { cause: e },
      );
    }
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed))
      info = parsed as Record<string, unknown>;
  }
  info[datasetName(ctx.paths.train)] = datasetInfoEntry(ctx.paths.train, ctx.hasTools);
  // This export's validation entry goes when it has no validation file (an earlier one may have).
  if (ctx.hasVal) info[datasetName(ctx.paths.val)] = datasetInfoEntry(ctx.paths.val, ctx.hasTools);
  else delete info[datasetName(ctx.paths.val)];
  return `${JSON.stringify(info, null, 2)}\n`;
}

export const shareGptFormat: FormatSpec<ShareGptLine> = {
  name: 'sharegpt',
  lineSchema: ShareGptLineSchema,
  line(ex: TrainingExample): ShareGptLine {
    const system = ex.messages[0]?.role === 'system' ? ex.messages[0].content : undefined;
    const conversations = toConversations(ex.messages);
    return {
      conversations,
      ...(system !== undefined ? { system } : {}),
      ...(ex.tools ? { tools: JSON.stringify(ex.tools.map((t) => t.function)) } : {}),
    };
  },
  check: checkShareGpt,
  chat: shareGptChat,
  sidecars: (ctx) => [
    { path: ctx.paths.datasetInfo, render: (existing) => mergeDatasetInfo(existing, ctx) },
  ],
};
