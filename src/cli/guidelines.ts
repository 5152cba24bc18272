import { join } from 'node:path';
import type { Command } from 'commander';
import pc from 'picocolors';
import { UsageError } from '../errors.js';
import { registerGuidelinesExport } from './guidelines-export.js';
import { terminalWidth } from '../report/fit-table.js';
import {
  formatAccuracy,
  formatTokens,
  guidelineLogJson,
  renderGuidelineLog,
  renderGuidelineShow,
} from '../report/guidelines-view.js';
import { textsDiffer, unifiedDiff, wordDiff } from '../guidelines/diff.js';
import { GuidelineKindSchema, GUIDELINE_KINDS, type GuidelineKind } from '../guidelines/schema.js';
import { ACTIVE_FILE, GuidelineStore, type StoredGuideline } from '../guidelines/store.js';

/** Where commands print; tests pass their own. */
export type GuidelinesIo = {
  out: (text: string) => void;
  /** Whether the terminal shows colours (before `--no-color`). @default picocolors' detection (NO_COLOR, TTY) */
  colorSupported?: boolean;
  /** Terminal width for tables. @default stdout's columns, else $COLUMNS, else 100 */
  width?: number;
};

type DirOpts = { dir: string };
type ColorOpts = { color: boolean };

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

function parseKind(raw: string | undefined): GuidelineKind | undefined {
  if (raw === undefined) return undefined;
  const parsed = GuidelineKindSchema.safeParse(raw);
  if (!parsed.success) throw new UsageError(`--kind must be obs or hist, got "${raw}"`);
  return parsed.data;
}

function describeVersion(g: StoredGuideline): string {
  const m = g.metrics;
  return `${g.id} (${g.phase}, ${g.status}, accuracy ${formatAccuracy(m.accuracy)}, peak tokens ${formatTokens(m.peakTokens)})`;
}

const useColor = (io: GuidelinesIo, opts: ColorOpts) =>
  opts.color && (io.colorSupported ?? pc.isColorSupported);
const storeFor = (opts: DirOpts) => new GuidelineStore({ dir: opts.dir });
const activeIds = (store: GuidelineStore) =>
  Object.fromEntries(GUIDELINE_KINDS.map((k) => [k, store.activeId(k)]));

/** The two versions `diff A [B]` compares: with one version, its parent and it. */
function diffPair(
  store: GuidelineStore,
  refA: string,
  refB: string | undefined,
): [StoredGuideline, StoredGuideline] {
  if (refB !== undefined) return [store.get(refA), store.get(refB)];
  const b = store.get(refA);
  if (b.parent === null) {
    throw new UsageError(`${b.id} has no parent; name two versions: diff <a> <b>`);
  }
  return [store.get(b.parent), b];
}

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
    .action((opts: DirOpts & ColorOpts & { kind?: string; json?: boolean; wide?: boolean }) => {
      const kind = parseKind(opts.kind);
      const store = storeFor(opts);
      const versions = store.list(kind);
      const active = activeIds(store);
      if (opts.json) {
        io.out(`${JSON.stringify(guidelineLogJson(versions, active), null, 2)}\n`);
        return;
      }
      io.out(
        renderGuidelineLog(versions, active, {
          color: useColor(io, opts),
          width: io.width ?? terminalWidth(),
          wide: opts.wide,
        }),
      );
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
    .action((ref: string, opts: DirOpts & ColorOpts & { json?: boolean }) => {
      const store = storeFor(opts);
      const g = store.get(ref);
      const active = store.activeId(g.kind) === g.id;
      if (opts.json) {
        io.out(`${JSON.stringify({ ...g, active }, null, 2)}\n`);
        return;
      }
      io.out(
        renderGuidelineShow(g, {
          color: useColor(io, opts),
          active,
          path: store.displayPath(g.path),
        }),
      );
    });
}

function registerDiff(group: Command, io: GuidelinesIo): void {
  group
    .command('diff')
    .description('what changed between two versions (B defaults to A, A to its parent)')
    .argument('<a>', 'the old version')
    .argument('[b]', 'the new version; with one version, compares its parent with it')
    .option('--word', 'word-level diff, changes marked inline')
    .option('-U, --unified <lines>', 'context lines around each change', '3')
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
    .action(
      (
        refA: string,
        refB: string | undefined,
        opts: DirOpts & ColorOpts & { word?: boolean; unified: string },
      ) => {
        const context = Number(opts.unified);
        if (!Number.isInteger(context) || context < 0) {
          throw new UsageError(`--unified must be a whole number from 0, got "${opts.unified}"`);
        }
        const store = storeFor(opts);
        const [a, b] = diffPair(store, refA, refB);
        const color = useColor(io, opts);
        const c = pc.createColors(color);
        io.out(`${c.bold(`${describeVersion(a)}\n→ ${describeVersion(b)}`)}\n`);
        if (a.kind !== b.kind) {
          io.out(c.yellow(`note: comparing an ${a.kind} guideline with a ${b.kind} guideline\n`));
        }
        if (!textsDiffer(a.text, b.text)) {
          io.out('the texts are identical\n');
          return;
        }
        io.out('\n');
        if (opts.word) {
          io.out(wordDiff(a.text, b.text, { color }));
          return;
        }
        const header = (g: StoredGuideline) => store.displayPath(g.path);
        io.out(
          unifiedDiff(
            { label: a.id, text: a.text, header: header(a) },
            { label: b.id, text: b.text, header: header(b) },
            { color, context },
          ),
        );
      },
    );
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
    .action((ref: string, opts: DirOpts) => {
      const store = storeFor(opts);
      const { kind, previous, current } = store.promote(ref);
      const where = store.displayPath(join(store.dir, kind, ACTIVE_FILE));
      io.out(
        previous === current.id
          ? `${current.id} was already the active ${kind} guideline (${where})\n`
          : `active ${kind} guideline: ${previous} → ${current.id} (${where})\n`,
      );
      if (current.status === 'rejected') {
        io.out(
          `note: the optimizer rejected ${describeVersion(current)}; promoted anyway as asked\n`,
        );
      }
    });
}
