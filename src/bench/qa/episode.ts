import { z } from 'zod';
import type { AssistantMessage, ToolCall } from '../../llm/index.js';
import { scoreTask } from './metrics.js';
import { answerToolCalls } from '../tool-call-answers.js';
import type { ActResult } from '../../agent/index.js';
import type { Episode, TaskInfo } from '../types.js';
import type { Evaluation } from '../../domain/index.js';
import type { Library } from './library.js';
import {
  NO_TOOL_CALL_MESSAGE,
  SEARCH_K,
  SYSTEM_PROMPT,
  TOOLS,
  firstUserMessage,
} from './prompts.js';
import type { QaTask } from './task.js';

const SearchArgsSchema = z.strictObject({ query: z.string().min(1) });
const OpenArgsSchema = z.strictObject({ article_id: z.string().min(1) });
/** Numbers are accepted as answers too ("1873" and 1873 mean the same). */
const SubmitArgsSchema = z.strictObject({
  answers: z.array(z.union([z.string(), z.number()]).transform(String)),
});

/** Observations are pretty-printed JSON, like apptown's responses. */
const render = (value: unknown) => JSON.stringify(value, null, 2);

/** One attempt at one QA task; the library is read-only, so episodes share it. */
export class QaEpisode implements Episode {
  readonly systemPrompt = SYSTEM_PROMPT;
  readonly tools = TOOLS;
  readonly firstUserMessage: string;
  private submitted: string[] | null = null;

  constructor(
    readonly task: TaskInfo,
    private readonly qa: QaTask,
    private readonly library: Library,
  ) {
    this.firstUserMessage = firstUserMessage(task.instruction);
  }

  async act(message: AssistantMessage): Promise<ActResult> {
    const messages = answerToolCalls(message, (call) => this.run(call), NO_TOOL_CALL_MESSAGE);
    return { messages, done: this.done };
  }

  private get done(): boolean {
    return this.submitted !== null;
  }

  async evaluate(): Promise<Evaluation> {
    const golds = this.qa.objectives.map((o) => o.answers);
    const score = scoreTask(this.submitted ?? [], golds);
    return {
      success: score.exactMatch === 1,
      score: score.f1,
      details: this.qa.objectives.map((o, i) => {
        const got = this.submitted?.[i] ?? '';
        const s = score.objectives[i]!;
        return {
          name: `q${i + 1}`,
          passed: s.exactMatch === 1,
          detail: `expected "${o.answers[0]}", got "${got}" (F1 ${s.f1.toFixed(2)})`,
        };
      }),
      qa: { exactMatch: score.exactMatch, f1: score.f1 },
    };
  }

  async close(): Promise<void> {}

  /** Never throws: whatever the model sent becomes an observation it can react to. */
  private run(call: ToolCall): string {
    if (this.done) return render({ error: 'The answers are already submitted; the task is over.' });
    let raw: unknown;
    try {
      raw = JSON.parse(call.function.arguments.trim() === '' ? '{}' : call.function.arguments);
    } catch (err) {
      return render({
        error: `the tool call arguments are not valid JSON (${(err as Error).message}); send one JSON object, e.g. {"query": "Kuhn Press"}`,
      });
    }
    switch (call.function.name) {
      case 'search': {
        const args = SearchArgsSchema.safeParse(raw);
        if (!args.success) return badArgs('search', args.error, '{"query": "..."}');
        return render(this.search(args.data.query));
      }
      case 'open': {
        const args = OpenArgsSchema.safeParse(raw);
        if (!args.success) return badArgs('open', args.error, '{"article_id": "..."}');
        const article = this.library.article(args.data.article_id.trim());
        return render(
          article ?? {
            error: `no article with id "${args.data.article_id}"; use an article_id from search results or a *_id field`,
          },
        );
      }
      case 'submit_answers': {
        const args = SubmitArgsSchema.safeParse(raw);
        if (!args.success)
          return badArgs('submit_answers', args.error, '{"answers": ["...", "..."]}');
        const n = this.qa.objectives.length;
        if (args.data.answers.length !== n) {
          return render({
            error: `expected ${n} answer(s), one per question in order, got ${args.data.answers.length}; use "" for a question you could not answer`,
          });
        }
        this.submitted = args.data.answers.map((a) => a.trim());
        return render({ status: 'submitted', answers_received: n });
      }
      default:
        return render({
          error: `unknown tool "${call.function.name}"; the tools are search, open and submit_answers`,
        });
    }
  }

  private search(query: string): Record<string, unknown> {
    const index = this.library.index();
    const { hits, total } = index.search(query, SEARCH_K);
    return {
      query,
      total_hits: total,
      results: hits.map((h, i) => ({
        rank: i + 1,
        article_id: h.id,
        ...this.library.preview(h.id),
        score: Math.round(h.score * 100) / 100,
      })),
    };
  }
}

function badArgs(tool: string, err: z.ZodError, example: string): string {
  const what = err.issues
    .map((i) => `${i.path.join('.') || '(arguments)'}: ${i.message}`)
    .join('; ');
  return render({ error: `bad arguments for ${tool}: ${what}; send e.g. ${example}` });
}
