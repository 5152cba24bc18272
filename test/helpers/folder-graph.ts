import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

/**
 * The folder-level import graph of a source tree, for the architecture test: every relative
 * import, re-export, `import type` and dynamic `import()` of a non-test source file is an edge
 * from its top-level folder to the target's. A file directly in the root is a node of its own,
 * named by its file name without the extension (`errors`, `seeded-random`).
 */
export type ImportEdge = { from: string; to: string; file: string; specifier: string };

const SOURCE = /\.(ts|mts|js|mjs)$/;
const TEST = /\.test\./;

function nodeOf(root: string, file: string): string {
  const parts = relative(root, file).split(sep);
  return parts.length > 1 ? parts[0]! : parts[0]!.replace(/\.[^.]+$/, '');
}

/** Non-test source files under `root`, as paths relative to it. */
export function sourceFiles(root: string): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
      const path = join(dir, e.name);
      if (e.isDirectory()) return walk(path);
      return SOURCE.test(e.name) && !TEST.test(e.name) ? [relative(root, path)] : [];
    });
  return walk(root);
}

/** Every import between different nodes of `root` (tests excluded, type imports included). */
export function importEdges(root: string): ImportEdge[] {
  const edges: ImportEdge[] = [];
  for (const file of sourceFiles(root).map((f) => join(root, f))) {
    const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    for (const { fileName: specifier } of info.importedFiles) {
      if (!specifier.startsWith('.')) continue;
      const target = resolve(dirname(file), specifier);
      if (relative(root, target).startsWith('..')) continue;
      const from = nodeOf(root, file);
      const to = nodeOf(root, target);
      if (from !== to) edges.push({ from, to, file: relative(root, file), specifier });
    }
  }
  return edges;
}

/** The groups of more than one node that import each other, directly or around a loop (Tarjan). */
export function folderCycles(edges: readonly ImportEdge[]): string[][] {
  const out = new Map<string, Set<string>>();
  for (const e of edges) {
    if (!out.has(e.from)) out.set(e.from, new Set());
    out.get(e.from)!.add(e.to);
  }
  const nodes = [...new Set(edges.flatMap((e) => [e.from, e.to]))].sort();
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of out.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const group: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      group.push(w);
    } while (w !== v);
    if (group.length > 1) groups.push(group.sort());
  };
  for (const n of nodes) if (!index.has(n)) visit(n);
  return groups.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

/** Layer of each node, 0 the top; a node may import its own layer or lower ones. */
export type Layers = Readonly<Record<string, number>>;

/** Nodes of the graph (and folders of `root`) that have no layer: the rule cannot judge them. */
export function unplacedNodes(
  root: string,
  edges: readonly ImportEdge[],
  layers: Layers,
): string[] {
  const folders = readdirSync(root, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name);
  const nodes = new Set([...folders, ...edges.flatMap((e) => [e.from, e.to])]);
  return [...nodes].filter((n) => layers[n] === undefined).sort();
}

/** Imports of a node in a higher layer than the importer's (upward imports). */
export function upwardImports(edges: readonly ImportEdge[], layers: Layers): ImportEdge[] {
  return edges.filter((e) => {
    const from = layers[e.from];
    const to = layers[e.to];
    return from !== undefined && to !== undefined && to < from;
  });
}

export function formatEdge(e: ImportEdge): string {
  return `${e.from} -> ${e.to}: src/${e.file} imports '${e.specifier}'`;
}

/**
 * A folder's ways in from outside (issue #55): its `index.ts`, and `catalog.ts` where a folder
 * has names and defaults that the CLI's command definitions need before anything loads.
 */
const ENTRY_FILES = ['index', 'catalog'];

/** Imports of another folder's inner file (not its index.ts or catalog.ts); root files are whole. */
export function deepImports(root: string, edges: readonly ImportEdge[]): ImportEdge[] {
  return edges.filter((e) => {
    const target = relative(root, resolve(dirname(join(root, e.file)), e.specifier)).split(sep);
    if (target.length === 1) return false; // a file directly in the root: the node is the file
    return !(target.length === 2 && ENTRY_FILES.includes(target[1]!.replace(/\.[^.]+$/, '')));
  });
}

/** The modules a file loads when it runs: its imports and re-exports, less those of types only. */
function loadedSpecifiers(file: string): string[] {
  const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
  const out: string[] = [];
  for (const st of sf.statements) {
    if (ts.isImportDeclaration(st) && !st.importClause?.isTypeOnly) {
      out.push((st.moduleSpecifier as ts.StringLiteral).text);
    }
    if (ts.isExportDeclaration(st) && !st.isTypeOnly && st.moduleSpecifier) {
      out.push((st.moduleSpecifier as ts.StringLiteral).text);
    }
  }
  return out;
}

/**
 * What a folder's catalog.ts loads that it must not: a package (other than Node's own) or another
 * folder, directly or through the files of its own folder that it imports. The catalog exists so
 * that `acon --help` can name flags' choices and defaults without loading the folder.
 */
export function catalogLoads(root: string): string[] {
  const found: string[] = [];
  for (const catalog of sourceFiles(root).filter((f) => f.endsWith(`${sep}catalog.ts`))) {
    const folder = catalog.split(sep)[0]!;
    const seen = new Set<string>();
    const visit = (file: string): void => {
      if (seen.has(file)) return;
      seen.add(file);
      for (const specifier of loadedSpecifiers(join(root, file))) {
        if (specifier.startsWith('node:')) continue;
        if (!specifier.startsWith('.')) {
          found.push(`${catalog}: ${file} imports the package '${specifier}'`);
          continue;
        }
        const target = relative(root, resolve(dirname(join(root, file)), specifier));
        const parts = target.split(sep);
        if (parts.length === 1) continue; // a root file (errors.ts): checked as its own node
        if (parts[0] !== folder) {
          found.push(`${catalog}: ${file} imports '${specifier}' of another folder`);
          continue;
        }
        visit(target.replace(/\.js$/, '.ts'));
      }
    };
    visit(catalog);
  }
  return found;
}

/**
 * Files outside the folder `owner` that name the identifier `name` in code (comments and strings
 * do not count), as `path:line`: the CLI's UsageError, which names flags, stays in src/cli/.
 */
export function namedOutside(root: string, name: string, owner: string): string[] {
  const found: string[] = [];
  for (const file of sourceFiles(root)) {
    if (file.split(sep)[0] === owner) continue;
    const text = readFileSync(join(root, file), 'utf8');
    const scanner = ts.createScanner(
      ts.ScriptTarget.Latest,
      true,
      ts.LanguageVariant.Standard,
      text,
    );
    for (let t = scanner.scan(); t !== ts.SyntaxKind.EndOfFileToken; t = scanner.scan()) {
      if (t === ts.SyntaxKind.Identifier && scanner.getTokenValue() === name) {
        const line = text.slice(0, scanner.getTokenStart()).split('\n').length;
        found.push(`${file.split(sep).join('/')}:${line}`);
      }
    }
  }
  return found;
}
