import type { AssistantMessage } from '../../domain/index.js';

/**
 * What an agent did at a step, in a form two steps can be compared by: the tool calls with their
 * arguments normalised (key order, whitespace and number formatting do not matter), or the
 * final answer's text.
 */
export type Action =
  { kind: 'tools'; calls: { name: string; args: string }[] } | { kind: 'answer'; text: string };

/** JSON with sorted keys and numbers as numbers; text that is not JSON, trimmed. */
export function normalizeArguments(raw: string): string {
  try {
    return JSON.stringify(sortKeys(JSON.parse(raw) as unknown));
  } catch {
    return raw.trim().replace(/\s+/g, ' ');
  }
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v !== null && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return Object.fromEntries(
      Object.keys(o)
        .sort()
        .map((k) => [k, sortKeys(o[k])]),
    );
  }
  if (typeof v === 'string') {
    const t = v.trim();
    // "42" and 42, "1.50" and 1.5: the same value written two ways.
    return /^-?\d+(\.\d+)?$/.test(t) ? Number(t) : t;
  }
  return v;
}

export function actionOf(m: AssistantMessage): Action {
  const calls = m.tool_calls ?? [];
  if (calls.length > 0) {
    return {
      kind: 'tools',
      calls: calls.map((c) => ({
        name: c.function.name,
        args: normalizeArguments(c.function.arguments),
      })),
    };
  }
  return { kind: 'answer', text: m.content ?? '' };
}

/** Case, outer whitespace and quotes and a final full stop aside, the same text. */
export function defaultAnswerNormalizer(s: string): string {
  return s
    .trim()
    .replace(/^["'`](.*)["'`]$/s, '$1')
    .replace(/\.$/, '')
    .trim()
    .toLowerCase()
    .replace(/\s+/g, ' ');
}

/**
 * Whether the counterfactual step did what the recorded one did: the same tools in the same
 * order with equivalent arguments, or an equivalent final answer.
 */
export function sameAction(
  recorded: Action,
  replayed: Action,
  normalizeAnswer: (s: string) => string = defaultAnswerNormalizer,
): boolean {
  if (recorded.kind === 'answer' || replayed.kind === 'answer') {
    return (
      recorded.kind === 'answer' &&
      replayed.kind === 'answer' &&
      normalizeAnswer(recorded.text) === normalizeAnswer(replayed.text)
    );
  }
  return (
    recorded.calls.length === replayed.calls.length &&
    recorded.calls.every(
      (c, i) => c.name === replayed.calls[i]!.name && c.args === replayed.calls[i]!.args,
    )
  );
}
