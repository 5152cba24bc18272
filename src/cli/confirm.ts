import type { Command } from 'commander';
import { createInterface } from 'node:readline/promises';
import { UsageError } from './usage-error.js';
import { checked, positiveNumber } from './numbers.js';

/** What asking needs from the terminal; tests pass a fake. */
export type ConfirmIo = {
  /** stdin and stderr are both a terminal: someone can answer. */
  interactive: boolean;
  ask(question: string): Promise<string>;
};

export const terminalIo: ConfirmIo = {
  interactive: process.stdin.isTTY === true && process.stderr.isTTY === true,
  async ask(question) {
    const rl = createInterface({ input: process.stdin, output: process.stderr });
    try {
      return await rl.question(question);
    } finally {
      rl.close();
    }
  },
};

/** @default 5 — the USD above which a paid run asks before it starts (issue #24). */
export const DEFAULT_CONFIRM_ABOVE_USD = 5;

/** What decides whether a paid run asks: its estimate and the limit, --yes (or a --resume). */
type PaidRun = { estimateUsd: number; simulated: boolean; confirmAbove: number; yes: boolean };

/** A paid run above its limit asks, unless told not to; a simulated run never does. */
function asks(run: PaidRun): boolean {
  return !run.simulated && !run.yes && run.estimateUsd > run.confirmAbove;
}

/**
 * A run on a paid provider whose estimate is above `confirmAbove` asks on a terminal and
 * starts only on "y"; `yes` skips the question; without a terminal it is refused with the fix
 * (a CI job or a pipe must say --yes). Simulated runs never ask.
 */
export async function confirmPaidRun(opts: PaidRun & { io: ConfirmIo }): Promise<void> {
  if (!asks(opts)) return;
  const cost = `~$${opts.estimateUsd.toFixed(2)}`;
  const limit = `$${opts.confirmAbove.toFixed(2)}`;
  if (!opts.io.interactive) {
    throw new UsageError(
      `this run may cost ${cost} (above --confirm-above ${limit}) and no terminal can confirm it; ` +
        `pass --yes to start it, or --confirm-above with a higher limit`,
    );
  }
  const answer = await opts.io.ask(`This run may cost ${cost} (above ${limit}). Start it? [y/N] `);
  if (!/^y(es)?$/i.test(answer.trim())) {
    throw new UsageError(`not started (answered "${answer.trim()}"); nothing was spent`);
  }
}

/** The flags of a command that may start a paid run (optimize, run, compare). */
export type ConfirmFlags = { confirmAbove?: string; yes?: boolean; resume?: string };

/** Adds --confirm-above and --yes to a command that may start a paid run. */
export function addConfirmOptions(cmd: Command): Command {
  return cmd
    .option(
      '--confirm-above <usd>',
      `with a paid provider, ask before starting a run estimated above this (default: ${DEFAULT_CONFIRM_ABOVE_USD}); without a terminal such a run is refused`,
      checked.positiveNumber('--confirm-above'),
    )
    .option(
      '--yes',
      'start a paid run without asking, whatever its estimate (--resume never asks: the run was started already)',
    );
}

/**
 * The paid run the flags describe. A --resume continues a run that was confirmed (or under the
 * limit) when it started, so it counts as --yes.
 */
function paidRunOf(
  flags: ConfirmFlags,
  estimate: { costUsd: number; simulated: boolean },
): PaidRun {
  return {
    estimateUsd: estimate.costUsd,
    simulated: estimate.simulated,
    confirmAbove:
      positiveNumber(flags.confirmAbove, '--confirm-above') ?? DEFAULT_CONFIRM_ABOVE_USD,
    yes: flags.yes === true || flags.resume !== undefined,
  };
}

/**
 * Whether a run of this estimate stops to ask (or is refused without a terminal): a paid run
 * above --confirm-above, without --yes, not a --resume. Only then is its estimate printed, so a
 * run under the limit keeps stderr empty.
 */
export function mustConfirm(
  flags: ConfirmFlags,
  estimate: { costUsd: number; simulated: boolean },
): boolean {
  return asks(paidRunOf(flags, estimate));
}

/** Asks (or refuses) before a paid run, as the flags say (see confirmPaidRun and paidRunOf). */
export async function confirmFromFlags(
  flags: ConfirmFlags,
  estimate: { costUsd: number; simulated: boolean },
  io: ConfirmIo = terminalIo,
): Promise<void> {
  await confirmPaidRun({ ...paidRunOf(flags, estimate), io });
}
