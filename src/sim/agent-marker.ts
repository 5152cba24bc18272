import type { ChatMessage } from '../llm/index.js';
import { isErrorReply } from './error-reply.js';

/**
 * The agent's progress through its plan, read back from its own reasoning lines (`Step 4 of 9:
 * …`) in the messages it is sent: what makes the simulated agent a pure function of its request.
 */

/** What the agent's reasoning line says about where it is in the plan. */
export type AgentMarker = {
  /** 0-based plan step the line is about. */
  step: number;
  /** Plan length when the line was written. */
  of: number;
  kind: 'do' | 'refetch' | 'guess';
  /** Re-fetches so far while blocked at `step`, by 0-based producer step (refetch lines). */
  attempts: Map<number, number>;
  /** 0-based steps whose results the agent gave up on (guess lines). */
  gaveUp: number[];
  /** `app.api` or tool name the line calls. */
  action: string;
};

const MARKER = /\bStep (\d+) of (\d+)\b/;
const MARKERS = /\bStep (\d+) of (\d+)\b/g;
export const REFETCHING = 're-fetching it';
export const GUESSING = 'guessing it';

/** Reads a reasoning line written by `simAgentTurn`; `undefined` for any other text. */
export function parseAgentMarker(content: string): AgentMarker | undefined {
  const m = MARKER.exec(content);
  if (!m) return undefined;
  const attempts = new Map<number, number>();
  const refetch = content.includes(REFETCHING);
  if (refetch) {
    const list = /re-fetches so far: ([^)]*)\)/.exec(content)?.[1] ?? '';
    for (const a of list.matchAll(/step (\d+) ×(\d+)/g)) {
      attempts.set(Number(a[1]) - 1, Number(a[2]));
    }
  }
  const action = /calling ([^\s.,]+(?:\.[^\s.,]+)?)/i.exec(content)?.[1] ?? '';
  const guess = !refetch && content.includes(GUESSING);
  const gaveUp = guess
    ? [...(/gave up on step ([\d, ]+)\)/.exec(content)?.[1] ?? '').matchAll(/\d+/g)].map(
        (g) => Number(g[0]) - 1,
      )
    : [];
  return {
    step: Number(m[1]) - 1,
    of: Number(m[2]),
    kind: refetch ? 'refetch' : guess ? 'guess' : 'do',
    attempts,
    gaveUp,
    action,
  };
}

export type Progress = {
  next: number;
  attempts: Map<number, number>;
  /** Steps whose results are lost for good: given up on, or run with a guessed value. */
  gaveUp: Set<number>;
  /** Tries of `next` that the agent can see failed with an error (0: a first try). */
  failedTries: number;
  /** The arguments of the newest of those failed tries. */
  failedCall?: string | undefined;
};

/**
 * Where the rollout stands: from the newest reasoning line the agent can still see, or, when a
 * history compression folded all of them away, from the highest `Step k of n` in a summary. A
 * step whose call it sees answered with an error is not done: it tries it again, at most `limit`
 * times in a row (an LLM agent reads the error and corrects the call, seed 002's ReAct loop).
 */
export function progress(messages: readonly ChatMessage[], n: number, limit: number): Progress {
  const markers: { marker: AgentMarker; failed: boolean; args: string }[] = [];
  const failedCalls = new Set<string>();
  for (const m of messages) {
    if (m.role === 'tool' && isErrorReply(m)) failedCalls.add(m.tool_call_id);
  }
  for (const m of messages) {
    if (m.role !== 'assistant' || m.content === null) continue;
    const marker = parseAgentMarker(m.content);
    const id = m.tool_calls?.[0]?.id;
    if (marker && marker.of === n) {
      const args = m.tool_calls?.[0]?.function.arguments ?? '';
      markers.push({ marker, failed: id !== undefined && failedCalls.has(id), args });
    }
  }
  const gaveUp = new Set<number>();
  for (const { marker } of markers) {
    if (marker.kind !== 'guess') continue;
    gaveUp.add(marker.step);
    for (const s of marker.gaveUp) gaveUp.add(s);
  }
  const last = markers[markers.length - 1]?.marker;
  if (last) {
    if (last.kind === 'refetch') {
      return { next: last.step, attempts: last.attempts, gaveUp, failedTries: 0 };
    }
    let failedTries = 0;
    for (let i = markers.length - 1; i >= 0; i--) {
      const { marker, failed } = markers[i]!;
      if (!failed || marker.step !== last.step || marker.kind === 'refetch') break;
      failedTries++;
    }
    const failedCall = markers[markers.length - 1]!.args;
    return failedTries > 0 && failedTries <= limit
      ? { next: last.step, attempts: new Map(), gaveUp, failedTries, failedCall }
      : { next: last.step + 1, attempts: new Map(), gaveUp, failedTries: 0 };
  }
  let done = 0;
  for (const m of messages) {
    if (m.role !== 'user') continue;
    for (const s of m.content.matchAll(MARKERS)) {
      if (Number(s[2]) === n) done = Math.max(done, Number(s[1]));
    }
  }
  return { next: done, attempts: new Map(), gaveUp, failedTries: 0 };
}
