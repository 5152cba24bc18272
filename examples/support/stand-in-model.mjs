// A stand-in for the agent's model, so the examples run with no model server. It is NOT an LLM:
// a scripted OpenAI-compatible chat-completions endpoint on 127.0.0.1 (JSON, or server-sent
// events when the request says `stream: true`) that, while the request offers tools, asks for
// `list_records` pages 0, 1, … in turn, then answers with what it was sent, so you can see
// what acon's compression left of the tool results. Its answers say they are a stand-in's.
import { createServer } from 'node:http';

/**
 * Starts the stand-in; `url` is its base URL (`http://127.0.0.1:PORT/v1`).
 * @param {{ pages?: number }} [opts] tool calls before the answer @default { pages: 3 }
 */
export async function startStandInModel({ pages = 3 } = {}) {
  let toolCalls = 0; // the script's position: this stand-in serves one conversation
  let responses = 0;
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => (raw += chunk));
    req.on('end', () => {
      if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({ error: { message: `the stand-in serves only chat completions` } }),
        );
        return;
      }
      const body = JSON.parse(raw);
      const wantsTool = (body.tools?.length ?? 0) > 0 && toolCalls < pages;
      const message = wantsTool
        ? {
            role: 'assistant',
            content: null,
            tool_calls: [
              {
                id: `call_${toolCalls}`,
                type: 'function',
                function: {
                  name: 'list_records',
                  arguments: JSON.stringify({ page: toolCalls++ }),
                },
              },
            ],
          }
        : { role: 'assistant', content: describe(body.messages) };
      const finish = wantsTool ? 'tool_calls' : 'stop';
      const usage = { prompt_tokens: Math.ceil(raw.length / 4), completion_tokens: 10 };
      usage.total_tokens = usage.prompt_tokens + usage.completion_tokens;
      // A fresh id per answer: LangChain's message list merges messages with the same id.
      const base = { id: `chatcmpl-standin-${++responses}`, created: 0, model: body.model };
      if (body.stream) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const send = (chunk) =>
          res.write(
            `data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', ...chunk })}\n\n`,
          );
        const delta = wantsTool
          ? {
              role: 'assistant',
              tool_calls: message.tool_calls.map((c, index) => ({ index, ...c })),
            }
          : { role: 'assistant', content: message.content };
        send({ choices: [{ index: 0, delta, finish_reason: null }] });
        send({ choices: [{ index: 0, delta: {}, finish_reason: finish }] });
        if (body.stream_options?.include_usage) send({ choices: [], usage });
        res.end('data: [DONE]\n\n');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          ...base,
          object: 'chat.completion',
          choices: [{ index: 0, message, finish_reason: finish, logprobs: null }],
          usage,
        }),
      );
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}/v1`,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/** The stand-in's answer: what it received, since it cannot reason about it. */
function describe(messages) {
  const tools = messages.filter((m) => m.role === 'tool');
  const chars = tools.reduce((n, m) => n + text(m.content).length, 0);
  return (
    `[stand-in model, not an LLM] received ${messages.length} messages, ` +
    `${tools.length} tool results of ${chars} characters in all`
  );
}

function text(content) {
  if (typeof content === 'string') return content;
  return Array.isArray(content) ? content.map((p) => p.text ?? '').join('') : '';
}
