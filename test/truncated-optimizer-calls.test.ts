import { describe, expect, it } from 'vitest';
import { analyzeSuccessfulRun } from '../src/optimize/analyze.js';
import { proposeCandidates } from '../src/optimize/update.js';
import { cut, ScriptedLlm, toolTurn } from './fakes/scripted-llm.js';

/**
 * Issue #54: an analyzer or updater answer cut by the provider (`finish_reason` length or
 * content_filter) is a failed attempt even when what arrived parses: it is asked again, and once
 * the retries are spent it is a failed analysis or candidate with the reason, never a result.
 */
const ctx = { runId: 'run-1' };
const WHOLE_UPDATE = JSON.stringify({ guideline: 'Keep every id and amount.', rationale: 'r' });
const WHOLE_ANALYSIS = JSON.stringify({
  unused_fields: ['created_at'],
  unused_content: [],
  needed_fields: ['id'],
  remediation: 'Drop timestamps.',
});

function propose(llm: ScriptedLlm, maxRetries: number) {
  return proposeCandidates({
    llm,
    ctx,
    phase: 'ut',
    kind: 'obs',
    guideline: 'Keep every id.',
    samples: [[{ note: 'ids were lost' }]],
    maxRetries,
  });
}

function analyze(llm: ScriptedLlm, maxRetries: number) {
  return analyzeSuccessfulRun({
    llm,
    ctx,
    kind: 'obs',
    guideline: 'Keep every id.',
    maxRetries,
    taskId: 't-1',
    source: { rolloutId: 'ro-1', fullRolloutId: null, split: 'train', kind: 'success' },
    trajectory: { system: 'sys', task: 'Find the value.', turns: [toolTurn(1, 'value 7')] },
    events: [],
  });
}

describe('an updater answer cut by the provider', () => {
  it('is asked again, with the reason, and the whole answer that follows is the candidate', async () => {
    const llm = new ScriptedLlm({ updater: [cut(WHOLE_UPDATE), WHOLE_UPDATE] });
    const [proposal] = await propose(llm, 1);
    expect(proposal).toMatchObject({ ok: true, text: 'Keep every id and amount.' });
    const calls = llm.callsOf('updater');
    expect(calls).toHaveLength(2);
    expect(calls[1]!.req.messages.at(-1)!.content).toContain(
      'cannot be used: the answer was cut off at the token limit (finish_reason: length)',
    );
  });

  it('is a failed candidate with the reason once the retries are spent', async () => {
    const llm = new ScriptedLlm({ updater: () => cut(WHOLE_UPDATE, 'content_filter') });
    const [proposal] = await propose(llm, 1);
    expect(proposal).toEqual({
      index: 0,
      ok: false,
      reason:
        "malformed updater answer: the answer was stopped by the provider's content filter (finish_reason: content_filter)",
      text: '',
    });
    expect(llm.callsOf('updater')).toHaveLength(2);
  });
});

describe('an analyzer answer cut by the provider', () => {
  it('is asked again, and the whole answer that follows is the analysis', async () => {
    const llm = new ScriptedLlm({ analyzer: [cut(WHOLE_ANALYSIS), WHOLE_ANALYSIS] });
    const record = await analyze(llm, 2);
    expect(record).toMatchObject({
      ok: true,
      analysis: { needed_fields: ['id'] },
      callIds: [1, 2],
    });
  });

  it('is a failed analysis with the reason and every call once the retries are spent', async () => {
    const llm = new ScriptedLlm({ analyzer: () => cut(WHOLE_ANALYSIS) });
    const record = await analyze(llm, 2);
    expect(record).toEqual({
      taskId: 't-1',
      source: { rolloutId: 'ro-1', fullRolloutId: null, split: 'train', kind: 'success' },
      ok: false,
      reason: 'the answer was cut off at the token limit (finish_reason: length)',
      callIds: [1, 2, 3],
    });
  });
});
