/**
 * Reads back the texts of `src/optimize/render-trajectory.ts` (the format is documented there).
 * Only the simulated analyzer parses our own prompt renderings, so the parsers live with it.
 */

export type BlockLabel = 'THOUGHT' | 'ACTION' | 'OBSERVATION' | 'HISTORY SUMMARY' | 'NOTE';

/** One labelled block of a rendered trajectory. */
export type RenderedBlock = {
  step: number;
  label: BlockLabel;
  /** Text after the label on the header line (annotations such as "(compressed …)"). */
  note: string;
  body: string;
  /** For HISTORY SUMMARY: the last step folded into it (steps 0..through are replaced). */
  through?: number;
};

/** One compression event as rendered for the compression-phase analyzer. */
export type RenderedEvent = {
  index: number;
  kind: 'obs' | 'hist';
  step: number;
  /** obs: the step whose observation was compressed; hist: the last folded step. */
  source: number | null;
  kept: string;
  actions: { step: number; text: string }[];
  /** The agent's reasoning in the turns after the event. */
  thoughts: { step: number; text: string }[];
};

const BLOCK_HEADER = /^\[step (\d+)\] (THOUGHT|ACTION|OBSERVATION|HISTORY SUMMARY|NOTE)(?: (.*))?$/;

/** Reads back a `renderTrajectory` text. */
export function parseRenderedTrajectory(text: string): RenderedBlock[] {
  const blocks: RenderedBlock[] = [];
  let current: { block: RenderedBlock; lines: string[] } | undefined;
  const flush = () => {
    if (current) current.block.body = current.lines.join('\n');
    current = undefined;
  };
  for (const line of text.split(/\r?\n/)) {
    const m = BLOCK_HEADER.exec(line);
    if (!m) {
      current?.lines.push(line);
      continue;
    }
    flush();
    const label = m[2] as BlockLabel;
    const rest = m[3] ?? '';
    const inline = label === 'THOUGHT' || label === 'ACTION';
    const block: RenderedBlock = { step: Number(m[1]), label, note: inline ? '' : rest, body: '' };
    const through = /replacing steps 0-(\d+)/.exec(rest);
    if (label === 'HISTORY SUMMARY' && through) block.through = Number(through[1]);
    blocks.push(block);
    current = { block, lines: inline ? [rest] : [] };
  }
  flush();
  return blocks;
}

const EVENT_HEADER = /^\[event (\d+)\] (obs|hist) compression at step (\d+)(.*)$/;
const ACTION_LINE = /^\[step (\d+)\] ACTION (.*)$/;
const THOUGHT_LINE = /^\[step (\d+)\] THOUGHT (.*)$/;

/** Reads back a `renderCompressionEvents` text. */
export function parseCompressionEvents(text: string): RenderedEvent[] {
  const events: RenderedEvent[] = [];
  let current: RenderedEvent | undefined;
  let part: 'header' | 'input' | 'kept' | 'actions' = 'header';
  let last: { step: number; text: string } | undefined;
  let kept: string[] = [];
  const flush = () => {
    if (current) {
      current.kept = kept.join('\n');
      events.push(current);
    }
    current = undefined;
    kept = [];
  };
  for (const line of text.split(/\r?\n/)) {
    const h = EVENT_HEADER.exec(line);
    if (h) {
      flush();
      const rest = h[4] ?? '';
      const source = /of the observation of step (\d+)|replacing steps 0-(\d+)/.exec(rest);
      current = {
        index: Number(h[1]),
        kind: h[2] as 'obs' | 'hist',
        step: Number(h[3]),
        source: source ? Number(source[1] ?? source[2]) : null,
        kept: '',
        actions: [],
        thoughts: [],
      };
      last = undefined;
      part = 'header';
      continue;
    }
    if (!current) continue;
    if (part === 'header' && line === 'INPUT:') {
      part = 'input';
      continue;
    }
    if ((part === 'header' || part === 'input') && line === 'KEPT:') {
      part = 'kept';
      continue;
    }
    if (part === 'input') continue;
    if (part === 'kept' && (line === 'NEXT TURNS:' || line === 'NEXT ACTIONS:')) {
      part = 'actions';
      continue;
    }
    if (part === 'kept') {
      kept.push(line);
      continue;
    }
    if (part === 'actions') {
      const a = ACTION_LINE.exec(line);
      const t = THOUGHT_LINE.exec(line);
      if (a) current.actions.push((last = { step: Number(a[1]), text: a[2] ?? '' }));
      else if (t) current.thoughts.push((last = { step: Number(t[1]), text: t[2] ?? '' }));
      else if (line.trim() !== '' && last) last.text += `\n${line}`;
    }
  }
  flush();
  return events;
}
