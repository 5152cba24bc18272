import { createHash } from 'node:crypto';
import { ConfigError } from '../errors.js';
import { frameMessage, frameTools, TOKENS_PER_REPLY } from './chat-framing.js';
import { tokenCounterFor, type TokenCounter } from './tokenizer.js';
import type { ChatMessage, ToolDef } from './types.js';

/** Counts remembered at most; the oldest quarter goes when it is full (an entry is ~100 bytes). */
const MAX_ENTRIES = 1 << 20;

/**
 * Token counts from the model server's own `/tokenize` route (`tokenizer: server`, vLLM and
 * SGLang), cached per text digest so each text is asked for once.
 *
 * Why counts are fetched ahead instead of awaited where they are used: the context strategies
 * and the compressors decide on counts (T_obs, T_hist, budgets) in plain synchronous code, and
 * they stay pure functions of the trajectory and the counts when a count is a look-up. Making
 * `countTokens` asynchronous would put a network wait, its failures and its ordering inside
 * every decision of every strategy. So whoever brings a text into a prompt — the agent loop for
 * each new message and each view it sends, the compressors for what they compress and answer —
 * calls `prepare` first, and the strategies read what was fetched.
 *
 * A text nobody prepared (the rendering of a session that only sizes what the observation
 * compressor is shown, a masking placeholder), or one whose count the server did not give (an
 * error after the client's retries), is counted in o200k and counted in `estimated`, so every
 * figure that used it can say how many of its counts were estimates; a failed count is asked for
 * again the next time the text is prepared, and never stops the rollout.
 */
export class ServerTokenCounter implements TokenCounter {
  readonly tokenizer = 'server' as const;
  private readonly counts = new Map<string, number>();
  private readonly pending = new Map<string, Promise<void>>();
  /** Digests of the texts counted locally (whatever the server said later). */
  private readonly local = new Set<string>();
  private readonly o200k = tokenCounterFor('o200k');
  private fetches = 0;
  private failures = 0;

  /**
   * @param fetchCount one text's count from the server (through the LLM client's retries)
   * @param isFatal an error that stops the command rather than one count (Ctrl-C, a setting
   *   that cannot work): rethrown
   */
  constructor(
    private readonly fetchCount: (text: string) => Promise<number>,
    private readonly isFatal: (err: unknown) => boolean = (err) =>
      err instanceof ConfigError || (err instanceof Error && /abort/i.test(err.name)),
  ) {}

  /** Distinct texts counted locally because the server's count was not there (not asked, or failed). */
  get estimated(): number {
    return this.local.size;
  }

  /** Distinct texts counted, by the server or locally. */
  get counted(): number {
    let n = this.counts.size;
    for (const key of this.local) if (!this.counts.has(key)) n++;
    return n;
  }

  /** Texts asked of the server. */
  get fetched(): number {
    return this.fetches;
  }

  /** Counts the server did not give (errors after the client's retries). */
  get failed(): number {
    return this.failures;
  }

  async prepare(texts: readonly string[]): Promise<void> {
    const waits: Promise<void>[] = [];
    for (const text of texts) {
      if (text.length === 0) continue;
      const key = digest(text);
      if (this.counts.has(key)) continue;
      let wait = this.pending.get(key);
      if (wait === undefined) {
        this.fetches++;
        wait = this.fetchCount(text).then(
          (n) => {
            this.remember(key, n);
            this.pending.delete(key);
          },
          (err: unknown) => {
            this.pending.delete(key);
            if (this.isFatal(err)) throw err;
            // Counted locally where it is read (countTokens), and reported as an estimate.
            this.failures++;
          },
        );
        this.pending.set(key, wait);
      }
      waits.push(wait);
    }
    await Promise.all(waits);
  }

  countTokens = (text: string): number => {
    if (text.length === 0) return 0;
    const key = digest(text);
    const n = this.counts.get(key);
    if (n !== undefined) return n;
    if (this.local.size < MAX_ENTRIES) this.local.add(key);
    return this.o200k.countTokens(text);
  };

  countMessageTokens = (messages: readonly ChatMessage[], tools?: readonly ToolDef[]): number => {
    let total = TOKENS_PER_REPLY;
    for (const m of messages) total += frameMessage(m, this.countTokens);
    if (tools && tools.length > 0) total += frameTools(tools, this.countTokens);
    return total;
  };

  private remember(key: string, n: number): void {
    this.counts.set(key, n);
    if (this.counts.size <= MAX_ENTRIES) return;
    let drop = MAX_ENTRIES / 4;
    for (const oldest of this.counts.keys()) {
      if (drop-- <= 0) break;
      this.counts.delete(oldest);
    }
  }
}

/** A text's key: its SHA-1, so the cache holds 28 characters a text rather than the text. */
function digest(text: string): string {
  return createHash('sha1').update(text).digest('base64');
}
