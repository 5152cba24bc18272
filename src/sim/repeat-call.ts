import { isDeepStrictEqual } from 'node:util';
import type { ReferencePlan } from '../bench/index.js';
import { refusedCall } from './error-reply.js';
import type { Seen } from './seen.js';

/**
 * Whether the agent sees its own earlier call of plan step `index`, made as the plan makes it and
 * not refused. To read that result again it re-issues the call it sees, as a real agent copies
 * its earlier `read_text_file(customers/C-6890.json)`: it needs none of the call's inputs again,
 * so it does not first re-read the ticket that named the customer (issue #58: under masking, which
 * keeps every call in view, re-reading the inputs as well pushed the next needed result out of the
 * window and the agent never had all of them at once).
 */
export function ownCallInView(plan: ReferencePlan, index: number, seen: Seen): boolean {
  const step = plan.steps[index];
  if (step === undefined) return false;
  const { call, args } = seen.stepCall(step);
  return seen
    .actions()
    .some(
      (a) => a.call === call && isDeepStrictEqual(a.args, args) && !refusedCall(seen, a.message),
    );
}
