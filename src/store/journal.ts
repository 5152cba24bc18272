import { decompress, expandCall, Values, type CallPayload } from './document.js';

/**
 * A call's journal row, kept until its rollout's document is written: `{from, values, call}`, the
 * messages new since the rollout's previous row (its value list from index `from`) and the call by
 * index. Whole requests would cost the square of a rollout's length. Each process starts at 0.
 */
type JournalRow = { from: number; values: unknown[]; call: Omit<CallPayload, 'id'> };

export class JournalWriter {
  /** Each rollout's value list so far, by rollout number. */
  private readonly chains = new Map<number, Values>();

  /** The row of a call, and what forgets its values again if the row is not written. */
  row(rollout: number | null, call: CallPayload): { text: string; undo: () => void } {
    let values = rollout === null ? new Values() : this.chains.get(rollout);
    if (!values) this.chains.set(rollout!, (values = new Values()));
    const from = values.list.length;
    const { id: _, ...stored } = values.call(call);
    // One join of all pieces: a compressor's new prompt is tens of KB.
    const json = JSON.stringify(stored);
    const pieces = ['{"from":', String(from), ',"values":', ...values.jsonPieces(from)];
    const text = [...pieces, ',"call":', json, '}'].join('');
    const list = values;
    return { text, undo: () => list.truncate(from) };
  }

  /** The rollout's calls went to a document: its next call starts a new list. */
  end(rollout: number): void {
    this.chains.delete(rollout);
  }

  clear(): void {
    this.chains.clear();
  }
}

/**
 * Calls from their journal rows, in call order; `known` gives those this process still holds,
 * whose rows are then not read (`data`: a row's stored text). A schema-2 row is the whole call,
 * brotli-compressed.
 */
export function readJournal(
  rows: readonly { id: number; rollout: number | null }[],
  known: (id: number) => CallPayload | undefined,
  data: (id: number) => string | Buffer,
): CallPayload[] {
  const chains = new Map<number | null, unknown[]>();
  return rows.map(({ id, rollout }) => {
    const mine = known(id);
    if (mine) return mine;
    const stored = data(id);
    if (typeof stored !== 'string')
      return { id, ...(JSON.parse(decompress(stored)) as JournalRow['call']) };
    const row = JSON.parse(stored) as JournalRow;
    const values = row.from === 0 ? [] : chains.get(rollout);
    if (values?.length !== row.from) {
      throw new Error(
        `the journal row of call ${id} continues a list that is not there; the file is damaged`,
      );
    }
    for (const v of row.values) values.push(v);
    chains.set(rollout, values);
    return expandCall({ id, ...row.call }, (i) => values[i]);
  });
}
