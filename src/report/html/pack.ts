import { promisify } from 'node:util';
import { gzip } from 'node:zlib';

/**
 * Trajectories in the page (issue #24: the README optimize's report was 67.6 MB). Every string
 * of at least MIN_CHARS characters becomes a list of line numbers into one table of distinct
 * lines, since the rollouts of a run repeat the same observations, prompts and tool docs line
 * for line; the whole is gzipped and base64-encoded. The page decodes it with the browser's own
 * DecompressionStream('gzip') when a trajectory is first opened (report-page.js `unpack`).
 */
export const MIN_CHARS = 40;

/** The packed form before compression: `{"$": [line, …]}` stands for those lines joined by \n. */
export type Packed = { lines: string[]; value: unknown };

/**
 * Packs values one after another into one table of lines, so a caller can pack each trajectory
 * as soon as it is built and let it go (issue #30: holding all 300 of a large run's views until
 * the page was written cost more in garbage collection than building them).
 */
export class Packer {
  readonly lines: string[] = [];
  private readonly index = new Map<string, number>();
  /**
   * The line numbers of each whole string packed: a fifth of a large report's text is strings
   * met before (an observation and the compression event it fed, a system prompt), and one
   * lookup of the string costs less than one per line (issue #30).
   */
  private readonly strings = new Map<string, number[]>();

  /** One pass over the text, no intermediate arrays. */
  private ids(text: string): number[] {
    const out: number[] = [];
    for (let from = 0; ;) {
      const end = text.indexOf('\n', from);
      const line = end < 0 ? text.slice(from) : text.slice(from, end);
      let i = this.index.get(line);
      if (i === undefined) this.index.set(line, (i = this.lines.push(line) - 1));
      out.push(i);
      if (end < 0) return out;
      from = end + 1;
    }
  }

  pack(v: unknown): unknown {
    if (typeof v === 'string') {
      if (v.length < MIN_CHARS) return v;
      let ids = this.strings.get(v);
      if (!ids) this.strings.set(v, (ids = this.ids(v)));
      return { $: ids };
    }
    if (Array.isArray(v)) return v.map((x) => this.pack(x));
    if (v === null || typeof v !== 'object') return v;
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = this.pack(x);
    return out;
  }
}

export function packStrings(value: unknown): Packed {
  const packer = new Packer();
  const packed = packer.pack(value);
  return { lines: packer.lines, value: packed };
}

/** The inverse of {@link packStrings} (the page has the same function in JavaScript). */
export function unpackStrings(p: Packed): unknown {
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      const keys = Object.keys(o);
      if (keys.length === 1 && keys[0] === '$' && Array.isArray(o.$)) {
        return (o.$ as number[]).map((i) => p.lines[i]).join('\n');
      }
      return Object.fromEntries(keys.map((k) => [k, walk(o[k])]));
    }
    return v;
  };
  return walk(p.value);
}

const gzipAsync = promisify(gzip);

/**
 * gzip + base64 of the packed JSON: safe inside a <script> element (no `<`). The compression runs
 * on libuv's thread pool, so the caller computes other things meanwhile. Level 1: on the 300
 * trajectories of a 10,000-rollout run's report it takes 0.14 s against 0.26 s at level 5, for a
 * page of 8.5 MB instead of 7.8 MB; the packing has already removed what repeats across
 * rollouts, which gzip's 32 KB window cannot reach (issue #30, `npm run bench:store-scale`).
 */
export async function packForPage(packed: Packed): Promise<string> {
  const json = Buffer.from(JSON.stringify(packed), 'utf8');
  // One output chunk as large as the input: the pool compresses it all in one go, without
  // waiting for the busy main thread to ask for the next chunk.
  const chunkSize = json.length + 64 * 1024;
  return (await gzipAsync(json, { level: 1, chunkSize })).toString('base64');
}
