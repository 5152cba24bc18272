import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { SCHEMA_VERSION, SqliteRunStore } from '../src/store/index.js';
import { upgradeDatabase } from '../src/store-upgrade/index.js';
import { runAcon, tempDir } from './helpers/cli.js';
import { costByRole } from '../src/report/cost-by-role.js';

/**
 * `store-schema-v12.db.gz` was written by acon at schema 12 (commit e8cc1f0), offline:
 * `acon compare --split dev --tasks dev-001-wallet-shop-music,dev-003-phone-mail-shop`,
 * `acon run --bench qa --split dev --tasks qa-dev-01q-1,qa-dev-01q-2`,
 * `acon optimize --bench qa --max-tasks 2 --candidates 2 --no-promote` (analyzer and updater
 * calls), and `acon compare --tasks dev-002-…,dev-004-… --strategies raw,acon --concurrency 1`
 * killed with SIGKILL during its third rollout (an interrupted run with calls of an unfinished
 * rollout). `store-schema-v12.expected.json.gz` holds what that acon read from it: every call
 * (texts as SHA-256), each rollout's row, trajectory, steps, step actions, head, events and
 * call usage, each run's call stats, usage by role, conditions and finished keys (SHA-256 of
 * their JSON where long), and what `acon runs`, `runs show` and `rollout show` printed; rendered
 * by the acon of commit c758e54 (main just before store v2, the last that reads schema 12); the
 * tables rewritten since for the results work only (`fullCostUsd` in `runs show --json`; `acon runs`
 * with a bench column and accuracy per split). The killed run cannot be resumed any more: the
 * apptown tasks it ran were regenerated since.
 * A later change to what a rollout row holds or how these tables look rewrites them from the
 * upgraded fixture, once its diff shows only that change: `ACON_V12_EXPECT=write npx vitest run
 * test/store-upgrade-v12.test.ts`.
 */
const FIXTURE = new URL('./fixtures/store-schema-v12.db.gz', import.meta.url);
const EXPECTED = new URL('./fixtures/store-schema-v12.expected.json.gz', import.meta.url);

type Expected = {
  calls: Record<string, unknown>[];
  rollouts: Record<string, Record<string, string>>;
  runStats: Record<string, Record<string, unknown>>;
  cli: Record<string, string>;
};
const expected = JSON.parse(gunzipSync(readFileSync(EXPECTED)).toString('utf8')) as Expected;
const rewrite = process.env.ACON_V12_EXPECT === 'write';

const sha = (v: unknown) =>
  createHash('sha256')
    .update(typeof v === 'string' ? v : JSON.stringify(v))
    .digest('hex');

function copyFixture(): string {
  const file = join(mkdtempSync(join(tmpdir(), 'acon-v12-')), 'acon.db');
  writeFileSync(file, gunzipSync(readFileSync(FIXTURE)));
  return file;
}

/** The fixture converted to this store by `acon runs upgrade`'s library call. */
function upgradedFixture(): string {
  const file = copyFixture();
  const done = upgradeDatabase(file);
  expect(done).toMatchObject({ from: 12, to: SCHEMA_VERSION, legacy: true });
  return file;
}

/** Everything the store reads of the fixture, in the shape of the expectations. */
function readAll(store: SqliteRunStore): Omit<Expected, 'cli'> {
  const runs = store.listRuns();
  const calls = runs
    .flatMap((r) => store.calls({ runId: r.id }))
    .map((c) => ({ ...c, request: sha(c.request), response: c.response && sha(c.response) }));
  const rollouts: Expected['rollouts'] = {};
  for (const r of runs) {
    for (const ro of store.rollouts(r.id)) {
      rollouts[ro.id] = {
        row: sha(ro),
        trajectory: sha(JSON.stringify(store.trajectory(ro.id))),
        steps: sha(stepRows(store, ro.id)),
        // What the old store's stepActions() read: the steps without their prompts.
        stepActions: sha(stepRows(store, ro.id).map(({ prompt: _, ...action }) => action)),
        head: sha(store.trajectoryHead(ro.id)),
        events: sha(store.events(ro.id)),
        callsOfRollout: sha(store.callsOfRollout(ro.id)),
      };
    }
  }
  const runStats = Object.fromEntries(
    runs.map((r) => [
      r.id,
      {
        callStats: store.callStats(r.id),
        // The report's cost by role, as the store summed it over all call rows before.
        usageByRole: costByRole(store.rollouts(r.id), store.usageOutsideRollouts(r.id)),
        conditions: store.runConditions(r.id),
        finished: [...store.finishedKeys(r.id)].sort(),
      },
    ]),
  );
  return { calls, rollouts, runStats };
}

describe('acon runs upgrade of a schema-12 file', () => {
  it('reads back every call, rollout and run figure as the acon that wrote it', () => {
    const store = new SqliteRunStore(upgradedFixture(), { mode: 'read' });
    try {
      const got = readAll(store);
      if (rewrite) Object.assign(expected, got);
      expect(got.calls.length).toBe(952);
      expect(Object.keys(got.rollouts)).toHaveLength(52);
      // Since schema 3 a call's request hash is the 16 bytes its row keeps (the cache's key).
      const calls = expected.calls.map((c) => ({
        ...c,
        requestHash: String(c.requestHash).slice(0, 32),
      }));
      expect(got).toEqual({
        calls: rewrite ? got.calls : calls,
        rollouts: expected.rollouts,
        runStats: expected.runStats,
      });
    } finally {
      store.close();
    }
  });

  it('prints runs, runs show and rollout show as the acon that wrote it', async () => {
    const file = copyFixture();
    const cwd = tempDir();
    const refused = await runAcon(['runs', '--db', file], { cwd });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`convert it with \`acon runs upgrade --db ${file}\``);
    const upgraded = await runAcon(['runs', 'upgrade', '--db', file], { cwd });
    expect(upgraded.stderr).toBe('');
    expect(upgraded.stdout).toMatch(
      new RegExp(
        `^upgraded ${file} from schema version 12 of the store before v2 to ${SCHEMA_VERSION} \\(0\\.9 MB → [\\d.]+ MB\\)\\n$`,
      ),
    );
    expect(Object.keys(expected.cli)).toHaveLength(12);
    for (const [command, output] of Object.entries(expected.cli)) {
      const r = await runAcon([...command.split(' '), '--db', file], { cwd });
      const want = rewrite ? (expected.cli[command] = r.stdout) : output;
      expect(r.stderr, command).toBe('');
      expect(r.code, command).toBe(0);
      if (command.endsWith('--json'))
        expect(JSON.parse(r.stdout), command).toEqual(JSON.parse(want));
      else expect(r.stdout, command).toBe(want);
    }
    if (rewrite) writeFileSync(EXPECTED, gzipSync(JSON.stringify(expected)));
    const again = await runAcon(['runs', 'upgrade', '--db', file], { cwd });
    expect(again.stdout).toBe(
      `${file} is at schema version ${SCHEMA_VERSION} already (this acon's)\n`,
    );
  }, 300_000);

  it('refuses a file older than schema 12, naming the way there', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'acon-v6-')), 'acon.db');
    writeFileSync(
      file,
      gunzipSync(readFileSync(new URL('./fixtures/store-schema-v6.db.gz', import.meta.url))),
    );
    const bytes = readFileSync(file);
    expect(() => upgradeDatabase(file)).toThrow(
      'written by an older acon (store schema 6, one row per step); bring it to schema 12 first with the acon of commit e8cc1f0',
    );
    expect(() => new SqliteRunStore(file)).toThrow('store schema 6');
    expect(readFileSync(file).equals(bytes)).toBe(true);
    const db = new Database(file, { readonly: true });
    expect(db.pragma('user_version', { simple: true })).toBe(6);
    db.close();
  });
});

/** A rollout's steps in the shape the schema-12 store's `steps()` read them (JSON texts). */
function stepRows(store: SqliteRunStore, rolloutId: string) {
  const prompts = store.prompts(rolloutId);
  return store.stepRecords(rolloutId).map((s, i) => ({
    idx: s.index,
    prompt_tokens: s.promptTokens,
    prompt: JSON.stringify(prompts[i]),
    assistant: JSON.stringify(s.assistant),
    observations: JSON.stringify(s.observations),
  }));
}
