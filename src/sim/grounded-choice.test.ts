import { describe, expect, it } from 'vitest';
import type { ReferencePlan } from '../bench/types.js';
import { extractSection, REFINED_OBSERVATION } from '../compress/parse.js';
import type { ChatMessage } from '../llm/types.js';
import { renderPrompt } from '../prompts/template.js';
import { simAgentTurn, type SimAgentOptions } from './agent.js';
import { simCompressionAnalysis } from './compression-analysis.js';
import { simObservationCompressor } from './compressor.js';

/**
 * Issue 13: a choice that depends on data is computed from what the agent can see. Here the
 * observation compressor (the real sim compressor, with a guideline) decides whether the field
 * the choice compares survives, and the agent's answer follows from that.
 */

const LISTING = {
  page_index: 0,
  total_items: 4,
  items: [
    { id: 701, name: 'beach.png', directory: '/Photos/2024', size_bytes: 1_250_000 },
    { id: 702, name: 'harbour.png', directory: '/Photos/2024', size_bytes: 4_800_000 },
    { id: 703, name: 'dunes.png', directory: '/Photos/2024', size_bytes: 2_100_000 },
    { id: 704, name: 'old.png', directory: '/Photos/2023', size_bytes: 9_900_000 },
  ],
};

const TASK = 'What is the largest file in /Photos/2024?';
const PLAN: ReferencePlan = {
  steps: [
    {
      tool: 'call_api',
      args: { app: 'files', api: 'show_directory', args: { directory_path: '/Photos/2024' } },
      needs: [],
    },
    {
      tool: 'complete_task',
      args: { answer: 'harbour.png', status: 'success' },
      needs: [],
      choices: [
        {
          value: 'harbour.png',
          from: [0],
          op: 'max',
          by: 'size_bytes',
          take: 'name',
          where: { directory: '/Photos/2024' },
        },
      ],
    },
  ],
};

const OPTS: SimAgentOptions = { seed: 7, refetchLimit: 2, noise: 0 };

function compressed(guideline: string): string {
  const answer = simObservationCompressor([
    { role: 'system', content: renderPrompt('obs-compressor.system.txt', { guideline }) },
    {
      role: 'user',
      content: renderPrompt('obs-compressor.user.txt', {
        task: TASK,
        session: '(none)',
        observation: JSON.stringify(LISTING),
      }),
    },
  ]);
  const parsed = extractSection(answer, REFINED_OBSERVATION);
  if (!parsed.ok) throw new Error(parsed.reason);
  return parsed.text;
}

/** The agent's answer turn after it listed the folder and saw `observation`. */
function turnAfter(observation: string, opts = OPTS) {
  const first = simAgentTurn(PLAN, head(), { taskId: 't', step: 0 }, opts);
  const call = first.tool_calls![0]!;
  const messages: ChatMessage[] = [
    ...head(),
    first,
    { role: 'tool', tool_call_id: call.id, content: observation },
  ];
  return simAgentTurn(PLAN, messages, { taskId: 't', step: 1 }, opts);
}

/** The answer after one listing; `opts` with refetchLimit 0: no re-fetch is left. */
function answerAfter(observation: string, opts = OPTS): unknown {
  const turn = turnAfter(observation, opts);
  expect(turn.tool_calls![0]!.function.name).toBe('complete_task');
  return JSON.parse(turn.tool_calls![0]!.function.arguments).answer;
}

function head(): ChatMessage[] {
  return [
    { role: 'system', content: 'You are an agent.' },
    { role: 'user', content: 'What is the name of the largest file in my /Photos/2024 folder?' },
  ];
}

describe('grounded choices of the sim agent', () => {
  it('chooses right when the compressor keeps the field the choice compares', () => {
    const kept = compressed('Keep what matters.\n\nKEEP: name, size_bytes, directory');
    expect(kept).toContain('size_bytes');
    expect(answerAfter(kept)).toBe('harbour.png');
  });

  it('chooses wrong when the compressor drops that field, though every name is still visible', () => {
    const dropped = compressed('Keep what matters.\n\nKEEP: name, directory\nDROP: size_bytes');
    expect(dropped).toContain('harbour.png');
    expect(dropped).not.toContain('size_bytes');
    // It re-lists the folder first; once no re-fetch is left, it cannot rank them and takes the
    // first it sees.
    expect(() => answerAfter(dropped)).toThrow();
    const answer = answerAfter(dropped, { ...OPTS, refetchLimit: 0 });
    expect(answer).not.toBe('harbour.png');
    expect(answer).toBe('beach.png');
  });

  it('ranks only the items that pass the filter, and over the raw observation gets it right', () => {
    expect(answerAfter(JSON.stringify(LISTING))).toBe('harbour.png');
    const noFilterField = compressed(
      'Keep what matters.\n\nKEEP: name, size_bytes\nDROP: directory',
    );
    // Without `directory` it cannot tell which files qualify, so it cannot rank them either.
    expect(answerAfter(noFilterField, { ...OPTS, refetchLimit: 0 })).toBe('beach.png');
  });

  it('filters on a field the task states a value of, so the compression analysis counts it as used', () => {
    const kept = compressed('Keep what matters.\n\nKEEP: name, size_bytes, directory');
    const turn = turnAfter(kept);
    expect(turn.content).toContain('where directory is /Photos/2024');
    const call = turn.tool_calls![0]!;
    const events = [
      '[event 1] obs compression at step 1, of the observation of step 0 (400 -> 200 tokens)',
      'INPUT:',
      JSON.stringify(LISTING),
      'KEPT:',
      kept,
      'NEXT TURNS:',
      `[step 1] THOUGHT ${turn.content ?? ''}`,
      `[step 1] ACTION ${call.function.name} ${call.function.arguments}`,
    ].join('\n');
    const analysis = simCompressionAnalysis(
      renderPrompt('analyzer-co.user.txt', { task: TASK, kind: 'obs', guideline: 'g', events }),
    );
    // `directory` is never copied into a call: only the filter uses it, and the task states it.
    expect(call.function.arguments).not.toContain('/Photos/2024');
    expect(analysis.needed_fields).toContain('directory');
    expect(analysis.unused_fields).not.toContain('directory');
    // The same reasoning with the task saying nothing of the folder: the reasoning does not count.
    const blind = simCompressionAnalysis(
      renderPrompt('analyzer-co.user.txt', { task: 't', kind: 'obs', guideline: 'g', events }),
    );
    expect(blind.unused_fields).toContain('directory');
  });

  it('re-lists the folder when nothing to choose from is left', () => {
    const first = simAgentTurn(PLAN, head(), { taskId: 't', step: 0 }, OPTS);
    const call = first.tool_calls![0]!;
    const messages: ChatMessage[] = [
      ...head(),
      first,
      { role: 'tool', tool_call_id: call.id, content: 'Previous 12 lines omitted for brevity.' },
    ];
    const turn = simAgentTurn(PLAN, messages, { taskId: 't', step: 1 }, OPTS);
    expect(turn.tool_calls![0]!.function.name).toBe('call_api');
    expect(turn.content).toContain('re-fetching it');
  });

  it('makes the value up, not reads it from its plan, when nothing is left and no re-fetch either', () => {
    const turn = turnAfter('Previous 12 lines omitted for brevity.', { ...OPTS, refetchLimit: 0 });
    const answer = JSON.parse(turn.tool_calls![0]!.function.arguments).answer;
    expect(turn.content).toContain('nothing to compute max size_bytes from; made up');
    expect(answer).not.toBe('harbour.png');
    expect(answer).toMatch(/^[a-z]{7}\.[a-z]{3}$/);
  });
});
