import type { z } from 'zod';
import { RootCauseSchema } from '../domain/index.js';

/**
 * What the analyzer and updater LLMs answer (seed 003; issue 6). Each answer is JSON: the zod
 * schema (src/domain: utility-analysis, compression-analysis, guideline-update) validates it,
 * the JSON Schema goes into the request's `responseFormat` (OpenAI
 * structured outputs, strict mode: every property required, no extra properties, nullable
 * fields typed `[T, "null"]`). The prompts are src/prompts/analyzer-*.txt and updater-*.txt.
 */

type JsonSchema = Record<string, unknown>;

const str: JsonSchema = { type: 'string' };
const strings: JsonSchema = { type: 'array', items: str };
const nullableInt: JsonSchema = { type: ['integer', 'null'] };

function object(properties: Record<string, JsonSchema>): JsonSchema {
  return {
    type: 'object',
    properties,
    required: Object.keys(properties),
    additionalProperties: false,
  };
}

const factProperties = { fact: str, field: str, source_step: nullableInt };

export const UtilityAnalysisJsonSchema = object({
  first_divergence: object({ step: nullableInt, description: str }),
  missing_facts: { type: 'array', items: object(factProperties) },
  distorted_facts: { type: 'array', items: object({ ...factProperties, seen_as: str }) },
  lost_state: strings,
  summary_inaccuracies: strings,
  root_cause: { type: 'string', enum: [...RootCauseSchema.options] },
  remediation: str,
});

export const CompressionAnalysisJsonSchema = object({
  unused_fields: strings,
  unused_content: strings,
  needed_fields: strings,
  remediation: str,
});

export const GuidelineUpdateJsonSchema = object({ guideline: str, rationale: str });

/** `ChatRequest.responseFormat` values; the names tell the sim provider which answer is asked. */
export const UTILITY_ANALYSIS_FORMAT = {
  name: 'utility_analysis',
  schema: UtilityAnalysisJsonSchema,
} as const;
export const COMPRESSION_ANALYSIS_FORMAT = {
  name: 'compression_analysis',
  schema: CompressionAnalysisJsonSchema,
} as const;
export const GUIDELINE_UPDATE_FORMAT = {
  name: 'guideline_update',
  schema: GuidelineUpdateJsonSchema,
} as const;

export type AnalysisParse<T> = { ok: true; value: T } | { ok: false; reason: string };

/**
 * Parses a model's JSON answer with `schema`. Lenient about a wrapping code fence or text
 * around the object (some servers ignore `response_format`); the reason says what to fix, for
 * the retry prompt and the failure record.
 */
export function parseJsonAnswer<T>(raw: string | null, schema: z.ZodType<T>): AnalysisParse<T> {
  if (raw === null || raw.trim() === '') return { ok: false, reason: 'the answer is empty' };
  const text = raw.trim();
  const fenced = /^```[^\n]*\n([\s\S]*?)\n?```$/.exec(text);
  let body = fenced ? (fenced[1] ?? '') : text;
  if (!body.trimStart().startsWith('{')) {
    const start = body.indexOf('{');
    const end = body.lastIndexOf('}');
    if (start === -1 || end < start)
      return { ok: false, reason: 'the answer is not a JSON object' };
    body = body.slice(start, end + 1);
  }
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch (err) {
    return { ok: false, reason: `the answer is not valid JSON (${(err as Error).message})` };
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? issue.path.join('.') : '(root)';
    return { ok: false, reason: `${where}: ${issue?.message ?? 'does not match the schema'}` };
  }
  return { ok: true, value: parsed.data };
}
