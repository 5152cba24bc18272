import { describe, expect, it } from 'vitest';
import { extractSection, HISTORY_SUMMARY } from '../compress/parse.js';
import { renderTurns } from '../compress/render-history.js';
import { renderPrompt } from '../prompts/template.js';
import { simHistoryCompressor } from './compressor.js';
import { RecordReader } from './record-reader.js';
import { isAbbreviated, isOpaque } from './text.js';
import { readGuideline } from './guideline-reading.js';

const TOKEN = 'atk_0RD0FGL3m08X1dquPDhRTEPbZ9xc4lOmUBjdtqudneA';

/** A login, then a call that passes its token: the summarizer sees the token in use. */
function history(reasoning = 'Step 2 of 3: calling wallet.show_friends.'): string {
  return renderTurns([
    {
      assistant: {
        role: 'assistant',
        content: 'Step 1 of 3: calling wallet.login.',
        tool_calls: [
          {
            id: 'call_0',
            type: 'function',
            function: { name: 'call_api', arguments: '{"app":"wallet","api":"login","args":{}}' },
          },
        ],
      },
      observations: [
        {
          role: 'tool',
          tool_call_id: 'call_0',
          content: JSON.stringify({ access_token: TOKEN, token_type: 'Bearer' }),
        },
      ],
    },
    {
      assistant: {
        role: 'assistant',
        content: reasoning,
        tool_calls: [
          {
            id: 'call_1',
            type: 'function',
            function: {
              name: 'call_api',
              arguments: JSON.stringify({
                app: 'wallet',
                api: 'show_friends',
                args: { access_token: TOKEN },
              }),
            },
          },
        ],
      },
      observations: [
        { role: 'tool', tool_call_id: 'call_1', content: '{"items":[{"id":41,"name":"Ned"}]}' },
      ],
    },
  ]);
}

/** The summary's line for the login, over a dozen tasks (the judgement differs per task). */
function tokenLines(guideline: string, reasoning?: string): string[] {
  return Array.from({ length: 12 }, (_, i) => {
    const answer = simHistoryCompressor([
      { role: 'system', content: renderPrompt('hist-compressor.system.txt', { guideline }) },
      {
        role: 'user',
        content: renderPrompt('hist-compressor.user.txt', {
          task: `Task ${i}: request $20 from my friend Ned.`,
          previous_summary: '(none)',
          history: history(reasoning),
        }),
      },
    ]);
    const parsed = extractSection(answer, HISTORY_SUMMARY);
    if (!parsed.ok) throw new Error(parsed.reason);
    return parsed.text.split('\n').find((l) => l.includes('access_token=')) ?? '';
  }).filter((l) => l !== '');
}

describe('abbreviating long opaque strings (issue 22)', () => {
  it('reads which guidelines ask for values as they are', () => {
    expect(readGuideline('Keep the result faithful to the original.').exact).toBe(true);
    expect(
      readGuideline(
        'Never drop or paraphrase these fields; the agent needs their exact values: `id`.',
      ).exact,
    ).toBe(true);
    expect(readGuideline('Preserve `id` verbatim.').exact).toBe(true);
    expect(
      readGuideline('Keep what is relevant to the task. Be concise and leave out details.').exact,
    ).toBe(false);
  });

  it('tells an opaque string from prose, paths and addresses', () => {
    expect(isOpaque(TOKEN)).toBe(true);
    expect(isOpaque('/Documents/Receipts/2025/very_long_file_name_here.pdf')).toBe(false);
    expect(isOpaque('newell.ullrichdietrich1234567@gmail.com')).toBe(false);
    expect(isOpaque('xxhRMDNhE2u2DwsT')).toBe(false);
    expect(isAbbreviated('atk_0RD0…')).toBe(true);
    expect(isAbbreviated('my new phone number is … call me')).toBe(false);
  });

  it('abbreviates, when concise, a token it keeps on its own judgement', () => {
    const lines = tokenLines('Keep what is relevant to the task. Be concise.');
    expect(lines.length).toBeGreaterThan(0);
    for (const l of lines) {
      expect(l).toContain('access_token=atk_0RD0…');
      expect(l).not.toContain(TOKEN);
    }
  });

  it('copies it whole when the guideline names it, asks for exact values, or the agent asks', () => {
    const named = tokenLines('Keep access tokens. Be concise.');
    expect(named.length).toBe(12);
    for (const l of named) expect(l).toContain(TOKEN);
    for (const l of tokenLines('Be concise. Copy every value exactly as it appears.'))
      expect(l).toContain(TOKEN);
    const asked = tokenLines(
      'Keep what is relevant to the task. Be concise.',
      'Step 3 of 3 needs a value from step 1 that is not in my context (the `access_token` from wallet.login is not in my context); re-fetching it: calling wallet.login.',
    );
    expect(asked.length).toBe(12);
    for (const l of asked) expect(l).toContain(TOKEN);
  });

  it('does not read an abbreviated value as the value', () => {
    const records = new RecordReader().records([
      {
        role: 'user',
        content: `# History Summary\nFACTS:\n[wallet.login]\n- access_token=atk_0RD0… | token_type=Bearer`,
      },
    ]);
    expect(records).toHaveLength(1);
    expect(records[0]!.fields).toEqual({ token_type: 'Bearer' });
  });
});
