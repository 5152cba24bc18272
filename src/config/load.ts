import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';
import type { z } from 'zod';
import { ConfigError } from '../errors.js';
import { DEFAULT_CONFIG_FILE } from './default-file.js';
import { readConfigText } from './read-file.js';
import { ConfigSchema, type Config } from './schema.js';

const ENV_SOURCE = 'environment';

export type LoadConfigOptions = {
  /** Path given with --config; when absent, ./acon.config.yaml is used if it exists. */
  file?: string;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
};

export type LoadedConfig = { config: Config; file: string | null };

/**
 * Reads acon.config.yaml (if any), applies environment overrides and validates the result.
 * Every problem becomes a ConfigError naming the file (or variable), the field and the fix.
 */
export function loadConfig(opts: LoadConfigOptions = {}): LoadedConfig {
  const env = opts.env ?? process.env;
  const cwd = opts.cwd ?? process.cwd();
  const explicit = opts.file !== undefined;
  const file = opts.file ?? `${cwd}/${DEFAULT_CONFIG_FILE}`;
  let raw: Record<string, unknown> = {};
  let source: string | null = null;
  const text = readConfigText(file);
  if (text !== null) {
    raw = readYamlObject(file, text);
    source = file;
  } else if (explicit) {
    throw new ConfigError(file, '(file)', 'not found; create one with `acon init` or fix the path');
  }
  const overridden = applyEnvOverrides(raw, env);
  const result = ConfigSchema.safeParse(overridden.value);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const field = fieldOf(issue);
    const from = overridden.fields.get(field) ?? source ?? DEFAULT_CONFIG_FILE;
    throw new ConfigError(from, field, describeIssue(issue, overridden.value, ConfigSchema), {
      cause: result.error,
    });
  }
  return { config: result.data, file: source };
}

// yaml (about 40 CommonJS modules) loads only when there is YAML to read (a config file, an
// ACON_A__B value): listings and reports often run without either, and every command pays for
// what it loads at start-up.
const require = createRequire(import.meta.url);
const requireYaml = () => require('yaml') as typeof Yaml;

function readYamlObject(file: string, text: string): Record<string, unknown> {
  const { LineCounter, parseDocument } = requireYaml();
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { prettyErrors: false, uniqueKeys: true, lineCounter });
  const err = doc.errors[0];
  if (err) {
    const pos = lineCounter.linePos(err.pos[0]);
    const where = `line ${pos.line}, column ${pos.col}`;
    const what = err.message.split('\n')[0] ?? 'syntax error';
    throw new ConfigError(file, where, `invalid YAML (${what}); fix the syntax there`);
  }
  const value: unknown = doc.toJS();
  if (value === null || value === undefined) return {};
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new ConfigError(file, '(root)', 'expected a mapping of settings (key: value lines)');
  }
  return value as Record<string, unknown>;
}

/**
 * Environment overrides, applied over the file:
 * OPENAI_BASE_URL → endpoints.default.base_url, ACON_PROVIDER → provider, ACON_MODEL → every
 * role's model, ACON_DB → run.db, and generically ACON_A__B=value → a.b (value parsed as YAML)
 * when a.b is a setting; other ACON_ variables are not config and are left alone.
 * OPENAI_API_KEY is read only where a provider needs it (endpoint.api_key_env), never stored.
 */
function applyEnvOverrides(
  raw: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
): { value: Record<string, unknown>; fields: Map<string, string> } {
  const value = structuredClone(raw);
  const fields = new Map<string, string>();
  const set = (path: string[], v: unknown, variable: string) => {
    setPath(value, path, v);
    fields.set(path.join('.'), `${ENV_SOURCE} ${variable}`);
  };
  if (env.OPENAI_BASE_URL) {
    set(['endpoints', 'default', 'base_url'], env.OPENAI_BASE_URL, 'OPENAI_BASE_URL');
  }
  // Code-unit order, not localeCompare: the first localeCompare of a process builds ICU's collator,
  // which costs every command about a tenth of its start-up.
  const names = Object.entries(env).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const [name, text] of names) {
    if (!name.startsWith('ACON_') || text === undefined) continue;
    const key = name.slice('ACON_'.length);
    if (key === 'MODEL') {
      for (const role of ['agent', 'obs_compressor', 'hist_compressor', 'analyzer', 'updater']) {
        set(['roles', role, 'model'], text, name);
      }
    } else if (key === 'DB') {
      set(['run', 'db'], text, name);
    } else {
      // Only variables under a known top-level setting are config (ACON_VERBOSE, a key variable
      // such as ACON_API_KEY and the like belong to someone else); below it, a misspelt key
      // still reaches the schema and is reported as an unknown setting.
      const path = key.toLowerCase().split('__');
      if (isSettingPath(ConfigSchema, path.slice(0, 1))) set(path, parseScalar(text), name);
    }
  }
  return { value, fields };
}

/** Whether `path` leads through the config schema to a setting (records take any key). */
export function isSettingPath(schema: z.ZodType, path: readonly string[]): boolean {
  return path.length > 0 && schemaAt(schema, path) !== null;
}

/** The schema of the setting at `path`, or null when there is none. */
function schemaAt(schema: z.core.$ZodType, path: readonly PropertyKey[]): z.core.$ZodType | null {
  let node: z.core.$ZodType = schema;
  for (const key of path) {
    node = unwrap(node);
    const def = node._zod.def;
    if (def.type === 'object') {
      const next = (def as z.core.$ZodObjectDef).shape[String(key)];
      if (!next) return null;
      node = next;
    } else if (def.type === 'record') {
      if (key === '') return null;
      node = (def as z.core.$ZodRecordDef).valueType;
    } else {
      return null;
    }
  }
  return node;
}

/** The settings an object of the config takes at `path` (none for a record or a value). */
function settingsAt(schema: z.core.$ZodType, path: readonly PropertyKey[]): string[] {
  const node = schemaAt(schema, path);
  if (node === null) return [];
  const def = unwrap(node)._zod.def;
  if (def.type !== 'object') return [];
  const shape = (def as z.core.$ZodObjectDef).shape;
  // Keys that only exist to refuse a value (z.never) are not settings to offer.
  return Object.keys(shape).filter((k) => unwrap(shape[k]!)._zod.def.type !== 'never');
}

function unwrap(node: z.core.$ZodType): z.core.$ZodType {
  let cur = node;
  for (;;) {
    const def = cur._zod.def as { type: string; innerType?: z.core.$ZodType };
    if (!def.innerType || !['default', 'prefault', 'optional', 'nullable'].includes(def.type))
      return cur;
    cur = def.innerType;
  }
}

function parseScalar(text: string): unknown {
  const doc = requireYaml().parseDocument(text);
  return doc.errors.length > 0 ? text : doc.toJS();
}

function setPath(obj: Record<string, unknown>, path: string[], v: unknown) {
  let cur = obj;
  for (const key of path.slice(0, -1)) {
    const next = cur[key];
    if (typeof next !== 'object' || next === null || Array.isArray(next)) cur[key] = {};
    cur = cur[key] as Record<string, unknown>;
  }
  cur[path[path.length - 1]!] = v;
}

function fieldOf(issue: z.core.$ZodIssue): string {
  const base = issue.path.map(String).join('.');
  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys[0] ?? '';
    return base ? `${base}.${key}` : key;
  }
  return base || '(root)';
}

function valueAt(obj: unknown, path: PropertyKey[]): unknown {
  let cur = obj;
  for (const key of path) {
    if (typeof cur !== 'object' || cur === null) return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[key];
  }
  return cur;
}

function describeIssue(issue: z.core.$ZodIssue, value: unknown, schema: z.ZodType): string {
  switch (issue.code) {
    case 'unrecognized_keys': {
      const valid = settingsAt(schema, issue.path);
      const known = valid.length > 0 ? ` (valid here: ${valid.join(', ')})` : '';
      return `unknown setting; remove it or check its spelling${known}; see \`acon init\` for every setting`;
    }
    case 'invalid_type': {
      // A key that must stay unset (z.never) carries its own reason.
      if (issue.expected === 'never') return issue.message;
      const got = valueAt(value, issue.path);
      const shown = got === undefined ? 'nothing' : JSON.stringify(got);
      return `expected ${issue.expected}, got ${shown}; set it to a ${issue.expected}`;
    }
    case 'invalid_format': {
      if (issue.format !== 'url') return issue.message;
      const got = JSON.stringify(valueAt(value, issue.path));
      return `expected a full URL like http://127.0.0.1:8000/v1, got ${got}; write it with http:// or https:// and the host`;
    }
    case 'too_small':
      return `${issue.message}; use a value of at least ${String(issue.minimum)}`;
    case 'too_big':
      return `${issue.message}; use a value of at most ${String(issue.maximum)}`;
    case 'invalid_value':
      return `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    default:
      return issue.message;
  }
}
