import type OpenAI from 'openai';
import type { BodyPool } from './body-pool.js';
import { chatRequestBody, toWireRequest } from './wire-request.js';
import type { ProviderRequest } from './types.js';

/**
 * How one chat-completions attempt reaches the server through the `openai` client: the `fetch`
 * the client is built with, and the call. Either way the client does the request, its headers,
 * the timeout (`timeout`), the abort (`signal`) and the mapping of an HTTP error to its
 * `APIError` classes; what differs is what carries the bytes.
 */
export interface Transport {
  /** For the client's `fetch` option; undefined keeps the client's own (Node's fetch). */
  readonly fetch: typeof fetch | undefined;
  /** One attempt (the client's `maxRetries` is 0, see openai-provider.ts); the body as parsed. */
  send(client: OpenAI, req: ProviderRequest, signal: AbortSignal | undefined): Promise<unknown>;
}

export const TRANSPORTS = ['sdk', 'node-http'] as const;
export type TransportName = (typeof TRANSPORTS)[number];

/** Everything through the `openai` client: `chat.completions.create` and its fetch (or `fetch`). */
export function sdkTransport(givenFetch?: typeof fetch): Transport {
  return {
    fetch: givenFetch,
    send: (client, req, signal) => client.chat.completions.create(toWireRequest(req), { signal }),
  };
}

/**
 * The client with acon's own fetch (`./http-fetch.ts`: node:http with keep-alive agents, the
 * answer read whole without web streams) and bodies made of each message's JSON encoded once,
 * written into reused memory (`wire-request.ts`, `body-pool.ts`). Kept only for what
 * `npm run bench:throughput -- --transports sdk,node-http` measures it saves per call.
 */
export function nodeHttpTransport(pool: BodyPool): Transport {
  let built: Promise<typeof fetch> | undefined;
  // Built at the first request: node:https alone cost every command that builds the provider
  // about 40 ms of start-up.
  const lazyFetch = ((input: string | URL | Request, init?: RequestInit) =>
    (built ??= import('./http-fetch.js').then((m) => m.createHttpFetch())).then((f) =>
      f(input, init),
    )) as typeof fetch;
  return {
    fetch: lazyFetch,
    async send(client, req, signal) {
      const body = chatRequestBody(req, pool);
      const raw = await client.post<unknown>('/chat/completions', {
        body,
        headers: { 'content-type': 'application/json' },
        signal,
      });
      // The answer was read whole, so the request was sent whole: its memory can be reused.
      pool.give(body);
      return raw;
    },
  };
}
