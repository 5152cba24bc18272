import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** The compiled CLI, as a user runs it after `npm ci` (npm test builds first). */
export const ACON_BIN = resolve(import.meta.dirname, '../../bin/acon.js');

export type CliResult = {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
};

export function tempDir(prefix = 'acon-e2e-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/**
 * A clean environment: no keys or ACON_* overrides leak in from the developer's shell. The
 * periodic progress line is off (ACON_PROGRESS_INTERVAL=0): it appears only when a command runs
 * longer than its interval, so on a loaded machine it would break an expected-empty stderr; a
 * test that wants it passes its own value.
 */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (k.startsWith('ACON_') || k.startsWith('OPENAI_')) continue;
    env[k] = v;
  }
  return { ...env, NO_COLOR: '1', ACON_PROGRESS_INTERVAL: '0', ...extra };
}

/** Runs `acon args…` in `cwd`; `onSpawn` gets the child (to send signals). */
export function runAcon(
  args: string[],
  opts: {
    cwd: string;
    env?: Record<string, string>;
    onStdout?: (chunk: string) => void;
    onSpawn?: (child: ReturnType<typeof spawn>) => void;
  },
): Promise<CliResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [ACON_BIN, ...args], {
      cwd: opts.cwd,
      env: cleanEnv(opts.env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    // Decoded as a stream: a character whose bytes span two chunks stays one character.
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (d: string) => {
      stdout += d;
      opts.onStdout?.(d);
    });
    child.stderr.on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code, signal) => resolvePromise({ code, signal, stdout, stderr }));
    opts.onSpawn?.(child);
  });
}
