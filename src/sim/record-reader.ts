import type { Item, ReferenceStep } from '../bench/index.js';
import type { ChatMessage } from '../llm/index.js';
import { plainTextRecords } from './plain-text-records.js';
import {
  callOf,
  placeRecords,
  readTextRecords,
  scalars,
  type RecordSource,
  type TextRecord,
  type VisibleRecord,
} from './records.js';
import { detached } from './text.js';

/** Characters of the remembered texts together, at most; the oldest half goes when over. */
const RECORDS_BY_TEXT_CHARS = 2 * 1024 * 1024;

type StepCall = { call: string; args: Record<string, unknown> };
type ParsedCall = StepCall & { id: string; fields: Item };
export type VisibleAction = StepCall & { message: number };

/**
 * Reads the records of the agent's prompts (records.ts) and remembers what it read (issue #28):
 * a prompt repeats the message objects of the step before, and the rollouts of an optimize run
 * the same tasks under many guidelines, so re-reading made every step cost the whole rollout so
 * far. The sim provider owns one for its calls (issue #55: no module-level state); what it
 * returns is a pure function of its arguments, so a fresh reader answers the same, only slower.
 */
export class RecordReader {
  /** `callOf` of a plan step, by step object: the agent looks its plan's calls up every turn. */
  private readonly stepCalls = new WeakMap<ReferenceStep, { args: unknown; parsed: StepCall }>();
  /**
   * The records of texts read lately, by text: most messages the agent reads are new objects with
   * the text of one read before (nine in ten in the README optimize).
   */
  private readonly byText = new Map<string, readonly TextRecord[]>();
  private byTextChars = 0;
  /** What each message object yields; the content (or tool-call list) is checked on every hit. */
  private readonly textMemo = new WeakMap<
    ChatMessage,
    { content: string; records: readonly TextRecord[] }
  >();
  private readonly callMemo = new WeakMap<
    ChatMessage,
    { calls: unknown; parsed: readonly ParsedCall[] }
  >();
  private readonly plainMemo = new WeakMap<
    ChatMessage,
    { content: string; records: readonly TextRecord[] }
  >();

  /** `callOf` of a plan step, parsed once per step object; callers only read it. */
  stepCall(step: ReferenceStep): StepCall {
    const hit = this.stepCalls.get(step);
    if (hit !== undefined && hit.args === step.args) return hit.parsed;
    const parsed = callOf(step.tool, JSON.stringify(step.args));
    this.stepCalls.set(step, { args: step.args, parsed });
    return parsed;
  }

  /** Every record of the messages, oldest first. */
  records(messages: readonly ChatMessage[]): VisibleRecord[] {
    const out: VisibleRecord[] = [];
    const calls = new Map<string, StepCall>();
    messages.forEach((m, message) => {
      if (m.role === 'assistant') {
        for (const c of this.messageCalls(m)) {
          calls.set(c.id, { call: c.call, args: c.args });
          if (Object.keys(c.fields).length > 0) {
            out.push({ fields: c.fields, source: { kind: 'action', call: c.call, message } });
          }
        }
        return;
      }
      if (m.role === 'system') return;
      if (m.role === 'tool') {
        const c = calls.get(m.tool_call_id);
        const source: RecordSource = c
          ? { kind: 'observation', call: c.call, args: c.args, message }
          : { kind: 'user' };
        const records = this.messageRecords(m);
        placeRecords(records.length > 0 ? records : this.plainRecords(m), source, out);
        return;
      }
      placeRecords(this.messageRecords(m), { kind: 'user' }, out);
    });
    return out;
  }

  /** The calls the agent can see it made, newest last: `app.api` and the API's arguments. */
  actions(messages: readonly ChatMessage[]): VisibleAction[] {
    const out: VisibleAction[] = [];
    messages.forEach((m, message) => {
      for (const c of this.messageCalls(m)) out.push({ call: c.call, args: c.args, message });
    });
    return out;
  }

  private textRecords(text: string): readonly TextRecord[] {
    const hit = this.byText.get(text);
    if (hit !== undefined) return hit;
    const records = readTextRecords(text);
    if (text.length <= RECORDS_BY_TEXT_CHARS / 4) {
      if (this.byTextChars + text.length > RECORDS_BY_TEXT_CHARS) {
        for (const old of this.byText.keys()) {
          if (this.byTextChars <= RECORDS_BY_TEXT_CHARS / 2) break;
          this.byText.delete(old);
          this.byTextChars -= old.length;
        }
      }
      const key = detached(text);
      this.byText.set(key, records);
      this.byTextChars += key.length;
    }
    return records;
  }

  private messageRecords(m: ChatMessage & { content: string }): readonly TextRecord[] {
    const hit = this.textMemo.get(m);
    if (hit !== undefined && hit.content === m.content) return hit.records;
    const records = this.textRecords(m.content);
    this.textMemo.set(m, { content: m.content, records });
    return records;
  }

  private messageCalls(m: ChatMessage): readonly ParsedCall[] {
    if (m.role !== 'assistant' || m.tool_calls === undefined) return [];
    const hit = this.callMemo.get(m);
    if (hit !== undefined && hit.calls === m.tool_calls) return hit.parsed;
    const parsed = m.tool_calls.map((c) => {
      const { call, args } = callOf(c.function.name, c.function.arguments);
      return { id: c.id, call, args, fields: Object.freeze(scalars(args)) };
    });
    this.callMemo.set(m, { calls: m.tool_calls, parsed });
    return parsed;
  }

  /**
   * A tool result with neither JSON nor fact lines is read line by line (plain-text-records.ts);
   * only tool results: a task's instruction is not a record of values the agent was given.
   */
  private plainRecords(m: ChatMessage & { content: string }): readonly TextRecord[] {
    const hit = this.plainMemo.get(m);
    if (hit !== undefined && hit.content === m.content) return hit.records;
    const records = plainTextRecords(m.content).map((fields) => ({
      fields: Object.freeze(fields),
      plain: true as const,
    }));
    this.plainMemo.set(m, { content: m.content, records });
    return records;
  }
}
