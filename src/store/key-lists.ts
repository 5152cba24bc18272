import { ENCODING, type EncodedBlob } from './blob-encoding.js';

/**
 * Key lists remembered (by their last key) for the next list that extends one of them: the
 * last prompts of the rollouts in flight are what counts, and each holds a copy of its keys.
 */
const KEY_LISTS_MAX = 20_000;
/** A key list extends one that ended this many keys before its own end, at most. */
const KEY_LIST_MAX_ADDED = 4;

type KeyList = { key: string; keys: string[]; depth: number };

/**
 * The key lists stored last, by their last key: a step's prompt is the prompt of the step
 * before plus the assistant's message and the observations, so it is stored as that list's key
 * and the keys it adds.
 */
export class KeyLists {
  private readonly byLastKey = new Map<string, KeyList>();

  /** `maxDepth`: lists a reader may decode to rebuild one. */
  constructor(private readonly maxDepth: number) {}

  /**
   * A new list (`key`, `keys`) as its keys' bytes, or as a list it extends that the file still
   * holds (`stored`) and the keys it adds.
   */
  encode(key: string, keys: readonly string[], stored: (key: string) => boolean): EncodedBlob {
    let base: KeyList | undefined;
    for (let i = keys.length - 2; i >= Math.max(0, keys.length - 1 - KEY_LIST_MAX_ADDED); i--) {
      const c = this.byLastKey.get(keys[i]!);
      if (
        c !== undefined &&
        c.keys.length === i + 1 &&
        c.depth < this.maxDepth &&
        c.keys.every((k, j) => k === keys[j]) &&
        stored(c.key)
      ) {
        base = c;
        break;
      }
    }
    const last = keys[keys.length - 1]!;
    this.byLastKey.delete(last);
    this.byLastKey.set(last, {
      key,
      keys: [...keys],
      depth: base === undefined ? 0 : base.depth + 1,
    });
    if (this.byLastKey.size > KEY_LISTS_MAX) {
      this.byLastKey.delete(this.byLastKey.keys().next().value!);
    }
    const bytes = (ks: readonly string[]) => ks.map((k) => Buffer.from(k, 'hex'));
    if (base === undefined) return { encoding: ENCODING.keys, data: Buffer.concat(bytes(keys)) };
    return {
      encoding: ENCODING.moreKeys,
      data: Buffer.concat(bytes([base.key, ...keys.slice(base.keys.length)])),
    };
  }
}
