import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runAcon, tempDir } from './helpers/cli.js';
import { SHORT_TASKS_DIR } from './helpers/env.js';

describe('--resume after a task changed (issue #31)', () => {
  it('refuses naming the task, or goes on saying so with --allow-task-changes', async () => {
    const cwd = tempDir();
    const tasksDir = join(cwd, 'tasks');
    cpSync(SHORT_TASKS_DIR, tasksDir, { recursive: true });
    const env = { ACON_APPTOWN__TASKS_DIR: tasksDir, ACON_SIM__NOISE: '0' };
    const task = 'files-clean-desktop-2';
    const args = ['compare', '--strategies', 'raw,fifo', '--tasks', `${task},files-move-pdfs-2`];
    const first = await runAcon(args, { cwd, env });
    expect(first.code, first.stderr).toBe(0);
    const runId = /as run (\S+)/.exec(first.stdout)![1]!;

    // Unchanged tasks: the resume goes through (nothing left to run).
    const again = await runAcon(['compare', '--resume', runId], { cwd, env });
    expect(again.code, again.stderr).toBe(0);

    const file = join(tasksDir, `${task}.yaml`);
    writeFileSync(file, readFileSync(file, 'utf8').replace(/^seed: \d+$/m, 'seed: 4242'));
    const refused = await runAcon(['compare', '--resume', runId], { cwd, env });
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toMatch(
      new RegExp(
        `^error: task ${task} changed since run ${runId} started, .*--allow-task-changes`,
        'm',
      ),
    );

    const allowed = await runAcon(['compare', '--resume', runId, '--allow-task-changes'], {
      cwd,
      env,
    });
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(allowed.stderr).toContain(`warning: task ${task} changed since run ${runId} started`);
    expect(allowed.stderr).toContain('(--allow-task-changes)');
    expect(allowed.stderr).not.toContain('warning: warning:');
  });
});
