import type { CompressionReport } from '../context-compressor.js';

/** `12,004 -> 2,310 tokens (obs 2, hist 1, 1 from cache)`: a request's compression in a line. */
export function formatReport(report: CompressionReport): string {
  const fmt = (n: number) => n.toLocaleString('en-US');
  const counts = new Map<string, number>();
  let cached = 0;
  for (const e of report.events) {
    counts.set(e.kind, (counts.get(e.kind) ?? 0) + 1);
    if (e.cached) cached++;
  }
  const parts = [...counts].map(([kind, n]) => `${kind} ${n}`);
  if (cached > 0) parts.push(`${cached} from cache`);
  if (report.error) parts.push('compressor failed');
  const detail = parts.length > 0 ? ` (${parts.join(', ')})` : '';
  return `${fmt(report.tokensBefore)} -> ${fmt(report.tokensAfter)} tokens${detail}`;
}
