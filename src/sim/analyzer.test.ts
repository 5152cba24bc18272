import { describe, expect, it } from 'vitest';
import type { CompressionEvent } from '../domain/compression-event.js';
import type { Trajectory, Turn } from '../domain/trajectory.js';
import { parseJsonAnswer } from '../optimize/analysis.js';
import { CompressionAnalysisSchema } from '../domain/compression-analysis.js';
import { UtilityAnalysisSchema } from '../domain/utility-analysis.js';
import { renderCompressionEvents, renderTrajectory } from '../optimize/render-trajectory.js';
import { renderPrompt } from '../prompts/template.js';
import { simCompressionAnalysis, simUtilityAnalysis } from './analyzer.js';

/** The pair description of a utility-analyzer prompt (the sim reads only the trajectories). */
const PAIR_VARS = {
  pair_kind: 'failure',
  full_outcome: 'succeeded in 4 steps',
  compressed_outcome: 'failed in 5 steps',
  step_ratio: '1.25',
  compressed_evaluation: '- [FAIL] answer: expected "3", got "4"',
};

function t(step: number, api: string, args: Record<string, unknown>, result: string): Turn {
  return {
    assistant: {
      role: 'assistant',
      content: `Step ${step + 1}: calling music.${api}.`,
      tool_calls: [
        {
          id: `call_${step}`,
          type: 'function',
          function: { name: 'call_api', arguments: JSON.stringify({ app: 'music', api, args }) },
        },
      ],
    },
    observations: [{ role: 'tool', tool_call_id: `call_${step}`, content: result }],
  };
}

const TOKEN = 'tk_9f8e7d6c5b4a39281706f5e4d3';
const LIST = JSON.stringify({
  items: [{ id: 48213, title: 'Road Trip', description: 'x'.repeat(50) }],
});
const LIST_COMPRESSED = JSON.stringify({
  items: [{ title: 'Road Trip', description: 'x'.repeat(50) }],
});

const full: Trajectory = {
  system: 'You are an agent.',
  task: 'Play my Road Trip playlist.',
  turns: [
    t(0, 'login', {}, JSON.stringify({ access_token: TOKEN })),
    t(1, 'list', { access_token: TOKEN }, LIST),
    t(2, 'play', { access_token: TOKEN, playlist_id: 48213 }, '{"ok":true}'),
  ],
};
const compressed: Trajectory = {
  ...full,
  turns: [
    full.turns[0]!,
    full.turns[1]!,
    t(2, 'list', { access_token: TOKEN }, LIST),
    t(3, 'play', { access_token: TOKEN, playlist_id: 48217 }, '{"error":"not found"}'),
  ],
};
const obsEvent = (step: number): CompressionEvent => ({
  kind: 'obs',
  step,
  inputTokens: 300,
  outputTokens: 120,
  input: LIST,
  output: LIST_COMPRESSED,
  guidelineId: 'obs-0000',
  callId: null,
  failed: false,
});

function utPrompt(): string {
  return renderPrompt('analyzer-ut.user.txt', {
    task: full.task,
    kind: 'obs',
    guideline: 'Keep what matters.',
    ...PAIR_VARS,
    full_trajectory: renderTrajectory(full),
    compressed_trajectory: renderTrajectory(compressed, [obsEvent(2), obsEvent(3)]),
  });
}

describe('simUtilityAnalysis', () => {
  it('names the missing fact at the first divergence, in the analyzer schema', () => {
    const answer = JSON.stringify(simUtilityAnalysis(utPrompt()));
    const parsed = parseJsonAnswer(answer, UtilityAnalysisSchema);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.value.first_divergence.step).toBe(2);
    expect(parsed.value.first_divergence.description).toContain('music.play');
    expect(parsed.value.first_divergence.description).toContain('repeating the call of step 1');
    expect(parsed.value.missing_facts).toEqual([
      { fact: 'value 48213 (passed as `playlist_id` at step 2)', field: 'id', source_step: 1 },
    ]);
    expect(parsed.value.remediation).toContain('Keep `id` verbatim');
  });

  it('reports a distorted value when both runs make the same call with different arguments', () => {
    const distorted: Trajectory = {
      ...full,
      turns: [full.turns[0]!, full.turns[1]!, compressed.turns[3]!],
    };
    const analysis = simUtilityAnalysis(
      renderPrompt('analyzer-ut.user.txt', {
        task: full.task,
        kind: 'obs',
        guideline: 'g',
        ...PAIR_VARS,
        full_trajectory: renderTrajectory(full),
        compressed_trajectory: renderTrajectory(distorted, [obsEvent(2)]),
      }),
    );
    expect(analysis.distorted_facts).toEqual([
      {
        fact: '`playlist_id` should be 48213',
        field: 'id',
        source_step: 1,
        seen_as: '48217',
      },
    ]);
  });

  it('says so when the runs never diverge', () => {
    const analysis = simUtilityAnalysis(
      renderPrompt('analyzer-ut.user.txt', {
        task: full.task,
        kind: 'hist',
        guideline: 'g',
        ...PAIR_VARS,
        full_trajectory: renderTrajectory(full),
        compressed_trajectory: renderTrajectory(full),
      }),
    );
    expect(analysis.first_divergence.step).toBeNull();
    expect(analysis.missing_facts).toEqual([]);
  });

  it('still finds the field when the analyzer prompt cuts long observations', () => {
    const filler = Array.from({ length: 60 }, (_, i) => ({ id: 50000 + i, title: `Song ${i}` }));
    const long = JSON.stringify({ items: [...filler, { id: 48213, title: 'Road Trip' }] }, null, 2);
    const longFull: Trajectory = {
      ...full,
      turns: [full.turns[0]!, t(1, 'list', { access_token: TOKEN }, long), full.turns[2]!],
    };
    const longComp: Trajectory = {
      ...compressed,
      turns: [compressed.turns[0]!, longFull.turns[1]!, ...compressed.turns.slice(2)],
    };
    const events = [{ ...obsEvent(2), input: long }];
    const analysis = simUtilityAnalysis(
      renderPrompt('analyzer-ut.user.txt', {
        task: full.task,
        kind: 'obs',
        guideline: 'g',
        ...PAIR_VARS,
        full_trajectory: renderTrajectory(longFull, [], { maxObservationChars: 500 }),
        compressed_trajectory: renderTrajectory(longComp, events, { maxObservationChars: 500 }),
      }),
    );
    expect(analysis.missing_facts).toEqual([
      { fact: 'value 48213 (passed as `playlist_id` at step 2)', field: 'id', source_step: 1 },
    ]);
  });

  it('is deterministic', () => {
    expect(simUtilityAnalysis(utPrompt())).toEqual(simUtilityAnalysis(utPrompt()));
  });
});

describe('simCompressionAnalysis', () => {
  it('lists kept fields no later action used, and those it did use', () => {
    const kept = JSON.stringify({
      items: [{ id: 48213, title: 'Road Trip', description: 'y'.repeat(50) }],
    });
    const events = renderCompressionEvents(full, [{ ...obsEvent(2), output: kept }]);
    const answer = JSON.stringify(
      simCompressionAnalysis(
        renderPrompt('analyzer-co.user.txt', {
          task: full.task,
          kind: 'obs',
          guideline: 'g',
          events,
        }),
      ),
    );
    const parsed = parseJsonAnswer(answer, CompressionAnalysisSchema);
    expect(parsed.ok && parsed.value).toMatchObject({
      unused_fields: ['title', 'description'],
      needed_fields: ['id'],
    });
    expect(parsed.ok && parsed.value.unused_content[0]).toContain('description');
  });

  it('reads fields of history summaries (key=value lines)', () => {
    const summary: CompressionEvent = {
      ...obsEvent(2),
      kind: 'hist',
      input: '[Turn 1]\n…\n\n[Turn 2]\n…',
      output:
        'COMPLETED:\n- Step 1 of 3: music.login\nFACTS:\n- id=48213 | title=Road Trip\n- expires_in=3600',
    };
    const analysis = simCompressionAnalysis(
      renderPrompt('analyzer-co.user.txt', {
        task: full.task,
        kind: 'hist',
        guideline: 'g',
        events: renderCompressionEvents(full, [summary]),
      }),
    );
    expect(analysis.needed_fields).toEqual(['id']);
    expect(analysis.unused_fields).toEqual(['title', 'expires_in']);
  });
});
