/**
 * Issue #31's must-show, run by hand (not in the suite: a pair takes about 45 s of CPU):
 * PAIRS pairs of `acon optimize --bench apptown --max-tasks 3` started together in one folder
 * (odd pairs share runs/acon.db, even pairs use a --db each). After each pair it checks:
 * both exited 0; every guideline file is intact (its front matter parses, its id is the number
 * in its name, it names the run that wrote it, its text is what that run stored); ids are
 * unique; `acon guidelines log` and `--json` work.
 *
 *   npm run build && npx tsx scripts/bench/concurrent-optimize.ts [PAIRS=10]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { parse } from 'yaml';

const BIN = resolve(import.meta.dirname, '../../bin/acon.js');
const PAIRS = Number(process.argv[2] ?? 10);

type Result = { code: number | null; stdout: string; stderr: string };

function acon(args: string[], cwd: string): Promise<Result> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd,
      env: { ...process.env, NO_COLOR: '1' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}

/** The text each run stored for each guideline version it wrote, from every database used. */
function storedTexts(dbs: string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const file of dbs) {
    const db = new Database(file, { readonly: true });
    for (const r of db.prepare('SELECT id, run_id, text FROM guideline_versions').all() as {
      id: string;
      run_id: string;
      text: string;
    }[]) {
      out.set(`${r.run_id}|${r.id}`, r.text);
    }
    db.close();
  }
  return out;
}

function check(cwd: string, dbs: string[]): string[] {
  const problems: string[] = [];
  const stored = storedTexts(dbs);
  for (const kind of ['obs', 'hist']) {
    const seen = new Set<string>();
    const names = readdirSync(join(cwd, 'guidelines', kind)).filter((n) =>
      /^\d{4}-.*\.md$/.test(n),
    );
    for (const name of names) {
      const text = readFileSync(join(cwd, 'guidelines', kind, name), 'utf8');
      const m = /^---\n([\s\S]*?)\n---\n([\s\S]*)$/.exec(text);
      if (!m) {
        problems.push(`${kind}/${name}: no front matter`);
        continue;
      }
      const front = parse(m[1]!) as { id: string; run?: string };
      const want = `${kind}-${name.slice(0, 4)}`;
      if (front.id !== want) problems.push(`${kind}/${name}: id ${front.id}, file says ${want}`);
      if (seen.has(front.id)) problems.push(`${kind}/${name}: id ${front.id} twice`);
      seen.add(front.id);
      if (name.startsWith('0000')) continue;
      const body = stored.get(`${front.run}|${front.id}`);
      if (body === undefined)
        problems.push(`${kind}/${name}: run ${front.run} stored no ${front.id}`);
      else if (!m[2]!.includes(body.trim()))
        problems.push(`${kind}/${name}: text differs from ${front.run}'s`);
    }
  }
  return problems;
}

let failed = 0;
const t0 = performance.now();
for (let pair = 1; pair <= PAIRS; pair++) {
  const cwd = mkdtempSync(join(tmpdir(), 'acon-pair-'));
  const shared = pair % 2 === 1;
  const dbOf = (i: number) => (shared ? 'runs/acon.db' : `runs/acon-${i}.db`);
  const args = (i: number) => [
    'optimize',
    '--bench',
    'apptown',
    '--max-tasks',
    '3',
    '--db',
    dbOf(i),
  ];
  const started = performance.now();
  const [a, b] = await Promise.all([acon(args(1), cwd), acon(args(2), cwd)]);
  const problems: string[] = [];
  for (const [i, r] of [a, b].entries()) {
    if (r.code !== 0)
      problems.push(`optimize ${i + 1} exited ${r.code}: ${r.stderr.trim().split('\n').pop()}`);
  }
  problems.push(
    ...check(
      cwd,
      [...new Set([dbOf(1), dbOf(2)])].map((f) => join(cwd, f)),
    ),
  );
  const log = await acon(['guidelines', 'log', '--wide'], cwd);
  const json = await acon(['guidelines', 'log', '--json'], cwd);
  if (log.code !== 0 || log.stderr !== '')
    problems.push(`guidelines log: ${log.code} ${log.stderr}`);
  if (json.code !== 0) problems.push(`guidelines log --json: ${json.code} ${json.stderr}`);
  const versions = json.code === 0 ? (JSON.parse(json.stdout) as unknown[]).length : 0;
  const secs = ((performance.now() - started) / 1000).toFixed(0);
  console.log(
    `pair ${pair} (${shared ? 'one --db' : 'two --db'}): exit ${a.code}/${b.code}, ${versions} versions, ${problems.length === 0 ? 'intact' : `${problems.length} problem(s)`}, ${secs} s  ${cwd}`,
  );
  for (const p of problems) console.log(`  ${p}`);
  if (problems.length > 0) failed++;
}
console.log(
  `${PAIRS - failed}/${PAIRS} pairs intact in ${((performance.now() - t0) / 1000).toFixed(0)} s`,
);
process.exitCode = failed === 0 ? 0 : 1;
