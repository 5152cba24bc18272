#!/usr/bin/env node
// Rewrites every import of another folder's inner file in src/ (not tests) so that it goes
// through that folder's index.ts, and adds to the index what it does not export yet (issue #55).
// Idempotent: run it again after a merge that brought deep imports back. Uses the TypeScript
// compiler's checker, so a name the index already exports (directly or through `export *`) is
// recognised as the same symbol, and a clash (the index exports another thing under that name)
// is reported instead of rewritten.
//
//   node scripts/dev/through-index.mjs           rewrite, then run prettier on what changed
//   node scripts/dev/through-index.mjs --check   list the deep imports, exit 1 if any
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const SRC = join(ROOT, 'src');
const check = process.argv.includes('--check');

/** `src/llm/retry.ts` → `llm`; a file directly in src/ is its own folder (`errors`). */
function folderOf(file) {
  const parts = relative(SRC, file).split(sep);
  return parts.length === 1 ? null : parts[0];
}

function isSource(file) {
  return file.startsWith(SRC + sep) && !file.endsWith('.test.ts') && file.endsWith('.ts');
}

/** A folder's ways in: its index.ts, and catalog.ts (names and defaults, loading no package). */
function isEntry(target, folder) {
  return target === join(SRC, folder, 'index.ts') || target === join(SRC, folder, 'catalog.ts');
}

function resolveSpecifier(from, spec) {
  if (!spec.startsWith('.')) return null;
  const target = resolve(dirname(from), spec).replace(/\.js$/, '.ts');
  return existsSync(target) ? target : null;
}

function posixRelative(fromDir, to) {
  let r = relative(fromDir, to).split(sep).join('/');
  if (!r.startsWith('.')) r = './' + r;
  return r.replace(/\.ts$/, '.js');
}

const config = ts.getParsedCommandLineOfConfigFile(
  join(ROOT, 'tsconfig.json'),
  {},
  {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => {
      throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    },
  },
);
const program = ts.createProgram(config.fileNames, config.options);
const checker = program.getTypeChecker();

function original(symbol) {
  return symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
}

/** The names a module exports, each with the symbol it finally stands for. */
function moduleExports(file) {
  const sf = program.getSourceFile(file);
  const sym = sf && checker.getSymbolAtLocation(sf);
  const out = new Map();
  if (!sym) return out;
  for (const e of checker.getExportsOfModule(sym)) out.set(e.name, original(e));
  return out;
}

/** One deep import: which names it takes from which inner file, and where it is written. */
const deep = [];
const problems = [];

for (const sf of program.getSourceFiles()) {
  const file = resolve(sf.fileName);
  if (!isSource(file)) continue;
  const own = folderOf(file);
  const visit = (node) => {
    let spec = null;
    let names = null; // [{ name, alias, type }]
    let kind = null;
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) {
      spec = node.moduleSpecifier.text;
      kind = ts.isImportDeclaration(node) ? 'import' : 'export';
      const clause = ts.isImportDeclaration(node) ? node.importClause : node;
      const typeOnly = ts.isImportDeclaration(node) ? Boolean(clause?.isTypeOnly) : node.isTypeOnly;
      const bindings = ts.isImportDeclaration(node) ? clause?.namedBindings : node.exportClause;
      if (bindings && (ts.isNamedImports(bindings) || ts.isNamedExports(bindings))) {
        names = bindings.elements.map((el) => ({
          name: (el.propertyName ?? el.name).text,
          alias: el.propertyName ? el.name.text : null,
          type: typeOnly || el.isTypeOnly,
        }));
      }
      if (ts.isImportDeclaration(node) && clause?.name) names = null; // a default import
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      spec = node.arguments[0].text;
      kind = 'dynamic';
      // const { a, b } = await import('…')
      const parent = node.parent;
      const decl = parent && ts.isAwaitExpression(parent) ? parent.parent : null;
      if (decl && ts.isVariableDeclaration(decl) && ts.isObjectBindingPattern(decl.name)) {
        names = decl.name.elements.map((el) => ({
          name: (el.propertyName ?? el.name).getText(sf),
          alias: null,
          type: false,
        }));
      }
    }
    if (spec) {
      const target = resolveSpecifier(file, spec);
      const to = target && isSource(target) ? folderOf(target) : null;
      if (to && to !== own && !isEntry(target, to)) {
        const where = `${relative(ROOT, file)}:${sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1}`;
        if (!names) problems.push(`${where}: ${kind} of ${spec} without named bindings`);
        else deep.push({ file, node, sf, kind, spec, target, to, names, where });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
}

if (check) {
  for (const d of deep) console.log(`${d.where}: ${d.spec}`);
  for (const p of problems) console.log(p);
  process.exit(deep.length + problems.length > 0 ? 1 : 0);
}

// What each index must add: folder → inner file → names (value or type).
const additions = new Map();
const indexExports = new Map();
const rewritable = [];
for (const d of deep) {
  const index = join(SRC, d.to, 'index.ts');
  if (!indexExports.has(index))
    indexExports.set(index, existsSync(index) ? moduleExports(index) : new Map());
  const have = indexExports.get(index);
  const inner = moduleExports(d.target);
  let ok = true;
  for (const n of d.names) {
    const sym = inner.get(n.name);
    if (!sym) {
      problems.push(`${d.where}: ${n.name} is not exported by ${d.spec}`);
      ok = false;
      continue;
    }
    const there = have.get(n.name);
    if (there && there !== sym) {
      problems.push(`${d.where}: ${d.to}/index.ts exports another ${n.name}`);
      ok = false;
      continue;
    }
    if (!there) {
      have.set(n.name, sym);
      const isValue = Boolean(sym.flags & ts.SymbolFlags.Value);
      const perFolder = additions.get(index) ?? new Map();
      additions.set(index, perFolder);
      const perFile = perFolder.get(d.target) ?? new Map();
      perFolder.set(d.target, perFile);
      perFile.set(n.name, (perFile.get(n.name) ?? false) || isValue);
    }
  }
  if (ok) rewritable.push(d);
}

const changed = new Set();
// Rewrite the specifiers, then merge static imports of one index in a file into one statement.
const byFile = new Map();
for (const d of rewritable) {
  const list = byFile.get(d.file) ?? [];
  list.push(d);
  byFile.set(d.file, list);
}
for (const [file, list] of byFile) {
  const sf = list[0].sf;
  let text = sf.getFullText();
  const edits = [];
  const merged = new Map(); // `import:${to}` → the first static import's edit
  for (const d of list) {
    const index = posixRelative(dirname(file), join(SRC, d.to, 'index.ts'));
    if (d.kind === 'dynamic') {
      const arg = d.node.arguments[0];
      edits.push({ start: arg.getStart(sf), end: arg.getEnd(), text: `'${index}'` });
      continue;
    }
    const key = `${d.kind}:${d.to}`;
    const specs = d.names.map(
      (n) => `${n.type ? 'type ' : ''}${n.name}${n.alias ? ` as ${n.alias}` : ''}`,
    );
    const first = merged.get(key);
    if (first) {
      first.specs.push(...specs);
      edits.push({ start: d.node.getFullStart(), end: d.node.getEnd(), text: '' });
    } else {
      const edit = { start: d.node.getStart(sf), end: d.node.getEnd(), specs, kind: d.kind, index };
      merged.set(key, edit);
      edits.push(edit);
    }
  }
  for (const e of edits) {
    if (e.specs) {
      const unique = [...new Set(e.specs)];
      // A name imported both as a type and as a value needs only the value import.
      const values = new Set(unique.filter((s) => !s.startsWith('type ')));
      const kept = unique.filter((s) => !(s.startsWith('type ') && values.has(s.slice(5))));
      // Under verbatimModuleSyntax, `import { type A }` still loads the module at run time;
      // `import type { A }` does not (lazy loading depends on it, test/cli-startup.test.ts).
      e.text = kept.every((s) => s.startsWith('type '))
        ? `${e.kind} type { ${kept.map((s) => s.slice(5)).join(', ')} } from '${e.index}';`
        : `${e.kind} { ${kept.join(', ')} } from '${e.index}';`;
    }
  }
  edits.sort((a, b) => b.start - a.start);
  for (const e of edits) text = text.slice(0, e.start) + e.text + text.slice(e.end);
  writeFileSync(file, text);
  changed.add(file);
}

// After the rewrite: an index that had deep imports of its own was rewritten from its old text.
for (const [index, perFolder] of additions) {
  let text = existsSync(index) ? readFileSync(index, 'utf8') : '';
  if (text && !text.endsWith('\n')) text += '\n';
  for (const [target, names] of perFolder) {
    const rel = posixRelative(dirname(index), target);
    const values = [...names].filter(([, v]) => v).map(([n]) => n);
    const types = [...names].filter(([, v]) => !v).map(([n]) => n);
    if (values.length) text += `export { ${values.join(', ')} } from '${rel}';\n`;
    if (types.length) text += `export type { ${types.join(', ')} } from '${rel}';\n`;
  }
  writeFileSync(index, text);
  changed.add(index);
}

for (const p of problems) console.error(`not rewritten: ${p}`);
if (changed.size) {
  execFileSync('npx', ['prettier', '--write', '--log-level', 'warn', ...changed], {
    cwd: ROOT,
    stdio: 'inherit',
  });
}
console.log(
  `${rewritable.length} deep imports rewritten in ${byFile.size} files; ` +
    `${additions.size} index files extended; ${problems.length} left (listed above)`,
);
