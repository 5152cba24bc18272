/** `--bench qa`: multi-objective question answering over a searchable corpus (issue 14). */
export {
  QaBenchmark,
  DEFAULT_QA_TASKS_DIR,
  createQa,
  fromTaskFile,
  generatedSource,
  qaPairRule,
  type QaOptions,
} from './benchmark.js';
export type { QaSource } from './source.js';
export { QaEpisode } from './episode.js';
export {
  generateCorpus,
  DEFAULT_CORPUS_SEED,
  KIND_COUNTS,
  type Corpus,
  type Entity,
} from './corpus.js';
export { renderArticle, leadOf } from './article.js';
export { corpusLibrary, type Library } from './library.js';
export { buildHotpot, hotpotSource, parseHotpot, type HotpotQuestion } from './hotpot.js';
export { qaReferencePlan, ANSWER_TOOL } from './plan.js';
export { TEMPLATES, resolveTemplate, templateById, type Template } from './questions.js';
export { loadQaTaskDir, parseQaTaskFile } from './task-loader.js';
export { QaTaskFileSchema, type QaTaskFile } from './task-schema.js';
export { qaTaskInfo, type QaTask, type QaObjective } from './task.js';
