import type { CompressionPlan } from './context-compressor.js';
import type { OpenAiMessage } from './openai-messages.js';

/**
 * A framework's messages read as OpenAI messages, with where each came from: `source[i]` is the
 * index of the framework message that OpenAI message `i` starts at (a framework message may
 * give several OpenAI messages, e.g. one AI SDK tool message with two results, or several may
 * give one, e.g. an Agents SDK reasoning item, message and function calls).
 */
export type Mapped = {
  messages: OpenAiMessage[];
  source: { message: number; part?: number }[];
};

export type RebuildOps<T> = {
  /** The framework's user message carrying the history summary. */
  summary(text: string): T;
  /** The message with the text of the given parts replaced (`-1`: the message's own content). */
  replace(message: T, parts: Map<number, string>): T;
};

/**
 * A compression plan applied to the framework's own messages: the head kept, the folded turns
 * replaced by one summary message, the compressed tool results written into their messages.
 * Messages nothing happened to are the same objects.
 */
export function rebuild<T>(
  original: readonly T[],
  mapped: Mapped,
  plan: Omit<CompressionPlan, 'report'>,
  ops: RebuildOps<T>,
): T[] {
  const startOf = (i: number) =>
    i < mapped.source.length ? mapped.source[i]!.message : original.length;
  const headEnd = startOf(plan.headEnd);
  const firstKept = startOf(plan.firstKept);
  const edits = new Map<number, Map<number, string>>();
  for (const [i, text] of plan.replaced) {
    const src = mapped.source[i]!;
    const parts = edits.get(src.message) ?? new Map<number, string>();
    parts.set(src.part ?? -1, text);
    edits.set(src.message, parts);
  }
  const out: T[] = original.slice(0, headEnd);
  if (plan.summary !== null) out.push(ops.summary(plan.summary));
  for (let i = firstKept; i < original.length; i++) {
    const parts = edits.get(i);
    out.push(parts ? ops.replace(original[i]!, parts) : original[i]!);
  }
  return out;
}

/** A tool output as text: strings as they are, anything else as JSON. */
export function outputText(value: unknown): string {
  if (typeof value === 'string') return value;
  return JSON.stringify(value) ?? '';
}
