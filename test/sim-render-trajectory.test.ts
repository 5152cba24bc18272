import { describe, expect, it } from 'vitest';
import type { CompressionEvent } from '../src/domain/compression-event.js';
import type { Trajectory, Turn } from '../src/domain/trajectory.js';
import { renderTurns } from '../src/compress/render-history.js';
import type { z } from 'zod';
import {
  CompressionAnalysisJsonSchema,
  GuidelineUpdateJsonSchema,
  parseJsonAnswer,
  UtilityAnalysisJsonSchema,
} from '../src/optimize/analysis.js';
import { CompressionAnalysisSchema } from '../src/domain/compression-analysis.js';
import { GuidelineUpdateSchema } from '../src/domain/guideline-update.js';
import { UtilityAnalysisSchema } from '../src/domain/utility-analysis.js';
import { renderCompressionEvents, renderTrajectory } from '../src/optimize/render-trajectory.js';
import { parseCompressionEvents, parseRenderedTrajectory } from '../src/sim/read-trajectory.js';

function turn(step: number, api: string, result: string): Turn {
  return {
    assistant: {
      role: 'assistant',
      content: `Step ${step + 1} of 4: calling app.${api}.`,
      tool_calls: [
        {
          id: `call_${step}`,
          type: 'function',
          function: { name: 'call_api', arguments: `{"app":"app","api":"${api}"}` },
        },
      ],
    },
    observations: [{ role: 'tool', tool_call_id: `call_${step}`, content: result }],
  };
}

const trajectory: Trajectory = {
  system: 's',
  task: 'Do it.',
  turns: [
    turn(0, 'login', '{"access_token":"tk_1"}'),
    turn(1, 'list', '{"items":[{"id":48213,"title":"A"}]}'),
    turn(2, 'show', '{"title":"A"}'),
    turn(3, 'done', 'ok'),
  ],
};

const events: CompressionEvent[] = [
  {
    kind: 'obs',
    step: 2,
    inputTokens: 20,
    outputTokens: 8,
    input: '{"items":[{"id":48213,"title":"A"}]}',
    output: '{"items":[{"title":"A"}]}',
    guidelineId: 'obs-0001',
    callId: 3,
    failed: false,
  },
  {
    kind: 'hist',
    step: 3,
    inputTokens: 60,
    outputTokens: 12,
    input: renderTurns(trajectory.turns.slice(0, 2), 1),
    output: 'COMPLETED:\n- Step 1 of 4: app.login\nFACTS:\n- title=A',
    guidelineId: 'hist-0001',
    callId: 4,
    failed: false,
  },
  {
    kind: 'obs',
    step: 3,
    inputTokens: 5,
    outputTokens: 5,
    input: '{"title":"A"}',
    output: '{"title":"A"}',
    guidelineId: 'obs-0001',
    callId: null,
    failed: true,
  },
];

describe('renderTrajectory', () => {
  it('shows each step as the agent saw it', () => {
    expect(renderTrajectory(trajectory, events)).toMatchInlineSnapshot(`
      "[step 0] THOUGHT Step 1 of 4: calling app.login.
      [step 0] ACTION call_api {"app":"app","api":"login"}
      [step 0] OBSERVATION
      {"access_token":"tk_1"}
      [step 1] THOUGHT Step 2 of 4: calling app.list.
      [step 1] ACTION call_api {"app":"app","api":"list"}
      [step 1] OBSERVATION (compressed by the obs compressor: 20 -> 8 tokens)
      {"items":[{"title":"A"}]}
      [step 2] THOUGHT Step 3 of 4: calling app.show.
      [step 2] ACTION call_api {"app":"app","api":"show"}
      [step 2] OBSERVATION
      {"title":"A"}
      [step 3] HISTORY SUMMARY replacing steps 0-1 (hist compressor: 60 -> 12 tokens)
      COMPLETED:
      - Step 1 of 4: app.login
      FACTS:
      - title=A
      [step 3] THOUGHT Step 4 of 4: calling app.done.
      [step 3] ACTION call_api {"app":"app","api":"done"}
      [step 3] OBSERVATION
      ok"
    `);
  });

  it('reads back what it wrote', () => {
    const blocks = parseRenderedTrajectory(renderTrajectory(trajectory, events));
    expect(blocks.map((b) => `${b.step} ${b.label}`)).toEqual([
      '0 THOUGHT',
      '0 ACTION',
      '0 OBSERVATION',
      '1 THOUGHT',
      '1 ACTION',
      '1 OBSERVATION',
      '2 THOUGHT',
      '2 ACTION',
      '2 OBSERVATION',
      '3 HISTORY SUMMARY',
      '3 THOUGHT',
      '3 ACTION',
      '3 OBSERVATION',
    ]);
    expect(blocks[5]!.body).toBe('{"items":[{"title":"A"}]}');
    expect(blocks[9]).toMatchObject({ through: 1, body: expect.stringContaining('title=A') });
  });

  it('is the same text every time and cuts long observations on request', () => {
    expect(renderTrajectory(trajectory, events)).toBe(renderTrajectory(trajectory, events));
    const cut = renderTrajectory(trajectory, [], { maxObservationChars: 10 });
    expect(cut).toContain('{"access_t\n… (13 more characters not shown)');
  });

  it("keeps, from the cut part of an observation, where later actions' values occur", () => {
    const items = Array.from({ length: 40 }, (_, i) => ({ id: 70000 + i, title: `Song ${i}` }));
    const long: Trajectory = {
      ...trajectory,
      turns: [
        turn(0, 'list', JSON.stringify({ items })),
        {
          ...turn(1, 'show', '{}'),
          assistant: {
            role: 'assistant',
            content: null,
            tool_calls: [
              {
                id: 'c',
                type: 'function',
                function: { name: 'call_api', arguments: '{"api":"show","args":{"id":70033}}' },
              },
            ],
          },
        },
      ],
    };
    const text = renderTrajectory(long, [], { maxObservationChars: 200 });
    expect(text).toContain("where later actions' values occur in them:)");
    expect(text).toMatch(/…[^\n]*"id":70033,"title":"Song 33"[^\n]*…/);
    expect(text).not.toContain('"id":70020');
  });
});

describe('renderCompressionEvents', () => {
  it("lists per event the compressor's input, what it kept and the agent's next turns, and reads back", () => {
    const text = renderCompressionEvents(trajectory, events, { maxNextTurns: 1 });
    expect(text).toMatchInlineSnapshot(`
      "[event 1] obs compression at step 2, of the observation of step 1 (20 -> 8 tokens)
      INPUT:
      {"items":[{"id":48213,"title":"A"}]}
      KEPT:
      {"items":[{"title":"A"}]}
      NEXT TURNS:
      [step 2] THOUGHT Step 3 of 4: calling app.show.
      [step 2] ACTION call_api {"app":"app","api":"show"}

      [event 2] hist compression at step 3, replacing steps 0-1 (60 -> 12 tokens)
      INPUT:
      [Turn 1]
      Assistant: Step 1 of 4: calling app.login.
      Action: call_api({"app":"app","api":"login"})
      Observation (call_api): {"access_token":"tk_1"}

      [Turn 2]
      Assistant: Step 2 of 4: calling app.list.
      Action: call_api({"app":"app","api":"list"})
      Observation (call_api): {"items":[{"id":48213,"title":"A"}]}
      KEPT:
      COMPLETED:
      - Step 1 of 4: app.login
      FACTS:
      - title=A
      NEXT TURNS:
      [step 3] THOUGHT Step 4 of 4: calling app.done.
      [step 3] ACTION call_api {"app":"app","api":"done"}"
    `);
    const parsed = parseCompressionEvents(text);
    expect(parsed.map((e) => [e.kind, e.step, e.source, e.actions.length])).toEqual([
      ['obs', 2, 1, 1],
      ['hist', 3, 1, 1],
    ]);
    expect(parsed[1]!.kept).toBe('COMPLETED:\n- Step 1 of 4: app.login\nFACTS:\n- title=A');
    expect(parsed[0]!.thoughts).toEqual([{ step: 2, text: 'Step 3 of 4: calling app.show.' }]);
  });

  it("shows the agent's turns after an event up to the next event, reasoning included", () => {
    const text = renderCompressionEvents(trajectory, events);
    const [first, second] = parseCompressionEvents(text);
    // Event 1 shaped step 2; event 2 comes at step 3, so event 1's turns are step 2 only.
    expect(first!.thoughts.map((t) => t.step)).toEqual([2]);
    expect(first!.actions.map((a) => a.step)).toEqual([2]);
    expect(second!.thoughts.map((t) => t.step)).toEqual([3]);
  });

  it('filters by compressor kind', () => {
    expect(
      parseCompressionEvents(renderCompressionEvents(trajectory, events, { kind: 'obs' })),
    ).toHaveLength(1);
    expect(renderCompressionEvents(trajectory, [], {})).toBe('(no compression events)');
  });
});

describe('analysis JSON schemas', () => {
  it.each([
    ['utility', UtilityAnalysisSchema, UtilityAnalysisJsonSchema],
    ['compression', CompressionAnalysisSchema, CompressionAnalysisJsonSchema],
    ['update', GuidelineUpdateSchema, GuidelineUpdateJsonSchema],
  ] as const)('%s: the JSON Schema names exactly the zod fields, all required', (_n, zod, json) => {
    const keys = Object.keys((zod as z.ZodObject).shape).sort();
    expect(Object.keys(json.properties as object).sort()).toEqual(keys);
    expect([...(json.required as string[])].sort()).toEqual(keys);
    expect(json.additionalProperties).toBe(false);
  });

  it('parses fenced or wrapped JSON and explains what is wrong', () => {
    const good = { guideline: 'KEEP: id', rationale: 'r' };
    expect(
      parseJsonAnswer('```json\n' + JSON.stringify(good) + '\n```', GuidelineUpdateSchema),
    ).toEqual({
      ok: true,
      value: good,
    });
    expect(parseJsonAnswer(`Here it is: ${JSON.stringify(good)}`, GuidelineUpdateSchema).ok).toBe(
      true,
    );
    expect(parseJsonAnswer('{"guideline": ""}', GuidelineUpdateSchema)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/^guideline: /),
    });
    expect(parseJsonAnswer('not json', GuidelineUpdateSchema)).toMatchObject({ ok: false });
    expect(parseJsonAnswer(null, GuidelineUpdateSchema)).toEqual({
      ok: false,
      reason: 'the answer is empty',
    });
  });
});
