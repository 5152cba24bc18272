import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parseDocument } from 'yaml';
import { TaskFileError } from '../errors.js';

/**
 * Reads a task file's YAML (every benchmark's task files are YAML); a syntax error becomes a
 * TaskFileError naming the file and the line. The benchmark's schema validates the result.
 *
 * The shipped task files were parsed once by `npm run build` (scripts/task-yaml-index.mjs): a
 * file whose text has the sha256 of one of them gets that value back without the YAML parser,
 * which took 1 s of every CLI process's start (issue #28). Any other text is parsed.
 */
export function readTaskYaml(file: string, text: string): unknown {
  const known = shippedIndex().get(textHash(text));
  if (known !== undefined) return JSON.parse(known) as unknown;
  return parseTaskYamlText(file, text);
}

/** The YAML parser's reading of a task file, without the index. */
export function parseTaskYamlText(file: string, text: string): unknown {
  const doc = parseDocument(text, { prettyErrors: true });
  const yamlError = doc.errors[0];
  if (yamlError) {
    const line = yamlError.linePos?.[0].line;
    throw new TaskFileError(
      file,
      line ? `line ${line}` : '(yaml)',
      `${yamlError.message}; fix: correct the YAML syntax`,
    );
  }
  return doc.toJS();
}

/** The key of a task file's text in the index. */
export function textHash(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Where the build writes the index: dist/ of the package, from src/ and from dist/ alike. */
export const TASK_YAML_INDEX = new URL('../../dist/task-yaml-index.json', import.meta.url);

let index: Map<string, string> | undefined;

/** sha256 of a shipped file's text → the JSON of its parsed YAML; empty without a build. */
function shippedIndex(): Map<string, string> {
  if (index !== undefined) return index;
  index = new Map();
  let raw: string;
  try {
    raw = readFileSync(TASK_YAML_INDEX, 'utf8');
  } catch {
    return index;
  }
  try {
    const entries = JSON.parse(raw) as unknown;
    if (entries !== null && typeof entries === 'object' && !Array.isArray(entries)) {
      for (const [hash, json] of Object.entries(entries)) {
        if (typeof json === 'string') index.set(hash, json);
      }
    }
  } catch {
    // A damaged index is no index: every file is parsed.
  }
  return index;
}
