import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';
import type { z } from 'zod';
import { validateGuidelineText } from './validate.js';
import { GuidelineError, NotFoundError } from '../errors.js';
import { GuidelineSchema, type Guideline } from './schema.js';

// yaml loads when a guideline file is read or written: the report and the run listings reach
// this folder for its diffs and lineage only, and must not pay for the parser at start-up
// (test/cli-startup.test.ts), as config/load.ts does for the config file.
const require = createRequire(import.meta.url);
const requireYaml = () => require('yaml') as typeof Yaml;

/**
 * A guideline file is `---`, YAML front matter, `---`, a blank line, then the text:
 *
 * ```
 * ---
 * id: obs-0003
 * kind: obs
 * parent: obs-0001
 * ...
 * ---
 *
 * Keep every id, token and amount ...
 * ```
 */
const FILE_PATTERN = /^\uFEFF?---[ \t]*\r?\n(?:([\s\S]*?)\r?\n)?---[ \t]*(?:\r?\n([\s\S]*))?$/;

/** Front matter keys in the order they are written (readers see identity, then lineage, then scores). */
const KEY_ORDER = [
  'id',
  'kind',
  'parent',
  'phase',
  'run',
  'bench',
  'status',
  'created',
  'metrics',
  'rationale',
  'analyses',
] as const;

const FIX = 'fix the front matter (see guidelines/obs/0000-generic.md for a valid file)';

/** What to do about a bad value, by field. */
const FIELD_FIX: Record<string, string> = {
  id: 'use <kind>-<4 digits> matching the file name, e.g. obs-0003',
  kind: 'use obs or hist',
  parent: 'use the id of an existing version of the same kind, or null for a seed',
  phase: 'use seed, ut, co or manual',
  run: 'use the run id that produced it, or null',
  status: 'use seed, accepted or rejected',
  created: 'use an ISO date such as 2026-11-22 or a date-time such as 2026-11-22T03:16:00Z',
  metrics: 'use a mapping of names to numbers or strings, e.g. {accuracy: 0.6, peakTokens: 3100}',
  analyses: 'use a list of short strings',
  rationale: 'use a string',
  text: 'write the guideline text after the closing --- line',
};

function describe(value: unknown): string {
  if (value === undefined) return 'missing';
  const json = JSON.stringify(value);
  const shown = json === undefined ? String(value) : json;
  return `got ${shown.length > 60 ? `${shown.slice(0, 57)}...` : shown}`;
}

function valueAt(data: unknown, path: readonly PropertyKey[]): unknown {
  let cur: unknown = data;
  for (const key of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[key];
  }
  return cur;
}

/** The first zod issue as a GuidelineError naming the field, the bad value and the fix. */
function issueError(file: string, error: z.ZodError, data: unknown): GuidelineError {
  const issue = error.issues[0];
  if (issue === undefined) return new GuidelineError(file, 'front matter', FIX);
  const field = issue.path.length > 0 ? issue.path.map(String).join('.') : 'front matter';
  const top = String(issue.path[0] ?? '');
  const fix = FIELD_FIX[top] ?? FIX;
  const more = error.issues.length > 1 ? ` (and ${error.issues.length - 1} more problem(s))` : '';
  return new GuidelineError(
    file,
    field,
    `${issue.message}, ${describe(valueAt(data, issue.path))}; ${fix}${more}`,
    { cause: error },
  );
}

/**
 * Parses the content of a guideline file. `file` names it in errors.
 *
 * @throws GuidelineError naming the file, the field (zod path) and the fix
 */
export function parseGuideline(content: string, file: string): Guideline {
  const match = FILE_PATTERN.exec(content);
  if (!match) {
    throw new GuidelineError(
      file,
      'front matter',
      'no front matter: the file must start with a "---" line, the YAML front matter and a closing "---" line, then the text',
    );
  }
  let frontMatter: unknown;
  try {
    frontMatter = requireYaml().parse(match[1] ?? '');
  } catch (err) {
    const detail = err instanceof requireYaml().YAMLParseError ? err.message : String(err);
    throw new GuidelineError(file, 'front matter', `invalid YAML: ${detail}`, { cause: err });
  }
  if (frontMatter === null || typeof frontMatter !== 'object' || Array.isArray(frontMatter)) {
    throw new GuidelineError(
      file,
      'front matter',
      `expected a YAML mapping, ${describe(frontMatter)}; ${FIX}`,
    );
  }
  const data = { ...(frontMatter as Record<string, unknown>), text: match[2] ?? '' };
  const parsed = GuidelineSchema.safeParse(data);
  if (!parsed.success) throw issueError(file, parsed.error, data);
  // A hand-written or hand-edited file gets the checks a generated guideline gets; rejected
  // candidates are kept for review as they were and never reach a compressor.
  if (parsed.data.status !== 'rejected') {
    const check = validateGuidelineText(parsed.data.text, parsed.data.kind);
    if (!check.ok) {
      throw new GuidelineError(
        file,
        'text',
        `${check.reason}; fix the text (or set status: rejected to keep it only for review)`,
      );
    }
  }
  return parsed.data;
}

/** Renders a guideline as file content; `parseGuideline(serializeGuideline(g))` gives `g` back. */
export function serializeGuideline(guideline: Guideline): string {
  const frontMatter: Record<string, unknown> = {};
  for (const key of KEY_ORDER) {
    const value = guideline[key];
    if (value !== undefined) frontMatter[key] = value;
  }
  const yaml = requireYaml().stringify(frontMatter, { lineWidth: 0 });
  return `---\n${yaml}---\n\n${guideline.text.trim()}\n`;
}

/**
 * Reads and parses a guideline file.
 *
 * @throws NotFoundError when the file does not exist; GuidelineError when it is malformed
 */
export function readGuidelineFile(path: string): Guideline {
  let content: string;
  try {
    content = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new NotFoundError(`guideline file ${path} does not exist`, { cause: err });
    }
    throw err;
  }
  return parseGuideline(content, path);
}
