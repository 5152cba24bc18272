import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import {
  applyPlan,
  type CompressionReport,
  type ContextCompressor,
} from '../context-compressor.js';
import type { OpenAiMessage } from '../openai-messages.js';
import { isSkipped, type Skipped } from './compression-gate.js';
import type { ProxiedExchange } from './exchange.js';
import { compressionHeader, formatReport, passthroughHeader } from './format-report.js';
import {
  applyPlanToItems,
  InputItemSchema,
  itemsAsChat,
  unreadableInput,
} from './response-items.js';

/** What the Responses route needs of the server. */
export type ResponsesContext = {
  compressor: ContextCompressor;
  log: (line: string) => void;
  /** Runs a compression through the proxy's bounds (and `--record`'s attribution). */
  compress<T>(messages: OpenAiMessage[], plan: () => Promise<T>): Promise<T | Skipped>;
  /** Why a body of this many bytes is not compressed at all, or null. */
  tooLarge(bytes: number): Skipped | null;
  /** Sends the body upstream and pipes the answer back with the extra headers. */
  forward(
    req: IncomingMessage,
    res: ServerResponse,
    body: Buffer,
    target: string,
    headers: Record<string, string>,
  ): Promise<{ status: number; text: string }>;
  /** Told each compressed request and its answer (`--record`). */
  onExchange?: (exchange: ProxiedExchange) => void;
};

export const RESPONSES_PATH = /^(?:\/v1)?\/responses\/?$/;

/** The fields of a Responses body the proxy reads; everything else passes as it is. */
const ResponsesBodySchema = z.looseObject({
  input: z.union([z.string(), z.array(InputItemSchema)]).optional(),
  instructions: z.string().nullish(),
  previous_response_id: z.string().nullish(),
  stream: z.boolean().nullish(),
});

export const COMPRESSION_HEADER = 'x-acon-compression';

/**
 * `POST /v1/responses`: the input items read as a chat history (response-items.ts), compressed
 * like a chat completion (tool outputs over T_obs, the history folded by whole turns, so a
 * `function_call` never leaves its `function_call_output`), and sent upstream; the answer, a
 * stream or not, comes back as the upstream sent it with the `x-acon-compression` header. A
 * request acon cannot compress safely passes through untouched with a log line saying why: one
 * with `previous_response_id` (its history is stored upstream, acon sees only the new items),
 * one whose `input` is a string (no history), one with an item type acon does not read.
 */
export async function proxyResponses(
  ctx: ResponsesContext,
  req: IncomingMessage,
  res: ServerResponse,
  raw: Buffer,
  target: string,
): Promise<void> {
  const line = (status: number, what: string) => ctx.log(`POST /v1/responses ${status} ${what}`);
  const tooLarge = ctx.tooLarge(raw.length);
  if (tooLarge) {
    const answer = await ctx.forward(req, res, raw, target, {
      [COMPRESSION_HEADER]: passthroughHeader(tooLarge.code),
    });
    line(answer.status, `sent uncompressed: ${tooLarge.text}`);
    return;
  }
  let parsed: z.infer<typeof ResponsesBodySchema>;
  try {
    parsed = ResponsesBodySchema.parse(JSON.parse(raw.toString('utf8')));
  } catch {
    // Not a body we understand: the upstream says what is wrong with it.
    const answer = await ctx.forward(req, res, raw, target, {
      [COMPRESSION_HEADER]: passthroughHeader('unreadable_body'),
    });
    line(answer.status, 'passed through untouched: the body is not a Responses request acon reads');
    return;
  }
  const why = passthroughReason(parsed);
  if (why) {
    const answer = await ctx.forward(req, res, raw, target, {
      [COMPRESSION_HEADER]: passthroughHeader(why.code),
    });
    line(answer.status, `passed through untouched: ${why.text}`);
    return;
  }
  const input = parsed.input as z.infer<typeof InputItemSchema>[];
  const chat = itemsAsChat(parsed.instructions ?? null, input);
  const plan = await ctx.compress(chat.messages, () => ctx.compressor.plan(chat.messages));
  if (isSkipped(plan)) {
    const answer = await ctx.forward(req, res, raw, target, {
      [COMPRESSION_HEADER]: passthroughHeader(plan.code),
    });
    line(answer.status, `sent uncompressed: ${plan.text}`);
    return;
  }
  const report: CompressionReport = plan.report;
  if (report.error) {
    ctx.log(`compressor failed, request sent uncompressed: ${report.error.message}`);
  }
  const body = report.error ? parsed : { ...parsed, input: applyPlanToItems(chat, plan) };
  const answer = await ctx.forward(req, res, Buffer.from(JSON.stringify(body)), target, {
    [COMPRESSION_HEADER]: compressionHeader(report),
  });
  line(answer.status, formatReport(report));
  ctx.onExchange?.({
    api: 'responses',
    original: chat.messages,
    sent: report.error ? chat.messages : applyPlan(chat.messages, plan),
    body,
    report,
    status: answer.status,
    answer: answer.text,
    streamed: parsed.stream === true,
  });
}

function passthroughReason(
  body: z.infer<typeof ResponsesBodySchema>,
): { code: string; text: string } | null {
  if (body.previous_response_id) {
    return {
      code: 'previous_response_id',
      text: 'previous_response_id set, the history is stored upstream and acon sees only the new items',
    };
  }
  if (body.input === undefined || typeof body.input === 'string') {
    return { code: 'no_history', text: 'input is a single text, there is no history to compress' };
  }
  const unreadable = unreadableInput(body.input);
  if (unreadable) return { code: 'unknown_item', text: unreadable };
  return null;
}
