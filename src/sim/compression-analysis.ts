import type { CompressionAnalysis } from '../domain/index.js';
import { parseCompressionEvents } from './read-trajectory.js';
import { parseFactLine } from './fields.js';
import { namesField, stemsOf } from './stems.js';
import { PAGE_ARGS } from './list-gaps.js';
import {
  clip,
  containsToken,
  jsonSpans,
  leaves,
  scalarText,
  section,
  tryParseJson,
} from './text.js';
import { MIN_VALUE_CHARS, CALL_KEYS, argValues, fieldList } from './trajectory-steps.js';

/**
 * The simulated analyzer's compression analysis (analyzer.ts has the utility analysis): which
 * values of the full-context run the compressed context lacked, and which it kept unused.
 */

/** Fields and their values in what a compressor kept: JSON leaves and `key=value` fact lines. */
function keptFields(kept: string): Map<string, { values: string[]; scalar: boolean }> {
  const fields = new Map<string, { values: string[]; scalar: boolean }>();
  const add = (key: string, value: unknown) => {
    let f = fields.get(key);
    if (!f) fields.set(key, (f = { values: [], scalar: false }));
    const text = scalarText(value);
    if (text !== undefined && text.length >= MIN_VALUE_CHARS) {
      f.values.push(text);
      f.scalar = true;
    }
  };
  const json = tryParseJson(kept);
  for (const root of json !== undefined ? [json] : jsonSpans(kept)) {
    for (const l of leaves(root)) {
      const key = l.path[l.path.length - 1];
      if (key !== undefined) add(key, l.value);
    }
  }
  for (const line of kept.split(/\r?\n/)) {
    for (const { key, value } of parseFactLine(line)) add(key, value);
  }
  return fields;
}
/** Compression phase: kept fields the agent never used afterwards, and those it did use. */
export function simCompressionAnalysis(user: string): CompressionAnalysis {
  const task = section(user, 'task') ?? '';
  const taskStems = stemsOf(task);
  const events = parseCompressionEvents(section(user, 'compression_events') ?? '');
  const needed: string[] = [];
  const seenFields: string[] = [];
  const examples = new Map<string, string>();
  for (const event of events) {
    const used = event.actions.map((a) => a.text).join('\n');
    // Values the later calls pass as data: not which app and API, the page to read or the
    // outcome the agent reports.
    const passed = event.actions
      .flatMap((a) => argValues(a.text))
      .filter((v) => !PAGE_ARGS.has(v.key) && !CALL_KEYS.has(v.key))
      .map((v) => v.value);
    for (const [key, { values }] of keptFields(event.kept)) {
      if (!seenFields.includes(key)) seenFields.push(key);
      // Used: copied into a later call, whole or a value read out of it (the new phone number in
      // an email's body); or what the task asks by: a value it states (the folder it names) or
      // a field it names in other words ("played most" → `play_count`). The agent's reasoning
      // is never read (issue 61).
      const copied = (v: string) =>
        containsToken(used, v) || passed.some((p) => p.length < v.length && containsToken(v, p));
      const stated = (v: string) => v.length >= 3 && containsToken(task, v);
      if (values.some(copied) || values.some(stated) || namesField(taskStems, key)) {
        if (!needed.includes(key)) needed.push(key);
      }
      const long = values.find((v) => v.length >= 40);
      if (long !== undefined && !examples.has(key)) examples.set(key, long);
    }
  }
  const unused = seenFields.filter((f) => !needed.includes(f));
  const unusedContent = unused
    .filter((f) => examples.has(f))
    .slice(0, 5)
    .map((f) => `long \`${f}\` texts such as "${clip(examples.get(f) ?? '', 60)}"`);
  return {
    unused_fields: unused,
    unused_content: unusedContent,
    needed_fields: needed,
    remediation:
      unused.length > 0
        ? `Leave out ${fieldList(unused)}: no later action used them and the task does not ask by them.` +
          (needed.length > 0
            ? ` Keep ${fieldList(needed)}: later actions copied them or the task asks by them.`
            : '')
        : 'Everything the compressor kept was used later; no further tightening is indicated.',
  };
}
