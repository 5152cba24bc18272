import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { countMessageTokens, countTokens } from '../../src/llm/tokenizer.js';
import { ChatMessageSchema, ToolDefSchema } from '../../src/llm/types.js';
import { listenOnLoopback } from '../helpers/loopback.js';

/**
 * A fake OpenAI-compatible chat-completions server for integration tests: the real `openai`
 * client talks HTTP to it on 127.0.0.1 (random free port).
 *
 * @example
 * const server = await FakeOpenAiServer.start({ latencyMs: 5 });
 * server.enqueue(reply.rateLimit({ retryAfterSeconds: 2 }), reply.text('hello'));
 * // … point an endpoint's base_url at server.url …
 * expect(server.requestCount).toBe(2);
 * await server.close();
 *
 * Replies come from the queue first (`enqueue`), then from the handler, else `reply.text('ok')`.
 */

export type FakeToolCall = {
  /** @default `call_<n>` */
  id?: string;
  name: string;
  /** A string is sent as is (so tests can send broken JSON); an object is JSON-encoded. */
  arguments: string | Record<string, unknown>;
};

/** Usage the server reports; missing counts are computed with acon's tokenizer. */
export type FakeUsage = {
  prompt_tokens?: number;
  completion_tokens?: number;
  cached_tokens?: number;
  /** Reported in `completion_tokens_details` (already part of `completion_tokens`, as OpenAI does). */
  reasoning_tokens?: number;
};

type Timing = {
  /** Delay before answering, on top of the server-wide latency. */
  latencyMs?: number;
};

export type FakeReply =
  | ({
      kind: 'completion';
      content: string | null;
      toolCalls?: FakeToolCall[];
      usage?: FakeUsage;
      /** @default 'stop', or 'tool_calls' when there are tool calls */
      finishReason?: string;
    } & Timing)
  | ({ kind: 'error'; status: number; body: unknown; headers?: Record<string, string> } & Timing)
  | ({ kind: 'reset' } & Timing)
  | ({
      kind: 'raw';
      status: number;
      body: string;
      /** @default 'application/json' */
      contentType?: string;
      headers?: Record<string, string>;
    } & Timing);

type CompletionOptions = Timing & { usage?: FakeUsage; finishReason?: string };

/** Builders for scripted replies. */
export const reply = {
  /** A plain assistant message. */
  text(content: string, opts: CompletionOptions = {}): FakeReply {
    return { kind: 'completion', content, ...opts };
  },
  /** An assistant message whose content is `value` as JSON (for `responseFormat` calls). */
  json(value: unknown, opts: CompletionOptions = {}): FakeReply {
    return { kind: 'completion', content: JSON.stringify(value), ...opts };
  },
  /** An assistant message calling tools. */
  toolCalls(
    calls: FakeToolCall[],
    opts: CompletionOptions & { content?: string | null } = {},
  ): FakeReply {
    const { content = null, ...rest } = opts;
    return { kind: 'completion', content, toolCalls: calls, ...rest };
  },
  /** 429 with `Retry-After` in seconds or as an HTTP date, or with `retry-after-ms`. */
  rateLimit(
    opts: Timing & {
      retryAfterSeconds?: number;
      retryAfterDate?: Date;
      retryAfterMs?: number;
    } = {},
  ): FakeReply {
    const headers: Record<string, string> = {};
    if (opts.retryAfterSeconds !== undefined)
      headers['retry-after'] = String(opts.retryAfterSeconds);
    if (opts.retryAfterDate) headers['retry-after'] = opts.retryAfterDate.toUTCString();
    if (opts.retryAfterMs !== undefined) headers['retry-after-ms'] = String(opts.retryAfterMs);
    return {
      kind: 'error',
      status: 429,
      headers,
      body: {
        error: { message: 'Rate limit reached', type: 'requests', code: 'rate_limit_exceeded' },
      },
      ...timing(opts),
    };
  },
  /** An OpenAI-style error body with any status. */
  error(
    status: number,
    message: string,
    opts: Timing & { code?: string; type?: string } = {},
  ): FakeReply {
    return {
      kind: 'error',
      status,
      body: {
        error: { message, type: opts.type ?? 'invalid_request_error', code: opts.code ?? null },
      },
      ...timing(opts),
    };
  },
  /** 500 Internal Server Error. */
  serverError(opts: Timing & { status?: number; message?: string } = {}): FakeReply {
    return reply.error(opts.status ?? 500, opts.message ?? 'The server had an error', {
      type: 'server_error',
      ...timing(opts),
    });
  },
  /** The connection is dropped without an answer (ECONNRESET at the client). */
  reset(opts: Timing = {}): FakeReply {
    return { kind: 'reset', ...timing(opts) };
  },
  /** 200 with a JSON content type and a body that is not JSON. */
  malformedJson(opts: Timing = {}): FakeReply {
    return { kind: 'raw', status: 200, body: '{"id": "chatcmpl-1", "choices": [', ...timing(opts) };
  },
  /** OpenAI's context-length 400 (vLLM uses the same phrasing without the code). */
  contextLength(opts: Timing & { withCode?: boolean } = {}): FakeReply {
    return reply.error(
      400,
      "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens. Please reduce the length of the messages.",
      { code: opts.withCode === false ? undefined : 'context_length_exceeded', ...timing(opts) },
    );
  },
};

function timing(opts: Timing): Timing {
  return opts.latencyMs === undefined ? {} : { latencyMs: opts.latencyMs };
}

/** The request body, as far as tests look at it; other fields are kept. */
export const FakeChatBodySchema = z.looseObject({
  model: z.string(),
  messages: z.array(ChatMessageSchema),
  tools: z.array(ToolDefSchema).optional(),
  temperature: z.number().optional(),
  max_tokens: z.number().optional(),
  max_completion_tokens: z.number().optional(),
  reasoning_effort: z.string().optional(),
  seed: z.number().optional(),
  response_format: z.unknown().optional(),
});
export type FakeChatBody = z.infer<typeof FakeChatBodySchema>;

export type FakeRequest = {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** Raw request body. */
  raw: string;
  /** Parsed body; undefined when it is not a chat-completions request acon would send. */
  body: FakeChatBody | undefined;
};

export type FakeHandler = (req: FakeRequest) => FakeReply | Promise<FakeReply>;

export type FakeOpenAiServerOptions = {
  replies?: FakeReply[];
  handler?: FakeHandler;
  /** Delay before every answer. @default 0 */
  latencyMs?: number;
  /**
   * Refuse what OpenAI refuses for its reasoning models (o1, o3, o4*, gpt-5*), with its error
   * bodies: `max_tokens`, and a temperature other than 1. Checked before any scripted reply.
   * @default false
   */
  modelRules?: boolean;
  /**
   * Serve `POST /tokenize` at the server's root as vLLM does (TokenizeCompletionRequest
   * `{model, prompt, add_special_tokens}` or TokenizeChatRequest `{model, messages}`, answered by
   * TokenizeResponse `{count, max_model_len, tokens}`), counting with this; unset: 404 as OpenAI.
   */
  tokenize?: (text: string) => number;
  /**
   * Texts `/tokenize` refuses with vLLM's 400 error body (as it does a prompt over
   * `max_model_len`), so a test can see what acon does with a count the server does not give.
   */
  tokenizeRefuses?: (text: string) => boolean;
};

/** vLLM's TokenizeCompletionRequest and TokenizeChatRequest, as far as the fake reads them. */
const TokenizeBodySchema = z.union([
  z.looseObject({
    model: z.string().optional(),
    prompt: z.string(),
    add_special_tokens: z.boolean().optional(),
  }),
  z.looseObject({ model: z.string().optional(), messages: z.array(ChatMessageSchema) }),
]);
/** The context length the fake's TokenizeResponse reports. */
const MAX_MODEL_LEN = 32_768;

/**
 * The reasoning models, by OpenAI's naming; written out here on purpose rather than taken from
 * acon's own detection (src/llm/model-family.ts), so a test fails when acon's is wrong.
 */
const REASONING_MODEL = /^(o1|o3|o4)(-|$)|^gpt-5/;

/** OpenAI's 400 for a parameter a reasoning model does not take (its documented bodies). */
export function modelRuleError(body: FakeChatBody): FakeReply | undefined {
  if (!REASONING_MODEL.test(body.model)) return undefined;
  const refuse = (param: string, code: string, message: string): FakeReply => ({
    kind: 'error',
    status: 400,
    body: { error: { message, type: 'invalid_request_error', param, code } },
  });
  if (body.max_tokens !== undefined)
    return refuse(
      'max_tokens',
      'unsupported_parameter',
      "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
    );
  if (body.temperature !== undefined && body.temperature !== 1)
    return refuse(
      'temperature',
      'unsupported_value',
      `Unsupported value: 'temperature' does not support ${body.temperature} with this model. Only the default (1) value is supported.`,
    );
  return undefined;
}

const CHAT_PATHS = new Set(['/v1/chat/completions', '/chat/completions']);

export class FakeOpenAiServer {
  /** Every request received, in arrival order. */
  readonly requests: FakeRequest[] = [];
  /** Server-wide delay before every answer; may be changed between calls. */
  latencyMs: number;
  private readonly modelRules: boolean;
  private readonly tokenize: ((text: string) => number) | undefined;
  private readonly tokenizeRefuses: ((text: string) => boolean) | undefined;
  private handler: FakeHandler | undefined;
  private readonly queue: FakeReply[];
  private current = 0;
  private peak = 0;
  private readonly timers = new Set<{ timer: NodeJS.Timeout; done: () => void }>();

  private constructor(
    private readonly server: Server,
    opts: FakeOpenAiServerOptions,
  ) {
    this.latencyMs = opts.latencyMs ?? 0;
    this.modelRules = opts.modelRules ?? false;
    this.tokenize = opts.tokenize;
    this.tokenizeRefuses = opts.tokenizeRefuses;
    this.handler = opts.handler;
    this.queue = [...(opts.replies ?? [])];
  }

  static async start(opts: FakeOpenAiServerOptions = {}): Promise<FakeOpenAiServer> {
    const server = createServer();
    const instance = new FakeOpenAiServer(server, opts);
    server.on(
      'request',
      (req: IncomingMessage, res: ServerResponse) => void instance.serve(req, res),
    );
    await listenOnLoopback(server);
    return instance;
  }

  /** Base URL for an endpoint's `base_url`, e.g. `http://127.0.0.1:43121/v1`. */
  get url(): string {
    return `${this.origin}/v1`;
  }

  /** `http://127.0.0.1:<port>` */
  get origin(): string {
    const { port } = this.server.address() as AddressInfo;
    return `http://127.0.0.1:${port}`;
  }

  /** Appends scripted replies; they are used before the handler, first in first out. */
  enqueue(...replies: FakeReply[]): this {
    this.queue.push(...replies);
    return this;
  }

  /** Replaces the handler that answers when the queue is empty. */
  setHandler(handler: FakeHandler | undefined): this {
    this.handler = handler;
    return this;
  }

  /** Requests received (any path). */
  get requestCount(): number {
    return this.requests.length;
  }

  /** Chat-completion requests received. */
  get chatRequests(): FakeRequest[] {
    return this.requests.filter((r) => CHAT_PATHS.has(r.path));
  }

  /** `/tokenize` requests received. */
  get tokenizeRequests(): FakeRequest[] {
    return this.requests.filter((r) => r.path === '/tokenize');
  }

  /** Requests being answered right now. */
  get inFlight(): number {
    return this.current;
  }

  /** Most requests that were ever in flight at once. */
  get maxInFlight(): number {
    return this.peak;
  }

  /** Scripted replies not used yet. */
  get pendingReplies(): number {
    return this.queue.length;
  }

  /** Forgets requests, counters and unused replies (between tests sharing one server). */
  reset(): void {
    this.requests.length = 0;
    this.queue.length = 0;
    this.peak = this.current;
  }

  async close(): Promise<void> {
    for (const t of this.timers) {
      clearTimeout(t.timer);
      t.done();
    }
    this.timers.clear();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    this.current++;
    this.peak = Math.max(this.peak, this.current);
    let finished = false;
    res.on('close', () => {
      if (!finished) this.current--;
      finished = true;
    });
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const path = (req.url ?? '/').split('?')[0]!;
    // Parsed once: a request of a long rollout is tens of KB of JSON.
    const json = parseJson(raw);
    const record: FakeRequest = {
      method: req.method ?? 'GET',
      path,
      headers: req.headers,
      raw,
      body: FakeChatBodySchema.safeParse(json).data,
    };
    this.requests.push(record);

    if (req.method === 'POST' && path === '/tokenize' && this.tokenize) {
      this.answerTokenize(res, json);
      return;
    }
    if (req.method !== 'POST' || !CHAT_PATHS.has(path)) {
      send(res, 404, { error: { message: `no route ${req.method} ${path}`, code: 'not_found' } });
      return;
    }
    const refused = this.modelRules && record.body ? modelRuleError(record.body) : undefined;
    const scripted =
      refused ?? this.queue.shift() ?? (await this.handler?.(record)) ?? reply.text('ok');
    await this.sleep(this.latencyMs + (scripted.latencyMs ?? 0));
    if (res.destroyed) return;
    if (scripted.kind === 'reset') {
      res.socket?.destroy();
    } else if (scripted.kind === 'error') {
      send(res, scripted.status, scripted.body, scripted.headers);
    } else if (scripted.kind === 'raw') {
      res.writeHead(scripted.status, {
        'content-type': scripted.contentType ?? 'application/json',
        ...scripted.headers,
      });
      res.end(scripted.body);
    } else if ((json as { stream?: unknown } | undefined)?.stream === true) {
      sendStream(res, completionBody(scripted, record.body, this.requests.length));
    } else {
      send(res, 200, completionBody(scripted, record.body, this.requests.length));
    }
  }

  /** vLLM's answer: one id per token (the fake's ids are positions), 400 on a body it rejects. */
  private answerTokenize(res: ServerResponse, json: unknown): void {
    const body = TokenizeBodySchema.safeParse(json);
    if (!body.success) {
      send(res, 400, { object: 'error', message: 'invalid tokenize request', code: 400 });
      return;
    }
    const data = body.data;
    const text =
      'messages' in data && Array.isArray(data.messages)
        ? data.messages.map((m) => `${m.role}\n${m.content ?? ''}`).join('\n')
        : String(data.prompt);
    if (this.tokenizeRefuses?.(text)) {
      // vLLM's ErrorResponse for a request it cannot serve (serving_engine.create_error_response).
      send(res, 400, {
        object: 'error',
        message: `This model's maximum context length is ${MAX_MODEL_LEN} tokens.`,
        type: 'BadRequestError',
        param: null,
        code: 400,
      });
      return;
    }
    const count = this.tokenize!(text);
    send(res, 200, {
      count,
      max_model_len: MAX_MODEL_LEN,
      tokens: Array.from({ length: count }, (_, i) => i),
    });
  }

  private sleep(ms: number): Promise<void> {
    if (ms <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const entry = {
        done: resolve,
        timer: setTimeout(() => {
          this.timers.delete(entry);
          resolve();
        }, ms),
      };
      this.timers.add(entry);
    });
  }
}

/** The request body as JSON; undefined when it is not JSON. */
function parseJson(raw: string): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * A completion as a chat-completions event stream (`stream: true`): the role, the content in two
 * pieces, each tool call, the finish reason, the usage, `[DONE]`.
 */
function sendStream(res: ServerResponse, body: ReturnType<typeof completionBody>) {
  if (res.destroyed) return;
  const choice = body.choices[0]!;
  const base = {
    id: body.id,
    object: 'chat.completion.chunk',
    created: body.created,
    model: body.model,
  };
  const chunk = (delta: unknown, finish: string | null = null) => ({
    ...base,
    choices: [{ index: 0, delta, finish_reason: finish }],
  });
  const events: unknown[] = [chunk({ role: 'assistant', content: '' })];
  const content = choice.message.content ?? '';
  const half = Math.ceil(content.length / 2);
  if (content !== '')
    events.push(
      chunk({ content: content.slice(0, half) }),
      chunk({ content: content.slice(half) }),
    );
  (choice.message.tool_calls ?? []).forEach((call, index) =>
    events.push(chunk({ tool_calls: [{ index, ...call }] })),
  );
  events.push(chunk({}, choice.finish_reason), { ...base, choices: [], usage: body.usage });
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  for (const e of events) res.write(`data: ${JSON.stringify(e)}\n\n`);
  res.end('data: [DONE]\n\n');
}

function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) {
  if (res.destroyed) return;
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function completionBody(
  r: Extract<FakeReply, { kind: 'completion' }>,
  body: FakeChatBody | undefined,
  n: number,
) {
  const toolCalls = r.toolCalls?.map((c, i) => ({
    id: c.id ?? `call_${n}_${i}`,
    type: 'function',
    function: {
      name: c.name,
      arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments),
    },
  }));
  const promptTokens =
    r.usage?.prompt_tokens ?? (body ? countMessageTokens(body.messages, body.tools) : 0);
  const completionTokens =
    r.usage?.completion_tokens ??
    countTokens(r.content ?? '') +
      (toolCalls ?? []).reduce((sum, c) => sum + countTokens(c.function.arguments), 0);
  return {
    id: `chatcmpl-fake-${n}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: body?.model ?? 'unknown',
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: r.content,
          ...(toolCalls && toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
        },
        finish_reason: r.finishReason ?? (toolCalls?.length ? 'tool_calls' : 'stop'),
      },
    ],
    usage: {
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens,
      total_tokens: promptTokens + completionTokens,
      prompt_tokens_details: { cached_tokens: r.usage?.cached_tokens ?? 0 },
      completion_tokens_details: { reasoning_tokens: r.usage?.reasoning_tokens ?? 0 },
    },
  };
}
