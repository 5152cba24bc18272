import type { Fact } from '../domain/index.js';
import { type RenderedBlock } from './read-trajectory.js';

import { PAGE_ARGS } from './list-gaps.js';
import { containsToken, jsonSpans, leaves, scalarText, tryParseJson } from './text.js';

/**
 * What the simulated analyzer reads of a rendered trajectory (analyzer.ts, compression-analysis.ts):
 * its steps, the calls and argument values of its actions, where a value came from, and where
 * two runs part.
 */

/** Values shorter than this (`0`, `5`) occur everywhere by chance and are not evidence. */
export const MIN_VALUE_CHARS = 2;
/** Keys of an action that name the call or its outcome, not data it passes on. */
export const CALL_KEYS = new Set(['app', 'api', 'status']);
export const CREDENTIAL_FIELD = /token|password|passwd|secret|session|api_?key|credential/i;
export type Step = { actions: string[]; observations: RenderedBlock[] };
export function byStep(blocks: readonly RenderedBlock[]): Map<number, Step> {
  const steps = new Map<number, Step>();
  for (const b of blocks) {
    if (b.label !== 'ACTION' && b.label !== 'OBSERVATION') continue;
    let s = steps.get(b.step);
    if (!s) steps.set(b.step, (s = { actions: [], observations: [] }));
    if (b.label === 'ACTION') s.actions.push(b.body);
    else s.observations.push(b);
  }
  return steps;
}
export function lastStep(steps: Map<number, Step>): number {
  return Math.max(-1, ...steps.keys());
}
/** `call_api {"app":…}` → the tool name and its parsed arguments (undefined for code). */
export function splitAction(action: string): { name: string; args: unknown } {
  const space = action.indexOf(' ');
  if (space === -1) return { name: action, args: undefined };
  return { name: action.slice(0, space), args: tryParseJson(action.slice(space + 1)) };
}
/** `music.show_playlist` for API calls, else the tool name. */
export function target(action: string): string {
  const { name, args } = splitAction(action);
  if (args !== null && typeof args === 'object' && !Array.isArray(args)) {
    const { app, api } = args as Record<string, unknown>;
    if (typeof app === 'string' && typeof api === 'string') return `${app}.${api}`;
  }
  return name;
}
/** Scalar argument values of an action, with the argument key each was passed as. */
export function argValues(action: string): { key: string; value: string }[] {
  const { args } = splitAction(action);
  if (args === undefined) {
    // Code or free text: quoted strings and multi-digit numbers are the candidate facts.
    const found = [...action.matchAll(/"([^"\n]{2,})"|'([^'\n]{2,})'|\b(\d{2,})\b/g)];
    return found.map((m) => ({ key: 'value', value: m[1] ?? m[2] ?? m[3] ?? '' }));
  }
  return leaves(args)
    .map((l) => ({ key: l.path[l.path.length - 1] ?? 'value', value: scalarText(l.value) }))
    .filter((v): v is { key: string; value: string } => v.value !== undefined)
    .filter((v) => v.value.length >= MIN_VALUE_CHARS);
}
/** Where a value appeared in observations before `before`: the JSON key and the step. */
export function findSource(
  steps: Map<number, Step>,
  value: string,
  before: number,
): { field: string | null; step: number } | undefined {
  for (let s = before - 1; s >= 0; s--) {
    for (const obs of steps.get(s)?.observations ?? []) {
      if (!containsToken(obs.body, value)) continue;
      const json = tryParseJson(obs.body);
      for (const root of json !== undefined ? [json] : jsonSpans(obs.body)) {
        const leaf = leaves(root).find((l) => scalarText(l.value) === value);
        if (leaf) return { field: leaf.path[leaf.path.length - 1] ?? null, step: s };
      }
      const kv = new RegExp(`"?([A-Za-z_][\\w.-]*)"?\\s*[:=]\\s*"?${escape(value)}`).exec(obs.body);
      return { field: kv?.[1] ?? null, step: s };
    }
  }
  return undefined;
}
/** Every object in a parsed observation, innermost records included. */
export function objectsOf(value: unknown): Record<string, unknown>[] {
  if (Array.isArray(value)) return value.flatMap(objectsOf);
  if (value === null || typeof value !== 'object') return [];
  const own = value as Record<string, unknown>;
  return [own, ...Object.values(own).flatMap(objectsOf)];
}
/** The record (innermost object) of the full run's observation at `step` that holds `value`. */
export function sourceRecord(
  steps: Map<number, Step>,
  value: string,
  step: number,
): Record<string, unknown> | undefined {
  for (const obs of steps.get(step)?.observations ?? []) {
    const json = tryParseJson(obs.body);
    for (const root of json !== undefined ? [json] : jsonSpans(obs.body)) {
      const holders = objectsOf(root).filter((o) =>
        Object.values(o).some((v) => scalarText(v) === value),
      );
      if (holders.length > 0) return holders[holders.length - 1];
    }
  }
  return undefined;
}
export function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
/** What the compressed run's agent had in its context when it chose its action at `step`. */
export function seenBefore(blocks: readonly RenderedBlock[], step: number, task: string): string {
  let from = 0;
  let summary = '';
  for (const b of blocks) {
    if (b.label === 'HISTORY SUMMARY' && b.step <= step) {
      summary = b.body;
      from = (b.through ?? -1) + 1;
    }
  }
  const parts = [task, summary];
  for (const b of blocks) {
    if (b.step >= from && b.step < step && (b.label === 'ACTION' || b.label === 'OBSERVATION')) {
      parts.push(b.body);
    }
  }
  return parts.join('\n');
}
export function fieldList(fields: readonly string[]): string {
  return fields.map((f) => `\`${f}\``).join(', ');
}
/** The first step whose actions differ, or where one run ended earlier; `null` when none. */
export function firstDivergence(full: Map<number, Step>, comp: Map<number, Step>): number | null {
  const common = Math.min(lastStep(full), lastStep(comp)) + 1;
  for (let s = 0; s < common; s++) {
    if ((full.get(s)?.actions ?? []).join('\n') !== (comp.get(s)?.actions ?? []).join('\n')) {
      return s;
    }
  }
  return lastStep(full) !== lastStep(comp) ? common : null;
}
/**
 * Values the full-context run used after the divergence (in a later action's arguments or its
 * answer) that the compressed run's context lacked at the same step (issue 61). Only values the
 * compressed run had been given are counted: their source observation lies in the shared prefix,
 * or the compressed run made the same call that returned it; a value it never fetched because it
 * took another path is a consequence of the divergence, not a loss of the compressor. Only actions
 * and observations are read, never the agent's reasoning.
 */
export function lostAfter(
  full: Map<number, Step>,
  comp: Map<number, Step>,
  compBlocks: readonly RenderedBlock[],
  d: number,
  task: string,
): Fact[] {
  const out: Fact[] = [];
  const counted = new Set<string>();
  const compActions = new Set([...comp.values()].flatMap((s) => s.actions));
  const compEnd = lastStep(comp) + 1;
  for (let s = d + 1; s <= lastStep(full); s++) {
    for (const action of full.get(s)?.actions ?? []) {
      for (const { key, value } of argValues(action)) {
        if (counted.has(value) || PAGE_ARGS.has(key) || CALL_KEYS.has(key)) continue;
        counted.add(value);
        const source = findSource(full, value, s);
        if (source === undefined) continue;
        const producer = full.get(source.step)?.actions ?? [];
        const given = source.step < d || producer.some((a) => compActions.has(a));
        if (!given) continue;
        if (containsToken(seenBefore(compBlocks, Math.min(s, compEnd), task), value)) continue;
        out.push({
          fact: `value ${value} (passed as \`${key}\` at step ${s}) was not in the compressed run's context`,
          field: source.field ?? key,
          source_step: source.step,
        });
      }
    }
  }
  return out;
}
/** The full-run step before `before` whose action equals `action`, or -1. */
export function fullStepOf(full: Map<number, Step>, action: string, before: number): number {
  for (let s = before - 1; s >= 0; s--) {
    if (full.get(s)?.actions.includes(action)) return s;
  }
  return -1;
}
