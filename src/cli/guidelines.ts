import type { Command } from 'commander';
import type { DiffOpts, GuidelinesIo, LogOpts, ShowOpts } from './guidelines-actions.js';
import { registerGuidelinesExport } from './guidelines-export.js';
import { checked } from './numbers.js';

const DEFAULT_DIR = 'guidelines';

const GROUP_EXAMPLES = `
Versions are files guidelines/<obs|hist>/<NNNN>-<slug>.md; guidelines/<kind>/ACTIVE names the active one.
A version is an id (obs-0003), <kind>@<n> (obs@3), <kind>@active, <kind>@latest (newest not
rejected) or a path to a guideline file.

Examples:
  $ acon guidelines log
  $ acon guidelines show obs@active
  $ acon guidelines diff obs-0000 obs@latest
  $ acon guidelines promote obs-0003`;

/**
 * `acon guidelines log|show|diff|promote`: review and choose guideline versions
 * (ARCHITECTURE §3, issue 6).
 */
export function registerGuidelines(
  program: Command,
  io: GuidelinesIo = { out: (text) => void process.stdout.write(text) },
): void {
  const group = program
    .command('guidelines')
    .description('review, compare and choose versions of the compression guidelines')
    .addHelpText('after', GROUP_EXAMPLES);
  registerLog(group, io);
  registerShow(group, io);
  registerDiff(group, io);
  registerPromote(group, io);
  registerGuidelinesExport(group, io.out);
}

function registerLog(group: Command, io: GuidelinesIo): void {
  group
    .command('log')
    .description(
      'the version tree: phase, status, accuracy and peak tokens; * marks the active one',
    )
    .option('--kind <kind>', 'only obs or hist')
    .option('--json', 'print JSON (every version without its text)')
    .option(
      '--wide',
      'every column at full length (default: fit the terminal, 100 columns if unknown)',
    )
    .option('--dir <dir>', 'guideline directory', DEFAULT_DIR)
    .option('--no-color', 'no colours')
    .addHelpText(
      'after',
      `
Examples:
  $ acon guidelines log
  $ acon guidelines log --kind obs
  $ acon guidelines log --json | jq '.[] | select(.status == "accepted") | .id'`,
    )
    .action(async (opts: LogOpts) => {
      (await import('./guidelines-actions.js')).logAction(opts, io);
    });
}

function registerShow(group: Command, io: GuidelinesIo): void {
  group
    .command('show')
    .description('a version: its front matter (lineage, scores, rationale) and its text')
    .argument('<version>', 'id, <kind>@<n>, <kind>@active, <kind>@latest or file path')
    .option('--json', 'print the version as JSON')
    .option('--dir <dir>', 'guideline directory', DEFAULT_DIR)
    .option('--no-color', 'no colours')
    .addHelpText(
      'after',
      `
Examples:
  $ acon guidelines show obs@active
  $ acon guidelines show hist-0002 --json
  $ acon guidelines show guidelines/obs/0003-ut.md`,
    )
    .action(async (ref: string, opts: ShowOpts) => {
      (await import('./guidelines-actions.js')).showAction(ref, opts, io);
    });
}

function registerDiff(group: Command, io: GuidelinesIo): void {
  group
    .command('diff')
    .description('what changed between two versions (B defaults to A, A to its parent)')
    .argument('<a>', 'the old version')
    .argument('[b]', 'the new version; with one version, compares its parent with it')
    .option('--word', 'word-level diff, changes marked inline')
    .option(
      '-U, --unified <lines>',
      'context lines around each change',
      checked.wholeNumberIn('--unified', 0),
      '3',
    )
    .option('--dir <dir>', 'guideline directory', DEFAULT_DIR)
    .option('--no-color', 'no colours (also off when NO_COLOR is set or stdout is not a terminal)')
    .addHelpText(
      'after',
      `
Examples:
  $ acon guidelines diff obs-0000 obs-0002
  $ acon guidelines diff obs@latest              parent of obs@latest vs obs@latest
  $ acon guidelines diff hist@1 hist@active --word
  $ acon guidelines diff obs-0001 obs-0003 --no-color > change.patch`,
    )
    .action(async (refA: string, refB: string | undefined, opts: DiffOpts) => {
      (await import('./guidelines-actions.js')).diffAction(refA, refB, opts, io);
    });
}

function registerPromote(group: Command, io: GuidelinesIo): void {
  group
    .command('promote')
    .description('make a version the active one (what `acon run --strategy acon` uses)')
    .argument('<version>', 'id, <kind>@<n>, <kind>@latest or file path in the directory')
    .option('--dir <dir>', 'guideline directory', DEFAULT_DIR)
    .addHelpText(
      'after',
      `
Examples:
  $ acon guidelines promote obs-0003
  $ acon guidelines promote hist@latest
  $ acon guidelines promote obs-0000             back to the generic v0`,
    )
    .action(async (ref: string, opts: { dir: string }) => {
      (await import('./guidelines-actions.js')).promoteAction(ref, opts, io);
    });
}
