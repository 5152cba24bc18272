import type { CallRecord, CallStore, ProviderResponse } from '../llm/index.js';

/**
 * The call cache of a context compressor, in memory: compressor answers by request hash (a
 * content hash of the compressor prompt), least recently used dropped past `maxEntries`. Calls
 * are counted, not kept: the runtime records nothing unless given a store.
 */
export class MemoryCallStore implements CallStore {
  private readonly cache = new Map<string, ProviderResponse>();
  private calls = 0;

  constructor(private readonly maxEntries = 10_000) {}

  getCached(requestHash: string): ProviderResponse | undefined {
    const hit = this.cache.get(requestHash);
    if (hit === undefined) return undefined;
    this.cache.delete(requestHash);
    this.cache.set(requestHash, hit);
    return structuredClone(hit);
  }

  putCached(requestHash: string, _provider: string, _model: string, response: ProviderResponse) {
    this.cache.delete(requestHash);
    this.cache.set(requestHash, structuredClone(response));
    if (this.cache.size > this.maxEntries) {
      this.cache.delete(this.cache.keys().next().value!);
    }
  }

  recordCall(_call: CallRecord): number {
    return ++this.calls;
  }
}

/** The cache of one store with the call log of another (a SQLite cache without a run). */
export function cacheOnly(cache: Pick<CallStore, 'getCached' | 'putCached'>): CallStore {
  const log = new MemoryCallStore(0);
  return {
    getCached: (h) => cache.getCached(h),
    putCached: (h, p, m, r) => cache.putCached(h, p, m, r),
    recordCall: (c) => log.recordCall(c),
  };
}
