import {
  countMessageTokens,
  countTokens,
  type TokenCounter,
  type ChatMessage,
} from '../../llm/index.js';
import { renderPrompt } from '../../prompts/index.js';
import type { CompressorDeps } from '../../compress/index.js';
import type { Trajectory, Turn } from '../../domain/index.js';
import type { StrategyDeps } from './strategy.js';

export const defaultTokenCounter: TokenCounter = { countTokens, countMessageTokens };

export function withTokens(deps: StrategyDeps): CompressorDeps {
  return { ...deps, tokens: deps.tokens ?? defaultTokenCounter };
}

/**
 * o_sys and o_user (seed 001 §3.1): every view starts with them, verbatim. A strategy keeps one
 * of these for its rollout, so every step's view starts with the same two message objects: token
 * counts, request hashes and stored keys are remembered per message object, so a prompt that
 * starts with the objects of the step before costs nothing for them (issue #16).
 */
export class HeadMessages {
  private last: { system: string; task: string; messages: ChatMessage[] } | undefined;

  of(trajectory: Trajectory): ChatMessage[] {
    const hit = this.last;
    if (hit && hit.system === trajectory.system && hit.task === trajectory.task) {
      return [...hit.messages];
    }
    const messages: ChatMessage[] = [
      { role: 'system', content: trajectory.system },
      { role: 'user', content: trajectory.task },
    ];
    this.last = { system: trajectory.system, task: trajectory.task, messages };
    return [...messages];
  }
}

/** A turn as messages: the assistant message, then its observations (tool results first). */
export function turnMessages(turn: Turn): ChatMessage[] {
  return [turn.assistant, ...turn.observations];
}

/** Every turn's messages in order (a loop, not flatMap: it runs over the history every step). */
export function flattenTurns(turns: readonly Turn[], from = 0): ChatMessage[] {
  const out: ChatMessage[] = [];
  for (let i = from; i < turns.length; i++) {
    const turn = turns[i]!;
    out.push(turn.assistant);
    for (const m of turn.observations) out.push(m);
  }
  return out;
}

/** The same turn with each observation's content replaced (message roles and ids kept). */
export function withObservationContents(turn: Turn, contents: readonly string[]): Turn {
  return {
    assistant: turn.assistant,
    observations: turn.observations.map((m, i) =>
      m.role === 'assistant' ? m : { ...m, content: contents[i] ?? m.content },
    ),
  };
}

/** Lines of a text as Python's `str.splitlines()` counts them (a final newline adds none). */
export function countLines(text: string): number {
  if (text === '') return 0;
  return text.replace(/\r\n?/g, '\n').replace(/\n$/, '').split('\n').length;
}

/** The placeholder of seed 001 §3.1 (SWE-agent): "Previous 8 lines omitted for brevity." */
export function maskPlaceholder(original: string): string {
  return `Previous ${countLines(original)} lines omitted for brevity.`;
}

/** A history summary as the agent sees it: a user message saying which turns it replaces. */
export function summaryMessage(summary: string, throughTurn: number): ChatMessage {
  return {
    role: 'user',
    content: renderPrompt('history-summary.user.txt', { through: String(throughTurn), summary }),
  };
}
