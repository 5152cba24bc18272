import type { ExportFormat, ExportRole } from './schema.js';

/** Counts of one task in the export. */
export type TaskCount = {
  taskId: string;
  split: 'train' | 'val';
  examples: number;
  tokens: number;
};

/** What an export wrote and left out; printed as a table or JSON, and kept in the meta file. */
export type ExportSummary = {
  runId: string;
  runKind: string;
  bench: string;
  provider: string;
  models: Record<string, string>;
  /** The source run used the sim provider: these are not a real teacher's outputs. */
  simulated: boolean;
  role: ExportRole;
  /** The llm_calls role read (obs_compressor, hist_compressor, agent). */
  llmRole: string;
  format: ExportFormat;
  conditions: string[] | null;
  /** Split filter (null: every split). */
  splits: string[] | null;
  /** Guideline filter (null: any). */
  guidelines: string[] | null;
  /** Examples written per benchmark split and per guideline version (meta `sources`). */
  sources: { splits: Record<string, number>; guidelines: Record<string, number> };
  /** Lines the CLI prints on stderr (dev/test data asked for). */
  warnings: string[];
  files: { train: string; val: string | null; meta: string; sidecars: string[] };
  /** Calls of the run's matching rollouts that were considered. */
  candidates: number;
  examples: { train: number; val: number; total: number };
  /**
   * Tokens written (o200k_base, chat framing included); `longest` is the longest example, which a
   * trainer's maximum sequence length must hold or it cuts the example (issue #24).
   */
  tokens: { train: number; val: number; total: number; longest: number };
  byTask: TaskCount[];
  skipped: {
    /** Calls of rollouts that failed (kept with --include-failed). */
    failedRollout: number;
    /** Calls that ended in a provider error. */
    errored: number;
    /** Answers without the compressor heading, agent answers without a tool call, unreadable rows. */
    malformed: number;
    /** Calls of compression events recorded as failed. */
    failedEvent: number;
    /** Over --max-tokens (dropped, or could not be truncated enough). */
    overLength: number;
    /** Identical to an example already written. */
    duplicate: number;
  };
  truncated: number;
  /** The --max-tokens limit the export applied (null: none). */
  maxTokens: number | null;
  /** Secret-looking spans replaced by [REDACTED]. */
  scrubbed: number;
};

export function emptySummary(): Pick<
  ExportSummary,
  'candidates' | 'examples' | 'tokens' | 'skipped' | 'truncated' | 'scrubbed'
> {
  return {
    candidates: 0,
    examples: { train: 0, val: 0, total: 0 },
    tokens: { train: 0, val: 0, total: 0, longest: 0 },
    skipped: {
      failedRollout: 0,
      errored: 0,
      malformed: 0,
      failedEvent: 0,
      overLength: 0,
      duplicate: 0,
    },
    truncated: 0,
    scrubbed: 0,
  };
}
