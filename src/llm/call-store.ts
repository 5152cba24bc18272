import type { CallContext, ChatRequest, ProviderResponse, Usage } from './types.js';

/** One LLM call as it is recorded (the API key is never part of it). */
export type CallRecord = {
  ctx: CallContext;
  provider: string;
  model: string;
  requestHash: string;
  request: ChatRequest & { model: string };
  response: ProviderResponse | null;
  usage: Usage;
  costUsd: number;
  latencyMs: number;
  cached: boolean;
  error: string | null;
};

/** The persistence the LLM client needs: the call cache and the call log (SQLite in production). */
export interface CallStore {
  getCached(requestHash: string): ProviderResponse | undefined;
  putCached(requestHash: string, provider: string, model: string, response: ProviderResponse): void;
  /** Returns the row id of the recorded call. */
  recordCall(call: CallRecord): number;
  /**
   * Resolves once every call recorded so far is committed; undefined when they already are.
   * A store that commits calls in groups (issue #28) needs this: nobody may see a call's answer
   * before its row is committed.
   */
  committed?(): Promise<void> | undefined;
}
