import { describe, expect, it } from 'vitest';
import type { ReferencePlan } from '../bench/types.js';
import type { ChatMessage } from '../llm/types.js';
import { listGaps } from './list-gaps.js';
import { RecordReader } from './record-reader.js';
import { makeSeen } from './seen.js';
import { apiCallMessage } from './sim.fixtures.js';

/**
 * Contacts paged two at a time; step 2 texts the newest neighbor. The pages are of all contacts
 * (the agent filters them), unless `filtered`: then the call asks for neighbors only.
 */
const page = (p: number, filtered = false) => ({
  tool: 'call_api',
  args: {
    app: 'phone',
    api: 'search_contacts',
    args: { ...(filtered ? { relationship: 'neighbor' } : {}), page_index: p },
  },
  needs: [],
});
const CHOICE = {
  value: '555-0103',
  from: [0, 1],
  op: 'max' as const,
  by: 'created_at',
  take: 'phone_number',
  where: { relationship: 'neighbor' },
};
const PLAN: ReferencePlan = {
  steps: [
    page(0),
    page(1),
    {
      tool: 'call_api',
      args: { app: 'phone', api: 'send_text_message' },
      needs: [],
      choices: [CHOICE],
    },
  ],
};

const contact = (i: number, fields: Record<string, unknown> = {}) => ({
  id: 900 + i,
  name: `Neighbor ${i}`,
  relationship: 'neighbor',
  phone_number: `555-010${i}`,
  created_at: `2024-0${i}-01`,
  ...fields,
});

function call(id: string, p: number, filtered = false): ChatMessage {
  const content = `Step ${p + 1} of 3: calling phone.search_contacts.`;
  return apiCallMessage(id, content, page(p, filtered).args);
}

function result(id: string, p: number, items: unknown[]): ChatMessage {
  const body = { page_index: p, total_pages: 2, has_more: p === 0, items };
  return { role: 'tool', tool_call_id: id, content: JSON.stringify(body) };
}

const gaps = (messages: ChatMessage[], plan = PLAN) =>
  listGaps(plan, CHOICE, makeSeen(messages, new RecordReader()));

describe('listGaps', () => {
  it('finds nothing to read again when every page is in view whole', () => {
    const m = [
      call('a', 0),
      result('a', 0, [contact(1), contact(2)]),
      call('b', 1),
      result('b', 1, [contact(3)]),
    ];
    expect(gaps(m)).toEqual([]);
  });

  it('reads again a page it called but can no longer see', () => {
    const m = [
      call('a', 0),
      {
        role: 'tool' as const,
        tool_call_id: 'a',
        content: 'Previous 9 lines omitted for brevity.',
      },
      call('b', 1),
      result('b', 1, [contact(3)]),
    ];
    expect(gaps(m).map((g) => g.fromStep)).toEqual([0]);
  });

  it('learns from has_more that a next page exists', () => {
    const m = [call('a', 0), result('a', 0, [contact(1), contact(2)])];
    expect(gaps(m).map((g) => g.fromStep)).toEqual([1]);
  });

  it('reads again a page whose items lost the field it compares on', () => {
    const m = [
      call('a', 0),
      result('a', 0, [contact(1, { created_at: undefined }), contact(2)]),
      call('b', 1),
      result('b', 1, [contact(3)]),
    ];
    expect(gaps(m)).toEqual([{ fromStep: 0, why: expect.stringContaining('page 0') as string }]);
  });

  it('believes a summary that lists the items whole, and doubts one that lost the dates', () => {
    const summary = (withDates: boolean) =>
      [
        '# History Summary',
        'FACTS:',
        '[phone.search_contacts]',
        ...[1, 2].map(
          (i) =>
            `- id=${900 + i} | relationship=neighbor | phone_number=555-010${i}` +
            (withDates ? ` | created_at=2024-0${i}-01` : ''),
        ),
      ].join('\n');
    const tail = [call('b', 1), result('b', 1, [contact(3)])];
    expect(gaps([{ role: 'user', content: summary(true) }, ...tail])).toEqual([]);
    const doubted = gaps([{ role: 'user', content: summary(false) }, ...tail]);
    expect(doubted.map((g) => g.fromStep)).toEqual([0]);
    expect(doubted[0]!.why).toContain('`created_at`');
  });

  it('counts the items it can see against the total the list reports', () => {
    const summary = (paging: string) =>
      [
        '# History Summary',
        'FACTS:',
        '[phone.search_contacts]',
        paging,
        ...[1, 2, 3].map(
          (i) =>
            `- items[${i - 1}]: id=${900 + i} | phone_number=555-010${i} | created_at=2024-0${i}-01 | relationship=neighbor`,
        ),
      ].join('\n');
    // The summary names page 1 only: page 0 looks unread...
    const named = summary('- page_index=1 | total_pages=2 | has_more=false');
    expect(gaps([{ role: 'user', content: named }]).map((g) => g.fromStep)).toEqual([0]);
    // ...unless the list's own count shows every item is there.
    const counted = summary('- page_index=1 | total_pages=2 | has_more=false | total_items=3');
    expect(gaps([{ role: 'user', content: counted }])).toEqual([]);
  });

  it('doubts a summary that names no page when it holds fewer items than the list reports', () => {
    const summary = [
      '# History Summary',
      'FACTS:',
      '[phone.search_contacts]',
      ...[1].map(
        (i) =>
          `- items[${i - 1}]: id=${900 + i} | phone_number=555-010${i} | created_at=2024-0${i}-01 | relationship=neighbor`,
      ),
    ].join('\n');
    // Page 1 is in view and says the list has 4 contacts; the summary (no page named) holds one.
    const tail = (total: number) => [
      call('b', 1),
      {
        role: 'tool' as const,
        tool_call_id: 'b',
        content: JSON.stringify({
          page_index: 1,
          total_pages: 2,
          total_items: total,
          has_more: false,
          items: [contact(3), contact(4)],
        }),
      },
    ];
    const short = gaps([{ role: 'user', content: summary }, ...tail(4)]);
    expect(short.map((g) => g.fromStep)).toEqual([0]);
    expect(short[0]!.why).toContain('3 of its 4 items');
    // A summary whose items make up the count is believed, as before.
    expect(gaps([{ role: 'user', content: summary }, ...tail(3)])).toEqual([]);
    // One whose items are all there but lost the date is doubted for the date, which its reason
    // names (a compressor reads that as a request for `created_at`), not for the count.
    const undated = summary.replace(' | created_at=2024-01-01', '');
    const blind = gaps([{ role: 'user', content: undated }, ...tail(3)]);
    expect(blind.map((g) => g.fromStep)).toEqual([0]);
    expect(blind[0]!.why).toContain('`created_at`');
  });

  it('reads again a page a summary names when its lines lost the field the choice filters by', () => {
    const summary = (withRelationship: boolean) =>
      [
        '# History Summary',
        'FACTS:',
        '[phone.search_contacts]',
        '- page_index=0 | total_pages=2 | has_more=true',
        ...[1, 2].map(
          (i) =>
            `- items[${i - 1}]: id=${900 + i} | phone_number=555-010${i} | created_at=2024-0${i}-01` +
            (withRelationship ? ' | relationship=neighbor' : ''),
        ),
      ].join('\n');
    const tail = [call('b', 1), result('b', 1, [contact(3)])];
    expect(gaps([{ role: 'user', content: summary(true) }, ...tail])).toEqual([]);
    // Without `relationship` it cannot tell these are the neighbors: page 0 is not in view.
    expect(
      gaps([{ role: 'user', content: summary(false) }, ...tail]).map((g) => g.fromStep),
    ).toEqual([0]);
    // Unless its own calls asked for neighbors only: every item it read there is a neighbor.
    const filtered: ReferencePlan = {
      steps: [page(0, true), page(1, true), PLAN.steps[2]!],
    };
    const filteredTail = [call('b', 1, true), result('b', 1, [contact(3)])];
    expect(gaps([{ role: 'user', content: summary(false) }, ...filteredTail], filtered)).toEqual(
      [],
    );
    // An error the call answered, its status left out, is no item of the list.
    const withError = `${summary(false)}\n- error=argument 'page_limit': Too big`;
    expect(gaps([{ role: 'user', content: withError }, ...filteredTail], filtered)).toEqual([]);
  });
});

describe('pages the agent cannot compute over', () => {
  it('reads again a page that shows fewer items than its own paging fields say', () => {
    const cut = (items: unknown[]): ChatMessage => ({
      role: 'tool',
      tool_call_id: 'a',
      content: JSON.stringify({ page_index: 0, page_limit: 2, total_items: 3, items }),
    });
    const tail = [call('b', 1), result('b', 1, [contact(3)])];
    const short = gaps([call('a', 0), cut([contact(1)]), ...tail]);
    expect(short).toEqual([
      { fromStep: 0, why: expect.stringContaining('shows 1 of its 2 items') },
    ]);
    expect(gaps([call('a', 0), cut([contact(1), contact(2)]), ...tail])).toEqual([]);
  });

  it('does not take an error answered instead of a page for the page', () => {
    const refused: ChatMessage = {
      role: 'tool',
      tool_call_id: 'a',
      content: JSON.stringify({ status: 401, error: 'Unauthorized: log in again.' }),
    };
    const m = [call('a', 0), refused, call('b', 1), result('b', 1, [contact(3)])];
    expect(gaps(m).map((g) => g.fromStep)).toEqual([0]);
  });
});
