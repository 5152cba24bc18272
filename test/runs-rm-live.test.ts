import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runAcon, tempDir } from './helpers/cli.js';

/**
 * Issue #31, item 6: `acon runs rm` on a run another live process works on is refused, naming
 * that process, with or without --force; the writer goes on with its run.
 */

const STORE_MODULE = resolve(import.meta.dirname, '../dist/store/run-store.js');

/** A writer: creates a run, says so, and on a line on stdin writes to it again and stops. */
const WRITER = `
const { SqliteRunStore } = await import(process.argv[1]);
const store = new SqliteRunStore(process.argv[2]);
store.createRun({ id: 'run-live', kind: 'run', command: 'acon run', bench: 'apptown',
  provider: 'sim', models: {}, simulated: true, params: {}, config: {} });
process.stdout.write('ready\\n');
process.stdin.once('data', () => {
  store.setState('run-live', 'checkpoint', 1);
  store.setRunStatus('run-live', 'finished');
  process.stdout.write(store.getRun('run-live').status + '\\n');
  store.close();
  process.exit(0);
});
`;

const children: ReturnType<typeof spawn>[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill();
});

describe('acon runs rm on a live run', () => {
  it('refuses, naming the pid, with or without --force, and the writer finishes its run', async () => {
    const cwd = tempDir();
    const db = join(cwd, 'acon.db');
    const writer = spawn(
      process.execPath,
      ['--input-type=module', '-e', WRITER, STORE_MODULE, db],
      {
        stdio: ['pipe', 'pipe', 'pipe'],
      },
    );
    children.push(writer);
    let out = '';
    let err = '';
    writer.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
    writer.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
    await new Promise<void>((done, fail) => {
      writer.stdout!.on('data', () => out.includes('ready') && done());
      writer.on('exit', () => fail(new Error(`writer stopped: ${err}`)));
    });

    for (const extra of [[], ['--force']]) {
      const r = await runAcon(['runs', 'rm', 'run-live', '--db', db, ...extra], { cwd });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`run run-live is being run by pid ${writer.pid} on `);
      expect(r.stderr).toContain(`kill ${writer.pid}`);
      expect(r.stdout).toBe('');
    }

    const code = await new Promise<number | null>((done) => {
      writer.on('exit', (c) => done(c));
      writer.stdin!.write('go\n');
    });
    expect(err).toBe('');
    expect(code).toBe(0);
    expect(out).toContain('finished');

    // Once its process has stopped, the run is deleted without --force.
    const rm = await runAcon(['runs', 'rm', 'run-live', '--db', db], { cwd });
    expect(rm.code, rm.stderr).toBe(0);
    expect(rm.stdout).toContain('deleted run run-live');
  }, 60_000);
});
