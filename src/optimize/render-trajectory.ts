import type { CompressionEvent, Trajectory, Turn } from '../domain/index.js';

/**
 * The text the analyzer LLM reads (seed 003: the optimizer compares τ_full with τ_comp, and,
 * in the compression phase, what the compressor kept with what the agent used). One
 * deterministic rendering for the full and the compressed run, so the two read alike and a
 * re-run hits the call cache:
 *
 * ```text
 * [step 3] THOUGHT Step 4 of 9: calling music.show_playlist with playlist_id=48213.
 * [step 3] ACTION call_api {"app":"music","api":"show_playlist","args":{…}}
 * [step 3] OBSERVATION (compressed by the obs compressor: 1890 -> 240 tokens)
 * {"title":"Road Trip",…}
 * [step 7] HISTORY SUMMARY replacing steps 0-5 (hist compressor: 5012 -> 630 tokens)
 * …
 * ```
 *
 * Steps are 0-based like `CompressionEvent.step`. Observations are shown as the agent saw them:
 * the compressor's text where an observation was compressed; a history summary appears before
 * the first step whose prompt it shaped. `src/sim/read-trajectory.ts` reads the text back
 * (only the simulated analyzer needs to).
 */
export type RenderOptions = {
  /** Cut each observation body to this many characters (prompt budget for real models). @default no limit */
  maxObservationChars?: number;
};

export type EventRenderOptions = RenderOptions & {
  /** Only compressions of this compressor: `obs`, or `hist` (history, summary and reactive folds). */
  kind?: 'obs' | 'hist';
  /** The agent's turns listed after each event, at most. @default all up to the next event */
  maxNextTurns?: number;
};

type ObsHit = { event: CompressionEvent; turn: number; index: number };
type Classified = { obs: ObsHit[]; hist: CompressionEvent[]; other: CompressionEvent[] };

/**
 * Which observation each observation compression replaced (the turn before the event's step
 * whose observation text is the compressor's input), and which events folded the history.
 * Failed compressions changed nothing the agent saw and are left out.
 */
export function classifyEvents(
  trajectory: Trajectory,
  events: readonly CompressionEvent[],
): Classified {
  const out: Classified = { obs: [], hist: [], other: [] };
  const taken = new Set<string>();
  for (const event of events) {
    if (event.failed) continue;
    if (event.kind === 'mask' || event.kind === 'fifo' || event.kind === 'retrieval') {
      out.other.push(event);
      continue;
    }
    if (event.kind === 'obs' || event.kind === 'reactive') {
      const hit = findObservation(trajectory.turns, event, taken);
      if (hit) {
        taken.add(`${hit.turn}:${hit.index}`);
        out.obs.push(hit);
        continue;
      }
      if (event.kind === 'obs') continue;
    }
    out.hist.push(event);
  }
  return out;
}

function findObservation(
  turns: readonly Turn[],
  event: CompressionEvent,
  taken: Set<string>,
): ObsHit | undefined {
  for (let t = Math.min(event.step, turns.length) - 1; t >= 0; t--) {
    const observations = turns[t]!.observations;
    for (let i = observations.length - 1; i >= 0; i--) {
      const content = observations[i]!.content ?? '';
      if (content === event.input && !taken.has(`${t}:${i}`)) {
        return { event, turn: t, index: i };
      }
    }
  }
  return undefined;
}

/** The last turn folded into a history summary, from the `[Turn N]` headers of its input (1-based). */
function foldedThrough(event: CompressionEvent): number | null {
  let last: number | null = null;
  for (const m of event.input.matchAll(/^\[Turn (\d+)\]/gm)) last = Number(m[1]) - 1;
  return last;
}

function compressorName(kind: CompressionEvent['kind']): string {
  return kind === 'summary'
    ? 'summarizer'
    : kind === 'reactive'
      ? 'reactive compression'
      : `${kind} compressor`;
}

/** Shortest argument value worth tracing back into a cut observation (`20`, `true` are noise). */
const MIN_TRACED_CHARS = 4;
/** Characters shown on each side of a traced value in the part of an observation that was cut. */
const TRACE_WINDOW = 160;

/**
 * Scalar argument values of every action in the trajectory: the facts the agent used. When an
 * observation has to be cut, the places these values occur in the cut part are still shown,
 * so the analyzer can see where each fact came from (and under which key).
 */
function usedValues(trajectory: Trajectory): string[] {
  const values = new Set<string>();
  const visit = (v: unknown): void => {
    if (typeof v === 'string' || typeof v === 'number') {
      const text = String(v);
      if (text.length >= MIN_TRACED_CHARS) values.add(text);
    } else if (Array.isArray(v)) v.forEach(visit);
    else if (v !== null && typeof v === 'object') Object.values(v).forEach(visit);
  };
  for (const turn of trajectory.turns) {
    for (const call of turn.assistant.tool_calls ?? []) {
      try {
        visit(JSON.parse(call.function.arguments));
      } catch {
        // Arguments that are not JSON carry no traceable values.
      }
    }
  }
  return [...values];
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * `text` cut to `max` characters; from the part cut off, windows around the values later
 * actions used are kept (at most another `max` characters), so evidence is never cut away.
 */
function cut(text: string, max: number | undefined, used: readonly string[] = []): string {
  if (max === undefined || text.length <= max) return text;
  const windows: [number, number][] = [];
  for (const value of used) {
    const re = new RegExp(`(?<![A-Za-z0-9_])${escapeRegExp(value)}(?![A-Za-z0-9_])`, 'g');
    re.lastIndex = max;
    for (let m = re.exec(text); m; m = re.exec(text)) {
      windows.push([Math.max(max, m.index - TRACE_WINDOW), m.index + value.length + TRACE_WINDOW]);
    }
  }
  windows.sort((a, b) => a[0] - b[0]);
  const merged: [number, number][] = [];
  for (const w of windows) {
    const last = merged[merged.length - 1];
    if (last && w[0] <= last[1]) last[1] = Math.max(last[1], w[1]);
    else merged.push([w[0], w[1]]);
  }
  const excerpts: string[] = [];
  let budget = max;
  for (const [from, to] of merged) {
    if (budget <= 0) break;
    const end = Math.min(to, text.length, from + budget);
    excerpts.push(`…${text.slice(from, end)}${end < text.length ? '…' : ''}`);
    budget -= end - from;
  }
  const note = `… (${text.length - max} more characters not shown`;
  return excerpts.length === 0
    ? `${text.slice(0, max)}\n${note})`
    : `${text.slice(0, max)}\n${note}; where later actions' values occur in them:)\n${excerpts.join('\n')}`;
}

function actionLines(turn: Turn): string[] {
  const calls = turn.assistant.tool_calls ?? [];
  if (calls.length === 0) return [(turn.assistant.content ?? '').trim() || '(no action)'];
  return calls.map((c) => `${c.function.name} ${c.function.arguments}`);
}

/**
 * A trajectory as the agent experienced it. Pass no events for the full-context run.
 * @example renderTrajectory(full) // "[step 0] THOUGHT …\n[step 0] ACTION call_api {…}\n[step 0] OBSERVATION\n{…}"
 */
export function renderTrajectory(
  trajectory: Trajectory,
  events: readonly CompressionEvent[] = [],
  opts: RenderOptions = {},
): string {
  const { obs, hist, other } = classifyEvents(trajectory, events);
  const used = usedValues(trajectory);
  const compressed = new Map(obs.map((h) => [`${h.turn}:${h.index}`, h.event]));
  const before = new Map<number, string[]>();
  const at = (step: number) => {
    let list = before.get(step);
    if (!list) before.set(step, (list = []));
    return list;
  };
  for (const event of hist) {
    const through = foldedThrough(event);
    const range = through === null ? 'replacing earlier steps' : `replacing steps 0-${through}`;
    at(event.step).push(
      `[step ${event.step}] HISTORY SUMMARY ${range} (${compressorName(event.kind)}: ` +
        `${event.inputTokens} -> ${event.outputTokens} tokens)\n${event.output}`,
    );
  }
  for (const event of other) {
    at(event.step).push(`[step ${event.step}] NOTE context trimmed by ${event.kind}`);
  }

  const lines: string[] = [];
  trajectory.turns.forEach((turn, step) => {
    lines.push(...(before.get(step) ?? []));
    const calls = turn.assistant.tool_calls ?? [];
    const thought = (turn.assistant.content ?? '').trim();
    if (calls.length > 0 && thought !== '') lines.push(`[step ${step}] THOUGHT ${thought}`);
    for (const action of actionLines(turn)) lines.push(`[step ${step}] ACTION ${action}`);
    turn.observations.forEach((m, i) => {
      const event = compressed.get(`${step}:${i}`);
      const note = event
        ? ` (compressed by the ${compressorName(event.kind)}: ${event.inputTokens} -> ${event.outputTokens} tokens)`
        : '';
      const body = event ? event.output : (m.content ?? '');
      lines.push(`[step ${step}] OBSERVATION${note}\n${cut(body, opts.maxObservationChars, used)}`);
    });
  });
  for (const [step, list] of [...before].sort(([a], [b]) => a - b)) {
    if (step >= trajectory.turns.length) lines.push(...list);
  }
  return lines.join('\n');
}

/** The agent's turn as THOUGHT and ACTION lines (its reasoning is kept even when it acted). */
function turnLines(turn: Turn, step: number): string[] {
  const lines: string[] = [];
  const thought = (turn.assistant.content ?? '').trim();
  const calls = turn.assistant.tool_calls ?? [];
  if (calls.length > 0 && thought !== '') lines.push(`[step ${step}] THOUGHT ${thought}`);
  for (const action of actionLines(turn)) lines.push(`[step ${step}] ACTION ${action}`);
  return lines;
}

/**
 * The compression events of a trajectory for the compression-phase analyzer, as the reference
 * gives them: per event, the compressor's input, its output, and the agent's turns from then
 * on (reasoning and actions) up to the next compression event or the end of the rollout: what
 * the agent read and did with what was kept.
 *
 * ```text
 * [event 1] obs compression at step 3, of the observation of step 2 (1890 -> 240 tokens)
 * INPUT:
 * {"playlists": [...]}
 * KEPT:
 * {"title":"Road Trip","id":48213}
 * NEXT TURNS:
 * [step 3] THOUGHT The playlist id is 48213; now I add the songs.
 * [step 3] ACTION call_api {"app":"music","api":"add_song", ...}
 * ```
 */
export function renderCompressionEvents(
  trajectory: Trajectory,
  events: readonly CompressionEvent[],
  opts: EventRenderOptions = {},
): string {
  const { obs, hist } = classifyEvents(trajectory, events);
  const used = usedValues(trajectory);
  const items: { kind: 'obs' | 'hist'; event: CompressionEvent; source: string }[] = [];
  if (opts.kind !== 'hist') {
    for (const h of obs) {
      items.push({ kind: 'obs', event: h.event, source: `, of the observation of step ${h.turn}` });
    }
  }
  if (opts.kind !== 'obs') {
    for (const event of hist) {
      const through = foldedThrough(event);
      items.push({
        kind: 'hist',
        event,
        source: through === null ? '' : `, replacing steps 0-${through}`,
      });
    }
  }
  items.sort((a, b) => a.event.step - b.event.step);
  if (items.length === 0) return '(no compression events)';

  return items
    .map((item, i) => {
      const { event } = item;
      // The next event at a later step ends this one's turns (events of one step share them).
      const until =
        items.slice(i + 1).find((x) => x.event.step > event.step)?.event.step ??
        trajectory.turns.length;
      const turns: string[] = [];
      const max = opts.maxNextTurns ?? Number.POSITIVE_INFINITY;
      for (let s = event.step; s < until && s - event.step < max; s++) {
        turns.push(...turnLines(trajectory.turns[s]!, s));
      }
      return [
        `[event ${i + 1}] ${item.kind} compression at step ${event.step}${item.source} ` +
          `(${event.inputTokens} -> ${event.outputTokens} tokens)`,
        'INPUT:',
        cut(event.input, opts.maxObservationChars, used),
        'KEPT:',
        cut(event.output, opts.maxObservationChars, used),
        'NEXT TURNS:',
        ...(turns.length > 0 ? turns : ['(none: the rollout ended)']),
      ].join('\n');
    })
    .join('\n\n');
}
