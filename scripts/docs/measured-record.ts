import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { REPO } from './repo.js';

/**
 * What one measurement left (issue #58): the output of a command the docs quote, with where and
 * when it was measured, stored as `docs/measured/NAME.json` and committed. The docs' generated
 * blocks are rendered from these records (`npm run docs:tables`), so a table costing minutes of
 * CPU is re-rendered in milliseconds, and `npm run docs:tables -- --measure NAME|all` measures
 * it again.
 */
export const MeasuredRecordSchema = z.object({
  name: z.string(),
  /** The command lines run, as a user would type them (temporary folders as `$TMP`). */
  commands: z.array(z.string()),
  /** The commit measured; `dirty` when src/, tasks/ or guidelines/ differed from it. */
  commit: z.string(),
  dirty: z.boolean(),
  /** ISO time the measurement started. */
  date: z.string(),
  /** `uptime`'s load averages (1, 5, 15 min) before and after: the machine is shared. */
  loadBefore: z.string(),
  loadAfter: z.string(),
  cpus: z.number().int(),
  /** Wall time of the whole measurement. */
  seconds: z.number(),
  /** What the commands printed or left, by measurement (scripts/docs/measurements.ts). */
  output: z.record(z.string(), z.unknown()),
});
export type MeasuredRecord = z.infer<typeof MeasuredRecordSchema>;

export const MEASURED_DIR = join(REPO, 'docs', 'measured');

const file = (name: string) => join(MEASURED_DIR, `${name}.json`);

/** The record of `name`, or null when it was never measured. */
export function readRecord(name: string): MeasuredRecord | null {
  if (!existsSync(file(name))) return null;
  return MeasuredRecordSchema.parse(JSON.parse(readFileSync(file(name), 'utf8')));
}

export function writeRecord(record: MeasuredRecord): void {
  mkdirSync(MEASURED_DIR, { recursive: true });
  writeFileSync(file(record.name), `${JSON.stringify(record, null, 2)}\n`);
}
