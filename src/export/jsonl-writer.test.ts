import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { JsonlWriter } from './jsonl-writer.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('JsonlWriter', () => {
  it('leaves no listener behind after waiting for drain, however many waits', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'acon-jsonl-'));
    dirs.push(dir);
    const w = await JsonlWriter.open(join(dir, 'out.jsonl'));
    const stream = (
      w as unknown as { stream: NodeJS.WritableStream & { listenerCount(e: string): number } }
    ).stream;
    const before = { close: stream.listenerCount('close'), error: stream.listenerCount('error') };
    // Each line fills the 16 KiB buffer, so every write waits for drain.
    const line = 'x'.repeat(20_000);
    for (let i = 0; i < 30; i++) await w.write({ line });
    expect(stream.listenerCount('close')).toBe(before.close);
    expect(stream.listenerCount('error')).toBe(before.error);
    await w.close();
    expect(readFileSync(join(dir, 'out.jsonl'), 'utf8').split('\n')).toHaveLength(31);
  });
});
