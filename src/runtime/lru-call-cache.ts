import { LRUCache } from 'lru-cache';
import type { CallRecord, CallStore, ProviderResponse } from '../llm/index.js';

/**
 * The call cache of a context compressor, in memory: compressor answers by request hash (a
 * content hash of the compressor prompt), least recently used dropped past `maxEntries` (none
 * kept with 0). Calls are counted, not kept: the runtime records nothing unless given a store.
 */
export class LruCallCache implements CallStore {
  private readonly cache: LRUCache<string, ProviderResponse> | undefined;
  private calls = 0;

  constructor(maxEntries = 10_000) {
    this.cache = maxEntries > 0 ? new LRUCache({ max: maxEntries }) : undefined;
  }

  getCached(requestHash: string): ProviderResponse | undefined {
    const hit = this.cache?.get(requestHash);
    return hit === undefined ? undefined : structuredClone(hit);
  }

  putCached(requestHash: string, _provider: string, _model: string, response: ProviderResponse) {
    this.cache?.set(requestHash, structuredClone(response));
  }

  recordCall(_call: CallRecord): number {
    return ++this.calls;
  }
}

/** The cache of one store with the call log of another (a SQLite cache without a run). */
export function cacheOnly(cache: Pick<CallStore, 'getCached' | 'putCached'>): CallStore {
  const log = new LruCallCache(0);
  return {
    getCached: (h) => cache.getCached(h),
    putCached: (h, p, m, r) => cache.putCached(h, p, m, r),
    recordCall: (c) => log.recordCall(c),
  };
}
