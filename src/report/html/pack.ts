import { gzipSync } from 'node:zlib';

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

export function packStrings(value: unknown): Packed {
  const lines: string[] = [];
  const index = new Map<string, number>();
  // One pass over the text per string, no intermediate arrays: on the 24 MB of a
  // 10,000-rollout report this is most of the page's build time (issue #30).
  const ids = (text: string): number[] => {
    const out: number[] = [];
    for (let from = 0; ;) {
      const end = text.indexOf('\n', from);
      const line = end < 0 ? text.slice(from) : text.slice(from, end);
      let i = index.get(line);
      if (i === undefined) index.set(line, (i = lines.push(line) - 1));
      out.push(i);
      if (end < 0) return out;
      from = end + 1;
    }
  };
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return v.length < MIN_CHARS ? v : { $: ids(v) };
    if (Array.isArray(v)) return v.map(walk);
    if (v === null || typeof v !== 'object') return v;
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = walk(x);
    return out;
  };
  return { lines, value: walk(value) };
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

/**
 * gzip + base64 of the packed JSON: safe inside a <script> element (no `<`). zlib's default level
 * (6): on the 300 trajectories of a 10,000-rollout run's report, level 9 made the page 1.5%
 * smaller for 1.7× the compression time (issue #30, `npm run bench:store-scale`).
 */
export function packForPage(value: unknown): string {
  return gzipSync(JSON.stringify(packStrings(value)), { level: 6 }).toString('base64');
}
