/**
 * Short texts of a kind (messages of one role, a benchmark's short observations) repeat each
 * other's words: the same access token, app and API names, "Step 12 of 30: calling …". Alone,
 * a message of 300 bytes deflates to some 170 bytes; with the few messages of its kind stored
 * just before it as deflate's dictionary, to some 70. Those messages are kept together as one
 * dictionary text, stored as a blob of its own once per DICTIONARY_EVERY texts of the kind, and
 * each short text names the dictionary it was written with.
 */

/** Texts of a kind a dictionary text holds: the newest. */
const TEXTS_PER_DICTIONARY = 8;
/** A kind gets a new dictionary text after this many texts written with the current one. */
const DICTIONARY_EVERY = 48;
/** Kinds tracked at most; past this the tracking starts over. */
const MAX_KINDS = 1_000;
/** A text's kind: its first characters ('{"role":"assistant","con'). */
const KIND_CHARS = 24;

type Kind = { recent: string[]; dictionary?: string; uses: number };

export class ShortTexts {
  private readonly kinds = new Map<string, Kind>();

  /**
   * The dictionary text to write `text` with (undefined: none yet, write it alone), and whether
   * that dictionary text is new (the caller stores it first). Remembers `text` for the next
   * dictionaries of its kind.
   */
  dictionaryFor(text: string): { dictionary: string; isNew: boolean } | undefined {
    const name = text.slice(0, KIND_CHARS);
    let kind = this.kinds.get(name);
    if (kind === undefined) {
      if (this.kinds.size >= MAX_KINDS) this.kinds.clear();
      kind = { recent: [], uses: 0 };
      this.kinds.set(name, kind);
    }
    let out: { dictionary: string; isNew: boolean } | undefined;
    if (kind.dictionary !== undefined && kind.uses < DICTIONARY_EVERY) {
      out = { dictionary: kind.dictionary, isNew: false };
    } else if (kind.recent.length > 0) {
      kind.dictionary = kind.recent.join('');
      kind.uses = 0;
      out = { dictionary: kind.dictionary, isNew: true };
    }
    if (out !== undefined) kind.uses++;
    kind.recent.push(text);
    if (kind.recent.length > TEXTS_PER_DICTIONARY) kind.recent.shift();
    return out;
  }

  /** Forgets a dictionary text the file no longer holds (rolled back or swept). */
  drop(dictionary: string): void {
    for (const kind of this.kinds.values()) {
      if (kind.dictionary === dictionary) kind.dictionary = undefined;
    }
  }
}
