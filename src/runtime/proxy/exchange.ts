import type { CompressionReport } from '../context-compressor.js';
import type { OpenAiMessage } from '../openai-messages.js';

/**
 * One proxied chat completion or Responses request, for `--record`: the request as sent upstream
 * and the answer.
 */
export type ProxiedExchange = {
  /** `chat`: `/v1/chat/completions`; `responses`: `/v1/responses` (its own answer format). */
  api: 'chat' | 'responses';
  /** The messages as the client sent them (uncompressed; Responses items read as chat). */
  original: OpenAiMessage[];
  /** The messages sent upstream (compressed), as chat messages. */
  sent: OpenAiMessage[];
  /** The body sent upstream (messages or input items compressed). */
  body: Record<string, unknown>;
  /** What the compression of this request did. */
  report: CompressionReport;
  status: number;
  /** The answer body (for a stream, the raw event stream). */
  answer: string;
  streamed: boolean;
};
