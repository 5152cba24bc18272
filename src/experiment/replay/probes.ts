import type { ChatMessage } from '../../domain/index.js';

/**
 * Probes: values that a recorded trajectory goes on to use (in a later action's arguments or in
 * its final answer) and that first appeared in an observation. A compressed context that still
 * holds them at the step before their use kept what the agent needed; one that lost them did
 * not. Deterministic, no LLM call.
 */
export type Probe = {
  value: string;
  /** The step (0-based, counted in assistant messages after the head) that uses it. */
  step: number;
  /** Index in the conversation of the observation it first appeared in. */
  seenAt: number;
};

/** Index in `messages` of each step's assistant message (the head's are not steps). */
export function stepStarts(messages: readonly ChatMessage[]): number[] {
  const starts: number[] = [];
  messages.forEach((m, i) => {
    if (m.role === 'assistant') starts.push(i);
  });
  return starts;
}

/** Leaves of a JSON value worth probing: identifiers, amounts, names; not flags or tiny words. */
function argumentValues(raw: string): string[] {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    return [];
  }
  const out: string[] = [];
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v !== null && typeof v === 'object') Object.values(v).forEach(walk);
    else if (
      typeof v === 'number' &&
      Number.isFinite(v) &&
      String(Math.abs(v)).replace('.', '').length >= 2
    )
      out.push(String(v));
    else if (typeof v === 'string' && probeWorthy(v.trim())) out.push(v.trim());
  };
  walk(json);
  return out;
}

/** Long enough to be specific: a digit, a separator (@ . / _ -), or six characters and more. */
function probeWorthy(s: string): boolean {
  return s.length >= 3 && (/\d/.test(s) || /[@./_:-]/.test(s) || s.length >= 6);
}

/** Value-like tokens of a free-text answer, and the whole answer when it is short. */
function answerValues(text: string): string[] {
  const t = text.trim();
  const tokens = (t.match(/[\p{L}\p{N}@._/:$-]{3,}/gu) ?? [])
    .map((w) => w.replace(/[.:]+$/, ''))
    .filter((w) => /\d/.test(w) || /[@_/]/.test(w));
  return t.length > 0 && t.length <= 80 ? [t, ...tokens] : tokens;
}

function textOf(m: ChatMessage): string {
  if (m.role !== 'assistant') return m.content;
  const args = (m.tool_calls ?? []).map((c) => c.function.arguments);
  return [m.content ?? '', ...args].join('\n');
}

/** Every probe of a conversation, in step order; a value once per step. */
export function findProbes(messages: readonly ChatMessage[]): Probe[] {
  const starts = stepStarts(messages);
  const lower = messages.map((m) => textOf(m).toLowerCase());
  const probes: Probe[] = [];
  starts.forEach((at, step) => {
    const m = messages[at]!;
    if (m.role !== 'assistant') return;
    const values =
      m.tool_calls && m.tool_calls.length > 0
        ? m.tool_calls.flatMap((c) => argumentValues(c.function.arguments))
        : answerValues(m.content ?? '');
    const seen = new Set<string>();
    for (const value of values) {
      const v = value.toLowerCase();
      if (seen.has(v)) continue;
      seen.add(v);
      const first = lower.findIndex((text, i) => i < at && text.includes(v));
      if (first < 0) continue;
      const origin = messages[first]!;
      const fromObservation =
        origin.role === 'tool' || (origin.role === 'user' && first > (starts[0] ?? 0));
      if (fromObservation) probes.push({ value, step, seenAt: first });
    }
  });
  return probes;
}

/** Which of a step's probes the context shown for that step still holds. */
export function probesKept(
  probes: readonly Probe[],
  step: number,
  view: readonly ChatMessage[],
): { kept: Probe[]; lost: Probe[] } {
  const text = view.map((m) => textOf(m).toLowerCase()).join('\n');
  const kept: Probe[] = [];
  const lost: Probe[] = [];
  for (const p of probes) {
    if (p.step !== step) continue;
    (text.includes(p.value.toLowerCase()) ? kept : lost).push(p);
  }
  return { kept, lost };
}
