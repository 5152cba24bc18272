import type { ReferenceNeed, ReferencePlan } from '../bench/index.js';
import { seededRandom } from '../seeded-random.js';
import type { AssistantMessage, ChatMessage } from '../llm/index.js';
import { GUESSING, progress, REFETCHING, type Progress } from './agent-marker.js';
import type { Blocker } from './reference-needs.js';
import { RecordReader } from './record-reader.js';
import { ownCallInView } from './repeat-call.js';
import { makeSeen, type Seen } from './seen.js';
import { viewStep, type StepView } from './step-view.js';
import { clip } from './text.js';
import { guessValue, slip } from './wrong-values.js';

export { parseAgentMarker, type AgentMarker } from './agent-marker.js';
export { isErrorResult } from './error-reply.js';
export { corrupt, replaceValue } from './wrong-values.js';

/**
 * The simulated agent (ARCHITECTURE §6, issues 5 and 13): it follows the task's reference plan.
 * Before a step it checks that every fact the step copies from an earlier result appears
 * verbatim in the messages it was sent; a missing fact makes it re-issue the call that produced
 * it, and after `refetchLimit` failed re-fetches it guesses (a corrupted value) and the task
 * fails. A value the step computes from data (a declared choice: the largest file, a sum) is
 * computed from the items it can see, so a dropped field or a lost page makes it wrong; when no
 * item is left at all it re-fetches the list first. A seeded slip per task and plan step (the
 * same under every condition) makes one argument wrong: the same field's value in another visible
 * record of the same kind where there is one, else a mistyped value.
 *
 * The agent is a pure function of the request. Its progress through the plan is read back from
 * its own earlier reasoning, which is part of the messages (`Step 4 of 9: …`), so the same
 * request always gets the same answer: replays, reactive-compression retries and resumed
 * rollouts behave exactly like the first run, and no per-rollout state has to be kept or freed.
 */
export type SimAgentOptions = {
  seed: number;
  /** Failed re-fetches of a missing fact before guessing it (config `sim.refetch_limit`). */
  refetchLimit: number;
  /** Probability that a step is slipped: one argument is wrong (config `sim.noise`). */
  noise: number;
  /**
   * The request's sampling seed (a repeat of a selection task, optimize `--repeats`): its slips
   * and coin flips are drawn anew, as a real model samples anew under another seed; without one
   * the draws are the task's own, the same under every condition.
   */
  sampleSeed?: number;
};

export type SimAgentContext = { taskId: string; step: number };

/**
 * The next assistant message of a simulated rollout. `reader` remembers the records of earlier
 * prompts (the provider's own); a fresh one gives the same answer, only slower.
 */
export function simAgentTurn(
  plan: ReferencePlan,
  messages: readonly ChatMessage[],
  ctx: SimAgentContext,
  opts: SimAgentOptions,
  reader: RecordReader = new RecordReader(),
): AssistantMessage {
  const n = plan.steps.length;
  const seen = makeSeen(messages, reader);
  const guess = (need: ReferenceNeed) => guessValue(need, opts.seed, ctx.taskId);
  const sample = opts.sampleSeed === undefined ? [] : ['sample', opts.sampleSeed];
  const views = new Map<number, StepView>();
  const view = (index: number): StepView => {
    let v = views.get(index);
    if (!v) {
      const coin = () => seededRandom(opts.seed, ctx.taskId, 'decide', index, ...sample)() < 0.5;
      v = viewStep(plan, index, seen, guess, coin);
      views.set(index, v);
    }
    return v;
  };
  const choose = (at: Progress) => {
    const decision = decide(plan, view, at, opts.refetchLimit, seen);
    const target = decision.kind === 'do' ? decision.index : decision.producer;
    // A re-fetch of a call it sees repeats that call, whatever of its inputs is out of view.
    let args =
      decision.kind === 'refetch' && ownCallInView(plan, target, seen)
        ? plan.steps[target]!.args
        : view(target).args;
    // Keyed by the plan step and the try, not the turn, so a slip hits the same step under every
    // condition, and a try after an error slips again only by its own draw.
    const retry = decision.kind === 'do' && decision.index === at.next ? at.failedTries : 0;
    if (opts.noise > 0 && decision.kind === 'do') {
      const key = retry === 0 ? [] : ['retry', retry];
      const random = seededRandom(opts.seed, ctx.taskId, 'slip', decision.index, ...key, ...sample);
      if (random() < opts.noise) args = slip(args, random, seen.records());
    }
    return { decision, target, args, retry };
  };
  let at = progress(messages, n, opts.refetchLimit);
  // Steps it sees nothing to do at (the list ended before this page, no listed item is left to
  // handle) it passes over, saying so; the answer step is never passed over.
  const skipped: string[] = [];
  for (let s = at.next < n - 1 ? view(at.next).skip : undefined; s !== undefined;) {
    skipped.push(`step ${at.next + 1}${s.to > at.next + 1 ? `-${s.to}` : ''} (${s.why})`);
    at = { ...at, next: s.to, attempts: new Map(), failedTries: 0, failedCall: undefined };
    s = at.next < n - 1 ? view(at.next).skip : undefined;
  }
  let chosen = choose(at);
  // The very call that just failed is all it could try again (a guessed value, a refused
  // request): nothing to correct, so it moves on.
  if (chosen.retry > 0 && JSON.stringify(chosen.args) === at.failedCall) {
    chosen = choose({ ...at, next: at.next + 1, failedTries: 0, failedCall: undefined });
  }
  const { decision, target, args, retry } = chosen;
  const step = plan.steps[target]!;
  const { notes } = view(target);

  const action = describe(step.tool, args) + (notes.length > 0 ? ` (${notes.join('; ')})` : '');
  let content = turnText(decision, n, action, retry, opts.refetchLimit);
  if (skipped.length > 0) content += ` Nothing to do at ${skipped.join(', ')}.`;
  return {
    role: 'assistant',
    content,
    tool_calls: [
      {
        id: `call_${ctx.step}`,
        type: 'function',
        function: { name: step.tool, arguments: JSON.stringify(args) },
      },
    ],
  };
}

type Decision =
  | { kind: 'do'; index: number; guessed: Blocker[] }
  | {
      kind: 'refetch';
      index: number;
      producer: number;
      attempts: Map<number, number>;
      why: string;
    };

function decide(
  plan: ReferencePlan,
  view: (index: number) => StepView,
  at: Progress,
  limit: number,
  seen: Seen,
): Decision {
  const last = plan.steps.length - 1;
  // Past the end (the episode should have stopped): repeat the final call.
  const index = Math.min(at.next, last);
  const attempts = at.next > last ? new Map<number, number>() : at.attempts;

  // The deepest producer of a missing value that may still be re-fetched: a producer whose own
  // inputs are missing too is preceded by their producers, unless the agent sees its own earlier
  // call of it, which it can simply repeat.
  const refetchable = (producer: number, depth: number): number | undefined => {
    if (depth < 8 && !ownCallInView(plan, producer, seen)) {
      for (const b of view(producer).blockers) {
        if (b.fromStep >= producer) continue;
        const deeper = refetchable(b.fromStep, depth + 1);
        if (deeper !== undefined) return deeper;
      }
    }
    if (at.gaveUp.has(producer)) return undefined;
    return (attempts.get(producer) ?? 0) < limit ? producer : undefined;
  };

  const blockers = view(index).blockers;
  for (const b of blockers) {
    const producer = refetchable(b.fromStep, 0);
    if (producer !== undefined) {
      const next = new Map(attempts);
      next.set(producer, (next.get(producer) ?? 0) + 1);
      return { kind: 'refetch', index, producer, attempts: next, why: b.why };
    }
  }
  return { kind: 'do', index, guessed: blockers };
}

/** `music.show_playlist with playlist_id=48213` (credentials left out, long values cut). */
function describe(tool: string, args: Record<string, unknown>): string {
  const { app, api } = args;
  const isApiCall = typeof app === 'string' && typeof api === 'string';
  const name = isApiCall ? `${app}.${api}` : tool;
  const inner = isApiCall ? args.args : args;
  const parts: string[] = [];
  if (inner !== null && typeof inner === 'object' && !Array.isArray(inner)) {
    for (const [k, v] of Object.entries(inner)) {
      if (/token|password/i.test(k)) continue;
      if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') {
        parts.push(`${k}=${clip(String(v), 40)}`);
      }
      if (parts.length === 4) break;
    }
  }
  return parts.length === 0 ? name : `${name} with ${parts.join(', ')}`;
}

/** What the agent says of its turn: the step, and why it re-fetches, guesses or tries again. */
function turnText(
  decision: Decision,
  n: number,
  action: string,
  retry: number,
  refetchLimit: number,
): string {
  if (decision.kind === 'refetch') {
    const so = [...decision.attempts].map(([p, a]) => `step ${p + 1} ×${a}`).join(', ');
    return (
      `Step ${decision.index + 1} of ${n} needs a value from step ${decision.producer + 1} that ` +
      `is not in my context (${decision.why}); ${REFETCHING} (re-fetches so far: ${so}): calling ${action}.`
    );
  } else if (decision.guessed.length > 0) {
    const from = [...new Set(decision.guessed.map((g) => g.fromStep + 1))];
    return (
      `Step ${decision.index + 1} of ${n}: a value from step ${from.join(', ')} is still not in my ` +
      `context after ${refetchLimit} re-fetches (${decision.guessed[0]!.why}); ${GUESSING} ` +
      `(gave up on step ${from.join(', ')}). Calling ${action}.`
    );
  } else if (retry > 0) {
    return `Step ${decision.index + 1} of ${n}: my last call returned an error; trying again: calling ${action}.`;
  } else {
    return `Step ${decision.index + 1} of ${n}: calling ${action}.`;
  }
}
