import { decideBranch, type Item, type ReferenceNeed, type ReferencePlan } from '../bench/index.js';
import { viewChoice } from './choice-view.js';
import { pageRead } from './page-reads.js';
import { resolveNeed, type Blocker } from './reference-needs.js';
import type { Seen } from './seen.js';
import { containsToken } from './text.js';
import { replaceValue } from './wrong-values.js';

/** The API documentation step a call relies on, when the plan reads it before. */
function docStep(plan: ReferencePlan, index: number): number | undefined {
  const step = plan.steps[index];
  if (step === undefined || step.tool !== 'call_api') return undefined;
  const { app, api } = step.args as { app?: unknown; api?: unknown };
  if (app === 'api_docs' || app === 'supervisor' || api === 'login') return undefined;
  for (let i = index - 1; i >= 0; i--) {
    const s = plan.steps[i]!;
    const a = s.args as { app?: unknown; api?: unknown; args?: Record<string, unknown> };
    if (
      a.app === 'api_docs' &&
      a.api === 'show_api_doc' &&
      a.args?.app_name === app &&
      a.args?.api_name === api
    ) {
      return i;
    }
  }
  return undefined;
}

/**
 * Whether the agent can see how to call `app.api`: its documentation, an earlier call of it of
 * its own, or a summary that names it.
 */
function knowsApi(seen: Seen, app: string, api: string): boolean {
  for (const r of seen.records()) {
    if (r.source.kind === 'observation' && r.source.call === 'api_docs.show_api_doc') {
      if (r.source.args.app_name === app && r.source.args.api_name === api) return true;
    }
  }
  if (seen.actions().some((a) => a.call === `${app}.${api}`)) return true;
  // A documentation result too short to hold a record (compressed to prose) still counts.
  for (const m of seen.messages) {
    if (m.role === 'tool' && /"?api_name"?\s*[:=]\s*"?/.test(m.content) && m.content.includes(api))
      return true;
  }
  return containsToken(seen.userText(), `${app}.${api}`) || containsToken(seen.userText(), api);
}

export type StepView = {
  args: Record<string, unknown>;
  notes: string[];
  blockers: Blocker[];
  /**
   * The agent has nothing to do at this step, as far as it can see (the list ended before this
   * page, no item of a listing is left to handle): it goes on at plan step `to`.
   */
  skip?: { why: string; to: number };
};

/**
 * The step's arguments as the agent can fill them from what it sees, the notes its reasoning
 * gives, and what blocks it (missing or unidentifiable values, a decision field it cannot see, a
 * choice with nothing to choose from, the documentation of an API it cannot see).
 */
export function viewStep(
  plan: ReferencePlan,
  index: number,
  seen: Seen,
  guess: (need: ReferenceNeed) => string,
  coin: () => boolean,
): StepView {
  const step = plan.steps[index]!;
  let args = step.args;
  const notes: string[] = [];
  const blockers: Blocker[] = [];
  const records = new Map<string, Item>();
  let skip: StepView['skip'];
  for (const need of step.needs) {
    if (need.fromStep < 0 || need.fromStep >= index) continue;
    const r = resolveNeed(plan, need, seen);
    let value: string;
    if (r.kind === 'unseen') {
      skip ??= { why: r.why, to: index + 1 };
      value = need.value;
    } else if (r.kind === 'missing') {
      blockers.push({ fromStep: need.fromStep, why: r.why });
      value = guess(need);
    } else {
      if (r.kind === 'unsure') blockers.push({ fromStep: need.fromStep, why: r.why });
      if (need.arg !== undefined) records.set(need.arg, r.record);
      if (r.kind === 'unsure' || need.select?.kind === 'match') notes.push(r.why);
      value = r.value;
    }
    if (value !== need.value) args = replaceValue(args, need.value, value);
  }
  for (const choice of step.choices ?? []) {
    const got = viewChoice(plan, index, choice, seen, guess);
    blockers.push(...got.blockers);
    notes.push(got.note);
    if (got.value !== choice.value) args = replaceValue(args, choice.value, got.value);
  }
  const paging = pageRead(plan, index, seen);
  if (paging.read && paging.note !== undefined) notes.push(paging.note);
  if (!paging.read) skip ??= { why: paging.why, to: paging.to };
  const d = step.decision;
  if (d !== undefined) {
    const record = records.get(d.arg);
    const text = record?.[d.field];
    let branch = text === undefined ? undefined : decideBranch(d, text);
    if (branch !== undefined) {
      notes.push(`${d.field}=${text}, so ${branch}`);
    } else {
      const need = step.needs.find((n) => n.arg === d.arg);
      if (need)
        blockers.push({
          fromStep: need.fromStep,
          why: `the \`${d.field}\` of that item is not in my context`,
        });
      branch = coin() ? d.then : d.else;
      notes.push(`\`${d.field}\` not in my context; chose ${branch}`);
    }
    if (step.tool === 'call_api') args = { ...args, api: branch };
  }
  const doc = docStep(plan, index);
  if (doc !== undefined) {
    const { app, api } = args as { app: string; api: string };
    const docArgs = (plan.steps[doc]!.args as { args?: Record<string, unknown> }).args;
    if (docArgs?.api_name === api && !knowsApi(seen, app, api)) {
      blockers.push({ fromStep: doc, why: `how to call ${app}.${api} is not in my context` });
    }
  }
  return { args, notes, blockers, ...(skip ? { skip } : {}) };
}
