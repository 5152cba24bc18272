import { readFile, stat } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve } from 'node:path';
import type { Evaluation } from '../../domain/index.js';
import type { Check, EvaluationSpec } from './task-schema.js';

/** Case, inner spaces, surrounding quotes and a final period do not matter. */
export function normalizeAnswer(text: string): string {
  return text
    .trim()
    .replace(/^["'`]+|["'`]+$/g, '')
    .replace(/\.$/, '')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase();
}

export function answerMatches(
  expected: string,
  got: string,
  match: EvaluationSpec['match'],
): boolean {
  if (match === 'number') {
    const n = (s: string) => Number(s.replace(/[$,\s]/g, ''));
    return Number.isFinite(n(got)) && Math.abs(n(got) - n(expected)) < 1e-6;
  }
  if (match === 'set') {
    const items = (s: string) =>
      [
        ...new Set(
          s
            .split(/[,;\n]/)
            .map(normalizeAnswer)
            .filter((x) => x !== ''),
        ),
      ].sort();
    return JSON.stringify(items(expected)) === JSON.stringify(items(got));
  }
  return normalizeAnswer(expected) === normalizeAnswer(got);
}

type Graph = {
  entities: { name: string; entityType: string; observations: string[] }[];
  relations: { from: string; to: string; relationType: string }[];
};

/** The memory server's JSONL file (one entity or relation a line); missing: an empty graph. */
export async function readGraph(file: string): Promise<Graph> {
  const graph: Graph = { entities: [], relations: [] };
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return graph;
  }
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const item = JSON.parse(line) as Record<string, unknown>;
    if (item.type === 'entity') graph.entities.push(item as unknown as Graph['entities'][number]);
    if (item.type === 'relation')
      graph.relations.push(item as unknown as Graph['relations'][number]);
  }
  return graph;
}

/** A path inside the workdir (a check never reads outside it). */
function inside(workdir: string, path: string): string | undefined {
  const full = resolve(workdir, path);
  const rel = relative(workdir, full);
  return rel.startsWith('..') || isAbsolute(rel) ? undefined : join(workdir, rel);
}

async function isFile(path: string | undefined): Promise<boolean> {
  if (path === undefined) return false;
  return stat(path).then(
    (s) => s.isFile(),
    () => false,
  );
}

async function runCheck(
  check: Check,
  where: { workdir: string; memoryFile: string },
): Promise<Evaluation['details'][number]> {
  if ('file_exists' in check) {
    const ok = await isFile(inside(where.workdir, check.file_exists));
    return {
      name: `file_exists ${check.file_exists}`,
      passed: ok,
      detail: ok ? 'exists' : 'missing',
    };
  }
  if ('file_absent' in check) {
    const there = await isFile(inside(where.workdir, check.file_absent));
    return {
      name: `file_absent ${check.file_absent}`,
      passed: !there,
      detail: there ? 'still there' : 'absent',
    };
  }
  if ('file_contains' in check) {
    const { path, text } = check.file_contains;
    const full = inside(where.workdir, path);
    const content = full && (await isFile(full)) ? await readFile(full, 'utf8') : undefined;
    const ok = content !== undefined && normalizeAnswer(content).includes(normalizeAnswer(text));
    return {
      name: `file_contains ${path}`,
      passed: ok,
      detail: content === undefined ? 'missing' : ok ? `contains "${text}"` : `lacks "${text}"`,
    };
  }
  const graph = await readGraph(where.memoryFile);
  if ('graph_entity' in check) {
    const want = check.graph_entity;
    const entity = graph.entities.find((e) => e.name === want.name);
    const typeOk = !want.type || entity?.entityType === want.type;
    const obsOk =
      !want.observation ||
      (entity?.observations ?? []).some(
        (o) => normalizeAnswer(o) === normalizeAnswer(want.observation!),
      );
    const ok = entity !== undefined && typeOk && obsOk;
    return {
      name: `graph_entity ${want.name}`,
      passed: ok,
      detail: !entity
        ? 'no such entity'
        : !typeOk
          ? `type is ${entity.entityType}, expected ${want.type}`
          : !obsOk
            ? `no observation "${want.observation}"`
            : 'present',
    };
  }
  const want = check.graph_relation;
  const ok = graph.relations.some(
    (r) => r.from === want.from && r.to === want.to && r.relationType === want.type,
  );
  return {
    name: `graph_relation ${want.from} -${want.type}-> ${want.to}`,
    passed: ok,
    detail: ok ? 'present' : 'missing',
  };
}

/** The answer check (when the task expects one) and every state check; success needs all. */
export async function evaluateMcp(
  spec: EvaluationSpec,
  answer: string | null,
  where: { workdir: string; memoryFile: string },
): Promise<Evaluation> {
  const details: Evaluation['details'] = [];
  if (spec.answer !== undefined) {
    const ok = answer !== null && answerMatches(spec.answer, answer, spec.match);
    details.push({
      name: 'answer',
      passed: ok,
      detail: `expected "${spec.answer}", got ${answer === null ? 'no answer' : `"${answer}"`}`,
    });
  }
  for (const check of spec.checks) details.push(await runCheck(check, where));
  const passed = details.filter((d) => d.passed).length;
  return {
    success: passed === details.length,
    score: details.length === 0 ? 0 : passed / details.length,
    details,
  };
}
