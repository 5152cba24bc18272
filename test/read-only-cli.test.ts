import { chmodSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runAcon, tempDir } from './helpers/cli.js';

/**
 * Issue #31, item 7: the commands that only read a database (`runs`, `runs show`, `rollout
 * show`, `report`, `export`) change nothing in it and leave no `-wal`/`-shm` beside it; on a
 * read-only folder they work all the same.
 */

let cwd: string;
let db: string;
let runId: string;
let rolloutId: string;

beforeAll(async () => {
  cwd = tempDir();
  db = join(cwd, 'store', 'acon.db');
  const r = await runAcon(
    [
      'run',
      '--bench',
      'apptown',
      '--split',
      'dev',
      '--strategy',
      'raw',
      '--tasks',
      'dev-001-music-phone-wallet',
      '--db',
      db,
      '--json',
    ],
    { cwd },
  );
  expect(r.code, r.stderr).toBe(0);
  runId = (JSON.parse(r.stdout) as { provenance: { runId: string } }).provenance.runId;
  const show = await runAcon(['runs', 'show', runId, '--db', db, '--json'], { cwd });
  rolloutId = (JSON.parse(show.stdout) as { rollouts: { id: string }[] }).rollouts[0]!.id;
}, 120_000);

const commands = () => [
  ['runs', '--db', db],
  ['runs', 'show', runId, '--db', db],
  ['rollout', 'show', rolloutId.slice(0, 8), '--db', db],
  ['report', runId, '--db', db, '--html', join(cwd, 'out', 'report.html')],
  [
    'export',
    '--role',
    'agent',
    '--format',
    'openai',
    '--run',
    runId,
    '--split',
    'dev',
    '--guidelines',
    'all',
    '--db',
    db,
    '--out',
    join(cwd, 'out', 'train.jsonl'),
  ],
];

describe('read-only commands', () => {
  it('leave the database as it was, with no -wal or -shm beside it', async () => {
    const bytes = readFileSync(db);
    for (const args of commands()) {
      const r = await runAcon(args, { cwd });
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      expect(readdirSync(join(cwd, 'store')), args.join(' ')).toEqual(['acon.db']);
    }
    expect(readFileSync(db).equals(bytes)).toBe(true);
  }, 120_000);

  // As root, chmod does not stop writes (test/store open tests read the in-memory way instead).
  it.skipIf(process.getuid?.() === 0)(
    'work on a read-only folder and file',
    async () => {
      chmodSync(db, 0o444);
      chmodSync(join(cwd, 'store'), 0o555);
      try {
        for (const args of commands()) {
          const r = await runAcon(args, { cwd });
          expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
        }
        expect(readdirSync(join(cwd, 'store'))).toEqual(['acon.db']);
      } finally {
        chmodSync(join(cwd, 'store'), 0o755);
      }
    },
    120_000,
  );
});
