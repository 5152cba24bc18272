import type { ToolDef } from '../../llm/index.js';

/** The agent's standing instructions for `--bench qa` (our own words; issue 14). */
export const SYSTEM_PROMPT = `You answer questions by researching an encyclopedia with tools. The encyclopedia is the only source: its people, places and organisations are fictional, so never answer from memory.

Tools:
- search(query): the best-matching articles, each with its article_id, title and a snippet.
- open(article_id): the whole article: summary, infobox of facts and cross-references (a field such as "founder" comes with "founder_id", the id of that article), sections, references.
- submit_answers(answers): hand in one answer per question, in the order of the questions. Call it once, at the end.

How to work:
- Questions often need two or three look-ups: find the first article by searching its title, then follow the *_id cross-references with open.
- Answer with the shortest exact value as the encyclopedia gives it (a name, a date such as "14 March 1873", a year or a number), with no sentence around it. Leave an answer as "" only if you could not find it.`;

export function firstUserMessage(instruction: string): string {
  return `${instruction}\n\nResearch every question, then call submit_answers once with all answers in order.`;
}

export const NO_TOOL_CALL_MESSAGE =
  'No tool call found. Use search(query), open(article_id), or finish with submit_answers(answers).';

/**
 * Results per search (top-k). Search results stay under T_obs (1,024 tokens) and opened
 * articles are well over it, so observation compression is about articles.
 */
export const SEARCH_K = 4;

export const TOOLS: ToolDef[] = [
  {
    type: 'function',
    function: {
      name: 'search',
      description: `Full-text search over the encyclopedia; returns the top ${SEARCH_K} articles with ids and snippets.`,
      parameters: {
        type: 'object',
        properties: {
          query: { type: 'string', description: 'Words to search for, e.g. a title.' },
        },
        required: ['query'],
        additionalProperties: false,
      },
    },
  },
  {
    type: 'function',
    function: {
      name: 'open',
      description: 'Open one article by its article_id.',
      parameters: {
        type: 'object',
        properties: {
          article_id: { type: 'string', description: 'An id from search results or a *_id field.' },
        },
        required: ['article_id'],
        additionalProperties: false,
      },
    },
  },
  {
    type: 'function',
    function: {
      name: 'submit_answers',
      description: 'Hand in the answers, one per question in order; ends the task.',
      parameters: {
        type: 'object',
        properties: {
          answers: {
            type: 'array',
            items: { type: 'string' },
            description: 'Short answers in question order; "" for a question you could not answer.',
          },
        },
        required: ['answers'],
        additionalProperties: false,
      },
    },
  },
];
