import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Cached input and reasoning tokens an answer reports. */
export type UpstreamUsage = { cached?: number; reasoning?: number };

/** One request the fake received: its path and parsed body. */
export type ResponsesRequest = {
  path: string;
  body: Record<string, unknown>;
  /** The `input_tokens` its answer reports (a quarter of the body's characters). */
  inputTokens: number;
};

/**
 * A Responses API upstream as openai-node's types document it (resources/responses): `POST
 * /v1/responses` takes `input` as a string or a list of items (`message` with or without
 * `type`, `function_call` with `call_id`, `function_call_output` with `call_id` and `output` as
 * a string or content list, `reasoning`) and answers a `response` object, or with `stream: true`
 * the event stream `response.created`, `response.in_progress`, `response.output_item.added`,
 * `response.content_part.added`, `response.output_text.delta`, `response.output_text.done`,
 * `response.content_part.done`, `response.output_item.done`, `response.completed`, each with
 * its `sequence_number`. As the real API does, a `function_call_output` whose `call_id` no
 * earlier `function_call` has is answered 400.
 */
export class FakeResponsesUpstream {
  readonly requests: ResponsesRequest[] = [];
  private constructor(
    private readonly server: Server,
    readonly url: string,
    private readonly text: string,
    private readonly usage: UpstreamUsage,
  ) {}

  /**
   * @param usage cached input and reasoning tokens each answer reports (`input_tokens_details`,
   *   `output_tokens_details`, part of `input_tokens` and `output_tokens` as the API counts them)
   */
  static async start(
    text = 'the total is 42',
    usage: UpstreamUsage = {},
  ): Promise<FakeResponsesUpstream> {
    const holder: { self?: FakeResponsesUpstream } = {};
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () =>
        holder.self!.answer(req.url ?? '/', Buffer.concat(chunks).toString('utf8'), res),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const { port } = server.address() as AddressInfo;
    holder.self = new FakeResponsesUpstream(server, `http://127.0.0.1:${port}/v1`, text, usage);
    return holder.self;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private answer(path: string, raw: string, res: ServerResponse) {
    const body = JSON.parse(raw) as Record<string, unknown>;
    this.requests.push({ path, body, inputTokens: Math.ceil(raw.length / 4) });
    const invalid = invalidInput(body.input);
    if (path !== '/v1/responses' || invalid) {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          error: { message: invalid ?? 'not found', type: 'invalid_request_error' },
        }),
      );
      return;
    }
    const id = `resp_${this.requests.length}`;
    const cached = this.usage.cached ?? 0;
    const reasoning = this.usage.reasoning ?? 0;
    const message = {
      type: 'message',
      id: `msg_${this.requests.length}`,
      status: 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', text: this.text, annotations: [] }],
    };
    const response = (status: string, output: unknown[]) => ({
      id,
      object: 'response',
      created_at: 1764684000,
      status,
      model: body.model,
      output,
      usage: {
        input_tokens: Math.ceil(raw.length / 4),
        input_tokens_details: { cached_tokens: Math.min(cached, Math.ceil(raw.length / 4)) },
        output_tokens: 5 + reasoning,
        output_tokens_details: { reasoning_tokens: reasoning },
        total_tokens: Math.ceil(raw.length / 4) + 5 + reasoning,
      },
    });
    if (body.stream !== true) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(response('completed', [message])));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const part = { type: 'output_text', text: '', annotations: [] };
    const halves = [this.text.slice(0, 4), this.text.slice(4)];
    const events: Record<string, unknown>[] = [
      { type: 'response.created', response: response('in_progress', []) },
      { type: 'response.in_progress', response: response('in_progress', []) },
      {
        type: 'response.output_item.added',
        output_index: 0,
        item: { ...message, status: 'in_progress', content: [] },
      },
      {
        type: 'response.content_part.added',
        item_id: message.id,
        output_index: 0,
        content_index: 0,
        part,
      },
      ...halves.map((delta) => ({
        type: 'response.output_text.delta',
        item_id: message.id,
        output_index: 0,
        content_index: 0,
        delta,
      })),
      {
        type: 'response.output_text.done',
        item_id: message.id,
        output_index: 0,
        content_index: 0,
        text: this.text,
      },
      {
        type: 'response.content_part.done',
        item_id: message.id,
        output_index: 0,
        content_index: 0,
        part: message.content[0],
      },
      { type: 'response.output_item.done', output_index: 0, item: message },
      { type: 'response.completed', response: response('completed', [message]) },
    ];
    events.forEach((e, i) =>
      res.write(
        `event: ${String(e.type)}\ndata: ${JSON.stringify({ ...e, sequence_number: i })}\n\n`,
      ),
    );
    res.end();
  }
}

/** The API's rule the proxy must keep: every output answers a call made before it. */
function invalidInput(input: unknown): string | null {
  if (!Array.isArray(input)) return null;
  const calls = new Set<string>();
  for (const item of input as { type?: string; call_id?: string }[]) {
    if (item.type === 'function_call') calls.add(item.call_id ?? '');
    if (item.type === 'function_call_output' && !calls.has(item.call_id ?? '')) {
      return `No tool call found for function call output with call_id ${item.call_id}.`;
    }
  }
  return null;
}
