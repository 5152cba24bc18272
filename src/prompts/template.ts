import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { AconError } from '../errors.js';

/**
 * A strict `{{name}}` template engine: a placeholder without a value throws, so a prompt is
 * never sent with a hole in it. Values are inserted verbatim (no escaping: prompts are text).
 */
export class TemplateError extends AconError {
  override name = 'TemplateError';
}

const PLACEHOLDER = /\{\{\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*\}\}/g;

export function renderTemplate(template: string, vars: Record<string, string>, name = 'template') {
  return template.replace(PLACEHOLDER, (_match, key: string) => {
    const value = vars[key];
    if (value === undefined) {
      throw new TemplateError(`${name}: no value for {{${key}}}`);
    }
    return value;
  });
}

/** Placeholders a text still contains (used to reject generated guidelines with template holes). */
export function unresolvedPlaceholders(text: string): string[] {
  return [...text.matchAll(PLACEHOLDER)].map((m) => m[1] ?? '');
}

// src/prompts/*.txt ship with the package; from both src/prompts and dist/prompts this is ../../src/prompts.
const PROMPTS_DIR = fileURLToPath(new URL('../../src/prompts/', import.meta.url));
const cache = new Map<string, string>();

export function loadPrompt(file: string): string {
  let text = cache.get(file);
  if (text === undefined) {
    text = readFileSync(PROMPTS_DIR + file, 'utf8');
    cache.set(file, text);
  }
  return text;
}

/** Loads `src/prompts/<file>` and renders it strictly. */
export function renderPrompt(file: string, vars: Record<string, string>): string {
  return renderTemplate(loadPrompt(file), vars, file);
}
