import { fileURLToPath } from 'node:url';
import { BenchmarkError, type TaskFileError } from '../../errors.js';
import { isF1Drop } from './metrics.js';
import type { Benchmark, PairRule, ReferencePlan, TaskInfo } from '../types.js';
import { generateCorpus, type Corpus } from './corpus.js';
import { QaEpisode } from './episode.js';
import { corpusLibrary, type Library } from './library.js';
import { qaReferencePlan } from './plan.js';
import { resolveTemplate, templateById } from './questions.js';
import { qaTaskInfo, type QaTask } from './task.js';
import { findTask } from '../task-files.js';
import { loadQaTaskDir, type LoadedQaTask } from './task-loader.js';
import type { QaSource } from './source.js';

/** Same depth from src/bench/qa and dist/bench/qa, so both find the shipped tasks. */
export const DEFAULT_QA_TASKS_DIR = fileURLToPath(new URL('../../../tasks/qa/', import.meta.url));

/**
 * QA's contrastive pairs (seed 003): the compressed run's F1 (the rollout score) is more than
 * 0.05 below the full run's, whether or not either run "succeeded" (answered everything
 * exactly); otherwise the default elongation rule.
 */
export const qaPairRule: PairRule = (full, compressed, { defaultPair }) => {
  if (isF1Drop(full.score, compressed.score)) return 'failure';
  return defaultPair(full, compressed) === 'elongation' ? 'elongation' : null;
};

/** Multi-objective QA over a searchable corpus (ARCHITECTURE §5, issue 14). */
export class QaBenchmark implements Benchmark {
  readonly name = 'qa';
  readonly pairRule = qaPairRule;
  private loading: ReturnType<QaSource['load']> | null = null;
  private readonly verified = new Set<string>();

  constructor(private readonly source: QaSource) {}

  private load() {
    this.loading ??= this.source.load();
    return this.loading;
  }

  async listTasks(split?: string): Promise<TaskInfo[]> {
    const { tasks } = await this.load();
    return tasks.filter((t) => !split || t.split === split).map(qaTaskInfo);
  }

  async getTask(id: string): Promise<TaskInfo> {
    return qaTaskInfo(await this.task(id));
  }

  async loadProblems(): Promise<TaskFileError[]> {
    return (await this.load()).problems;
  }

  /** The task with its questions and gold answers. */
  async task(id: string): Promise<QaTask> {
    const task = findTask(await this.load(), id, 'qa');
    if (!this.verified.has(id)) {
      this.source.verify?.(task);
      this.verified.add(id);
    }
    return task;
  }

  async start(taskId: string): Promise<QaEpisode> {
    const task = await this.task(taskId);
    return new QaEpisode(qaTaskInfo(task), task, this.source.library(task));
  }

  async referencePlan(taskId: string): Promise<ReferencePlan> {
    return qaReferencePlan(await this.task(taskId));
  }
}

/** A tasks/qa file as the benchmark runs it: search the start title, then follow the path. */
export function fromTaskFile(file: LoadedQaTask): QaTask & { corpusSeed: number; file: string } {
  return {
    id: file.id,
    split: file.split,
    corpusSeed: file.corpus_seed,
    file: file.file,
    objectives: file.objectives.map((o) => ({
      question: o.question,
      answers: [o.answer, ...o.aliases],
      lookups: o.path.map((id, i) => (i === 0 ? { query: o.query, id } : { id })),
      answerAt: o.path.length - 1,
      template: o.template,
    })),
  };
}

type FileTask = ReturnType<typeof fromTaskFile>;

/** The shipped benchmark: task files over the generated encyclopedia. */
export function generatedSource(tasksDir: string = DEFAULT_QA_TASKS_DIR): QaSource {
  // Each corpus seed's corpus and library, generated once for this source's tasks.
  const corpora = new Map<number, { corpus: Corpus; library: Library }>();
  const corpusOf = (seed: number) => {
    let hit = corpora.get(seed);
    if (!hit) {
      const corpus = generateCorpus(seed);
      corpora.set(seed, (hit = { corpus, library: corpusLibrary(corpus) }));
    }
    return hit;
  };
  return {
    async load() {
      const { tasks, problems } = await loadQaTaskDir(tasksDir);
      return { tasks: tasks.map(fromTaskFile), problems };
    },
    library: (task) => corpusOf((task as FileTask).corpusSeed).library,
    verify: (task) =>
      verifyAgainstCorpus(task as FileTask, corpusOf((task as FileTask).corpusSeed).corpus),
  };
}

/** Each question must still follow its template through the corpus to the recorded answer. */
function verifyAgainstCorpus(task: FileTask, corpus: Corpus): void {
  task.objectives.forEach((o, i) => {
    const fail = (detail: string): never => {
      throw new BenchmarkError(
        `${task.file}: objectives.${i}: ${detail}; the generated encyclopedia changed (a different @faker-js/faker version?), so regenerate the tasks with scripts/bench/gen-qa-tasks.ts`,
      );
    };
    const tpl = templateById(o.template) ?? fail(`unknown template ${o.template}`);
    const start = corpus.byId.get(o.lookups[0]!.id) ?? fail(`no article ${o.lookups[0]!.id}`);
    const r = resolveTemplate(tpl, start, corpus);
    if (r.question !== o.question) fail(`the question reads "${r.question}" now`);
    if (r.path.join() !== o.lookups.map((l) => l.id).join())
      fail(`the path is ${r.path.join(', ')} now`);
    if (r.answer !== o.answers[0]) fail(`the answer is "${r.answer}" now`);
  });
}

export type QaOptions = {
  /** Folder of task files. @default the tasks/qa folder shipped with acon */
  tasksDir?: string;
  /** A HotpotQA-format file to use instead of the generated encyclopedia (`--qa-data`). */
  data?: string;
  /** Questions bundled into one task from `data`. @default 8 (seed 003's setting) */
  perTask?: number;
};

export async function createQa(opts: QaOptions = {}): Promise<QaBenchmark> {
  if (opts.data !== undefined) {
    const { hotpotSource } = await import('./hotpot.js');
    return new QaBenchmark(hotpotSource(opts.data, opts.perTask ?? 8));
  }
  return new QaBenchmark(generatedSource(opts.tasksDir));
}
