import { describe, expect, it } from 'vitest';
import { extractSection, HISTORY_SUMMARY, REFINED_OBSERVATION } from '../compress/parse.js';
import { renderTurns } from '../compress/render-history.js';
import { renderPrompt } from '../prompts/template.js';
import type { ChatMessage } from '../llm/types.js';
import { simHistoryCompressor, simObservationCompressor } from './compressor.js';

const OBSERVATION = {
  page_index: 0,
  total_items: 3,
  items: [1, 2, 3].map((i) => ({
    id: 48210 + i,
    owner_id: 60000 + i,
    title: `Mix ${i}`,
    description: `Songs for mood ${i}`,
    price: 9.99,
    created_at: '2024-05-01T10:00:00',
    url: `https://music.example/p/${i}`,
    share_token: 'sk_9f8e7d6c5b4a39281706f5e4',
    status: 'public',
  })),
};

function obsMessages(guideline: string, observation: string): ChatMessage[] {
  return [
    { role: 'system', content: renderPrompt('obs-compressor.system.txt', { guideline }) },
    {
      role: 'user',
      content: renderPrompt('obs-compressor.user.txt', {
        task: 'Buy the cheapest mix.',
        session: '(none)',
        observation,
      }),
    },
  ];
}

/** The compressed observation as the pipeline reads it (src/compress/parse.ts). */
function compressObs(guideline: string, observation: unknown = OBSERVATION): unknown {
  const answer = simObservationCompressor(
    obsMessages(
      guideline,
      typeof observation === 'string' ? observation : JSON.stringify(observation),
    ),
  );
  const parsed = extractSection(answer, REFINED_OBSERVATION);
  if (!parsed.ok) throw new Error(parsed.reason);
  try {
    return JSON.parse(parsed.text);
  } catch {
    return parsed.text;
  }
}

describe('simObservationCompressor', () => {
  it('keeps readable fields and drops ids, tokens and urls by default', () => {
    expect(compressObs('Keep what matters for the task.')).toEqual({
      page_index: 0,
      total_items: 3,
      items: [1, 2, 3].map((i) => ({
        title: `Mix ${i}`,
        description: `Songs for mood ${i}`,
        price: 9.99,
        created_at: '2024-05-01T10:00:00',
        status: 'public',
      })),
    });
  });

  it('keeps KEEP fields, removes DROP fields and cuts lists to MAX_ITEMS', () => {
    const out = compressObs(
      'Keep ids.\nKEEP: id, share_token\ndrop: description, page_index, created_at\nMAX_ITEMS: 2',
    ) as { items: Record<string, unknown>[] };
    expect(out).toEqual({
      total_items: 3,
      items: [1, 2].map((i) => ({
        id: 48210 + i,
        title: `Mix ${i}`,
        price: 9.99,
        share_token: 'sk_9f8e7d6c5b4a39281706f5e4',
        status: 'public',
      })),
    });
  });

  it('keeps a KEEP container whole, except its DROP fields', () => {
    const out = compressObs('KEEP: items\nDROP: url') as { items: Record<string, unknown>[] };
    expect(out.items[0]).toEqual({ ...OBSERVATION.items[0], url: undefined });
    expect(Object.keys(out.items[0]!)).not.toContain('url');
    expect(out.items[0]).toHaveProperty('owner_id', 60001);
  });

  it('filters a text observation line by line', () => {
    const text = [
      'name: Ana',
      'user_id: 512',
      'profile_url: https://x.example/a',
      'All good.',
    ].join('\n');
    expect(compressObs('Be brief.', text)).toBe('name: Ana\nAll good.');
    expect(compressObs('KEEP: user_id', text)).toBe('name: Ana\nuser_id: 512\nAll good.');
  });

  it('is deterministic', () => {
    const m = obsMessages('KEEP: id', JSON.stringify(OBSERVATION));
    expect(simObservationCompressor(m)).toBe(simObservationCompressor(m));
  });
});

const HISTORY = renderTurns([
  {
    assistant: {
      role: 'assistant',
      content: 'Step 1 of 3: calling auth.login with user=ana.',
      tool_calls: [
        {
          id: 'call_0',
          type: 'function',
          function: { name: 'call_api', arguments: '{"app":"auth","api":"login","args":{}}' },
        },
      ],
    },
    observations: [
      {
        role: 'tool',
        tool_call_id: 'call_0',
        content: '{"access_token":"tk_9f8e7d6c5b4a39281706f5e4d3","expires_in":3600}',
      },
    ],
  },
  {
    assistant: {
      role: 'assistant',
      content: 'Step 2 of 3: calling music.list.',
      tool_calls: [
        {
          id: 'call_1',
          type: 'function',
          function: { name: 'call_api', arguments: '{"app":"music","api":"list","args":{}}' },
        },
      ],
    },
    observations: [{ role: 'tool', tool_call_id: 'call_1', content: JSON.stringify(OBSERVATION) }],
  },
]);

function histMessages(guideline: string, previous = '(none)'): ChatMessage[] {
  return [
    { role: 'system', content: renderPrompt('hist-compressor.system.txt', { guideline }) },
    {
      role: 'user',
      content: renderPrompt('hist-compressor.user.txt', {
        task: 'Buy the cheapest mix.',
        previous_summary: previous,
        history: HISTORY,
      }),
    },
  ];
}

function summaryText(answer: string): string {
  const parsed = extractSection(answer, HISTORY_SUMMARY);
  if (!parsed.ok) throw new Error(parsed.reason);
  return parsed.text;
}

describe('simHistoryCompressor', () => {
  it('summarizes completed steps and the facts the guideline keeps', () => {
    const text = summaryText(simHistoryCompressor(histMessages('Summarize.\nDROP: description')));
    expect(text).toMatchInlineSnapshot(`
      "COMPLETED:
      - Step 1 of 3: auth.login
      - Step 2 of 3: music.list
      FACTS:
      - expires_in=3600
      - page_index=0 | total_items=3
      - title=Mix 1 | price=9.99 | created_at=2024-05-01T10:00:00 | status=public
      - title=Mix 2 | price=9.99 | created_at=2024-05-01T10:00:00 | status=public
      - title=Mix 3 | price=9.99 | created_at=2024-05-01T10:00:00 | status=public"
    `);
  });

  it('keeps KEEP fields, and carries the previous summary forward', () => {
    const previous = 'COMPLETED:\n- Step 0 of 3: setup\nFACTS:\n- card_id=5521 | name=Visa';
    const text = summaryText(
      simHistoryCompressor(histMessages('KEEP: id, access_token, card_id\nMAX_ITEMS: 1', previous)),
    );
    expect(text).toContain('- Step 0 of 3: setup');
    expect(text).toContain('- card_id=5521 | name=Visa');
    expect(text).toContain('access_token=tk_9f8e7d6c5b4a39281706f5e4d3');
    expect(text).toContain('id=48211');
    expect(text).not.toContain('id=48212');
  });

  it('drops ids from a previous summary when the guideline does not keep them', () => {
    const previous = 'COMPLETED:\n(none)\nFACTS:\n- card_id=5521 | name=Visa';
    const text = summaryText(simHistoryCompressor(histMessages('Summarize.', previous)));
    expect(text).toContain('- name=Visa');
    expect(text).not.toContain('5521');
  });

  it('writes the four sections for the summary baseline prompt', () => {
    const messages: ChatMessage[] = [
      { role: 'system', content: renderPrompt('summary.system.txt', {}) },
      {
        role: 'user',
        content: renderPrompt('summary.user.txt', {
          task: 'Buy the cheapest mix.',
          previous_summary: '(none)',
          history: HISTORY,
        }),
      },
    ];
    const text = summaryText(simHistoryCompressor(messages));
    const headings = text.split('\n').filter((l) => /^[A-Z_]+:/.test(l));
    expect(headings.map((h) => h.split(':')[0])).toEqual([
      'USER_CONTEXT',
      'COMPLETED',
      'PENDING',
      'CURRENT_STATE',
    ]);
    expect(text).toContain('USER_CONTEXT: Buy the cheapest mix.');
    expect(text).not.toContain('48211');
  });
});
