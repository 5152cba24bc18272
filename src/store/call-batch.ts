import type Database from 'better-sqlite3';

/**
 * Group commit of call rows (issue #28): the calls recorded in one event-loop turn share one
 * transaction, committed when the turn ends (`setImmediate`). A commit per call wrote its pages
 * to the WAL once per call; at 64 calls in flight, or 8 rollouts of the offline optimize, one
 * commit now carries several calls.
 *
 * What a caller may rely on is unchanged: `committed()` resolves only once every call recorded
 * before it is committed, and the LLM client waits for it before anyone sees the answer. A killed
 * process loses only calls whose answers nobody saw yet, which a resumed run makes again; a
 * finished call is never redone.
 *
 * Every other write of the store commits the open batch first, so runs, rollouts and checkpoints
 * are committed exactly when they were before. If the commit fails, the batch's calls are undone
 * in this process too (`onLost`) and everyone waiting for them gets the error.
 */
export class CallBatch {
  private open: Batch | null = null;
  /**
   * BEGIN IMMEDIATE and COMMIT, prepared once: preparing them for every batch was 1.2% of the
   * README optimize's CPU (issue #28).
   */
  private statements: { begin: Database.Statement; commit: Database.Statement } | undefined;

  constructor(
    private readonly db: Database.Database,
    private readonly schedule: (commit: () => void) => void = (commit) => setImmediate(commit),
  ) {}

  /**
   * Opens the turn's transaction if none is open (BEGIN IMMEDIATE). Returns false when the
   * connection is already in a transaction of its own: the call is then written as before.
   */
  join(): boolean {
    if (this.open) return true;
    if (this.db.inTransaction) return false;
    this.statements ??= {
      begin: this.db.prepare('BEGIN IMMEDIATE'),
      commit: this.db.prepare('COMMIT'),
    };
    this.statements.begin.run();
    let resolve!: () => void;
    let reject!: (err: unknown) => void;
    const done = new Promise<void>((res, rej) => ((resolve = res), (reject = rej)));
    // Nobody may wait (a commit nobody asked for): an error must not become unhandled.
    done.catch(() => {});
    this.open = { done, resolve, reject, undo: [] };
    this.schedule(() => {
      try {
        this.commit();
      } catch {
        // The waiters have the error.
      }
    });
    return true;
  }

  /** Whether a batch is open (its transaction is the connection's). */
  get active(): boolean {
    return this.open !== null;
  }

  /** What forgets a call of the open batch in this process if the batch is lost. */
  onLost(undo: () => void): void {
    this.open?.undo.push(undo);
  }

  /** Resolves when every call recorded so far is committed; rejects if their commit failed. */
  committed(): Promise<void> | undefined {
    return this.open?.done;
  }

  /** Commits the open batch now (before another write, or when closing). */
  commit(): void {
    const batch = this.open;
    if (!batch) return;
    this.open = null;
    if (!this.db.inTransaction) {
      // SQLite rolled the transaction back itself (a full disk, an I/O error).
      this.lose(batch, new Error('the calls of this turn were rolled back by SQLite'));
      return;
    }
    try {
      this.statements!.commit.run();
    } catch (err) {
      if (this.db.inTransaction) this.db.prepare('ROLLBACK').run();
      this.lose(batch, err);
      throw err;
    }
    batch.resolve();
  }

  /** A write inside the batch failed and SQLite rolled the whole transaction back. */
  failed(err: unknown): void {
    const batch = this.open;
    if (!batch || this.db.inTransaction) return;
    this.open = null;
    this.lose(batch, err);
  }

  private lose(batch: Batch, err: unknown): void {
    for (const undo of batch.undo.reverse()) undo();
    batch.reject(err);
  }
}

type Batch = {
  done: Promise<void>;
  resolve: () => void;
  reject: (err: unknown) => void;
  undo: (() => void)[];
};
