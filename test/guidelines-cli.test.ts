import { Command, CommanderError } from 'commander';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { registerGuidelines } from '../src/cli/guidelines.js';
import { NotFoundError } from '../src/errors.js';
import { UsageError } from '../src/cli/usage-error.js';
import { GuidelineStore } from '../src/guidelines/store.js';

const ANSI = '\u001b[';

describe('acon guidelines', () => {
  let dir: string;
  let out: string;

  async function run(args: string[], colorSupported = false): Promise<string> {
    out = '';
    const program = new Command('acon').exitOverride().configureOutput({
      writeOut: (s) => void (out += s),
      writeErr: (s) => void (out += s),
    });
    registerGuidelines(program, { out: (s) => void (out += s), colorSupported });
    await program.parseAsync(['guidelines', ...args, '--dir', dir], { from: 'user' });
    return out;
  }

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'acon-guidelines-cli-'));
    let t = 0;
    const store = new GuidelineStore({
      dir,
      now: () => new Date(Date.UTC(2026, 10, 22, 4, t++)),
    });
    const seed = store.get('obs@0');
    const ut = store.write({
      kind: 'obs',
      parent: 'obs-0000',
      phase: 'ut',
      run: 'run-a',
      metrics: { accuracy: 0.625, peakTokens: 3112.4, steps: 14.25, split: 'dev', tasks: 16 },
      analyses: ['step 4: the payment id was dropped'],
      rationale: 'Keep identifiers.',
      text: `${seed.text}\nKEEP: id, access_token`,
      slug: 'ut-r1-c1',
    });
    store.write({
      kind: 'obs',
      parent: 'obs-0000',
      phase: 'ut',
      run: 'run-a',
      status: 'rejected',
      metrics: { accuracy: 0.5, peakTokens: 3300 },
      text: 'Keep less.',
      slug: 'ut-r1-c2',
    });
    store.write({
      kind: 'obs',
      parent: ut.id,
      phase: 'co',
      run: 'run-a',
      metrics: { accuracy: 0.625, peakTokens: 2400 },
      text: `${ut.text.replace('Be concise', 'Be very concise')}\nDROP: description`,
      slug: 'co-r1-c1',
    });
    store.promote('obs-0003');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('log prints the version tree with the active version marked', async () => {
    const text = await run(['log', '--kind', 'obs']);
    expect(text).not.toContain(ANSI);
    expect(text).toMatchInlineSnapshot(`
      "observation guidelines (obs), active: obs-0003
         VERSION         PHASE  STATUS    ACC%   PEAK  STEPS  CREATED           RUN
      ─  ──────────────  ─────  ────────  ────  ─────  ─────  ────────────────  ─────
         obs-0000        seed   seed         -      -      -  2026-11-22        -
         ├─ obs-0001     ut     accepted  62.5  3,112   14.3  2026-11-22 04:00  run-a
      *  │  └─ obs-0003  co     accepted  62.5  2,400      -  2026-11-22 04:02  run-a
         └─ obs-0002     ut     rejected  50.0  3,300      -  2026-11-22 04:01  run-a
      * = active · ACC% = accuracy in %
      PEAK = mean largest agent context of a rollout in tokens, system prompt and tools excluded (ACON
      paper v3)
      "
    `);
  });

  it('log shows both kinds by default and colours only when supported', async () => {
    const plain = await run(['log']);
    expect(plain).toContain('history guidelines (hist), active: hist-0000');
    expect(await run(['log'], true)).toContain(ANSI);
    expect(await run(['log', '--no-color'], true)).not.toContain(ANSI);
  });

  it('log --json lists every version without text', async () => {
    const versions = JSON.parse(await run(['log', '--json'])) as Record<string, unknown>[];
    expect(versions.map((v) => [v.id, v.parent, v.status, v.active])).toEqual([
      ['obs-0000', null, 'seed', false],
      ['obs-0001', 'obs-0000', 'accepted', false],
      ['obs-0002', 'obs-0000', 'rejected', false],
      ['obs-0003', 'obs-0001', 'accepted', true],
      ['hist-0000', null, 'seed', true],
    ]);
    expect(versions[1]).toMatchObject({ metrics: { accuracy: 0.625 }, run: 'run-a' });
    expect(versions[1]).not.toHaveProperty('text');
  });

  it('log rejects an unknown kind', async () => {
    await expect(run(['log', '--kind', 'both'])).rejects.toThrow(UsageError);
  });

  it('show prints the front matter summary and the text', async () => {
    const text = await run(['show', 'obs@1']);
    expect(text).toContain('obs-0001\n');
    expect(text).toContain('parent     obs-0000');
    expect(text).toContain(
      'metrics    accuracy 62.5% · peak tokens 3,112 · steps 14.3 · split dev · tasks 16',
    );
    expect(text).toContain('rationale  Keep identifiers.');
    expect(text).toContain('- step 4: the payment id was dropped');
    expect(text).toContain('KEEP: id, access_token\n');
    expect(await run(['show', 'obs@active'])).toContain('obs-0003 (active)');
  });

  it('show --json prints the version with its text and path', async () => {
    const g = JSON.parse(await run(['show', 'obs-0003', '--json'])) as Record<string, unknown>;
    expect(g).toMatchObject({ id: 'obs-0003', parent: 'obs-0001', active: true });
    expect(String(g.text)).toContain('DROP: description');
    expect(String(g.path)).toBe(join(dir, 'obs', '0003-co-r1-c1.md'));
  });

  it('show names a missing version', async () => {
    await expect(run(['show', 'obs@9'])).rejects.toThrow(NotFoundError);
  });

  it('diff prints a unified diff with the scores of both versions', async () => {
    const text = await run(['diff', 'obs-0001', 'obs@latest']);
    expect(text).not.toContain(ANSI);
    expect(text).toContain(
      'obs-0001 (ut, accepted, accuracy 62.5%, peak tokens 3,112)\n→ obs-0003',
    );
    expect(text).toContain('--- obs-0001\t');
    expect(text).toContain('+++ obs-0003\t');
    expect(text).toMatch(/^-is working on .*Be concise/m);
    expect(text).toMatch(/^\+is working on .*Be very concise/m);
    expect(text).toMatch(/^\+DROP: description$/m);
  });

  it('diff with one version compares it with its parent', async () => {
    const text = await run(['diff', 'obs@active']);
    expect(text).toContain('--- obs-0001');
    await expect(run(['diff', 'obs-0000'])).rejects.toThrow(/has no parent/);
  });

  it('diff --word marks changed words inline', async () => {
    const text = await run(['diff', 'obs-0001', 'obs-0003', '--word']);
    expect(text).toContain('Be {+very +}concise');
    expect(text).not.toContain('@@');
    expect(await run(['diff', 'obs-0001', 'obs-0003', '--word'], true)).toContain(ANSI);
  });

  it('diff says when the texts are identical', async () => {
    expect(await run(['diff', 'obs-0003', 'obs@active'])).toContain('the texts are identical');
  });

  it('promote moves the ACTIVE pointer', async () => {
    expect(await run(['promote', 'obs@1'])).toContain('active obs guideline: obs-0003 → obs-0001');
    expect(readFileSync(join(dir, 'obs', 'ACTIVE'), 'utf8')).toBe('obs-0001\n');
    expect(await run(['promote', 'obs@1'])).toContain(
      'obs-0001 was already the active obs guideline',
    );
    expect(await run(['promote', 'obs-0002'])).toContain('note: the optimizer rejected obs-0002');
  });

  it('shows examples in the help of every subcommand', async () => {
    for (const sub of ['log', 'show', 'diff', 'promote']) {
      const err = await run([sub, '--help']).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(CommanderError);
      expect(out).toContain('Examples:');
      expect(out).toContain(`$ acon guidelines ${sub}`);
    }
  });
});
