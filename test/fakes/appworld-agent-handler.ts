import type { LlmRole } from '../../src/llm/types.js';
import { reply, type FakeHandler, type FakeReply, type FakeRequest } from './fake-openai-server.js';
import { roleOf } from './sim-backed-handler.js';

/**
 * A fake OpenAI-compatible model for `--bench appworld` against FakeAppWorldServer: it plays
 * every role, reading each request the way a server would have to (roles by `roleOf`).
 *
 * - agent: recognises the fake server's task phrasings (a song's title by id, counting the
 *   library, creating a note) and writes one ```python block a turn: look the app's APIs up,
 *   fetch what the task needs, then `apis.supervisor.complete_task(...)` with the answer read off
 *   the last observation. Counting is deliberately off by one, so that task fails its "answer is
 *   correct" requirement; a title it cannot see is answered "unknown" (and fails).
 * - obs compressor: a lazy one that keeps only ids (`*_id`) and the fields its guideline names
 *   on `KEEP:` lines, minus those on `DROP:` lines. The v0 guideline names none, so a compressed
 *   song loses its title: the utility phase then has a contrastive pair to learn from.
 * - hist/summary compressor: keeps the code the agent ran, one line per call.
 * - analyzer: utility analyses list as missing the `"key": "value"` facts of the full run whose
 *   value the agent used again and that the compressed run never saw; compression analyses
 *   split the kept fields into used and unused ones by the later actions.
 * - updater: appends `KEEP:` (utility phase) or `DROP:` (compression phase) lines to the
 *   current guideline; candidate 2 is the bolder variant.
 */
export function appWorldAgentHandler(
  opts: {
    /** Lets a test replace a role's answer. */
    override?: (role: LlmRole, req: FakeRequest) => FakeReply | undefined;
  } = {},
): FakeHandler {
  return (req) => {
    const body = req.body;
    if (!body) return reply.error(400, 'not a chat request');
    const role = roleOf(req);
    const custom = opts.override?.(role, req);
    if (custom) return custom;
    const system = body.messages.find((m) => m.role === 'system')?.content ?? '';
    const user = body.messages.filter((m) => m.role === 'user').map((m) => m.content ?? '');
    switch (role) {
      case 'agent':
        return reply.text(agentTurn(body.messages));
      case 'obs_compressor':
        return reply.text(
          `# Refined Observation\n${compressObservation(between(user[0] ?? '', 'observation'), between(system, 'guideline'))}`,
        );
      case 'hist_compressor':
        return reply.text(`# History Summary\n${summarizeHistory(user.join('\n'))}`);
      case 'analyzer':
        return reply.json(
          formatName(body.response_format) === 'utility_analysis'
            ? utilityAnalysis(user[0] ?? '')
            : compressionAnalysis(user[0] ?? ''),
        );
      case 'updater':
        return reply.json(guidelineUpdate(user[0] ?? ''));
      case 'judge':
        return reply.error(400, 'this fake plays no judge');
    }
  };
}

type Message = { role: string; content?: string | null };

/** A task's script: code for the turns before the last, then the last turn's code from what it saw. */
type Script = { explore: string[]; finish: (lastOutput: string) => string };

function scriptFor(instruction: string): Script {
  const docs = (app: string) =>
    `print(apis.api_docs.show_api_descriptions(app_name=${JSON.stringify(app)}))`;
  const song = /song with id (\d+)/i.exec(instruction);
  if (song) {
    return {
      explore: [docs('spotify'), `print(apis.spotify.show_song(song_id=${song[1]}))`],
      finish: (out) => completeTask(/"title":\s*"([^"]*)"/.exec(out)?.[1] ?? 'unknown'),
    };
  }
  if (/how many songs/i.test(instruction)) {
    return {
      explore: [docs('spotify'), 'print(apis.spotify.show_library())'],
      // Off by one on purpose: this task is the one that fails.
      finish: (out) => completeTask(String((out.match(/"song_id"/g) ?? []).length + 1)),
    };
  }
  const note = /note titled "([^"]*)" with the body "([^"]*)"/i.exec(instruction);
  if (note) {
    const args = `title=${JSON.stringify(note[1])}, body=${JSON.stringify(note[2])}`;
    return {
      explore: [docs('notes'), `apis.notes.create_note(${args})\nprint(apis.notes.show_notes())`],
      finish: () => 'apis.supervisor.complete_task()',
    };
  }
  return { explore: [], finish: () => 'apis.supervisor.complete_task()' };
}

function completeTask(answer: string): string {
  return `apis.supervisor.complete_task(answer=${JSON.stringify(answer)})`;
}

/**
 * The next turn, from the task (first user message) and the code of the last assistant message:
 * every strategy keeps the newest turn verbatim, so that is where the agent is.
 */
function agentTurn(messages: readonly Message[]): string {
  const task = messages.find((m) => m.role === 'user')?.content ?? '';
  const script = scriptFor(/^Task: (.*)$/m.exec(task)?.[1] ?? '');
  const lastAssistant = messages.findLast((m) => m.role === 'assistant');
  const ran = lastAssistant ? codeOf(lastAssistant.content ?? '') : null;
  const next = ran === null ? 0 : script.explore.indexOf(ran) + 1;
  if (ran !== null && next === 0) return 'The task is complete.';
  const lastOutput = messages.at(-1)?.role === 'user' ? (messages.at(-1)?.content ?? '') : '';
  const code = next < script.explore.length ? script.explore[next]! : script.finish(lastOutput);
  return `Step ${next + 1}:\n\`\`\`python\n${code}\n\`\`\``;
}

function codeOf(text: string): string | null {
  return /```python\n([\s\S]*?)\n```/.exec(text)?.[1] ?? null;
}

/** The text between `<tag>` and `</tag>` in a prompt. */
function between(text: string, tag: string): string {
  const m = new RegExp(`<${tag}>\\n?([\\s\\S]*?)\\n?</${tag}>`).exec(text);
  return m?.[1] ?? '';
}

function fieldsOn(guideline: string, label: 'KEEP' | 'DROP'): Set<string> {
  const fields = new Set<string>();
  for (const m of guideline.matchAll(new RegExp(`^${label}:(.*)$`, 'gm'))) {
    for (const f of (m[1] ?? '').split(',')) if (f.trim()) fields.add(f.trim());
  }
  return fields;
}

function compressObservation(observation: string, guideline: string): string {
  const printed = observation.replace(/^Output:\n/, '');
  let value: unknown;
  try {
    value = JSON.parse(printed);
  } catch {
    return observation.slice(0, 400);
  }
  const keep = fieldsOn(guideline, 'KEEP');
  const drop = fieldsOn(guideline, 'DROP');
  const kept = (key: string) => (key.endsWith('_id') || keep.has(key)) && !drop.has(key);
  const prune = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(prune);
    if (v === null || typeof v !== 'object') return v;
    return Object.fromEntries(
      Object.entries(v)
        .filter(([k]) => kept(k))
        .map(([k, x]) => [k, prune(x)]),
    );
  };
  return `Output:\n${JSON.stringify(prune(value))}`;
}

function summarizeHistory(prompt: string): string {
  const calls = [...prompt.matchAll(/^.*apis\.\w+\.\w+\(.*$/gm)].map((m) => `- ran ${m[0].trim()}`);
  return calls.length > 0
    ? `Code run so far:\n${[...new Set(calls)].join('\n')}`
    : 'Nothing run yet.';
}

function formatName(raw: unknown): string | undefined {
  return (raw as { json_schema?: { name?: string } } | undefined)?.json_schema?.name;
}

/** `"key": "value"` pairs in rendered text (string values only: the facts a later call copies). */
function stringFacts(text: string): { field: string; value: string }[] {
  return [...text.matchAll(/"(\w+)":\s*"([^"]+)"/g)].map((m) => ({
    field: m[1] ?? '',
    value: m[2] ?? '',
  }));
}

function occurrences(text: string, value: string): number {
  return text.split(value).length - 1;
}

function utilityAnalysis(prompt: string) {
  const full = between(prompt, 'full_trajectory');
  const compressed = between(prompt, 'compressed_trajectory');
  const missing = new Map<string, { fact: string; field: string; source_step: null }>();
  for (const { field, value } of stringFacts(full)) {
    if (occurrences(full, value) > 1 && !compressed.includes(value)) {
      missing.set(`${field}=${value}`, { fact: `${field} "${value}"`, field, source_step: null });
    }
  }
  const facts = [...missing.values()];
  return {
    first_divergence: { step: null, description: 'the compressed run answered differently' },
    missing_facts: facts,
    distorted_facts: [],
    lost_state: [],
    remediation:
      facts.length > 0
        ? `Keep the fields ${[...new Set(facts.map((f) => f.field))].join(', ')}.`
        : 'Keep every value a later step copies.',
  };
}

function compressionAnalysis(prompt: string) {
  const events = between(prompt, 'compression_events');
  const needed = new Set<string>();
  const unused = new Set<string>();
  for (const block of events.split(/^\[event \d+\]/m).slice(1)) {
    const [head = '', actions = ''] = block.split('NEXT TURNS:');
    const kept = head.split('KEPT:')[1] ?? head;
    for (const key of kept.matchAll(/"(\w+)":/g)) unused.add(key[1] ?? '');
    for (const { field, value } of stringFacts(kept)) {
      if (actions.includes(value)) needed.add(field);
    }
  }
  for (const f of needed) unused.delete(f);
  return {
    unused_fields: [...unused].filter((f) => !f.endsWith('_id')),
    unused_content: [],
    needed_fields: [...needed],
    remediation: unused.size > 0 ? `Drop ${[...unused].join(', ')}.` : 'Nothing kept goes unused.',
  };
}

function guidelineUpdate(prompt: string) {
  const current = between(prompt, 'current_guideline').trim();
  const candidate = Number(/^Candidate: (\d+)/m.exec(prompt)?.[1] ?? '1');
  const analyses = JSON.parse(between(prompt, 'analyses') || '[]') as {
    missing_facts?: { field: string }[];
    unused_fields?: string[];
    needed_fields?: string[];
  }[];
  const missing = [
    ...new Set(analyses.flatMap((a) => (a.missing_facts ?? []).map((f) => f.field))),
  ];
  const unused = [...new Set(analyses.flatMap((a) => a.unused_fields ?? []))];
  // Candidate 2 is bolder: it keeps only the first missing field, or drops every unused one.
  let line: string;
  if (missing.length > 0)
    line = `KEEP: ${(candidate === 2 ? missing.slice(0, 1) : missing).join(', ')}`;
  else if (unused.length > 0)
    line = `DROP: ${(candidate === 2 ? unused : unused.slice(0, 1)).join(', ')}`;
  else line = `Keep every identifier and name a later step may copy (variant ${candidate}).`;
  return { guideline: `${current}\n${line}`, rationale: `from ${analyses.length} analyses` };
}
