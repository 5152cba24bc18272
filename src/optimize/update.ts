import { validateGuidelineText, type GuidelineKind } from '../guidelines/index.js';
import type { CallContext, LlmClient } from '../llm/index.js';
import { renderPrompt } from '../prompts/index.js';
import { GUIDELINE_UPDATE_FORMAT } from './analysis.js';
import { GuidelineUpdateSchema } from '../domain/index.js';
import { askJson } from './ask-json.js';

export type CandidateProposal =
  | { index: number; ok: true; text: string; rationale: string }
  | { index: number; ok: false; reason: string; text: string };

/**
 * One updater call per sample of analyses (K samples: K candidates), each sent with its index as
 * seed, so no candidate is a cache hit of another. Each generated guideline is validated before
 * use (non-empty, length, no template holes, heading kept).
 */
export async function proposeCandidates(input: {
  llm: LlmClient;
  ctx: Omit<CallContext, 'role'>;
  phase: 'ut' | 'co';
  kind: GuidelineKind;
  guideline: string;
  /** One sample of analyses per candidate. */
  samples: unknown[][];
  maxRetries: number;
  /** The prompt pair's name (`updater-trace-ut` learns from replays). @default updater-<phase> */
  prompt?: string;
}): Promise<CandidateProposal[]> {
  const prompt = input.prompt ?? (input.phase === 'ut' ? 'updater-ut' : 'updater-co');
  return Promise.all(
    input.samples.map(async (sample, index): Promise<CandidateProposal> => {
      const vars = {
        kind: input.kind,
        guideline: input.guideline,
        analyses: JSON.stringify(sample, null, 1),
        candidate: String(index + 1),
      };
      const answer = await askJson(
        input.llm,
        { ...input.ctx, role: 'updater' },
        [
          { role: 'system', content: renderPrompt(`${prompt}.system.txt`, vars) },
          { role: 'user', content: renderPrompt(`${prompt}.user.txt`, vars) },
        ],
        GUIDELINE_UPDATE_FORMAT,
        GuidelineUpdateSchema,
        input.maxRetries,
        index,
      );
      if (!answer.ok) {
        return { index, ok: false, reason: `malformed updater answer: ${answer.reason}`, text: '' };
      }
      const check = validateGuidelineText(answer.value.guideline, input.kind);
      if (!check.ok) {
        const reason = `invalid guideline: ${check.reason}`;
        return { index, ok: false, reason, text: answer.value.guideline };
      }
      return {
        index,
        ok: true,
        text: answer.value.guideline.trim(),
        rationale: answer.value.rationale,
      };
    }),
  );
}

/**
 * A proposal that repeats its parent's text, or an earlier proposal's, is no new candidate:
 * evaluating it would measure the same guideline again (with a real model: pay for it again, and
 * let noise choose among copies). It stays out of the evaluation, with the reason, and gets no
 * file. Texts are compared with their whitespace collapsed: a re-wrapped line changes nothing.
 */
export function withoutRepeats(
  proposals: readonly CandidateProposal[],
  parent: { id: string; text: string },
): CandidateProposal[] {
  const norm = (text: string) => text.replace(/\s+/g, ' ').trim();
  const seen = new Map<string, number>();
  return proposals.map((p) => {
    if (!p.ok) return p;
    const text = norm(p.text);
    const earlier = seen.get(text);
    if (text === norm(parent.text)) {
      const reason = `unchanged: the same text as its parent ${parent.id}; not evaluated`;
      return { index: p.index, ok: false, reason, text: '' };
    }
    if (earlier !== undefined) {
      const reason = `the same text as candidate ${earlier + 1}; not evaluated`;
      return { index: p.index, ok: false, reason, text: '' };
    }
    seen.set(text, p.index);
    return p;
  });
}
