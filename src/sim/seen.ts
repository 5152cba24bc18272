import type { Item, ReferenceStep } from '../bench/index.js';
import type { ChatMessage } from '../llm/index.js';
import type { RecordReader, VisibleAction } from './record-reader.js';
import { itemsOf, type VisibleRecord } from './records.js';

/** What the agent was sent, read lazily: its records and its own calls. */
export type Seen = {
  messages: readonly ChatMessage[];
  records(): VisibleRecord[];
  actions(): VisibleAction[];
  items(): Item[];
  /** `app.api` of a plan step and the API's own arguments (`callOf` of the step). */
  stepCall(step: ReferenceStep): { call: string; args: Record<string, unknown> };
  /** The text of user messages (the task and any summary). */
  userText(): string;
};

/** `reader` is the provider's, which remembers what it read in earlier calls. */
export function makeSeen(messages: readonly ChatMessage[], reader: RecordReader): Seen {
  let records: VisibleRecord[] | undefined;
  let actions: VisibleAction[] | undefined;
  let items: Item[] | undefined;
  let user: string | undefined;
  const readRecords = () => (records ??= reader.records(messages));
  return {
    messages,
    records: readRecords,
    actions: () => (actions ??= reader.actions(messages)),
    items: () => (items ??= itemsOf(readRecords())),
    stepCall: (step) => reader.stepCall(step),
    userText: () =>
      (user ??= messages
        .filter((m) => m.role === 'user')
        .map((m) => m.content)
        .join('\n')),
  };
}
