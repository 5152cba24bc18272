import type { Item } from '../bench/index.js';
import type { ChatMessage } from '../llm/index.js';
import { itemsOf, visibleActions, visibleRecords, type VisibleRecord } from './records.js';

/** What the agent was sent, read lazily: its records and its own calls. */
export type Seen = {
  messages: readonly ChatMessage[];
  records(): VisibleRecord[];
  actions(): ReturnType<typeof visibleActions>;
  items(): Item[];
  /** The text of user messages (the task and any summary). */
  userText(): string;
};

export function makeSeen(messages: readonly ChatMessage[]): Seen {
  let records: VisibleRecord[] | undefined;
  let actions: ReturnType<typeof visibleActions> | undefined;
  let items: Item[] | undefined;
  let user: string | undefined;
  const readRecords = () => (records ??= visibleRecords(messages));
  return {
    messages,
    records: readRecords,
    actions: () => (actions ??= visibleActions(messages)),
    items: () => (items ??= itemsOf(readRecords())),
    userText: () =>
      (user ??= messages
        .filter((m) => m.role === 'user')
        .map((m) => m.content)
        .join('\n')),
  };
}
