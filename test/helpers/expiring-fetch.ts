import { createHttpFetch } from '../../src/llm/http-fetch.js';

/** The request header that names a request to `expire`. */
export const REQUEST_ID_HEADER = 'x-test-request-id';

/**
 * acon's own fetch (node:http with keep-alive) with a timer a test controls: every request
 * carries an id in `REQUEST_ID_HEADER`, and `expire(id)` ends that request the way the openai
 * client's timer does when `timeout_ms` passes: it aborts the request's signal, the socket is
 * closed and the fetch rejects with an AbortError, which the client reports as a connection
 * timeout. A fake server that decides to answer late calls `expire` instead of making the test
 * wait out the endpoint's timeout in real time (issue #28).
 */
export function expiringFetch(): { fetch: typeof fetch; expire(id: unknown): boolean } {
  const inner = createHttpFetch();
  const live = new Map<string, AbortController>();
  let next = 0;
  const fetchWithIds = (async (input: string | URL | Request, init: RequestInit = {}) => {
    const id = String(next++);
    const controller = new AbortController();
    const given = init.signal;
    const forward = () => controller.abort(given?.reason);
    if (given?.aborted) forward();
    given?.addEventListener('abort', forward, { once: true });
    live.set(id, controller);
    const headers = new Headers(init.headers);
    headers.set(REQUEST_ID_HEADER, id);
    try {
      return await inner(input, { ...init, headers, signal: controller.signal });
    } finally {
      live.delete(id);
      given?.removeEventListener('abort', forward);
    }
  }) as typeof fetch;
  return {
    fetch: fetchWithIds,
    expire(id) {
      const controller = typeof id === 'string' ? live.get(id) : undefined;
      controller?.abort(new DOMException('the test expired the request', 'TimeoutError'));
      return controller !== undefined;
    },
  };
}
