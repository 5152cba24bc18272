/** Info strings of fences whose content is run as Python; an untagged fence counts too. */
const PYTHON_TAGS: ReadonlySet<string> = new Set(['python', 'python3', 'py', '']);

export type CodeBlock = {
  lang: string;
  code: string;
  /** Where the block ends in the text: just after its closing fence (or the text's end). */
  end: number;
};

/**
 * Every fenced block in a model's message, in order. A fence opens with three or more
 * backticks or tildes (indented at most 3 spaces) and closes with the same character at least
 * as long (CommonMark); an unclosed last fence runs to the end, since stop sequences and token
 * limits cut replies there.
 */
export function findCodeBlocks(text: string): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  let open: { char: string; length: number; indent: number; lang: string; body: string[] } | null =
    null;
  let offset = 0;
  for (const line of text.split('\n')) {
    const lineEnd = offset + line.length;
    offset = lineEnd + 1;
    const bare = line.replace(/\r$/, '');
    if (!open) {
      const start = /^( {0,3})(`{3,}|~{3,})\s*([^\s`]*)[^`]*$/.exec(bare);
      if (start) {
        const fence = start[2] ?? '```';
        open = {
          char: fence[0] ?? '`',
          length: fence.length,
          indent: (start[1] ?? '').length,
          lang: (start[3] ?? '').toLowerCase(),
          body: [],
        };
      }
      continue;
    }
    const close = /^\s{0,3}(`{3,}|~{3,})\s*$/.exec(bare);
    const fence = close?.[1];
    if (fence && fence[0] === open.char && fence.length >= open.length) {
      blocks.push({ lang: open.lang, code: open.body.join('\n'), end: lineEnd });
      open = null;
    } else {
      // CommonMark: an indented fence's content loses up to that much indentation.
      open.body.push(bare.replace(new RegExp(`^ {0,${open.indent}}`), ''));
    }
  }
  if (open) blocks.push({ lang: open.lang, code: open.body.join('\n'), end: text.length });
  return blocks;
}

export type ExtractedCode = {
  /** The code to run: the first Python (or untagged) block with something in it. */
  code: string;
  /** How many other Python blocks the message had; they are not run. */
  ignoredBlocks: number;
  /**
   * The message up to the end of the block that runs: what enters the history. AppWorld's
   * agents cut there too, so a model that goes on to imagine the output never sees its own
   * invention as if it had happened. Null when nothing follows the block (or there was no fence).
   */
  kept: string | null;
};

/**
 * The code the agent asked to run, or null when its message has none. A message without a
 * fence whose every line reads as Python (see `looksLikePython`) is run as it stands: some
 * models answer with bare code.
 */
export function extractCode(text: string | null): ExtractedCode | null {
  if (!text) return null;
  const python = findCodeBlocks(text).filter(
    (b) => PYTHON_TAGS.has(b.lang) && b.code.trim() !== '',
  );
  const first = python[0];
  if (first) {
    const kept = text.slice(first.end).trim() === '' ? null : text.slice(0, first.end);
    return { code: first.code, ignoredBlocks: python.length - 1, kept };
  }
  if (!/^\s{0,3}(`{3,}|~{3,})/m.test(text) && looksLikePython(text)) {
    return { code: text.trim(), ignoredBlocks: 0, kept: null };
  }
  return null;
}

/** Block statements: the line must end with a colon (a comment may follow). */
const BLOCK = /^(for|while|if|elif|else|try|except|finally|with|def|class|async)\b.*:\s*(#.*)?$/;
const SIMPLE =
  /^(import\s+[\w.]+|from\s+[\w.]+\s+import\b|return\b|raise\b|assert\s|del\s|pass$|break$|continue$|global\s|nonlocal\s|await\s)/;
/** A name, attribute or subscript chain, then a call or an assignment. */
const EXPRESSION = /^[A-Za-z_][\w.]*(\[[^\]]*\])*\s*(\(|=|\+=|-=|\*=|\/=)/;

/**
 * True when every line of the text reads as a Python statement (or a comment, or a continuation
 * inside open brackets), so prose is never sent to the world as code. A heuristic, not a parser:
 * AppWorld reports the syntax errors of whatever does get through, like any other output.
 */
export function looksLikePython(text: string): boolean {
  let depth = 0;
  let statements = 0;
  for (const raw of text.trim().split(/\r?\n/)) {
    const line = raw.trim();
    const continuing = depth > 0 || /^[)\]}]/.test(line);
    depth = Math.max(0, depth + bracketBalance(line));
    if (line === '' || line.startsWith('#') || continuing) continue;
    if (!(BLOCK.test(line) || SIMPLE.test(line) || EXPRESSION.test(line))) return false;
    statements++;
  }
  return statements > 0;
}

/** Opening minus closing brackets outside string literals (enough for line continuation). */
function bracketBalance(line: string): number {
  let balance = 0;
  let quote: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = null;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '#') break;
    else if (c === '(' || c === '[' || c === '{') balance++;
    else if (c === ')' || c === ']' || c === '}') balance--;
  }
  return balance;
}
