import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const DIR = join(import.meta.dirname, '../tasks/apptown');

/**
 * The agent knows only what it is told (issue 61): an email the task makes it find by its
 * subject has that subject stated in the instruction, so no agent, simulated or real, has to
 * know it from the reference.
 */
describe('shipped apptown instructions state what to look for', () => {
  it('names the subject of every email a reference selects by subject', () => {
    const unstated: string[] = [];
    let checked = 0;
    for (const file of readdirSync(DIR).filter((f) => f.endsWith('.yaml'))) {
      const task = parse(readFileSync(join(DIR, file), 'utf8')) as {
        instruction: string;
        reference: unknown[];
      };
      for (const m of JSON.stringify(task.reference).matchAll(/subject=([^\]&]+)/g)) {
        checked++;
        if (!task.instruction.includes(m[1]!)) unstated.push(`${file}: ${m[1]}`);
      }
    }
    expect(checked).toBeGreaterThan(0);
    expect(unstated).toEqual([]);
  });
});
