import type { CallRecord, CallStore } from '../../src/llm/call-store.js';
import type { ProviderResponse } from '../../src/llm/types.js';

/** A CallStore in memory that keeps everything, for tests: the cache is a Map, recorded calls an array. */
export class RecordingCallStore implements CallStore {
  readonly calls: (CallRecord & { id: number })[] = [];
  readonly cache = new Map<
    string,
    { provider: string; model: string; response: ProviderResponse }
  >();

  getCached(requestHash: string): ProviderResponse | undefined {
    // A structured copy, as a database would return: callers cannot alias stored answers.
    const hit = this.cache.get(requestHash);
    return hit ? structuredClone(hit.response) : undefined;
  }

  putCached(
    requestHash: string,
    provider: string,
    model: string,
    response: ProviderResponse,
  ): void {
    this.cache.set(requestHash, { provider, model, response: structuredClone(response) });
  }

  recordCall(call: CallRecord): number {
    const id = this.calls.length + 1;
    this.calls.push({ ...structuredClone(call), id });
    return id;
  }
}
