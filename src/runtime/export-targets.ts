/**
 * Where a learned guideline can go (`acon guidelines export --to`). Plain data, without zod, so
 * the CLI lists them in `--help` without loading a schema library at start-up (issue #28).
 */
export const EXPORT_TARGET_NAMES = [
  'langchain',
  'letta',
  'anthropic',
  'openhands',
  'text',
] as const;

/** One line per target: what the output is and where it goes (for `--help` and docs/runtime.md). */
export const EXPORT_TARGETS: Record<(typeof EXPORT_TARGET_NAMES)[number], string> = {
  langchain:
    'a summary prompt for LangChain.js/Python SummarizationMiddleware (its summaryPrompt option; {messages} is where the middleware puts the history)',
  letta:
    "JSON for a Letta agent's compaction_settings: the summarizer prompt (set model to your summarizer)",
  anthropic:
    "JSON for the Anthropic SDK tool runner's client-side compaction (compactionControl.summaryPrompt)",
  openhands:
    'the summarizing prompt of an OpenHands LLM summarizing condenser (the condenser appends the events to summarize)',
  text: 'both guidelines as plain text with a heading each, for any framework or prompt',
};
