import type { ToolDef } from '../../llm/index.js';

/**
 * How MCP tools look to the agent (issue 26): each server's tools become OpenAI function tools
 * named `<server>__<tool>`, so two servers may both have a `search` tool; the benchmark adds
 * `complete_task` to finish. Results become the observation text.
 */

export const COMPLETE_TASK = 'complete_task';
const SEPARATOR = '__';
/** OpenAI's limit on function names. */
const MAX_NAME = 64;

/** The name the agent calls a server's tool by. */
export function toolName(server: string, tool: string): string {
  const name = `${server}${SEPARATOR}${tool.replace(/[^A-Za-z0-9_-]/g, '_')}`;
  return name.slice(0, MAX_NAME);
}

/** `fs__read_text_file` → {server: 'fs', tool: 'read_text_file'}; undefined without a prefix. */
export function splitToolName(name: string): { server: string; tool: string } | undefined {
  const at = name.indexOf(SEPARATOR);
  if (at <= 0) return undefined;
  return { server: name.slice(0, at), tool: name.slice(at + SEPARATOR.length) };
}

/** A tool as `tools/list` describes it (the fields we use). */
export type McpTool = { name: string; description?: string; inputSchema: Record<string, unknown> };

export function toToolDef(server: string, tool: McpTool): ToolDef {
  const { $schema: _schema, ...parameters } = tool.inputSchema;
  return {
    type: 'function',
    function: {
      name: toolName(server, tool.name),
      description: `[${server}] ${tool.description ?? tool.name}`,
      parameters: { type: 'object', properties: {}, ...parameters },
    },
  };
}

export const COMPLETE_TASK_TOOL: ToolDef = {
  type: 'function',
  function: {
    name: COMPLETE_TASK,
    description:
      'Finish the task. Pass the answer if the task asks a question (just the answer; several items comma-separated), else null.',
    parameters: {
      type: 'object',
      properties: {
        answer: { type: ['string', 'null'], description: 'Just the answer, or null.' },
      },
      required: ['answer'],
      additionalProperties: false,
    },
  },
};

/** A `tools/call` result (the fields we read). */
export type McpCallResult = {
  content?: unknown[];
  structuredContent?: unknown;
  isError?: boolean;
};

/**
 * The observation of a tool result: its text blocks, or the structured content as JSON when the
 * server sent no text (servers SHOULD repeat structured content as text, per the MCP spec, so
 * it is not shown twice); other blocks are named with their type and size.
 */
export function renderResult(result: McpCallResult): string {
  const parts: string[] = [];
  for (const block of result.content ?? []) {
    const b = block as {
      type?: string;
      text?: string;
      mimeType?: string;
      data?: string;
      uri?: string;
    };
    if (b.type === 'text' && typeof b.text === 'string') parts.push(b.text);
    else if (b.type === 'resource_link') parts.push(`[resource ${b.uri ?? ''}]`);
    else {
      const size = typeof b.data === 'string' ? `, ${b.data.length} base64 characters` : '';
      parts.push(`[${b.type ?? 'unknown'} content${b.mimeType ? ` ${b.mimeType}` : ''}${size}]`);
    }
  }
  const hasText = (result.content ?? []).some((b) => (b as { type?: string }).type === 'text');
  if (!hasText && result.structuredContent !== undefined) {
    parts.push(JSON.stringify(result.structuredContent, null, 2));
  }
  const text = parts.join('\n');
  if (result.isError) return `Error: ${text.replace(/^Error:\s*/, '')}`;
  return text === '' ? '(empty result)' : text;
}
