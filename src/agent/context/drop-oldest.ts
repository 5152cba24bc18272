import type { TokenCounter, ChatMessage } from '../../llm/index.js';
import type { Trajectory } from '../../domain/index.js';
import { flattenTurns, turnMessages, type HeadMessages } from './messages.js';

/**
 * The first turn to keep so that system + task + turns[from..] fit `budget` tokens, dropping
 * the oldest whole turns (a tool call and its result go together). The last turn is always
 * kept, even alone over budget: without its own latest observation the agent could only repeat
 * itself, and a provider that cannot take the prompt says so (reactive compression, seed 002).
 */
export function firstKeptTurn(
  trajectory: Trajectory,
  heads: HeadMessages,
  budget: number,
  tokens: TokenCounter,
): number {
  const n = trajectory.turns.length;
  if (n === 0) return 0;
  const head = heads.of(trajectory);
  // Prompt tokens are additive per message (plus a constant), so sum turn costs from the end.
  let total = tokens.countMessageTokens(head);
  let from = n;
  while (from > 0) {
    const cost =
      tokens.countMessageTokens(turnMessages(trajectory.turns[from - 1]!)) -
      tokens.countMessageTokens([]);
    if (total + cost > budget && from < n) break;
    total += cost;
    from--;
  }
  return from;
}

/** Tokens of the prompt system + task + turns[from..]. */
export function viewTokens(
  trajectory: Trajectory,
  heads: HeadMessages,
  from: number,
  tokens: TokenCounter,
): number {
  return tokens.countMessageTokens(viewFrom(trajectory, heads, from));
}

export function viewFrom(trajectory: Trajectory, heads: HeadMessages, from: number): ChatMessage[] {
  const messages = heads.of(trajectory);
  for (const m of flattenTurns(trajectory.turns, from)) messages.push(m);
  return messages;
}

/** Tokens of turns[from..to) as messages (what dropping them saves). */
export function turnsTokens(
  trajectory: Trajectory,
  from: number,
  to: number,
  tokens: TokenCounter,
): number {
  if (to <= from) return 0;
  return (
    tokens.countMessageTokens(flattenTurns(trajectory.turns.slice(from, to))) -
    tokens.countMessageTokens([])
  );
}

/**
 * A shrunken budget after a context-length error: the provider refused the current prompt, so
 * aim at 70% of it (seed 002 folds the oldest ~70% and keeps the newest ~30% of a history that
 * overflowed; here the oldest turns go instead).
 */
export function reactiveBudget(currentPromptTokens: number): number {
  return Math.floor(currentPromptTokens * 0.7);
}
