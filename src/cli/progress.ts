import cliProgress from 'cli-progress';
import { systemClock, type Clock } from '../clock.js';
import { ConfigError } from '../errors.js';

/** The numbers one progress display shows, across every stage of a command. */
export type ProgressState = {
  label: string;
  done: number;
  total: number;
  elapsedMs: number;
  /** null until a rollout finished in this process (resumed work does not count toward the rate). */
  etaMs: number | null;
  spentUsd: number;
  /** Successes / rollouts finished so far; null before the first one. */
  accuracy: number | null;
  stage: string;
};

const clockText = (ms: number) => {
  const s = Math.max(0, Math.round(ms / 1000));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  return h > 0 ? `${h}h${String(m).padStart(2, '0')}m` : `${m}:${String(sec).padStart(2, '0')}`;
};

/** `compare 40/102 (39%) · 0:12 elapsed · ETA 0:19 · $0.0123 · acc 82.5% · naive` */
export function progressText(p: ProgressState): string {
  const pct = p.total > 0 ? Math.floor((100 * p.done) / p.total) : 0;
  return [
    `${p.label} ${p.done}/${p.total} (${pct}%)`,
    `${clockText(p.elapsedMs)} elapsed`,
    `ETA ${p.etaMs === null ? '—' : clockText(p.etaMs)}`,
    `$${p.spentUsd.toFixed(4)}`,
    `acc ${p.accuracy === null ? '—' : `${(100 * p.accuracy).toFixed(1)}%`}`,
    ...(p.stage ? [p.stage] : []),
  ].join(' · ');
}

/** A stage's label without its guideline kind and round: `ut:obs:r1 train` → `ut train`. */
export function stageKind(stage: string): string {
  return stage.replace(/:(obs|hist)\b/g, '').replace(/:r\d+\b/g, '');
}

/** What the ETA knows of one stage: its units, and the wall time and units of this process. */
export type StageTiming = { done: number; total: number; fresh: number; ms: number };

/**
 * Remaining time from measured per-stage rates (issue #24: one rate for the whole run was off
 * by 2× when stages cost unevenly). A stage's remaining units take the rate measured on stages
 * of its kind (the same step of another guideline kind or round); a kind not measured yet, and
 * planned units no stage has claimed, take the mean rate of the measured kinds. Wall time between two
 * updates counts toward the stage of the later one, so analyses and updater calls that precede
 * a stage's rollouts are part of its rate. Null before anything was measured.
 */
export function estimateRemainingMs(
  stages: ReadonlyMap<string, StageTiming>,
  planned: number,
  /** Time spent on the stage updated last since its last finished unit: work in flight. */
  inFlight?: { stage: string; ms: number },
): number | null {
  const kinds = new Map<string, { ms: number; fresh: number }>();
  let fresh = 0;
  let claimed = 0;
  for (const [label, s] of stages) {
    const k = kinds.get(stageKind(label)) ?? { ms: 0, fresh: 0 };
    k.ms += s.ms;
    k.fresh += s.fresh;
    kinds.set(stageKind(label), k);
    fresh += s.fresh;
    claimed += s.total;
  }
  if (fresh === 0) return null;
  // A kind not seen yet costs what a typical kind costs: the mean of the measured kinds' rates
  // (weighting by units would let the largest stage set the price of every new one).
  const measured = [...kinds.values()].filter((k) => k.fresh > 0).map((k) => k.ms / k.fresh);
  const overall = measured.reduce((a, b) => a + b, 0) / measured.length;
  const rate = (label: string) => {
    const k = kinds.get(stageKind(label))!;
    return k.fresh > 0 ? k.ms / k.fresh : overall;
  };
  let left = Math.max(0, planned - claimed) * overall;
  for (const [label, s] of stages) left += Math.max(0, s.total - s.done) * rate(label);
  // The unit in flight is partly done already (at most one unit's worth).
  if (inFlight && stages.has(inFlight.stage)) {
    left -= Math.min(inFlight.ms, rate(inFlight.stage));
  }
  return Math.max(0, left);
}

export type Progress = {
  /**
   * Progress of `stage`: `done` of `total` rollouts. Stages add up to one bar; `outcome` is the
   * rollout just finished (its success counts toward the accuracy so far).
   */
  update(
    stage: string,
    done: number,
    total: number,
    outcome?: { success: boolean } | null,
    info?: string,
  ): void;
  /** A line above the bar (on a terminal the bar is redrawn under it). */
  log(line: string): void;
  /** The whole command's rollouts when known in advance (optimize's plan); stages then fill it. */
  setPlannedTotal(total: number): void;
  /** The stages ahead and their units, when known: their rates then come from stages of their kind. */
  setPlan(stages: { stage: string; total: number }[]): void;
  stop(): void;
};

export type ProgressOptions = {
  label: string;
  /** Where the display goes. @default process.stderr */
  stream?: NodeJS.WritableStream & { isTTY?: boolean };
  /** Nothing at all (`--json` on a terminal, tests). */
  silent?: boolean;
  /** USD spent so far (the LLM client's running total). */
  spentUsd?: () => number;
  clock?: Pick<Clock, 'now' | 'every'>;
  /**
   * Seconds between lines when the stream is not a terminal; 0 prints none.
   * @default ACON_PROGRESS_INTERVAL from the environment, else 10
   */
  intervalSec?: number;
};

const DEFAULT_INTERVAL_SEC = 10;

/**
 * `ACON_PROGRESS_INTERVAL=SECONDS`: how often a non-terminal stderr gets a progress line; 0 turns
 * the periodic line off. A command's output must not depend on how long it ran: tests (and scripts
 * that compare stderr) set 0, so a slow machine cannot make an expected-empty stderr non-empty.
 */
export function progressIntervalSec(env: NodeJS.ProcessEnv = process.env): number {
  const text = env.ACON_PROGRESS_INTERVAL?.trim();
  if (!text) return DEFAULT_INTERVAL_SEC;
  const sec = Number(text);
  if (!Number.isFinite(sec) || sec < 0) {
    throw new ConfigError(
      'environment',
      'ACON_PROGRESS_INTERVAL',
      `expected a number of seconds from 0 (0 prints no periodic line), got "${text}"`,
    );
  }
  return sec;
}

/**
 * One progress display per command, across its stages: a bar on a terminal, else one line every
 * 10 s (CI logs, pipes), each with elapsed time, ETA, USD spent and accuracy so far.
 */
export function createProgress(opts: ProgressOptions): Progress {
  if (opts.silent) {
    return {
      update: () => {},
      log: () => {},
      setPlannedTotal: () => {},
      setPlan: () => {},
      stop: () => {},
    };
  }
  return new StageProgress(opts);
}

/** The counts behind the display: per-stage timings, successes so far, the current stage. */
class StageProgress implements Progress {
  private readonly stream: NodeJS.WritableStream & { isTTY?: boolean };
  private readonly clock: Pick<Clock, 'now' | 'every'>;
  private readonly started: number;
  private readonly stages = new Map<string, StageTiming>();
  private planned = 0;
  private last: number;
  /** The time since the last update is work in flight of the stage updated last. */
  private lastStage: string | null = null;
  private successes = 0;
  private finished = 0;
  private current = '';
  private readonly bar: BarLine | null;
  private readonly cancel: () => void;

  constructor(private readonly opts: ProgressOptions) {
    this.stream = opts.stream ?? process.stderr;
    this.clock = opts.clock ?? systemClock;
    this.started = this.clock.now();
    this.last = this.started;
    const tty = this.stream.isTTY === true;
    this.bar = tty ? new BarLine(this.stream) : null;
    // Not a terminal: a line every interval (the first after one interval, so quick commands print none).
    const intervalSec = opts.intervalSec ?? progressIntervalSec();
    this.cancel =
      tty || intervalSec === 0
        ? () => {}
        : this.clock.every(intervalSec * 1000, () => {
            if (this.stages.size > 0) this.stream.write(`${progressText(this.state())}\n`);
          });
  }

  update(
    stage: string,
    done: number,
    total: number,
    outcome?: { success: boolean } | null,
    info?: string,
  ): void {
    const now = this.clock.now();
    const s = this.stages.get(stage) ?? { done: 0, total, fresh: 0, ms: 0 };
    // Work already stored (a resumed run) does not count toward the rate: only units that
    // finished in this process (`outcome`) are fresh.
    if (outcome) s.fresh += 1;
    s.ms += now - this.last;
    this.last = now;
    this.lastStage = stage;
    s.done = done;
    s.total = total;
    this.stages.set(stage, s);
    if (outcome) {
      this.finished += 1;
      if (outcome.success) this.successes += 1;
    }
    this.current = info ? `${stage} ${info}`.trim() : stage;
    this.bar?.draw(this.state());
  }

  log(line: string): void {
    if (this.bar?.started) {
      this.stream.write(`\r\x1b[2K${line}\n`);
      this.bar.draw(this.state());
    } else this.stream.write(`${line}\n`);
  }

  setPlannedTotal(total: number): void {
    this.planned = total;
  }

  setPlan(plan: { stage: string; total: number }[]): void {
    for (const p of plan) {
      if (!this.stages.has(p.stage)) {
        this.stages.set(p.stage, { done: 0, total: p.total, fresh: 0, ms: 0 });
      }
    }
  }

  stop(): void {
    this.cancel();
    this.bar?.stop();
  }

  private state(): ProgressState {
    let done = 0;
    let total = 0;
    for (const s of this.stages.values()) {
      done += s.done;
      total += s.total;
    }
    total = Math.max(total, this.planned, done);
    const now = this.clock.now();
    return {
      label: this.opts.label,
      done,
      total,
      elapsedMs: now - this.started,
      etaMs: estimateRemainingMs(
        this.stages,
        this.planned,
        this.lastStage === null ? undefined : { stage: this.lastStage, ms: now - this.last },
      ),
      spentUsd: (this.opts.spentUsd ?? (() => 0))(),
      accuracy: this.finished > 0 ? this.successes / this.finished : null,
      stage: this.current,
    };
  }
}

/** The bar on a terminal, redrawn in place. */
class BarLine {
  private readonly bar: cliProgress.SingleBar;
  started = false;

  constructor(private readonly stream: NodeJS.WritableStream) {
    this.bar = new cliProgress.SingleBar(
      {
        format: '[{bar}] {text}',
        barsize: 20,
        stream,
        hideCursor: true,
        clearOnComplete: true,
      },
      cliProgress.Presets.shades_classic,
    );
  }

  draw(s: ProgressState): void {
    const text = this.fit(progressText(s));
    if (!this.started) {
      this.bar.start(s.total, s.done, { text });
      this.started = true;
    } else {
      this.bar.setTotal(s.total);
      this.bar.update(s.done, { text });
    }
  }

  stop(): void {
    if (this.started) this.bar.stop();
  }

  /** A bar line that wraps cannot be redrawn in place: keep it within the terminal. */
  private fit(text: string): string {
    const room = ((this.stream as { columns?: number }).columns ?? 100) - 24;
    return text.length <= room ? text : `${text.slice(0, Math.max(0, room - 1))}…`;
  }
}
