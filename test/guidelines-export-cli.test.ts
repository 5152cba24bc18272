import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runAcon, tempDir } from './helpers/cli.js';

describe('acon guidelines export', () => {
  it('prints the active history guideline as a LangChain summary prompt', async () => {
    const cwd = tempDir();
    const r = await runAcon(['guidelines', 'export', 'hist@active', '--to', 'langchain'], { cwd });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('<guideline>');
    expect(r.stdout).toContain('{messages}');
  });

  it('writes both guidelines as text to --out', async () => {
    const cwd = tempDir();
    const out = join(cwd, 'g.txt');
    const r = await runAcon(['guidelines', 'export', '--to', 'text', '--out', out], { cwd });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    const text = readFileSync(out, 'utf8');
    expect(text).toContain('# Observation guideline (obs-0000)');
    expect(text).toContain('# History guideline (hist-0000)');
  });

  it('refuses an unknown target with the valid ones (exit 2)', async () => {
    const r = await runAcon(['guidelines', 'export', '--to', 'crewai'], { cwd: tempDir() });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--to must be one of langchain, letta, anthropic, openhands, text');
  });
});
