import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { SCHEMA_VERSION } from '../src/store/migrations.js';
import { SqliteRunStore } from '../src/store/run-store.js';
import { runAcon, tempDir } from './helpers/cli.js';

/**
 * `store-schema-v6.db.gz` was written by acon at schema 6 (texts as blobs, hex keys, one
 * llm_calls row naming its run, rollout, task, role and model): `acon compare --split dev
 * --tasks dev-003-phone-mail-shop --strategies raw,acon` and `acon run --bench qa --split dev
 * --tasks qa-dev-01q-1,qa-dev-01q-2 --strategy acon`, offline. `store-schema-v6.expected.json.gz`
 * holds what that acon read from it: every call (texts as SHA-256), each rollout's trajectory,
 * steps, step actions, head and events (SHA-256 of their JSON), and what `acon runs`,
 * `runs show` and `rollout show` printed, keyed by the command's arguments.
 */
const FIXTURE = new URL('./fixtures/store-schema-v6.db.gz', import.meta.url);
const EXPECTED = new URL('./fixtures/store-schema-v6.expected.json.gz', import.meta.url);

type Expected = {
  calls: Record<string, unknown>[];
  rollouts: Record<
    string,
    { trajectory: string; steps: string; stepActions: string; head: string; events: string }
  >;
  cli: Record<string, string>;
};

const sha = (v: unknown) =>
  createHash('sha256')
    .update(typeof v === 'string' ? v : JSON.stringify(v))
    .digest('hex');

function copyFixture(): string {
  const file = join(mkdtempSync(join(tmpdir(), 'acon-migrate-v6-')), 'acon.db');
  writeFileSync(file, gunzipSync(readFileSync(FIXTURE)));
  return file;
}

const expected = JSON.parse(gunzipSync(readFileSync(EXPECTED)).toString('utf8')) as Expected;

/** What the store reads of every rollout, hashed as the fixture's expectations are. */
function readRollouts(store: SqliteRunStore, ids: readonly string[]): Expected['rollouts'] {
  return Object.fromEntries(
    ids.map((id) => [
      id,
      {
        trajectory: sha(JSON.stringify(store.trajectory(id))),
        steps: sha(store.steps(id)),
        stepActions: sha(store.stepActions(id)),
        head: sha(store.trajectoryHead(id)),
        events: sha(store.events(id)),
      },
    ]),
  );
}

describe('migration from schema 6 to compact rows (schema 7)', () => {
  it('reads every call, trajectory, step and event back exactly as schema 6 did', () => {
    const file = copyFixture();
    const before = new Database(file, { readonly: true });
    expect(before.pragma('user_version', { simple: true })).toBe(6);
    before.close();

    const store = new SqliteRunStore(file);
    try {
      const calls = store
        .listRuns()
        .flatMap((r) => store.calls({ runId: r.id }))
        .map((c) => ({ ...c, request: sha(c.request), response: c.response && sha(c.response) }));
      expect(calls.length).toBe(expected.calls.length);
      expect(calls).toEqual(expected.calls);
      expect(readRollouts(store, Object.keys(expected.rollouts))).toEqual(expected.rollouts);
    } finally {
      store.close();
    }
    const after = new Database(file, { readonly: true });
    expect(after.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    // The run, rollout, task, role and model of a call are stored once per combination.
    const contexts = after.prepare('SELECT COUNT(*) FROM call_contexts').pluck().get() as number;
    expect(contexts).toBeLessThan(expected.calls.length / 5);
    after.close();
  });

  it('prints every table of runs, runs show and rollout show as schema 6 did', async () => {
    const file = copyFixture();
    new SqliteRunStore(file).close(); // a writing command upgrades the file
    const cwd = tempDir();
    for (const [command, output] of Object.entries(expected.cli)) {
      const r = await runAcon([...command.split(' '), '--db', file], { cwd });
      expect(r.stderr, command).toBe('');
      expect(r.code, command).toBe(0);
      if (command.endsWith('--json'))
        expect(JSON.parse(r.stdout), command).toEqual(JSON.parse(output));
      else expect(r.stdout, command).toBe(output);
    }
    expect(Object.keys(expected.cli).filter((c) => c.startsWith('runs show'))).toHaveLength(4);
  });

  it('deletes one migrated run and keeps the other one whole (blob sweep over v7 rows)', () => {
    const file = copyFixture();
    const store = new SqliteRunStore(file);
    try {
      const [keep, drop] = store.listRuns();
      const kept = store.rollouts(keep!.id).map((r) => r.id);
      const callsBefore = store.calls({ runId: keep!.id });
      store.deleteRun(drop!.id);
      expect(store.listRuns().map((r) => r.id)).toEqual([keep!.id]);
      expect(store.countCalls({ runId: drop!.id })).toBe(0);
      expect(store.calls({ runId: keep!.id })).toEqual(callsBefore);
      const want = Object.fromEntries(kept.map((id) => [id, expected.rollouts[id]!]));
      expect(readRollouts(store, kept)).toEqual(want);
    } finally {
      store.close();
    }
  });

  it('acon runs upgrade upgrades the file a read-only command refused, once', async () => {
    const file = copyFixture();
    const cwd = tempDir();
    const refused = await runAcon(['runs', '--db', file], { cwd });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      `schema version 6 is older than this acon (${SCHEMA_VERSION})`,
    );
    expect(refused.stderr).toContain(`acon runs upgrade --db ${file}`);

    const upgraded = await runAcon(['runs', 'upgrade', '--db', file], { cwd });
    expect(upgraded.stderr).toBe('');
    expect(upgraded.code).toBe(0);
    const [first, second] = upgraded.stdout.trimEnd().split('\n');
    expect(first).toBe(`upgraded ${file} from schema version 6 to ${SCHEMA_VERSION}`);
    // The rebuilt tables' old pages are given back: the file ends up smaller than schema 6's.
    expect(second).toMatch(/^compacted .*: ([\d.]+) MB → ([\d.]+) MB \(free pages returned\)$/);
    expect(statSync(file).size).toBeLessThan(gunzipSync(readFileSync(FIXTURE)).length);
    const listed = await runAcon(['runs', '--db', file], { cwd });
    expect(listed.stderr).toBe('');
    expect(listed.stdout).toBe(expected.cli.runs);

    const again = await runAcon(['runs', 'upgrade', '--db', file], { cwd });
    expect(again.stdout).toBe(
      `${file} is at schema version ${SCHEMA_VERSION} already (this acon's)\n`,
    );
    const missing = await runAcon(['runs', 'upgrade', '--db', join(cwd, 'none.db')], { cwd });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('no such file');
  });
});
