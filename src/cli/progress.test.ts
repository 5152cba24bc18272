import type { Clock } from '../clock.js';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../errors.js';
import { createProgress, progressIntervalSec, progressText } from './progress.js';

/** A clock tests advance by hand; `every` fires when time passes its interval. */
function fakeClock() {
  let t = 1_000_000;
  const timers: { ms: number; next: number; fn: () => void }[] = [];
  const clock: Pick<Clock, 'now' | 'every'> & { advance(ms: number): void } = {
    now: () => t,
    every(ms, fn) {
      const timer = { ms, next: t + ms, fn };
      timers.push(timer);
      return () => timers.splice(timers.indexOf(timer), 1);
    },
    advance(ms) {
      const end = t + ms;
      for (;;) {
        const due = timers.filter((x) => x.next <= end).sort((a, b) => a.next - b.next)[0];
        if (!due) break;
        t = due.next;
        due.next += due.ms;
        due.fn();
      }
      t = end;
    },
  };
  return clock;
}

function pipe() {
  const lines: string[] = [];
  const stream = {
    isTTY: false,
    write(chunk: string) {
      lines.push(...chunk.split('\n').filter(Boolean));
      return true;
    },
  } as unknown as NodeJS.WritableStream & { isTTY?: boolean };
  return { stream, lines };
}

describe('progressText', () => {
  it('shows done/total, elapsed, ETA, spent USD, accuracy so far and the stage', () => {
    expect(
      progressText({
        label: 'compare',
        done: 40,
        total: 102,
        elapsedMs: 12_400,
        etaMs: 19_000,
        spentUsd: 0.0123,
        accuracy: 0.825,
        stage: 'rollouts naive town-1',
      }),
    ).toBe(
      'compare 40/102 (39%) · 0:12 elapsed · ETA 0:19 · $0.0123 · acc 82.5% · rollouts naive town-1',
    );
  });
});

describe('createProgress when stderr is not a terminal', () => {
  it('prints one line every 10 s across stages, none before the first interval', () => {
    const clock = fakeClock();
    const { stream, lines } = pipe();
    let usd = 0;
    const p = createProgress({ label: 'optimize', stream, clock, spentUsd: () => usd });
    p.setPlannedTotal(40);
    p.update('ut train', 0, 10);
    clock.advance(5_000);
    p.update('ut train', 1, 10, { success: true });
    expect(lines).toEqual([]);
    clock.advance(5_000);
    usd = 0.5;
    p.update('ut train', 10, 10, { success: false });
    p.update('ut select', 2, 20, { success: true });
    clock.advance(10_000);
    p.stop();
    clock.advance(60_000);
    expect(lines).toEqual([
      'optimize 1/40 (2%) · 0:10 elapsed · ETA 3:10 · $0.0000 · acc 100.0% · ut train',
      'optimize 12/40 (30%) · 0:20 elapsed · ETA 0:25 · $0.5000 · acc 66.7% · ut select',
    ]);
  });

  it('estimates the rest from per-stage rates: within ±30% once 25% is done, with uneven stages', () => {
    // A synthetic optimize: per guideline kind a slow train stage (20 s a rollout) and a fast
    // select stage (5 s), then a final stage (10 s). One rate for the whole run is 52% off
    // at 25% done; per-stage rates are within 30% from 25% done to the end.
    const plan = [
      { stage: 'ut:obs:r1 train', total: 40, sec: 20 },
      { stage: 'ut:obs:r1 select', total: 40, sec: 5 },
      { stage: 'ut:hist:r1 train', total: 40, sec: 20 },
      { stage: 'ut:hist:r1 select', total: 40, sec: 5 },
      { stage: 'final dev', total: 60, sec: 10 },
    ];
    const units = plan.reduce((a, p) => a + p.total, 0);
    const totalMs = plan.reduce((a, p) => a + p.total * p.sec * 1000, 0);
    const clock = fakeClock();
    const { stream, lines } = pipe();
    const p = createProgress({ label: 'optimize', stream, clock, intervalSec: 5 });
    p.setPlannedTotal(units);
    p.setPlan(plan.map(({ stage, total }) => ({ stage, total })));
    // Ticks every 5 s fall between rollouts, never on one's end.
    const offset = 2_500;
    clock.advance(offset);
    let doneUnits = 0;
    const errors: number[] = [];
    for (const s of plan) {
      for (let i = 1; i <= s.total; i++) {
        clock.advance(s.sec * 1000);
        p.update(s.stage, i, s.total, { success: true });
        doneUnits += 1;
        // The last line was printed at a tick: compare with what was left at that moment.
        const line = lines.at(-1) ?? '';
        const at = /(\d+):(\d+) elapsed · ETA (\d+):(\d+)/.exec(line);
        if (doneUnits >= units / 4 && doneUnits < units && at) {
          const left = totalMs + offset - (Number(at[1]) * 60 + Number(at[2])) * 1000;
          const etaMs = (Number(at[3]) * 60 + Number(at[4])) * 1000;
          errors.push(Math.abs(etaMs - left) / left);
        }
      }
    }
    p.stop();
    expect(errors.length).toBeGreaterThan(100);
    expect(Math.max(...errors)).toBeLessThanOrEqual(0.3);
  });

  it('does not count work stored before a resume toward the rate', () => {
    const clock = fakeClock();
    const { stream, lines } = pipe();
    const p = createProgress({ label: 'compare', stream, clock });
    p.update('rollouts', 50, 100);
    clock.advance(5_000);
    p.update('rollouts', 51, 100, { success: true });
    clock.advance(5_000);
    p.stop();
    // 1 rollout in 5 s, 49 to go, 5 s of the next in flight: 240 s, not the 9.8 s that counting
    // the 50 resumed ones gives.
    expect(lines).toEqual([
      'compare 51/100 (51%) · 0:10 elapsed · ETA 4:00 · $0.0000 · acc 100.0% · rollouts',
    ]);
  });

  it('prints no periodic line with interval 0, but still the lines it is given', () => {
    const clock = fakeClock();
    const { stream, lines } = pipe();
    const p = createProgress({ label: 'x', stream, clock, intervalSec: 0 });
    p.update('s', 1, 2, { success: true });
    clock.advance(600_000);
    p.log('stage done');
    p.stop();
    expect(lines).toEqual(['stage done']);
  });

  it('takes its interval from ACON_PROGRESS_INTERVAL, and refuses a value that is not seconds', () => {
    expect(progressIntervalSec({})).toBe(10);
    expect(progressIntervalSec({ ACON_PROGRESS_INTERVAL: '0' })).toBe(0);
    expect(progressIntervalSec({ ACON_PROGRESS_INTERVAL: ' 2.5 ' })).toBe(2.5);
    for (const bad of ['-1', 'often', 'Infinity']) {
      expect(() => progressIntervalSec({ ACON_PROGRESS_INTERVAL: bad })).toThrow(ConfigError);
    }
    expect(() => progressIntervalSec({ ACON_PROGRESS_INTERVAL: 'often' })).toThrow(
      /ACON_PROGRESS_INTERVAL: expected a number of seconds from 0.*got "often"/,
    );
  });

  it('prints nothing when silent', () => {
    const clock = fakeClock();
    const { stream, lines } = pipe();
    const p = createProgress({ label: 'x', stream, clock, silent: true });
    p.update('s', 1, 2, { success: true });
    p.log('hello');
    clock.advance(60_000);
    expect(lines).toEqual([]);
  });
});
