import type { TokenCounter, ChatMessage } from '../llm/index.js';
import type { Overflow, TrainingExample } from './schema.js';

/** Appended to a truncated input so the student sees (and learns) that the text was cut. */
export const TRUNCATION_MARKER = '\n[truncated]';

export type FitResult =
  | { action: 'kept' | 'truncated'; example: TrainingExample; tokens: number }
  | { action: 'dropped'; tokens: number };

/** Tokens of an example as a chat model sees it: messages, framing and tool definitions. */
export function exampleTokens(ex: TrainingExample, counter: TokenCounter): number {
  return counter.countMessageTokens(ex.messages, ex.tools);
}

/**
 * Keeps an example within `maxTokens`. `drop` leaves it out; `truncate` cuts the input the model
 * reads (user and tool messages of the prompt, longest first) and never the system prompt (the
 * guideline) or the teacher's answer. An example that still does not fit is dropped.
 */
export function fitExample(
  ex: TrainingExample,
  maxTokens: number | null,
  overflow: Overflow,
  counter: TokenCounter,
): FitResult {
  let tokens = exampleTokens(ex, counter);
  if (maxTokens === null || tokens <= maxTokens) return { action: 'kept', example: ex, tokens };
  if (overflow === 'drop') return { action: 'dropped', tokens };

  const messages = [...ex.messages];
  const last = messages.length - 1;
  const candidates = new Set(
    messages.flatMap((m, i) => (i < last && (m.role === 'user' || m.role === 'tool') ? [i] : [])),
  );
  while (tokens > maxTokens && candidates.size > 0) {
    // The longest input first: cutting it costs the least of everything else.
    let pick = -1;
    let pickTokens = -1;
    for (const i of candidates) {
      const n = counter.countTokens(contentOf(messages[i]!));
      if (n > pickTokens) [pick, pickTokens] = [i, n];
    }
    const msg = messages[pick]!;
    const target = Math.max(0, pickTokens - (tokens - maxTokens));
    const original = contentOf(ex.messages[pick]!);
    const cut = truncateToTokens(original, target, counter);
    // Token boundaries can leave the total a token over; the same message is cut again then,
    // until it cannot shrink any more.
    if (cut === null || counter.countTokens(cut) >= pickTokens) {
      candidates.delete(pick);
      continue;
    }
    messages[pick] = { ...msg, content: cut } as ChatMessage;
    tokens = counter.countMessageTokens(messages, ex.tools);
  }
  if (tokens > maxTokens) return { action: 'dropped', tokens };
  return { action: 'truncated', example: { ...ex, messages }, tokens };
}

function contentOf(m: ChatMessage): string {
  return m.content ?? '';
}

/**
 * The longest prefix of `text` that, with the marker, has at most `maxTokens` tokens (binary
 * search on characters: a token cut could split a multi-byte character); null if not even the
 * marker fits. Token counts are monotone in the prefix length up to a token or two, which the
 * caller's re-count absorbs.
 */
export function truncateToTokens(
  text: string,
  maxTokens: number,
  counter: TokenCounter,
): string | null {
  if (counter.countTokens(TRUNCATION_MARKER) > maxTokens) return null;
  let lo = 0;
  let hi = text.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (counter.countTokens(safeSlice(text, mid) + TRUNCATION_MARKER) <= maxTokens) lo = mid;
    else hi = mid - 1;
  }
  return safeSlice(text, lo) + TRUNCATION_MARKER;
}

/** A prefix that does not end in the first half of a surrogate pair. */
function safeSlice(text: string, end: number): string {
  const code = text.charCodeAt(end - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? end - 1 : end);
}
