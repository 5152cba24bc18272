import { join } from 'node:path';
import pc from 'picocolors';
import { UsageError } from './usage-error.js';
import {
  terminalWidth,
  formatAccuracy,
  formatTokens,
  guidelineLogJson,
  renderGuidelineLog,
  renderGuidelineShow,
} from '../report/index.js';
import {
  textsDiffer,
  unifiedDiff,
  wordDiff,
  GuidelineKindSchema,
  GUIDELINE_KINDS,
  type GuidelineKind,
  ACTIVE_FILE,
  GuidelineStore,
  type StoredGuideline,
} from '../guidelines/index.js';

// What `acon guidelines log|show|diff|promote` do, imported when one of them runs: the guideline
// store, the diff library and the views stay out of every other command's start-up (issue #28).

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
export type LogOpts = DirOpts & ColorOpts & { kind?: string; json?: boolean; wide?: boolean };
export type ShowOpts = DirOpts & ColorOpts & { json?: boolean };
export type DiffOpts = DirOpts & ColorOpts & { word?: boolean; unified: string };

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

export function logAction(opts: LogOpts, io: GuidelinesIo): void {
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
}

export function showAction(ref: string, opts: ShowOpts, io: GuidelinesIo): void {
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
}

export function diffAction(
  refA: string,
  refB: string | undefined,
  opts: DiffOpts,
  io: GuidelinesIo,
): void {
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
}

export function promoteAction(ref: string, opts: DirOpts, io: GuidelinesIo): void {
  const store = storeFor(opts);
  const { kind, previous, current } = store.promote(ref);
  const where = store.displayPath(join(store.dir, kind, ACTIVE_FILE));
  io.out(
    previous === current.id
      ? `${current.id} was already the active ${kind} guideline (${where})\n`
      : `active ${kind} guideline: ${previous} → ${current.id} (${where})\n`,
  );
  if (current.status === 'rejected') {
    io.out(`note: the optimizer rejected ${describeVersion(current)}; promoted anyway as asked\n`);
  }
}
