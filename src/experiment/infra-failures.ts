import { ContextLengthError, ProviderError } from '../errors.js';
import { isRetryable } from '../llm/index.js';

/**
 * Whether an error ends only its rollout as an infrastructure failure. Transient provider errors
 * that survived the retries do (429, 5xx, timeouts, resets, malformed bodies); a context-length
 * error is the agent's (seed 002), and a non-transient status (401, 404, 400) or a server that
 * is not there is a problem every call would hit, so it still stops the run.
 */
export function isInfrastructureFailure(err: unknown): err is ProviderError {
  if (!(err instanceof ProviderError) || err instanceof ContextLengthError) return false;
  return isRetryable(err) && !noServer(err);
}

/** Codes that say no server answers at that address: every rollout would fail the same way. */
const NO_SERVER = /\b(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH)\b/;

/**
 * A refused connection or an unknown host (the endpoint is down or misspelt) is not a passing
 * fault: the run stops at once, as a 401 does, instead of failing every rollout one by one.
 */
function noServer(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (NO_SERVER.test(typeof code === 'string' ? code : e.message)) return true;
    e = e.cause;
  }
  return false;
}
