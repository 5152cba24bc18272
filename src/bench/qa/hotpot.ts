import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { BenchmarkError, InputFileError, TaskFileError } from '../../errors.js';
import type { QaSource } from './source.js';
import { lazyIndex, type Library } from './library.js';
import type { QaObjective, QaTask } from './task.js';

/**
 * `--qa-data FILE`: questions in HotpotQA's format (a JSON array, or JSON lines, of
 * `{_id, question, answer, supporting_facts: [[title, sentence]], context: [[title, [sentences]]],
 * type?, level?}`), bundled in file order into tasks of `perTask` questions. The context
 * paragraphs of all questions become the searchable articles (one per title). Tasks are dealt
 * to splits in turn (train, dev, test, train, …), so every split gets some and half go to train.
 */
export const HotpotQuestionSchema = z.object({
  _id: z.string().min(1),
  question: z.string().min(1),
  answer: z.string(),
  supporting_facts: z.array(z.tuple([z.string(), z.number().int()])).min(1),
  context: z.array(z.tuple([z.string(), z.array(z.string())])).min(1),
  type: z.string().optional(),
});
export type HotpotQuestion = z.infer<typeof HotpotQuestionSchema>;

const SPLIT_CYCLE = ['train', 'dev', 'test', 'train'] as const;
const HINT =
  'each question needs _id, question, answer, supporting_facts [[title, sentence_index]] and context [[title, [sentences]]] (HotpotQA format)';

/** Parses the file's text; throws TaskFileError naming the question and field. */
export function parseHotpot(file: string, text: string): HotpotQuestion[] {
  let raw: unknown;
  const trimmed = text.trim();
  try {
    raw = trimmed.startsWith('[')
      ? JSON.parse(trimmed)
      : trimmed
          .split(/\r?\n/)
          .filter((l) => l.trim() !== '')
          .map((l) => JSON.parse(l) as unknown);
  } catch (err) {
    throw new TaskFileError(
      file,
      '(json)',
      `${(err as Error).message}; fix: give a JSON array or JSON lines`,
    );
  }
  if (!Array.isArray(raw) || raw.length === 0) {
    throw new TaskFileError(file, '(top level)', `no questions found; fix: ${HINT}`);
  }
  return raw.map((q, i) => {
    const parsed = HotpotQuestionSchema.safeParse(q);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new TaskFileError(
        file,
        `[${i}].${issue.path.map(String).join('.')}`,
        `${issue.message}; fix: ${HINT}`,
      );
    }
    return parsed.data;
  });
}

type Paragraph = { id: string; title: string; sentences: string[] };

/** The source of a HotpotQA-format file: its questions as tasks, its paragraphs as articles. */
export function hotpotSource(file: string, perTask: number): QaSource {
  let loaded: { tasks: QaTask[]; library: Library } | undefined;
  const load = async () => {
    if (loaded) return loaded;
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (err) {
      // The file came from `qa.data` (config, or the loader's option); the CLI says --qa-data.
      throw new InputFileError(
        file,
        '`qa.data`',
        `cannot read it (${(err as Error).message}); fix: give the path of a HotpotQA-format JSON file`,
        { cause: err, options: ['qa.data'] },
      );
    }
    loaded = buildHotpot(file, parseHotpot(file, text), perTask);
    return loaded;
  };
  return {
    async load() {
      return { tasks: (await load()).tasks, problems: [] };
    },
    library: () => {
      if (!loaded)
        throw new BenchmarkError('qa: the `qa.data` file is not loaded yet', {
          options: ['qa.data'],
        });
      return loaded.library;
    },
  };
}

/** Tasks and library of parsed questions (pure; exported for tests). */
export function buildHotpot(
  file: string,
  questions: HotpotQuestion[],
  perTask: number,
): { tasks: QaTask[]; library: Library } {
  const byTitle = new Map<string, Paragraph>();
  for (const q of questions) {
    for (const [title, sentences] of q.context) {
      if (!byTitle.has(title)) {
        byTitle.set(title, {
          id: `hp-${String(byTitle.size + 1).padStart(5, '0')}`,
          title,
          sentences,
        });
      }
    }
  }
  const byId = new Map([...byTitle.values()].map((p) => [p.id, p]));
  const objectives: QaObjective[] = questions.map((q, i) => {
    const titles = [...new Set(q.supporting_facts.map(([t]) => t))];
    const lookups = titles.map((title) => {
      const p = byTitle.get(title);
      if (!p) {
        throw new TaskFileError(
          file,
          `[${i}].supporting_facts`,
          `"${title}" is not a context title of question ${q._id}; fix: add its paragraph to context`,
        );
      }
      return { query: title, id: p.id };
    });
    const at = lookups.findIndex((l) => byId.get(l.id)!.sentences.join(' ').includes(q.answer));
    return {
      question: q.question,
      answers: [q.answer],
      lookups,
      answerAt: at === -1 ? null : at,
      template: q.type ?? 'hotpot',
    };
  });
  const tasks: QaTask[] = [];
  for (let i = 0; i * perTask < objectives.length; i++) {
    tasks.push({
      id: `hotpot-${String(i + 1).padStart(4, '0')}`,
      split: SPLIT_CYCLE[i % SPLIT_CYCLE.length]!,
      objectives: objectives.slice(i * perTask, (i + 1) * perTask),
    });
  }
  const docs = () =>
    [...byTitle.values()].map((p) => ({ id: p.id, title: p.title, text: p.sentences.join(' ') }));
  const library: Library = {
    docs,
    index: lazyIndex(docs),
    article: (id) => {
      const p = byId.get(id);
      return p && { article_id: p.id, title: p.title, type: 'paragraph', sentences: p.sentences };
    },
    preview: (id) => {
      const p = byId.get(id)!;
      return { title: p.title, type: 'paragraph', snippet: p.sentences.slice(0, 2).join(' ') };
    },
  };
  return { tasks, library };
}
