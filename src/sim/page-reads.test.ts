import { describe, expect, it } from 'vitest';
import type { ReferencePlan } from '../bench/types.js';
import type { ChatMessage } from '../llm/types.js';
import { pageRead } from './page-reads.js';
import { RecordReader } from './record-reader.js';
import { makeSeen } from './seen.js';
import { apiCallMessage } from './sim.fixtures.js';

/** Contacts paged two at a time over three pages; step 3 texts one of them. */
const page = (p: number) => ({
  tool: 'call_api',
  args: { app: 'phone', api: 'search_contacts', args: { page_index: p, page_limit: 2 } },
  needs: [],
});
const PLAN: ReferencePlan = {
  steps: [
    page(0),
    page(1),
    page(2),
    { tool: 'call_api', args: { app: 'phone', api: 'send_text_message' }, needs: [] },
  ],
};

const contact = (i: number) => ({ id: 900 + i, name: `Neighbor ${i}` });

function call(id: string, p: number): ChatMessage {
  return apiCallMessage(id, `Step ${p + 1} of 4: calling phone.search_contacts.`, page(p).args);
}

const result = (id: string, body: Record<string, unknown>): ChatMessage => ({
  role: 'tool',
  tool_call_id: id,
  content: JSON.stringify(body),
});

const read = (messages: ChatMessage[], index: number) =>
  pageRead(PLAN, index, makeSeen(messages, new RecordReader()));

describe('pageRead', () => {
  it('reads page 0 and any step that reads no page', () => {
    expect(read([], 0)).toEqual({ read: true });
    expect(read([], 3)).toEqual({ read: true });
  });

  it('reads the next page because the previous one had more, and says so', () => {
    const m = [call('a', 0), result('a', { page_index: 0, has_more: true, items: [contact(1)] })];
    expect(read(m, 1)).toEqual({ read: true, note: '`has_more` was true on page 0' });
  });

  it('stops paging where has_more, total_pages or total_items say the list ended', () => {
    const more = [call('a', 0), result('a', { has_more: false, items: [contact(1)] })];
    expect(read(more, 1)).toMatchObject({ read: false, to: 3 });
    const pages = [call('a', 0), result('a', { total_pages: 1, items: [contact(1)] })];
    expect(read(pages, 1)).toMatchObject({ read: false, to: 3 });
    const items = [call('a', 0), result('a', { total_items: 4, items: [contact(1), contact(2)] })];
    expect(read(items, 1)).toMatchObject({ read: true });
    expect(read(items, 2)).toMatchObject({ read: false, to: 3 });
  });

  it('without paging fields, reads on after a full page and stops after a short one', () => {
    const full = [call('a', 0), result('a', { items: [contact(1), contact(2)] })];
    expect(read(full, 1)).toEqual({ read: true, note: 'page 0 was full (2 items)' });
    const short = [call('a', 0), result('a', { items: [contact(1)] })];
    expect(read(short, 1)).toMatchObject({ read: false, to: 3 });
  });

  it('pages on when nothing of the list is in view (it cannot tell either way)', () => {
    expect(read([], 1)).toEqual({ read: true });
  });
});
