import type { ChatMessage } from '../llm/index.js';
import type { Turn } from '../domain/index.js';

/**
 * The one textual rendering of agent turns that compressors read (history and summary
 * compressors, the recent history shown to the observation compressor). Deterministic: the
 * same turns always give the same text, so compressor calls hit the call cache on a re-run.
 *
 * Turns are numbered from 1 as in seed 001 §3.1 (T_1 … T_{t-1}); `firstNumber` is the number of
 * the first turn given. Tool results are printed right after the call they answer.
 */
export function renderTurns(turns: readonly Turn[], firstNumber = 1): string {
  return turns.map((turn, i) => renderTurn(turn, firstNumber + i)).join('\n\n');
}

export function renderTurn(turn: Turn, number: number): string {
  return [`[Turn ${number}]`, ...renderAssistant(turn), ...renderObservations(turn)].join('\n');
}

/** The reasoning and actions of a turn without its observations (the turn being compressed). */
export function renderAction(turn: Turn, number: number): string {
  return [`[Turn ${number}]`, ...renderAssistant(turn)].join('\n');
}

function renderAssistant(turn: Turn): string[] {
  const lines: string[] = [];
  const content = turn.assistant.content?.trim() ?? '';
  lines.push(`Assistant: ${content === '' ? '(no text)' : content}`);
  for (const call of turn.assistant.tool_calls ?? []) {
    lines.push(`Action: ${call.function.name}(${call.function.arguments})`);
  }
  return lines;
}

function renderObservations(turn: Turn): string[] {
  const names = new Map((turn.assistant.tool_calls ?? []).map((c) => [c.id, c.function.name]));
  return turn.observations.map((m) => `${observationLabel(m, names)}: ${m.content ?? ''}`);
}

function observationLabel(m: ChatMessage, names: Map<string, string>): string {
  if (m.role === 'tool') {
    const name = names.get(m.tool_call_id);
    return name === undefined ? 'Observation' : `Observation (${name})`;
  }
  return m.role === 'user' ? 'Observation' : `Observation (${m.role})`;
}
