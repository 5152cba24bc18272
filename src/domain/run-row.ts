import { z } from 'zod';
import { ProducerShape } from './provenance.js';

/** Where a run is: going, ended well, ended by an error, by Ctrl-C, or by its spending limit. */
export const RunStatusSchema = z.enum(['running', 'finished', 'failed', 'interrupted', 'budget']);
export type RunStatus = z.infer<typeof RunStatusSchema>;

/** The process working on a run, as recorded (null fields: no owner recorded). */
export const RunOwnerSchema = z.object({
  pid: z.number().nullable(),
  host: z.string().nullable(),
  /** Epoch ms of its last heartbeat. */
  heartbeatAt: z.number().nullable(),
});
export type RunOwner = z.infer<typeof RunOwnerSchema>;

/**
 * A run as commands see it (`acon run`, `compare`, `optimize`, `replay`, a proxy recording): what
 * it ran with and how it ended. `running` with its owner gone reads `interrupted`.
 */
export const RunRowSchema = z.object({
  id: z.string(),
  kind: z.string(),
  command: z.string(),
  bench: z.string(),
  ...ProducerShape,
  params: z.record(z.string(), z.unknown()),
  config: z.record(z.string(), z.unknown()),
  status: RunStatusSchema,
  summary: z.unknown(),
  created_at: z.string(),
  finished_at: z.string().nullable(),
  owner: RunOwnerSchema,
});
export type RunRow = z.infer<typeof RunRowSchema>;
