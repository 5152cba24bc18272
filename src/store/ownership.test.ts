import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RunBusyError } from '../errors.js';
import { STALE_AFTER_MS, type Owner } from './ownership.js';
import { SqliteRunStore } from './run-store.js';
import { simRun } from '../../test/helpers/store.js';

/** Two "processes" over one file: each store has its own owner identity, a shared fake clock. */
function world() {
  const file = join(mkdtempSync(join(tmpdir(), 'acon-own-')), 'acon.db');
  const clock = { t: 1_000_000 };
  const alive = new Set<number>();
  const open = (self: Owner) =>
    new SqliteRunStore(file, {
      probe: { self, now: () => clock.t, pidAlive: (pid) => alive.has(pid) },
    });
  return { clock, alive, open };
}

const RUN = simRun('run-1');

describe('run ownership', () => {
  it('refuses a second resume while the owner on this host lives', () => {
    const w = world();
    w.alive.add(100);
    const first = w.open({ pid: 100, host: 'h' });
    first.createRun(RUN);
    const second = w.open({ pid: 200, host: 'h' });
    expect(() => second.claimRun('run-1')).toThrow(RunBusyError);
    expect(() => second.claimRun('run-1')).toThrow(
      'run run-1 is being run by pid 100 on h (last heartbeat 0s ago); wait for it to finish or stop it (Ctrl-C) before resuming',
    );
    expect(second.getRun('run-1').status).toBe('running');
    first.close();
    second.close();
  });

  it('refuses to delete a run another live process owns, and deletes it once that one is gone', () => {
    const w = world();
    w.alive.add(100);
    const writer = w.open({ pid: 100, host: 'h' });
    writer.createRun(RUN);
    const other = w.open({ pid: 200, host: 'h' });
    expect(() => other.deleteRun('run-1')).toThrow(
      'run run-1 is being run by pid 100 on h (last heartbeat 0s ago); stop that process first (Ctrl-C in its terminal, or kill 100), then delete the run',
    );
    writer.setState('run-1', 'k', 1);
    w.alive.delete(100);
    expect(other.deleteRun('run-1').rollouts).toBe(0);
    writer.close();
    other.close();
  });

  it('shows a killed owner’s run as interrupted and lets another process resume it', () => {
    const w = world();
    w.alive.add(100);
    const first = w.open({ pid: 100, host: 'h' });
    first.createRun(RUN);
    first.close();
    w.alive.delete(100); // SIGKILL: status stays `running` in the table
    const second = w.open({ pid: 200, host: 'h' });
    expect(second.getRun('run-1').status).toBe('interrupted');
    expect(second.listRuns()[0]!.status).toBe('interrupted');
    const claimed = second.claimRun('run-1');
    expect(claimed.status).toBe('running');
    expect(claimed.owner).toEqual({ pid: 200, host: 'h', heartbeatAt: w.clock.t });
    second.close();
  });

  it('treats an owner on another host as gone once its heartbeat is stale', () => {
    const w = world();
    const remote = w.open({ pid: 100, host: 'far' });
    remote.createRun(RUN);
    const here = w.open({ pid: 200, host: 'h' });
    w.clock.t += STALE_AFTER_MS;
    expect(here.getRun('run-1').status).toBe('running');
    remote.heartbeat('run-1');
    w.clock.t += STALE_AFTER_MS;
    expect(() => here.claimRun('run-1')).toThrow(RunBusyError);
    w.clock.t += 1;
    expect(here.getRun('run-1').status).toBe('interrupted');
    expect(here.claimRun('run-1').owner.host).toBe('h');
    remote.close();
    here.close();
  });

  it('lets a run that stopped cleanly be resumed by anyone', () => {
    const w = world();
    w.alive.add(100);
    const first = w.open({ pid: 100, host: 'h' });
    first.createRun(RUN);
    first.setRunStatus('run-1', 'interrupted');
    const second = w.open({ pid: 200, host: 'h' });
    expect(second.claimRun('run-1').status).toBe('running');
    first.close();
    second.close();
  });
});
