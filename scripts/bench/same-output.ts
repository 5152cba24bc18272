/**
 * Did a change that should change nothing change nothing? (issue #55). Runs the README's
 * optimize (`acon optimize --bench apptown --json`, plus any acon flags after `--`) with a named
 * commit's build and with this checkout's, each in a fresh temporary folder, and compares the
 * results as JSON: the final tables, the plan, every stage and every candidate's report. Only what
 * depends on the clock or the machine is masked (run ids, timestamps, durations); everything else
 * must be byte-identical. Exits 1 and prints the first differing paths when it is not.
 *
 *   npx tsx scripts/bench/same-output.ts --baseline 141b14a
 *   npx tsx scripts/bench/same-output.ts --baseline 141b14a -- --max-tasks 4 --candidates 2
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { buildBaseline, load, removeBaseline, ROOT, runCollecting } from './baseline.js';

const { values, positionals } = parseArgs({
  options: { baseline: { type: 'string' }, keep: { type: 'boolean', default: false } },
  allowPositionals: true,
});
if (!values.baseline) {
  console.error('error: --baseline REF is required (the commit to compare with, e.g. 141b14a)');
  process.exit(2);
}

/** Keys whose values are the clock's or the machine's, not the method's. */
const VOLATILE_KEY =
  /(^|_)(at|ms|seconds)$|At$|Ms$|Seconds$|^(duration|elapsed|wall|started|finished)/i;
const RUN_ID = /\brun-\d{8}-\d{6}-\w+/g;
const ISO_TIME = /\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z\b/g;

function stable(value: unknown): unknown {
  if (typeof value === 'string') return value.replace(RUN_ID, '<run>').replace(ISO_TIME, '<time>');
  if (Array.isArray(value)) return value.map(stable);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, VOLATILE_KEY.test(k) ? '<masked>' : stable(v)]),
    );
  }
  return value;
}

/** Paths (`tables[0].rows[3].accuracy`) where two JSON values differ, the first `limit` of them. */
function differences(a: unknown, b: unknown, path = '', out: string[] = [], limit = 20): string[] {
  if (out.length >= limit) return out;
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const k of keys) {
      const sub = Array.isArray(a) ? `${path}[${k}]` : path ? `${path}.${k}` : k;
      differences(
        (a as Record<string, unknown>)[k],
        (b as Record<string, unknown>)[k],
        sub,
        out,
        limit,
      );
    }
  } else if (JSON.stringify(a) !== JSON.stringify(b)) {
    out.push(`${path}: ${JSON.stringify(a)?.slice(0, 80)} → ${JSON.stringify(b)?.slice(0, 80)}`);
  }
  return out;
}

async function optimizeJson(bin: string, label: string): Promise<unknown> {
  const dir = mkdtempSync(join(tmpdir(), `acon-same-${label}-`));
  const args = [bin, 'optimize', '--bench', 'apptown', '--json', ...positionals];
  console.log(`${label}: node ${args.slice(1).join(' ')}  (in ${dir}; load ${load()})`);
  const r = await runCollecting([process.execPath, ...args], dir, {});
  writeFileSync(join(dir, 'stdout.json'), r.stdout);
  if (r.code !== 0) {
    console.error(`${label} exited ${r.code}:\n${r.stderr}`);
    process.exit(1);
  }
  return stable(JSON.parse(r.stdout));
}

const baseDir = mkdtempSync(join(tmpdir(), 'acon-same-base-'));
const baseRoot = buildBaseline(values.baseline, baseDir);
try {
  const before = await optimizeJson(join(baseRoot, 'bin', 'acon.js'), values.baseline);
  const after = await optimizeJson(join(ROOT, 'bin', 'acon.js'), 'this checkout');
  const a = JSON.stringify(before);
  const b = JSON.stringify(after);
  if (a === b) {
    const stages = (after as { stages?: unknown[] }).stages?.length ?? 0;
    console.log(
      `identical: tables, plan and ${stages} stages with their candidate reports (${b.length} bytes of JSON, volatile fields masked)`,
    );
  } else {
    console.log(`DIFFERENT:\n  ${differences(before, after).join('\n  ')}`);
    process.exitCode = 1;
  }
} finally {
  if (!values.keep) removeBaseline(baseDir);
}
