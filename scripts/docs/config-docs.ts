import { isMap, isNode, isScalar, parseDocument, type Pair, type YAMLMap } from 'yaml';
import { z } from 'zod';
import { configTemplate } from '../../src/config/init.js';
import { ConfigSchema } from '../../src/config/schema.js';
import { REASONING_PREFIXES, samplingFor } from '../../src/llm/model-family.js';

/**
 * docs/configuration.md, generated from the zod config schema (keys, types, defaults and any
 * `.describe()` text) and the comments of the `acon init` template (src/config/acon.config.template.yaml)
 * for keys the schema does not describe. `npm run docs:config` writes it; test/docs-config.test.ts
 * fails when the page is stale, when a key has no description, or when the template and the
 * schema disagree on keys or defaults.
 */

type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  additionalProperties?: JsonSchema | boolean;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  enum?: unknown[];
  format?: string;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  default?: unknown;
  description?: string;
};

/** One documented setting: a dotted path, `<placeholder>` for names the user chooses. */
export type ConfigRow = {
  key: string;
  type: string;
  default: string;
  description: string;
};

export type ConfigSection = { name: string; intro: string; rows: ConfigRow[] };

/** The names a user picks under these keys (record keys, and the roles sharing one schema). */
const PLACEHOLDERS: Record<string, string> = {
  roles: '<role>',
  endpoints: '<name>',
  prices: '<model>',
};

const SAFE = Number.MAX_SAFE_INTEGER;

export function configJsonSchema(): JsonSchema {
  return z.toJSONSchema(ConfigSchema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
}

/** The defaults as the schema fills them in for an empty file. */
export function configDefaults(): Record<string, unknown> {
  return ConfigSchema.parse({}) as Record<string, unknown>;
}

/** Comments of the init template by dotted path: the inline one, else the paragraph just above. */
export function templateComments(text = configTemplate()): Map<string, string> {
  const doc = parseDocument(text);
  const out = new Map<string, string>();
  const walk = (node: unknown, path: string[]) => {
    if (!isMap(node)) return;
    for (const pair of (node as YAMLMap).items as Pair[]) {
      const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
      const p = [...path, key];
      const inline = isNode(pair.value) ? pair.value.comment : undefined;
      const before = isScalar(pair.key) ? pair.key.commentBefore : undefined;
      const text = inline ?? lastParagraph(before);
      if (text) out.set(p.join('.'), clean(text));
      walk(pair.value, p);
    }
  };
  walk(doc.contents, []);
  return out;
}

function lastParagraph(comment: string | null | undefined): string | undefined {
  if (!comment) return undefined;
  const paragraphs = comment.split(/\n\s*\n/);
  return paragraphs[paragraphs.length - 1];
}

function clean(comment: string): string {
  return comment
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .join(' ')
    .replace(/\s+/g, ' ');
}

function typeOf(s: JsonSchema): string {
  if (s.anyOf) {
    const parts = s.anyOf.map(typeOf);
    const nonNull = parts.filter((p) => p !== 'null');
    return parts.includes('null') ? `${nonNull.join(' or ')} or null` : parts.join(' or ');
  }
  if (s.enum) return s.enum.map((v) => `\`${String(v)}\``).join(' or ');
  const range = (unit: string) => {
    const lo = s.minimum !== undefined && s.minimum > -SAFE ? s.minimum : undefined;
    const hi = s.maximum !== undefined && s.maximum < SAFE ? s.maximum : undefined;
    if (lo !== undefined && hi !== undefined) return `${unit} ${lo}–${hi}`;
    if (lo !== undefined) return `${unit} ≥ ${lo}`;
    if (hi !== undefined) return `${unit} ≤ ${hi}`;
    return unit;
  };
  switch (s.type) {
    case 'integer':
      return range('integer');
    case 'number':
      return range('number');
    case 'string': {
      // A template literal (`hf:${string}`) is a pattern with a literal prefix: `hf:…`.
      const prefix = s.pattern?.match(/^\^([\w:-]+)\[/)?.[1];
      if (prefix) return `\`${prefix}…\``;
      return s.format === 'uri' ? 'URL' : 'string';
    }
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array':
      return `list of ${s.items ? typeOf(s.items) : 'values'}`;
    case 'object':
      if (typeof s.additionalProperties !== 'object') return 'object';
      return typeOf(s.additionalProperties) === 'any'
        ? 'map'
        : `map of ${typeOf(s.additionalProperties)}`;
    default:
      return 'any';
  }
}

/** Compact YAML-flow-like text of a value for a table cell. */
export function formatValue(v: unknown): string {
  if (v === undefined) return '';
  if (v === null) return '`null`';
  if (typeof v === 'string') return v === '' ? '`""`' : `\`${v}\``;
  if (typeof v === 'number' || typeof v === 'boolean') return `\`${String(v)}\``;
  return `\`${flow(v)}\``;
}

function flow(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(flow).join(', ')}]`;
  if (v !== null && typeof v === 'object') {
    const entries = Object.entries(v as Record<string, unknown>);
    return `{${entries.map(([k, x]) => `${k}: ${flow(x)}`).join(', ')}}`;
  }
  return String(v);
}

function at(obj: unknown, path: string[]): unknown {
  let cur = obj;
  for (const p of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[p];
  }
  return cur;
}

const stripDefault = (s: JsonSchema): string => JSON.stringify({ ...s, default: undefined });

function isObjectWithProps(s: JsonSchema): boolean {
  return s.type === 'object' && s.properties !== undefined;
}

function isRecordOfObjects(s: JsonSchema): s is JsonSchema & { additionalProperties: JsonSchema } {
  return (
    s.type === 'object' &&
    s.properties === undefined &&
    typeof s.additionalProperties === 'object' &&
    isObjectWithProps(s.additionalProperties)
  );
}

/** Properties that all share one schema (the five roles): documented once, as `<role>`. */
function sharedChild(s: JsonSchema): JsonSchema | null {
  const children = Object.values(s.properties ?? {});
  if (children.length < 2 || !children.every(isObjectWithProps)) return null;
  const first = stripDefault(children[0]!);
  return children.every((c) => stripDefault(c) === first) ? children[0]! : null;
}

/**
 * Every setting as a row, grouped by top-level key. `missing` collects keys with no description
 * (neither in the schema nor in the template), which the test turns into a failure.
 */
export function configSections(templateText = configTemplate()): {
  sections: ConfigSection[];
  missing: string[];
} {
  const schema = configJsonSchema();
  const defaults = configDefaults();
  const comments = templateComments(templateText);
  const template = parseDocument(templateText).toJS() as Record<string, unknown>;
  const missing: string[] = [];

  // `path` is what the user writes (placeholders for chosen names); `real` is a path that exists
  // in the defaults and the template, used to look up values and comments.
  const describe = (s: JsonSchema, path: string[], real: string[]): string => {
    const text = s.description ?? comments.get(real.join('.'));
    if (!text) missing.push(path.join('.'));
    return text ?? '';
  };

  const rowsOf = (
    s: JsonSchema,
    path: string[],
    real: string[],
    inRecord: boolean,
    required: boolean,
  ): ConfigRow[] => {
    const shared = isObjectWithProps(s) ? sharedChild(s) : null;
    if (shared) {
      const name = PLACEHOLDERS[path[path.length - 1] ?? ''] ?? '<key>';
      // An optional member (roles.judge) has no defaults: it is absent until configured.
      const names = Object.keys(s.properties ?? {}).filter(
        (n) => at(defaults, [...real, n]) !== undefined,
      );
      const rows: ConfigRow[] = [];
      for (const [k, child] of Object.entries(shared.properties ?? {})) {
        const perName = names.map((n) => at(defaults, [...real, n, k]));
        const same = perName.every((v) => JSON.stringify(v) === JSON.stringify(perName[0]));
        const dflt =
          perName[0] === undefined
            ? 'unset'
            : same
              ? formatValue(perName[0])
              : names.map((n, i) => `${n}: ${formatValue(perName[i])}`).join(', ');
        rows.push({
          key: [...path, name, k].join('.'),
          type: typeOf(child),
          default: dflt,
          description: describe(child, [...path, name, k], [...real, names[0]!, k]),
        });
      }
      return rows;
    }
    if (isObjectWithProps(s)) {
      const children = Object.entries(s.properties ?? {}).flatMap(([k, child]) =>
        rowsOf(child, [...path, k], [...real, k], inRecord, (s.required ?? []).includes(k)),
      );
      // A described group of optional settings (appworld.initialize) also gets a row of its own.
      if (s.description === undefined || path.length === 0) return children;
      const own: ConfigRow = {
        key: path.join('.'),
        type: 'object',
        default: formatValue(at(defaults, real)),
        description: s.description,
      };
      return [own, ...children];
    }
    if (isRecordOfObjects(s)) {
      const name = PLACEHOLDERS[path[path.length - 1] ?? ''] ?? '<key>';
      const example = Object.keys((at(template, real) as Record<string, unknown>) ?? {})[0] ?? '';
      const recordRow: ConfigRow = {
        key: path.join('.'),
        type: `map of \`${name}\` to settings`,
        default: formatValue(at(defaults, real)),
        description: describe(s, path, real),
      };
      return [
        recordRow,
        ...rowsOf(s.additionalProperties, [...path, name], [...real, example], true, true),
      ];
    }
    const value = inRecord ? s.default : at(defaults, real);
    return [
      {
        key: path.join('.'),
        type: typeOf(s),
        default:
          value !== undefined ? formatValue(value) : inRecord && required ? 'required' : 'unset',
        description: describe(s, path, real),
      },
    ];
  };

  const top: ConfigRow[] = [];
  const sections: ConfigSection[] = [];
  for (const [k, child] of Object.entries(schema.properties ?? {})) {
    const rows = rowsOf(child, [k], [k], false, false);
    if (isObjectWithProps(child) || isRecordOfObjects(child)) {
      const intro = child.description ?? comments.get(k) ?? '';
      sections.push({ name: k, intro, rows });
    } else {
      top.push(...rows);
    }
  }
  return { sections: [{ name: 'top level', intro: '', rows: top }, ...sections], missing };
}

const HEADER = `# Configuration: every setting and its default

<!-- Generated by scripts/gen-config-docs.ts from src/config/schema.ts and the comments of
src/config/acon.config.template.yaml. Do not edit: change those, then run npm run docs:config. -->

You want to change how acon runs: which model answers each role, where the endpoints are, the
compression thresholds, the splits optimize uses. \`acon init\` writes \`acon.config.yaml\` with
every setting below, its default and a comment; delete what you do not change. \`--config FILE\`
(\`-c\`) reads another file.

\`\`\`sh runnable
npx acon init
npx acon init --out configs/qwen.yaml --force
\`\`\`

## Where settings come from

Flags beat the environment, which beats the file, which beats the defaults below; a run resumed
with \`--resume\` keeps what it recorded ([reliability.md](reliability.md#resume)).
Environment variables: \`OPENAI_BASE_URL\` (\`endpoints.default.base_url\`), \`ACON_PROVIDER\`,
\`ACON_MODEL\` (every role), \`ACON_DB\` (\`run.db\`), and \`ACON_<SECTION>__<KEY>\` for any key
(e.g. \`ACON_CONTEXT__T_OBS=512\`). Other \`ACON_\` variables are not config and are left alone;
\`ACON_VERBOSE=1\` turns on \`--verbose\`; \`ACON_PROGRESS_INTERVAL=SECONDS\` sets how often a
progress line goes to a stderr that is not a terminal (default 10; 0 prints none).
\`OPENAI_API_KEY\` (or the variable an endpoint's \`api_key_env\` names) is read only when a role
uses the \`openai\` provider; its presence alone never switches away from \`sim\`, and keys are
never stored. A bad setting stops the command with one line naming the file, the field and the fix.
`;

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** Angle brackets outside code spans would be read as HTML tags. */
const prose = (s: string) =>
  s
    .split('`')
    .map((part, i) => (i % 2 === 0 ? part.replace(/</g, '&lt;').replace(/>/g, '&gt;') : part))
    .join('`');

export function renderConfigDocs(templateText = configTemplate()): string {
  const { sections } = configSections(templateText);
  const parts = [HEADER];
  for (const section of sections) {
    parts.push(`\n## ${section.name === 'top level' ? 'Top level' : `\`${section.name}\``}\n`);
    const duplicate = section.rows[0]?.description === section.intro;
    if (section.intro && !duplicate) parts.push(`\n${prose(section.intro)}\n`);
    parts.push('\n| key | type | default | description |\n| --- | --- | --- | --- |\n');
    for (const r of section.rows) {
      parts.push(
        `| \`${cell(r.key)}\` | ${cell(r.type)} | ${cell(r.default)} | ${cell(prose(r.description))} |\n`,
      );
    }
  }
  parts.push(paperFaithful(), familyTable());
  return parts.join('');
}

/** The paper's roles as a config that runs (test/docs.test.ts runs the block). */
function paperFaithful(): string {
  return `
## A paper-faithful run

ACON paper v3 runs gpt-4.1 as the agent and both compressors and o3 as its optimizer (the
analyzer and the updater). gpt-4.1 is every role's default, so only the optimizer changes:

\`\`\`yaml
provider: openai
roles:
  analyzer: { model: o3 }
  updater: { model: o3 }
\`\`\`

o3 is a reasoning model, so acon sends it \`max_completion_tokens\` and no temperature (the table
below). Written to a file of its own and checked with a dry run, which prints the plan and the
cost estimate without calling a model:

\`\`\`sh runnable
printf 'provider: openai\\nroles:\\n  analyzer: { model: o3 }\\n  updater: { model: o3 }\\n' > paper.yaml
npx acon optimize --bench apptown --config paper.yaml --dry-run
\`\`\`
`;
}

/**
 * Which parameters each model family gets, computed with the function every request goes
 * through (src/llm/model-family.ts), so the page cannot drift from what acon sends.
 */
function familyTable(): string {
  const input = { temperature: 0, maxTokens: 4096, reasoningEffort: 'low' as const };
  const rows = [
    {
      family: 'reasoning',
      names: REASONING_PREFIXES.map((p) => `\`${p}*\``).join(', '),
      model: 'o3',
    },
    {
      family: 'chat',
      names: 'every other name (gpt-4.1, gpt-4o, Qwen, Llama, …)',
      model: 'gpt-4.1',
    },
  ];
  const lines = rows.map((r) => {
    const s = samplingFor({ ...input, model: r.model });
    const temperature =
      s.temperature === undefined
        ? 'none sent (only the default 1 is accepted)'
        : '`roles.<role>.temperature`';
    const effort =
      s.reasoningEffort === undefined ? 'never sent' : '`roles.<role>.reasoning_effort` when set';
    return `| ${r.family} | ${r.names} | \`${s.limitParam}\` = \`roles.<role>.max_tokens\` | ${temperature} | ${effort} |`;
  });
  return `
## Which parameters each model family gets

acon decides per call, from the role's model name (an \`org/\` prefix is skipped), what it sends:

| family | models (by name) | limit | temperature | \`reasoning_effort\` |
| --- | --- | --- | --- | --- |
${lines.join('\n')}

\`roles.<role>.reasoning: true|false\` overrides the detection; \`endpoints.<name>.limit_param\`
names the limit parameter a server understands when it differs from the family's (some local
servers know only \`max_tokens\`). Tokens for thresholds and peaks are counted in the agent's
\`tokenizer\` (\`roles.agent.tokenizer\`, else its endpoint's, else o200k).
`;
}
