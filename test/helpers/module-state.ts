import { join, relative, sep } from 'node:path';
import ts from 'typescript';
import { sourceFiles } from './folder-graph.js';

/**
 * Module-level mutable state in a source tree, for the architecture test ("State belongs to
 * someone", STYLE.md): a cache, counter or memo at the top of a module is shared by every test,
 * run and library user of the process. Each finding is `file: name (what)`, with the file relative
 * to the root in POSIX form.
 *
 * Found: a top-level `let`/`var`; a top-level `const` holding a new mutable object (`new Map`,
 * `Set`, `WeakMap`, `WeakSet`, `Array`, `LRUCache`, any constructor not known to be immutable)
 * unless its declared type is read-only (`ReadonlyMap`, `ReadonlySet`, `readonly T[]`); a top-level
 * `const` that the file mutates (assigns a property or element of, deletes from, or calls a
 * mutating method such as `push`, `set`, `add`, `clear` on); a class `static` field that is not
 * `readonly`, or is `readonly` and holds a new mutable object; a class `static {}` block.
 * Not found: state mutated from another file through an import, or hidden in a closure returned
 * by a top-level call.
 */
export function moduleState(root: string): string[] {
  const files = sourceFiles(root).map((f) => join(root, f));
  // One program, bound but never type-checked (no lib, no imports followed): enough to tell
  // which declaration a name refers to, so a local that shadows a top-level const is no finding.
  const program = ts.createProgram(files, {
    noLib: true,
    noResolve: true,
    allowJs: true,
    types: [],
  });
  const checker = program.getTypeChecker();
  return files.flatMap((file) => {
    const rel = relative(root, file).split(sep).join('/');
    return stateIn(program.getSourceFile(file)!, checker).map((f) => `${rel}: ${f}`);
  });
}

/** Constructors whose instances cannot change (or hold no state worth the name). */
const IMMUTABLE = new Set<string>(['RegExp', 'URL', 'TextEncoder', 'TextDecoder', 'Error', 'Date']);

/** Methods that change the array, map or set they are called on. */
const MUTATORS = new Set<string>([
  'push',
  'pop',
  'shift',
  'unshift',
  'splice',
  'sort',
  'reverse',
  'fill',
  'copyWithin',
  'set',
  'add',
  'delete',
  'clear',
]);

/** The findings of one file. */
function stateIn(sf: ts.SourceFile, checker: ts.TypeChecker): string[] {
  const found: string[] = [];
  const consts = new Map<ts.Symbol, string>();
  for (const statement of sf.statements) {
    if (ts.isVariableStatement(statement)) {
      const flags = statement.declarationList.flags;
      const isConst = (flags & ts.NodeFlags.Const) !== 0;
      for (const decl of statement.declarationList.declarations) {
        for (const id of boundNames(decl.name)) {
          const kind = flags & ts.NodeFlags.Let ? 'let' : 'var';
          if (!isConst) found.push(`${id.text} (top-level ${kind})`);
          const symbol = checker.getSymbolAtLocation(id);
          if (isConst && symbol) consts.set(symbol, id.text);
        }
        if (isConst && ts.isIdentifier(decl.name)) {
          const made = mutableNew(decl.initializer);
          if (made && !readonlyType(decl.type)) found.push(`${decl.name.text} (new ${made})`);
        }
      }
    }
  }
  const mutated = new Set<string>();
  const visit = (node: ts.Node): void => {
    const target = mutationTarget(node);
    const symbol = target && checker.getSymbolAtLocation(target);
    const name = symbol ? consts.get(symbol) : undefined;
    if (name !== undefined) mutated.add(name);
    if (ts.isClassLike(node)) found.push(...staticState(node));
    ts.forEachChild(node, visit);
  };
  visit(sf);
  for (const name of mutated) {
    if (!found.some((f) => f.startsWith(`${name} (`))) found.push(`${name} (mutated)`);
  }
  return found;
}

function boundNames(name: ts.BindingName): ts.Identifier[] {
  if (ts.isIdentifier(name)) return [name];
  return name.elements.flatMap((e) => (ts.isOmittedExpression(e) ? [] : boundNames(e.name)));
}

function unwrap(e: ts.Expression | undefined): ts.Expression | undefined {
  while (
    e &&
    (ts.isParenthesizedExpression(e) ||
      ts.isAsExpression(e) ||
      ts.isSatisfiesExpression(e) ||
      ts.isNonNullExpression(e))
  ) {
    e = e.expression;
  }
  return e;
}

/** The constructor's name when `e` builds a mutable object (`new Map()`), else undefined. */
function mutableNew(init: ts.Expression | undefined): string | undefined {
  const e = unwrap(init);
  if (!e || !ts.isNewExpression(e)) return undefined;
  const name = e.expression.getText();
  const base = name.split('.')[0]!;
  return IMMUTABLE.has(name) || base === 'Intl' ? undefined : name;
}

/** `ReadonlyMap<…>`, `ReadonlySet<…>`, `readonly T[]`, `ReadonlyArray<…>`: TS refuses writes. */
function readonlyType(type: ts.TypeNode | undefined): boolean {
  if (!type) return false;
  if (ts.isTypeOperatorNode(type)) return type.operator === ts.SyntaxKind.ReadonlyKeyword;
  if (ts.isTypeReferenceNode(type)) {
    return ['ReadonlyMap', 'ReadonlySet', 'ReadonlyArray'].includes(type.typeName.getText());
  }
  return false;
}

/** The root identifier of `a`, `a.b`, `a[b]`, `a.b.c`. */
function rootName(e: ts.Expression): ts.Identifier | undefined {
  const u = unwrap(e);
  if (!u) return undefined;
  if (ts.isIdentifier(u)) return u;
  if (ts.isPropertyAccessExpression(u) || ts.isElementAccessExpression(u)) {
    return rootName(u.expression);
  }
  return undefined;
}

const ASSIGNMENTS = new Set<ts.SyntaxKind>([
  ts.SyntaxKind.EqualsToken,
  ts.SyntaxKind.PlusEqualsToken,
  ts.SyntaxKind.MinusEqualsToken,
  ts.SyntaxKind.AsteriskEqualsToken,
  ts.SyntaxKind.SlashEqualsToken,
  ts.SyntaxKind.BarBarEqualsToken,
  ts.SyntaxKind.AmpersandAmpersandEqualsToken,
  ts.SyntaxKind.QuestionQuestionEqualsToken,
  ts.SyntaxKind.BarEqualsToken,
  ts.SyntaxKind.AmpersandEqualsToken,
]);

/** The name whose object `node` changes: `x.a = 1`, `x[i]++`, `delete x.a`, `x.push(1)`, `Object.assign(x, …)`. */
function mutationTarget(node: ts.Node): ts.Identifier | undefined {
  const member = (e: ts.Expression) =>
    ts.isPropertyAccessExpression(e) || ts.isElementAccessExpression(e) ? rootName(e) : undefined;
  if (ts.isBinaryExpression(node) && ASSIGNMENTS.has(node.operatorToken.kind)) {
    return member(node.left);
  }
  if (
    (ts.isPrefixUnaryExpression(node) || ts.isPostfixUnaryExpression(node)) &&
    (node.operator === ts.SyntaxKind.PlusPlusToken ||
      node.operator === ts.SyntaxKind.MinusMinusToken)
  ) {
    return member(node.operand);
  }
  if (ts.isDeleteExpression(node)) return member(node.expression);
  if (ts.isCallExpression(node)) {
    const callee = node.expression;
    if (ts.isPropertyAccessExpression(callee)) {
      if (callee.getText() === 'Object.assign' && node.arguments[0]) {
        return rootName(node.arguments[0]);
      }
      if (MUTATORS.has(callee.name.text)) return rootName(callee.expression);
    }
  }
  return undefined;
}

function staticState(node: ts.ClassLikeDeclaration): string[] {
  const cls = node.name?.text ?? '(anonymous class)';
  const found: string[] = [];
  for (const m of node.members) {
    if (ts.isClassStaticBlockDeclaration(m)) found.push(`${cls} (static block)`);
    if (!ts.isPropertyDeclaration(m)) continue;
    const mods = ts.getModifiers(m) ?? [];
    if (!mods.some((x) => x.kind === ts.SyntaxKind.StaticKeyword)) continue;
    const field = `${cls}.${m.name.getText()}`;
    const readonly = mods.some((x) => x.kind === ts.SyntaxKind.ReadonlyKeyword);
    if (!readonly) found.push(`${field} (static field)`);
    else if (mutableNew(m.initializer) && !readonlyType(m.type)) {
      found.push(`${field} (static new ${mutableNew(m.initializer)})`);
    }
  }
  return found;
}
