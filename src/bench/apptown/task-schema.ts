import { z } from 'zod';
import { TABLE_NAMES } from './records.js';

/**
 * The format of an apptown task file (`tasks/apptown/<id>.yaml`).
 *
 * ## Reference solution
 * `reference` is the ordered list of API calls a perfect agent makes; every step has an `id`
 * (s1, s2, ...). The last step is `supervisor.complete_task`. An argument may copy a value
 * from an earlier step's response with a template:
 *
 *     password: '{{s1[account_name=wallet].password}}'   # from step s1's response
 *     access_token: '{{s2.access_token}}'
 *     receiver_email: '{{s3.items[0].email}}'
 *     song_id: '{{s5.songs[title=Blue Hour].id}}'
 *     username: '{{supervisor.email}}'                   # from the task prompt, not a response
 *     body: 'Paid {{s4.amount}} as asked'                 # templates inside longer text
 *
 * A template is `{{root.path}}`. `root` is an earlier step id, or `supervisor` (the name,
 * first_name, last_name, email and phone_number the agent is told in its first message).
 * The path is a chain of `.field`, `[n]` (list index; negative counts from the end),
 * `[field=value]` (the first list item whose field, as text, equals value) and
 * `[field^=prefix]` (the first whose field starts with prefix); a match's field may name a
 * field of a nested list's items (`[participants.name=Aidan Hudson]`: the first item one of whose
 * participants has that name), and `&` joins conditions the same item meets
 * (`[participants.name=Aidan Hudson&subject=My new phone number]`). When the whole
 * argument is one template, the value keeps its type (a number stays a number, a list stays
 * a list); inside longer text it is pasted as text.
 *
 * A value the agent must read out of a response but that no template can pick (an amount
 * inside an email body, a sum it computes) is written as a literal and declared in the
 * step's `reads`: `reads: {s4: ['34.50']}`. The replay checks that the value appears verbatim
 * in that step's response, and the `sim` agent treats it like a copied value.
 *
 * A value the agent computes from data (the largest file, the newest message, a sum) is declared
 * in the step's `choose`, so the `sim` agent computes it from what it can see instead of copying
 * the reference (ReferenceChoice in src/bench/types.ts has the semantics):
 *
 *     choose:
 *       - value: '{{s5.items[name=beach.png].name}}'   # the reference value (template or literal)
 *         from: [s3, s4, s5]                          # the steps whose results hold the items
 *         op: max                                      # max | min | sum | count
 *         by: size_bytes
 *         take: name
 *         where: {directory: /Photos/2024}             # text, {prefix: ...} or {gte: ..., lte: ...}
 *
 * The replay checks that the choice over every result the reference saw before the step gives
 * `value`.
 *
 * ## Evaluation
 * `evaluation.changes` lists the state changes the task requires, per table (`app.table`):
 * exactly one of `added`, `removed` or `updated` with the number of rows, and `where`, the
 * field values those rows must have (dotted paths into nested objects, `items.0.id` for list positions; lists compare as sets;
 * strings compare ignoring case and surrounding space; `{contains: text}` or
 * `{contains: [text, ...]}` matches substrings).
 * Added and updated rows are matched after the change, removed rows before it. A listed table
 * must have no other changes, and tables not listed must not change at all (collateral damage).
 * `evaluation.answer` (omit it for tasks that ask nothing) is compared AppWorld-style: case,
 * surrounding quotes and spaces are ignored, "3.0" equals "3", and a list answer is the
 * comma-separated items in any order. Answers and `where` values may use templates too.
 */

const ScalarSchema = z.union([z.string(), z.number(), z.boolean(), z.null()]);
const StepIdSchema = z
  .string()
  .regex(/^[a-z][a-z0-9_]*$/, 'use a short lower-case id such as s1, s2, ...')
  .refine((id) => id !== 'supervisor', '"supervisor" is the root of prompt templates');

const ConditionSchema = z.union([
  z.string(),
  z.number(),
  z.strictObject({ prefix: z.string() }),
  z
    .strictObject({
      gte: z.union([z.string(), z.number()]).optional(),
      lte: z.union([z.string(), z.number()]).optional(),
    })
    .refine((c) => c.gte !== undefined || c.lte !== undefined, 'give gte, lte or both'),
]);

export const ChoiceSpecSchema = z
  .strictObject({
    value: z.union([z.string(), z.number()]),
    from: z.array(StepIdSchema).min(1),
    op: z.enum(['max', 'min', 'sum', 'count']),
    by: z.string().min(1).optional(),
    take: z.string().min(1).optional(),
    where: z.record(z.string(), ConditionSchema).optional(),
  })
  .refine((c) => c.op === 'count' || c.by !== undefined, 'max, min and sum need `by: field`');
export type ChoiceSpec = z.infer<typeof ChoiceSpecSchema>;

/**
 * A decision declared on a step (issue 22): the step calls `then` when the record its argument
 * `arg` points at satisfies `if` (one field, one comparison), else `else`; the step's own `api`
 * is the branch the reference took. The replay checks that the branch matches.
 *
 *     decide:
 *       arg: payment_request_id            # the argument whose template picks the record
 *       if: {amount: {lt: 50}}
 *       then: approve_payment_request
 *       else: deny_payment_request
 */
export const DecideSpecSchema = z.strictObject({
  arg: z.string().min(1),
  if: z
    .record(
      z.string(),
      z
        .strictObject({
          lt: z.number().optional(),
          lte: z.number().optional(),
          gt: z.number().optional(),
          gte: z.number().optional(),
          eq: z.union([z.string(), z.number()]).optional(),
        })
        .refine((c) => Object.keys(c).length === 1, 'give exactly one of lt, lte, gt, gte, eq'),
    )
    .refine((c) => Object.keys(c).length === 1, 'give exactly one field, e.g. {amount: {lt: 50}}'),
  then: z.string().min(1),
  else: z.string().min(1),
});
export type DecideSpec = z.infer<typeof DecideSpecSchema>;

export const ReferenceStepSchema = z.strictObject({
  id: StepIdSchema,
  app: z.string().min(1),
  api: z.string().min(1),
  args: z.record(z.string(), z.unknown()).default({}),
  /** Literal argument values read from earlier responses, by step id (see above). */
  reads: z.record(z.string(), z.array(z.union([z.string(), z.number()])).min(1)).optional(),
  /** Values computed from earlier responses (see above). */
  choose: z.array(ChoiceSpecSchema).min(1).optional(),
  /** The API depends on a field of a record (see above). */
  decide: DecideSpecSchema.optional(),
});
export type ReferenceStepSpec = z.infer<typeof ReferenceStepSchema>;

export const MatcherSchema = z.union([
  ScalarSchema,
  z.array(ScalarSchema),
  z.strictObject({ contains: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]) }),
]);
export type Matcher = z.infer<typeof MatcherSchema>;

const CountSchema = z.number().int().min(1);

export const ChangeSchema = z
  .strictObject({
    table: z.enum(TABLE_NAMES),
    added: CountSchema.optional(),
    removed: CountSchema.optional(),
    updated: CountSchema.optional(),
    where: z.record(z.string(), MatcherSchema).default({}),
  })
  .refine(
    (c) => [c.added, c.removed, c.updated].filter((n) => n !== undefined).length === 1,
    'give exactly one of added, removed or updated (a row count), e.g. `added: 1`',
  );
export type Change = z.infer<typeof ChangeSchema>;
export type ChangeKind = 'added' | 'removed' | 'updated';

export function changeKind(c: Change): { kind: ChangeKind; count: number } {
  if (c.added !== undefined) return { kind: 'added', count: c.added };
  if (c.removed !== undefined) return { kind: 'removed', count: c.removed };
  return { kind: 'updated', count: c.updated ?? 0 };
}

export const AnswerSchema = z.union([ScalarSchema, z.array(ScalarSchema)]);
export type Answer = z.infer<typeof AnswerSchema>;

export const TaskEvaluationSchema = z.strictObject({
  /** Omit for tasks that ask no question; `null` requires the agent to answer nothing. */
  answer: AnswerSchema.optional(),
  status: z.enum(['success', 'fail']).default('success'),
  changes: z.array(ChangeSchema).default([]),
});
export type TaskEvaluation = z.infer<typeof TaskEvaluationSchema>;

export const TaskFileSchema = z.strictObject({
  id: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'use lower-case letters, digits and dashes'),
  split: z.enum(['train', 'dev', 'test']),
  difficulty: z.number().int().min(1).max(3),
  /** Seed of the world (seed-data.ts); different tasks should use different seeds. */
  seed: z.number().int().min(0),
  /** The task pattern (generator template) it was made from; the test split holds out patterns. */
  template: z.string().min(1).optional(),
  /** Full name of the world's supervisor, checked when the world is built (catches drift). */
  supervisor: z.string().min(1),
  instruction: z.string().min(10),
  reference: z.array(ReferenceStepSchema).min(1),
  evaluation: TaskEvaluationSchema,
});
export type TaskFile = z.infer<typeof TaskFileSchema>;
