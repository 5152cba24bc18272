import { GuidelineVersionRowSchema, type GuidelineVersionRow } from './records.js';
import type { StoreDb } from './store-db.js';

/** The guideline versions runs created: the lineage `acon runs show` and reports print. */
export class GuidelineVersionTable {
  constructor(private readonly s: StoreDb) {}

  /** Ids of every learned (not seed) guideline version recorded, newest first. */
  learnedGuidelineIds(): string[] {
    const sql = `SELECT id FROM guideline_versions WHERE phase != 'seed' ORDER BY created_at DESC, id DESC`;
    return this.s.all<{ id: string }>(sql).map((r) => r.id);
  }

  /** Guideline versions created by a run (its lineage), oldest first. */
  guidelineVersions(runId: string): GuidelineVersionRow[] {
    const rows = this.s.all(
      `SELECT id, kind, parent, phase, run_id AS runId, status, path, text, metrics,
           created_at AS createdAt FROM guideline_versions WHERE run_id = ? ORDER BY created_at, id`,
      runId,
    );
    return rows.map((r) => GuidelineVersionRowSchema.parse(r));
  }

  saveGuidelineVersion({ runId, createdAt, metrics, ...v }: GuidelineVersionRow): void {
    this.s.commitBatch();
    const row = { ...v, run_id: runId, created_at: createdAt, metrics: JSON.stringify(metrics) };
    this.s.insert('guideline_versions', row, 'INSERT OR REPLACE');
  }
}
