import type { GuidelineText } from '../domain/index.js';
import { renderPrompt } from '../prompts/index.js';
import { REFINED_OBSERVATION } from './parse.js';
import { runCompressor, type CompressorDeps, type CompressorOutcome } from './run-compressor.js';

export type ObservationInput = {
  task: string;
  /**
   * The current session as the agent sees it (render-history.ts: the summary, then its turns),
   * ending with the action that produced the observation; the reference passes the session.
   */
  session: string;
  observation: string;
  guideline: GuidelineText;
  step: number;
  /** @default 'obs' ('reactive' when forced by a context-length error) */
  kind?: 'obs' | 'reactive';
};

/**
 * ACON's observation compressor o'_t = f(o_t, h_{t-1}; P_obs) (seed 003): the guideline goes
 * into the system prompt, the task, the current session and the raw observation into the user prompt;
 * the answer is the text under `# Refined Observation`.
 */
export function compressObservation(
  input: ObservationInput,
  deps: CompressorDeps,
): Promise<CompressorOutcome> {
  return runCompressor(
    {
      kind: input.kind ?? 'obs',
      role: 'obs_compressor',
      heading: REFINED_OBSERVATION,
      system: renderPrompt('obs-compressor.system.txt', { guideline: input.guideline.text }),
      user: renderPrompt('obs-compressor.user.txt', {
        task: input.task,
        session: input.session === '' ? '(none)' : input.session,
        observation: input.observation,
      }),
      original: input.observation,
      guidelineId: input.guideline.id,
      step: input.step,
    },
    deps,
  );
}
