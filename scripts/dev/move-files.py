#!/usr/bin/env python3
"""Moves source files between folders of src/ and rewrites every relative import that named them
(issue #55). Usage: scripts/dev/move-files.py OLD=NEW ... (paths relative to the repository).

Every specifier in src/, test/ and scripts/ that resolves to a moved file is rewritten to its new
place, and a moved file's own relative imports are rewritten for its new folder. An index.ts line
that re-exported a moved file from another folder is dropped (the file's new folder exports it);
`node scripts/dev/through-index.mjs` then routes the deep imports this leaves through the indexes.
"""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SPEC = re.compile(r"""((?:from|import)\s*\(?\s*)(['"])(\.[^'"]+)\2""")

moves = {}
for arg in sys.argv[1:]:
    old, new = arg.split('=')
    moves[os.path.join(ROOT, old)] = os.path.join(ROOT, new)


def source_files():
    for top in ('src', 'test', 'scripts'):
        for d, _, files in os.walk(os.path.join(ROOT, top)):
            if 'node_modules' in d:
                continue
            for f in files:
                if f.endswith(('.ts', '.mts', '.mjs')):
                    yield os.path.join(d, f)


def target_of(file, spec):
    t = os.path.normpath(os.path.join(os.path.dirname(file), spec))
    return t[:-3] + '.ts' if t.endswith('.js') else t


def spec_to(from_file, target):
    rel = os.path.relpath(target, os.path.dirname(from_file))
    if not rel.startswith('.'):
        rel = './' + rel
    return rel[:-3] + '.js' if rel.endswith('.ts') else rel


for file in list(source_files()):
    text = open(file).read()
    new_place = moves.get(file, file)

    def fix(m):
        target = target_of(file, m.group(3))
        target = moves.get(target, target)
        return f"{m.group(1)}{m.group(2)}{spec_to(new_place, target)}{m.group(2)}"

    out = SPEC.sub(fix, text)
    if os.path.basename(new_place) == 'index.ts':
        folder = os.path.relpath(new_place, os.path.join(ROOT, 'src')).split(os.sep)[0]
        kept = []
        for stmt in re.split(r'(?<=;\n)', out):
            m = re.search(r"^export\b[^;]*from '(\.[^']+)';", stmt, re.M)
            if m and stmt.lstrip().startswith('export'):
                t = os.path.relpath(target_of(new_place, m.group(1)), os.path.join(ROOT, 'src'))
                if t.split(os.sep)[0] != folder and t in [os.path.relpath(v, os.path.join(ROOT, 'src')) for v in moves.values()]:
                    continue
            kept.append(stmt)
        out = ''.join(kept)
    if out != text:
        open(file, 'w').write(out)

for old, new in moves.items():
    os.makedirs(os.path.dirname(new), exist_ok=True)
    subprocess.run(['git', 'mv', old, new], cwd=ROOT, check=True)
print(f'moved {len(moves)} files')
