import type { ChatMessage } from '../llm/index.js';
import { renderPrompt } from '../prompts/index.js';

/* Test fixtures (not built into dist) shared by the tests of the simulated provider. */

/** The pair description of a utility-analyzer prompt (the sim reads only the trajectories). */
export const PAIR_VARS = {
  pair_kind: 'failure',
  full_outcome: 'succeeded in 4 steps',
  compressed_outcome: 'failed in 5 steps',
  step_ratio: '1.25',
  compressed_evaluation: '- [FAIL] answer: expected "3", got "4"',
};

/**
 * What the history compressor writes of `{id: 5, title, songs: [{id: 70, album: {…}}, …]}`: the
 * playlist itself, each song at its place in `songs`, each song's album inside it. The
 * compressor's tests expect it written so, the agent's read it.
 */
export const PLAYLIST_FACTS = [
  '[music.show]',
  '- id=5 | title=Road Trip',
  '- songs[0]: id=70 | title=Intro',
  '- songs[0].album: id=900 | title=First Light',
  '- songs[1]: id=71 | title=Outro',
  '- songs[1].album: id=901 | title=Last Light',
];

/**
 * The utility analyzer's user prompt for a pair of rendered trajectories, with PAIR_VARS: what the
 * simulated analyzer reads.
 */
export function utAnalyzerPrompt(
  task: string,
  trajectories: { full: string; compressed: string },
  opts: { kind?: 'obs' | 'hist'; guideline?: string } = {},
): string {
  return renderPrompt('analyzer-ut.user.txt', {
    task,
    kind: opts.kind ?? 'obs',
    guideline: opts.guideline ?? 'g',
    ...PAIR_VARS,
    full_trajectory: trajectories.full,
    compressed_trajectory: trajectories.compressed,
  });
}

/** The agent's `call_api` tool call `id` with `args`, said as `content` ("Step 2 of 3: …"). */
export function apiCallMessage(id: string, content: string, args: unknown): ChatMessage {
  return {
    role: 'assistant',
    content,
    tool_calls: [
      { id, type: 'function', function: { name: 'call_api', arguments: JSON.stringify(args) } },
    ],
  };
}
