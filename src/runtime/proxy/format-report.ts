import type { CompressionReport } from '../context-compressor.js';

/**
 * `12,004 -> 2,310 tokens (obs 2, hist 1, 1 from cache)`: a request's compression in a line. A
 * compression whose answer was unusable kept the original text: it is shown as failed, never
 * counted as a compression.
 */
export function formatReport(report: CompressionReport): string {
  const fmt = (n: number) => n.toLocaleString('en-US');
  const counts = new Map<string, number>();
  const failed: string[] = [];
  let cached = 0;
  for (const e of report.events) {
    if (e.failed) {
      failed.push(`${e.kind}: ${e.failureReason ?? 'no usable answer'}, text kept`);
      continue;
    }
    counts.set(e.kind, (counts.get(e.kind) ?? 0) + 1);
    if (e.cached) cached++;
  }
  const parts = [...counts].map(([kind, n]) => `${kind} ${n}`);
  if (cached > 0) parts.push(`${cached} from cache`);
  if (report.error) parts.push(`compressor failed (${report.error.message})`);
  for (const f of failed) parts.push(`compressor failed (${f})`);
  const detail = parts.length > 0 ? ` (${parts.join(', ')})` : '';
  return `${fmt(report.tokensBefore)} -> ${fmt(report.tokensAfter)} tokens${detail}`;
}

/** The `x-acon-compression` header: `obs=1 hist=0 saved=8120`, and `failed=N` when any failed. */
export function compressionHeader(report: CompressionReport): string {
  const ok = report.events.filter((e) => !e.failed);
  const failed = report.events.length - ok.length + (report.error ? 1 : 0);
  const obs = ok.filter((e) => e.kind === 'obs').length;
  const hist = ok.filter((e) => e.kind === 'hist').length;
  const saved = Math.max(0, report.tokensBefore - report.tokensAfter);
  return `obs=${obs} hist=${hist} saved=${saved}${failed > 0 ? ` failed=${failed}` : ''}`;
}

/** The header of a request acon passed through untouched: `passthrough=previous_response_id`. */
export function passthroughHeader(reason: string): string {
  return `passthrough=${reason}`;
}
