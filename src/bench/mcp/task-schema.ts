import { z } from 'zod';

/**
 * A task file of `--bench mcp` (tasks/mcp/<id>.yaml, issue 26): an instruction for an agent
 * whose tools come from MCP servers, the servers, a fixture set up afresh for every rollout, an
 * evaluation, and optionally a reference plan for the offline `sim` provider. The full format,
 * with a complete example, is in docs/benchmarks.md ("Your own tools").
 *
 * Placeholders in server commands, arguments, environment values, URLs and headers:
 * `${workdir}` (the rollout's temp folder, holding a copy of `fixture.files`), `${memory_file}`
 * (a JSONL file beside it holding a copy of `fixture.graph`), `${task_dir}` (the task file's
 * folder), `${node}` (the running Node binary),
 * `${package:NAME}` (the bin script of an installed npm package, so no download at run time)
 * and `${env:VAR}` (an environment variable: keep keys out of task files).
 */

const ServerBase = {
  /** Only these of the server's tools are offered (by their MCP name). @default all */
  tools: z.array(z.string().min(1)).min(1).optional(),
  /** Longest wait for one tool call before the step fails. @default 60000 */
  timeout_ms: z.number().int().min(1).max(3_600_000).optional(),
};

export const StdioServerSchema = z.strictObject({
  command: z.string().min(1),
  args: z.array(z.string()).default([]),
  env: z.record(z.string(), z.string()).default({}),
  /** @default the rollout's workdir */
  cwd: z.string().min(1).optional(),
  ...ServerBase,
});

export const HttpServerSchema = z.strictObject({
  /** A streamable-HTTP MCP endpoint, e.g. http://127.0.0.1:8000/mcp */
  url: z.string().min(1),
  headers: z.record(z.string(), z.string()).default({}),
  ...ServerBase,
});

export const ServerSpecSchema = z.union([StdioServerSchema, HttpServerSchema]);
export type ServerSpec = z.infer<typeof ServerSpecSchema>;

/**
 * Server names prefix their tools (`fs__read_text_file`), so they must keep the tool names
 * within what OpenAI accepts (letters, digits, `_`, `-`).
 */
export const ServerNameSchema = z
  .string()
  .regex(/^[A-Za-z][A-Za-z0-9_-]{0,19}$/, 'a letter, then letters, digits, _ or - (20 at most)');

export const FixtureSchema = z.strictObject({
  /** A folder (relative to the task file) copied into `${workdir}` for every rollout. */
  files: z.string().min(1).optional(),
  /** A JSONL knowledge graph (relative to the task file) copied to `${memory_file}`. */
  graph: z.string().min(1).optional(),
});

/** Checks on the final state; paths are relative to the workdir, graphs read `${memory_file}`. */
export const CheckSchema = z.union([
  z.strictObject({ file_exists: z.string().min(1) }),
  z.strictObject({ file_absent: z.string().min(1) }),
  z.strictObject({
    file_contains: z.strictObject({ path: z.string().min(1), text: z.string().min(1) }),
  }),
  z.strictObject({
    graph_entity: z.strictObject({
      name: z.string().min(1),
      type: z.string().min(1).optional(),
      /** An observation the entity must have (compared after normalisation). */
      observation: z.string().min(1).optional(),
    }),
  }),
  z.strictObject({
    graph_relation: z.strictObject({
      from: z.string().min(1),
      to: z.string().min(1),
      type: z.string().min(1),
    }),
  }),
]);
export type Check = z.infer<typeof CheckSchema>;

export const EvaluationSpecSchema = z
  .strictObject({
    /** The expected answer to complete_task. */
    answer: z.union([z.string(), z.number()]).transform(String).optional(),
    /**
     * `text`: equal after normalisation (case, spaces, surrounding quotes and a final period);
     * `set`: the same comma-separated items in any order; `number`: equal as numbers.
     * @default text
     */
    match: z.enum(['text', 'set', 'number']).default('text'),
    checks: z.array(CheckSchema).default([]),
  })
  .refine((e) => e.answer !== undefined || e.checks.length > 0, {
    message: 'give an answer, checks, or both',
  });
export type EvaluationSpec = z.infer<typeof EvaluationSpecSchema>;

const ChoiceConditionSchema = z.union([
  z.string(),
  z.number(),
  z.strictObject({ prefix: z.string() }),
  z.strictObject({
    gte: z.union([z.string(), z.number()]).optional(),
    lte: z.union([z.string(), z.number()]).optional(),
  }),
]);

/** One reference tool call; `needs` and `choices` tell the `sim` agent what it copies or computes. */
export const ReferenceCallSchema = z.strictObject({
  /** The tool as the agent sees it: `<server>__<tool>`, or `complete_task`. */
  call: z.string().min(1),
  args: z.record(z.string(), z.unknown()).default({}),
  /** Values the arguments copy from the result of an earlier call (0-based index). */
  needs: z
    .array(z.strictObject({ value: z.string().min(1), from: z.number().int().min(0) }))
    .default([]),
  /** Values computed from items of earlier JSON results (src/bench/choice.ts). */
  choices: z
    .array(
      z.strictObject({
        value: z.string(),
        from: z.array(z.number().int().min(0)).min(1),
        op: z.enum(['max', 'min', 'sum', 'count']),
        by: z.string().optional(),
        take: z.string().optional(),
        where: z.record(z.string(), ChoiceConditionSchema).optional(),
      }),
    )
    .default([]),
});
export type ReferenceCall = z.infer<typeof ReferenceCallSchema>;

export const McpTaskFileSchema = z.strictObject({
  id: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'lower-case letters, digits and dashes'),
  split: z.string().min(1),
  /** The task pattern it was made from; test holds out patterns no other split has. */
  template: z.string().min(1).optional(),
  difficulty: z.number().int().min(1).max(3).default(2),
  instruction: z.string().min(1),
  servers: z.record(z.string(), ServerSpecSchema).superRefine((servers, ctx) => {
    const names = Object.keys(servers);
    if (names.length === 0) ctx.addIssue({ code: 'custom', message: 'name at least one server' });
    for (const name of names) {
      if (!ServerNameSchema.safeParse(name).success) {
        ctx.addIssue({
          code: 'custom',
          path: [name],
          message: `server name "${name}" must be a letter, then letters, digits, _ or - (20 at most)`,
        });
      }
    }
  }),
  fixture: FixtureSchema.default({}),
  evaluation: EvaluationSpecSchema,
  /** The reference solution, ending with complete_task; needed only by the `sim` provider. */
  reference: z.array(ReferenceCallSchema).optional(),
});
export type McpTaskFile = z.infer<typeof McpTaskFileSchema>;
