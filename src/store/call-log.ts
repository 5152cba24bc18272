import { createHash } from 'node:crypto';
import type { CallUsage } from '../domain/index.js';
import type { CallRecord, ProviderResponse } from '../llm/index.js';
import { redactUrlCredentials } from '../url-credentials.js';
import { callsDocument, compress, DocCache, type CallPayload } from './document.js';
import { JournalWriter, readJournal } from './journal.js';
import type { CallFilter, LlmCallRow } from './records.js';
import type { StoreDb } from './store-db.js';

/** A call's row as payload readers need it: its document, or null while it is in the journal. */
export type Located = { id: number; doc: number | null };

/** A call row's CallUsage (`calls c`), by its names; `reasoning` is StoreDb.reasoning. */
const usageColumns = (reasoning: string) => `c.id, c.role, c.model, c.prompt_tokens AS promptTokens,
  c.cached_tokens AS cachedTokens, c.completion_tokens AS completionTokens,
  ${reasoning} AS reasoningTokens, c.cost_usd AS costUsd`;

/**
 * The call cache and the call log: a call goes to the journal as it completes and into its
 * rollout's document when the rollout is saved (calls outside rollouts: into a run document at a
 * checkpoint or stop), so a killed process loses only work in flight.
 */
export class CallLog {
  private readonly loadDoc = (n: number) => {
    const data = this.s.value<Buffer>('SELECT data FROM docs WHERE n = ?', n);
    if (!data) throw new Error(`document ${n} is missing from ${this.s.path}; the file is damaged`);
    return data;
  };
  /** Documents of call-cache hits: the rollouts of a concurrent run hit several in turn. */
  private readonly docs = new DocCache(this.loadDoc, 8);
  /** The document read last by a reader that goes through rollouts one by one. */
  readonly lastDoc = new DocCache(this.loadDoc, 1);
  /** Payloads of the calls this process wrote to the journal, until they move to a document. */
  private readonly pending = new Map<number, CallPayload>();
  readonly journal = new JournalWriter();
  /** Answers putCached was given, until recordCall stores the call that got them. */
  private readonly toCache = new Map<string, ProviderResponse>();
  /** recordCall's transaction, made once: building it per call cost more than its inserts. */
  private writeCall: ReturnType<CallLog['callWriter']> | undefined;

  constructor(private readonly s: StoreDb) {}

  getCached(requestHash: string): ProviderResponse | undefined {
    const row = this.s.one<Located>(
      'SELECT c.id, c.doc FROM llm_cache k JOIN calls c ON c.id = k.call WHERE k.request_hash = ?',
      hashKey(requestHash),
    );
    const response = row && this.payload(row).response;
    // A copy: callers cannot change the document read for others.
    return response ? (structuredClone(response) as ProviderResponse) : undefined;
  }

  putCached(requestHash: string, response: ProviderResponse) {
    this.toCache.set(requestHash, response);
  }

  /** Records a call and its payload (in the journal) in one transaction. */
  recordCall(call: CallRecord): number {
    const batch = this.s.batch;
    const batched = batch?.join() ?? false;
    const run = this.s.runNumber(call.ctx.runId);
    const { rolloutId, taskId, step, role } = call.ctx;
    const rollout = rolloutId === undefined ? null : this.s.number('rollout', rolloutId, run)!;
    const { request, response, usage } = call;
    const payload = { id: 0, taskId: taskId ?? null, createdAt: Date.now(), request, response };
    const row = this.journal.row(rollout, payload);
    const cache = response !== null && this.toCache.get(call.requestHash) === response;
    const columns = [
      run,
      rollout,
      step ?? null,
      role,
      call.provider,
      call.model,
      hashKey(call.requestHash),
      usage.promptTokens,
      usage.cachedPromptTokens,
      usage.completionTokens,
      call.costUsd,
      call.latencyMs,
      call.cached ? 1 : 0,
      call.error === null ? null : redactUrlCredentials(call.error),
      usage.reasoningTokens ?? 0,
    ];
    let id: number;
    try {
      id = (this.writeCall ??= this.callWriter()).immediate(columns, row.text, cache);
    } catch (err) {
      row.undo();
      if (batched) batch!.failed(err);
      throw err;
    }
    this.toCache.delete(call.requestHash);
    this.pending.set(id, { ...payload, id });
    if (batched) {
      batch!.onLost(() => {
        this.pending.delete(id);
        row.undo();
      });
    }
    return id;
  }

  /** Resolves once every call recorded so far is committed; rejects if that commit failed. */
  committed(): Promise<void> | undefined {
    return this.s.batch?.committed();
  }

  private callWriter() {
    const call = `INSERT INTO calls (run, rollout, step, role, provider, model, request_hash,
      prompt_tokens, cached_tokens, completion_tokens, cost_usd, latency_ms, cached, error,
      reasoning_tokens) VALUES (${Array(15).fill('?').join(', ')})`;
    const journal = 'INSERT INTO journal (call, data) VALUES (?, ?)';
    const cache = 'INSERT OR REPLACE INTO llm_cache (request_hash, call) VALUES (?, ?)';
    return this.s.db.transaction((columns: unknown[], data: string, cached: boolean) => {
      const id = Number(this.s.sql(call).run(columns).lastInsertRowid);
      this.s.sql(journal).run(id, data);
      if (cached) this.s.sql(cache).run(columns[6], id);
      return id;
    });
  }

  /** A call's payload, from its document or the journal. */
  payload({ id, doc }: Located, docs = this.docs): CallPayload {
    const found = doc === null ? this.journaled(id) : docs.get(doc).call(id);
    if (found?.id !== id) {
      throw new Error(`call ${id} is missing from ${this.s.path}; the file is damaged`);
    }
    return found;
  }

  private journaled(id: number): CallPayload | undefined {
    const mine = this.pending.get(id);
    if (mine) return mine;
    const c = this.s.one<{ run: number; rollout: number | null }>(
      'SELECT run, rollout FROM calls WHERE id = ?',
      id,
    )!;
    return this.unfiled('c.run = ? AND c.rollout IS ? AND c.id <= ?', c.run, c.rollout, id).at(-1);
  }

  /**
   * The calls still in the journal that `where` selects (of `calls c`), in call order. A row's text
   * is read only for calls this process does not hold: a rollout's own calls are all in `pending`,
   * and reading their rows back was 0.14 s of an 8-task optimize's 2.3 s of saves (issue #28).
   */
  unfiled(where: string, ...params: unknown[]): CallPayload[] {
    const rows = this.s.all<{ id: number; rollout: number | null }>(
      `SELECT c.id, c.rollout FROM calls c JOIN journal j ON j.call = c.id
         WHERE c.doc IS NULL AND ${where} ORDER BY c.id`,
      ...params,
    );
    const data = (id: number) =>
      this.s.value<string | Buffer>('SELECT data FROM journal WHERE call = ?', id)!;
    return readJournal(rows, (id) => this.pending.get(id), data);
  }

  /** Writes a document with `calls` out of the journal (and `andThen`), in one transaction. */
  writeDocument(run: number, calls: CallPayload[], raw: Buffer, andThen = (_: number) => {}) {
    const data = compress(raw);
    this.s.db
      .transaction(() => {
        const doc = this.s.insert('docs', { run, size: raw.length, data });
        andThen(doc);
        // One statement each for all the calls, not two per call (issue #28: the save's
        // transaction 0.63 → 0.55 s in an 8-task optimize's profile).
        const ids = JSON.stringify(calls.map((c) => c.id));
        this.s.run(
          'UPDATE calls SET doc = ? WHERE id IN (SELECT value FROM json_each(?))',
          doc,
          ids,
        );
        this.s.run('DELETE FROM journal WHERE call IN (SELECT value FROM json_each(?))', ids);
      })
      .immediate();
    for (const { id } of calls) this.pending.delete(id);
  }

  /** Moves a run's journal calls outside rollouts (`all`: and of unfinished ones) to a document. */
  flushRun(runId: string, all: boolean): void {
    const run = this.s.number('run', runId);
    if (this.s.db.readonly || run === undefined) return;
    const calls = this.unfiled(`c.run = ? ${all ? '' : 'AND c.rollout IS NULL'}`, run);
    if (calls.length > 0) this.writeDocument(run, calls, callsDocument(calls));
    if (!all) return;
    this.journal.clear();
    // The journal's pages, free now, go back to the disk.
    this.s.db.pragma('incremental_vacuum');
  }

  callsOfRollout(rolloutId: string): CallUsage[] {
    return this.s.all(
      `SELECT ${usageColumns(this.s.reasoning)}
         FROM calls c JOIN rollout_ids i ON i.n = c.rollout WHERE i.id = ? ORDER BY c.id`,
      rolloutId,
    );
  }

  /** Calls and cost of a run, and how many were served from the cache. */
  callStats(runId: string): { calls: number; cachedCalls: number; costUsd: number } {
    return this.s.one(
      `SELECT COUNT(*) AS calls, COALESCE(SUM(c.cached), 0) AS cachedCalls,
           COALESCE(SUM(c.cost_usd), 0) AS costUsd
         FROM calls c JOIN runs r ON r.n = c.run WHERE r.id = ?`,
      runId,
    )!;
  }

  /** Recorded calls in the order they were made, with their requests and responses. */
  calls(f: CallFilter): LlmCallRow[] {
    const given = Object.entries({ 'r.id': f.runId, 'i.id': f.rolloutId, 'c.role': f.role });
    const where = given.filter(([, v]) => v !== undefined);
    type Row = Omit<LlmCallRow, 'taskId' | 'request' | 'response' | 'cached' | 'createdAt'>;
    const rows = this.s.all<Row & { doc: number | null; cached: number }>(
      `SELECT ${usageColumns(this.s.reasoning)}, c.step, c.provider, c.latency_ms AS latencyMs, c.cached, c.error,
           c.doc, lower(hex(c.request_hash)) AS requestHash, r.id AS runId, i.id AS rolloutId
         FROM calls c JOIN runs r ON r.n = c.run LEFT JOIN rollout_ids i ON i.n = c.rollout
         WHERE ${['1 = 1', ...where.map(([c]) => `${c} = ?`)].join(' AND ')} ORDER BY c.id`,
      ...where.map(([, v]) => v),
    );
    return rows.map(({ doc, cached, ...c }) => {
      const { taskId, createdAt, ...payload } = this.payload({ id: c.id, doc });
      const at = new Date(createdAt).toISOString();
      return { ...c, taskId, ...callTexts(payload), cached: cached === 1, createdAt: at };
    });
  }

  /** Forgets the decoded documents (after a run was deleted). */
  forgetDocuments(): void {
    this.docs.clear();
    this.lastDoc.clear();
  }
}

/** The first 16 bytes of a request hash (SHA-256 hex); of any other text, of its SHA-256. */
export function hashKey(requestHash: string): Buffer {
  return /^[0-9a-f]{32}/.test(requestHash)
    ? Buffer.from(requestHash.slice(0, 32), 'hex')
    : createHash('sha256').update(requestHash).digest().subarray(0, 16);
}

/** A call's request and response as the JSON texts they were recorded as. */
export function callTexts({ request, response }: Pick<CallPayload, 'request' | 'response'>) {
  const answer = response === null ? null : JSON.stringify(response);
  return { request: JSON.stringify(request), response: answer };
}
