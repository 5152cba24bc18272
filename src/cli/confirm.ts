import { createInterface } from 'node:readline/promises';
import { UsageError } from '../errors.js';

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

/**
 * A run on a paid provider whose estimate is above `confirmAbove` asks on a terminal and
 * starts only on "y"; `yes` skips the question; without a terminal it is refused with the fix
 * (a CI job or a pipe must say --yes). Simulated runs never ask.
 */
export async function confirmPaidRun(opts: {
  estimateUsd: number;
  simulated: boolean;
  confirmAbove: number;
  yes: boolean;
  io: ConfirmIo;
}): Promise<void> {
  if (opts.simulated || opts.yes || opts.estimateUsd <= opts.confirmAbove) return;
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
