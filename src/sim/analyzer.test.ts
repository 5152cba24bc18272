import { describe, expect, it } from 'vitest';
import type { CompressionEvent } from '../domain/compression-event.js';
import type { Trajectory, Turn } from '../domain/trajectory.js';
import { parseJsonAnswer } from '../optimize/analysis.js';
import { CompressionAnalysisSchema } from '../domain/compression-analysis.js';
import { UtilityAnalysisSchema } from '../domain/utility-analysis.js';
import { renderCompressionEvents, renderTrajectory } from '../optimize/render-trajectory.js';
import { renderPrompt } from '../prompts/template.js';
import { simUtilityAnalysis } from './analyzer.js';
import { simCompressionAnalysis } from './compression-analysis.js';
import { utAnalyzerPrompt } from './sim.fixtures.js';

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
  return utAnalyzerPrompt(
    full.task,
    {
      full: renderTrajectory(full),
      compressed: renderTrajectory(compressed, [obsEvent(2), obsEvent(3)]),
    },
    { guideline: 'Keep what matters.' },
  );
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
      utAnalyzerPrompt(full.task, {
        full: renderTrajectory(full),
        compressed: renderTrajectory(distorted, [obsEvent(2)]),
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
      utAnalyzerPrompt(
        full.task,
        { full: renderTrajectory(full), compressed: renderTrajectory(full) },
        { kind: 'hist' },
      ),
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
      utAnalyzerPrompt(full.task, {
        full: renderTrajectory(longFull, [], { maxObservationChars: 500 }),
        compressed: renderTrajectory(longComp, events, { maxObservationChars: 500 }),
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

/** A copy of a trajectory with every reasoning text deleted (the agent's content on tool calls). */
function withoutReasoning(tr: Trajectory): Trajectory {
  return {
    ...tr,
    turns: tr.turns.map((turn) => ({ ...turn, assistant: { ...turn.assistant, content: '' } })),
  };
}

describe('simUtilityAnalysis compares trajectories, not reasoning (issue 61)', () => {
  const OWNER = 'ann.berg@example.org';
  const PLAYLISTS = JSON.stringify({
    items: [{ id: 48213, title: 'Road Trip', owner_email: OWNER }],
  });
  const KEPT = JSON.stringify({ items: [{ id: 48213, title: 'Road Trip' }] });
  const say = (turn: Turn, content: string): Turn => ({
    ...turn,
    assistant: { ...turn.assistant, content },
  });
  // Reasoning that names no field and no value: the analyzer must work from actions alone.
  const fullRun: Trajectory = {
    system: 'You are an agent.',
    task: 'Share my Road Trip playlist with its owner.',
    turns: [
      say(t(0, 'login', {}, JSON.stringify({ access_token: TOKEN })), 'Logging in.'),
      say(t(1, 'list', { access_token: TOKEN }, PLAYLISTS), 'Looking at the list.'),
      say(t(2, 'share', { access_token: TOKEN, playlist_id: 48213 }, '{"ok":true}'), 'Next.'),
      say(t(3, 'notify', { access_token: TOKEN, email: OWNER }, '{"ok":true}'), 'Next.'),
    ],
  };
  const compRun: Trajectory = {
    ...fullRun,
    turns: [
      fullRun.turns[0]!,
      fullRun.turns[1]!,
      say(t(2, 'show', { access_token: TOKEN, playlist_id: 48213 }, '{"id":48213}'), 'Next.'),
      say(t(3, 'notify', { access_token: TOKEN, email: 'owner@example.org' }, '{"e":1}'), 'Next.'),
    ],
  };
  const listEvent: CompressionEvent = { ...obsEvent(2), input: PLAYLISTS, output: KEPT };
  const prompt = (f: Trajectory, c: Trajectory) =>
    utAnalyzerPrompt(f.task, {
      full: renderTrajectory(f),
      compressed: renderTrajectory(c, [listEvent]),
    });

  it('finds a value the full run used after the divergence and the compressed context lacked', () => {
    const text = prompt(fullRun, compRun);
    expect(text).not.toMatch(/THOUGHT[^\n]*(owner_email|ann\.berg)/);
    const analysis = simUtilityAnalysis(text);
    expect(analysis.first_divergence.step).toBe(2);
    expect(analysis.missing_facts).toContainEqual({
      fact: `value ${OWNER} (passed as \`email\` at step 3) was not in the compressed run's context`,
      field: 'owner_email',
      source_step: 1,
    });
    expect(analysis.remediation).toContain('`owner_email`');
  });

  it('gives the same analysis when every reasoning text is deleted from both runs', () => {
    const pairs: [Trajectory, Trajectory, CompressionEvent[]][] = [
      [fullRun, compRun, [listEvent]],
      [full, compressed, [obsEvent(2), obsEvent(3)]],
    ];
    for (const [f, c, events] of pairs) {
      const render = (a: Trajectory, b: Trajectory) =>
        utAnalyzerPrompt(a.task, {
          full: renderTrajectory(a),
          compressed: renderTrajectory(b, events),
        });
      const stripped = render(withoutReasoning(f), withoutReasoning(c));
      expect(stripped).not.toContain('THOUGHT');
      expect(simUtilityAnalysis(stripped)).toEqual(simUtilityAnalysis(render(f, c)));
    }
  });

  it('does not blame the compressor for a value the compressed run never fetched', () => {
    // The full run fetched the owner's address only after the divergence, with a call the
    // compressed run never made: its lack follows from the divergence.
    const late: Trajectory = {
      ...fullRun,
      turns: [
        fullRun.turns[0]!,
        t(1, 'list', { access_token: TOKEN }, KEPT),
        t(2, 'owner', { access_token: TOKEN, playlist_id: 48213 }, PLAYLISTS),
        t(3, 'notify', { access_token: TOKEN, email: OWNER }, '{"ok":true}'),
      ],
    };
    const lateComp: Trajectory = {
      ...late,
      turns: [late.turns[0]!, late.turns[1]!, compRun.turns[2]!, compRun.turns[3]!],
    };
    const analysis = simUtilityAnalysis(prompt(late, lateComp));
    expect(analysis.first_divergence.step).toBe(2);
    expect(analysis.missing_facts.map((f) => f.field)).not.toContain('owner_email');
  });
});

describe('simUtilityAnalysis sees a list cut short (issue 61)', () => {
  const songs = (n: number) =>
    JSON.stringify({ songs: Array.from({ length: n }, (_, i) => ({ id: 70001 + i })) });
  const fullRun: Trajectory = {
    system: 'You are an agent.',
    task: 'Queue every song of my playlist.',
    turns: [
      t(0, 'show_playlist', { playlist_id: 48213 }, songs(3)),
      t(1, 'queue', { song_id: 70001 }, '{"ok":true}'),
      t(2, 'queue', { song_id: 70002 }, '{"ok":true}'),
      t(3, 'queue', { song_id: 70003 }, '{"ok":true}'),
    ],
  };
  const compRun: Trajectory = {
    ...fullRun,
    turns: [fullRun.turns[0]!, fullRun.turns[1]!, t(2, 'finish', {}, '{"ok":true}')],
  };
  const cut: CompressionEvent = { ...obsEvent(1), input: songs(3), output: songs(1) };

  it('names the lost items and the list they came from', () => {
    const analysis = simUtilityAnalysis(
      utAnalyzerPrompt(fullRun.task, {
        full: renderTrajectory(fullRun),
        compressed: renderTrajectory(compRun, [cut]),
      }),
    );
    expect(analysis.first_divergence.step).toBe(2);
    expect(analysis.missing_facts.map((f) => f.field)).toEqual(['id', 'items']);
    expect(analysis.missing_facts[1]!.fact).toContain('had 3 items in the full run and 1');
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
          task: 'Play the playlist.',
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
        task: 'Play the playlist.',
        kind: 'hist',
        guideline: 'g',
        events: renderCompressionEvents(full, [summary]),
      }),
    );
    expect(analysis.needed_fields).toEqual(['id']);
    expect(analysis.unused_fields).toEqual(['title', 'expires_in']);
  });

  it('never counts a field as used because the reasoning names it (issue 61)', () => {
    const kept = JSON.stringify({ items: [{ id: 48213, title: 'Road Trip' }] });
    const talky: Trajectory = {
      ...full,
      turns: full.turns.map((turn) => ({
        ...turn,
        assistant: { ...turn.assistant, content: 'The `title` is what I compared on.' },
      })),
    };
    const analyze = (tr: Trajectory) =>
      simCompressionAnalysis(
        renderPrompt('analyzer-co.user.txt', {
          task: 'Play the playlist.',
          kind: 'obs',
          guideline: 'g',
          events: renderCompressionEvents(tr, [{ ...obsEvent(2), output: kept }]),
        }),
      );
    expect(analyze(talky).unused_fields).toContain('title');
    expect(analyze(talky)).toEqual(analyze(withoutReasoning(talky)));
  });
});

describe('simUtilityAnalysis sees a page cut short when the prompt cuts the full one (issue #57)', () => {
  // A page longer than the analyzer prompt shows of it: the full run's items cannot be counted
  // there, but the compressed page holds fewer items than its own paging fields say.
  const song = (i: number) => ({ id: 70001 + i, title: `Song ${i}`, note: 'x'.repeat(80) });
  const page = (items: number) =>
    JSON.stringify({
      page_index: 0,
      page_limit: 20,
      total_items: 20,
      has_more: false,
      songs: Array.from({ length: items }, (_, i) => song(i)),
    });
  const fullRun: Trajectory = {
    system: 'You are an agent.',
    task: 'Queue the last song of my library.',
    turns: [
      t(0, 'show_library', { page_index: 0, page_limit: 20 }, page(20)),
      t(1, 'queue', { song_id: 70020 }, '{"ok":true}'),
    ],
  };
  const compRun: Trajectory = {
    ...fullRun,
    turns: [fullRun.turns[0]!, t(1, 'show_library', { page_index: 0, page_limit: 20 }, page(20))],
  };
  const analyze = (output: string) =>
    simUtilityAnalysis(
      utAnalyzerPrompt(fullRun.task, {
        full: renderTrajectory(fullRun, [], { maxObservationChars: 1000 }),
        compressed: renderTrajectory(compRun, [{ ...obsEvent(1), input: page(20), output }], {
          maxObservationChars: 1000,
        }),
      }),
    );

  it('names the lost items from the page the lost value came from', () => {
    const analysis = analyze(page(5));
    expect(analysis.first_divergence.step).toBe(1);
    expect(analysis.missing_facts.map((f) => f.field)).toEqual(['id', 'items']);
    expect(analysis.missing_facts[1]).toMatchObject({ source_step: 0 });
    expect(analysis.missing_facts[1]!.fact).toContain('showed 5 of the 20 items');
  });

  it('does not call a page whole by its paging fields cut', () => {
    // Every item kept, only the value's field dropped: a lost field, not lost items.
    const withoutIds = JSON.parse(page(20)) as { songs: Record<string, unknown>[] };
    for (const s of withoutIds.songs) delete s.id;
    const analysis = analyze(JSON.stringify(withoutIds));
    expect(analysis.missing_facts.map((f) => f.field)).toEqual(['id']);
  });
});
