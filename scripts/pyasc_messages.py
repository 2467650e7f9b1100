#!/usr/bin/env python3
"""pyasc's user-facing messages against docs/errors.md.

Every `raise SomeError("text ...")` (and `b.error(...)`, `CompileError(...)`, `LaunchError(...)`,
an AscendError subclass, ... built anywhere) in python/pyasc whose message starts as a literal
string or f-string is a *message site*.  A site is catalogued when the longest literal run of its
text (between the f-string's holes) appears in the message column of some `| pyasc |` row of
docs/errors.md (each row there is run by tests/python/test_errors_doc.py and checks the text).
Sites whose message is computed elsewhere (a variable, a helper's return value) are counted as
`dynamic`; their text is catalogued at the helper that builds it.  `internal` sites are not user
errors and need no row: a compiler bug's own wording ("internal: ...") and libasc running out of
memory.

    scripts/pyasc_messages.py            list every site, catalogued or not (file:line: text)
    scripts/pyasc_messages.py --check    exit 1 when a diagnostic of isa/asc_diag.def is in no
                                         `| asc-...` row (by its format's longest literal run)
                                         and not named under "Not in the table:"; or when a
                                         pyasc site is neither catalogued nor in
                                         tests/python/errors_uncatalogued.txt, or when that
                                         file lists a site that is catalogued now or gone
                                         (the list only shrinks); CTest errors_doc runs it
    scripts/pyasc_messages.py --update   rewrite errors_uncatalogued.txt from the current sites

The uncatalogued list holds `file: text` lines (no line numbers, so edits elsewhere in a file
do not churn it).
"""
import ast
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PKG = os.path.join(ROOT, "python", "pyasc")
DOC = os.path.join(ROOT, "docs", "errors.md")
BASELINE = os.path.join(ROOT, "tests", "python", "errors_uncatalogued.txt")
HOLE = "\x00"
# the calls that build a user-facing error: exception classes by name, and Builder.error
_ERRORISH = re.compile(r"(Error|Fault|Exception|Race|Mismatch|Missing|NotFound|Interrupt)$")


def _text(node):
    """The message of an expression: literal text with HOLE for every computed part, or None
    when the expression is not built from string literals."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else HOLE for v in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        a, b = _text(node.left), _text(node.right)
        if a is None and b is None:
            return None
        return (a if a is not None else HOLE) + (b if b is not None else HOLE)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):   # "..." % (...)
        a = _text(node.left)
        return None if a is None else re.sub(r"%[-+ #0-9.]*[a-zA-Z]", HOLE, a)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format":
        a = _text(node.func.value)
        return None if a is None else re.sub(r"\{[^}]*\}", HOLE, a)
    return None


def _callee(call):
    f = call.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""


def sites():
    """[(relpath, line, text or None)] of every message site, in file order."""
    out = []
    for d, subdirs, files in os.walk(PKG):
        subdirs[:] = sorted(s for s in subdirs if s != "__pycache__")
        for f in sorted(files):
            if not f.endswith(".py"):
                continue
            path = os.path.join(d, f)
            rel = os.path.relpath(path, ROOT)
            with open(path, encoding="utf-8") as fh:
                tree = ast.parse(fh.read(), path)
            seen = set()
            for node in ast.walk(tree):
                call = None
                if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call):
                    call = node.exc
                elif isinstance(node, ast.Call) and (_callee(node) == "error" or _ERRORISH.search(_callee(node))):
                    call = node
                if call is None or id(call) in seen:
                    continue
                seen.add(id(call))
                name = _callee(call)
                if not (name == "error" or _ERRORISH.search(name)):
                    continue
                if not call.args:
                    continue
                text = _text(call.args[0])
                if text is None and isinstance(call.args[0], (ast.Name, ast.Attribute, ast.Call)):
                    out.append((rel, call.lineno, None))
                    continue
                if text is not None:
                    out.append((rel, call.lineno, text))
    out.sort(key=lambda s: (s[0], s[1]))
    return out


def key(text):
    """The longest literal run of a message (what a row must contain)."""
    return max(text.split(HOLE), key=len).strip()


def doc_messages():
    with open(DOC, encoding="utf-8") as f:
        lines = f.read().splitlines()
    out = []
    for ln in lines:
        if not ln.startswith("| pyasc |"):
            continue
        m = re.search(r"\| (?:``(.*)``|`(.*)`) \|$", ln)
        if m:
            out.append(m[1] or m[2])
    return out


# not user errors: a compiler bug's own wording ("internal: ...", caught and reported as "internal
# compiler error" at the line being compiled) and the host running out of memory inside libasc
_INTERNAL = re.compile(r"^internal\b|: out of memory$|^asc_asm_new failed$")


def internal(text):
    return bool(_INTERNAL.search(text.replace(HOLE, "")))


def catalogued(text, msgs):
    k = key(text)
    if len(k) < 8:
        # too little literal text to find: the whole template must match a row
        pat = ".*".join(re.escape(p) for p in text.split(HOLE))
        return any(re.search(pat, m) for m in msgs)
    return any(k in m for m in msgs)


def c_uncatalogued():
    """The diagnostics of isa/asc_diag.def (the C library's every message) that no `| asc-...` row
    of docs/errors.md shows (by the longest literal run of the format) and that the paragraph
    "Not in the table:" does not name as `ID`."""
    with open(os.path.join(ROOT, "isa", "asc_diag.def"), encoding="utf-8") as f:
        defs = f.read()
    with open(DOC, encoding="utf-8") as f:
        doc = f.read()
    table = doc.split("<!-- errors:begin -->")[1].split("<!-- errors:end -->")[0]
    msgs = [m[1] for m in (re.search(r"\| `(.*)` \|$", ln) for ln in table.splitlines() if ln.startswith("| asc-"))
            if m]
    named = doc.split("Not in the table:")[1].split("\n\n")[0]
    out = []
    for ident, fmt in re.findall(r'^ASC_DIAG\((\w+),\s*\w+,\s*"((?:[^"\\]|\\.)*)"\)', defs, re.M):
        text = re.sub(r"%[-+ #0-9.]*(?:ll|l|z)?[a-zA-Z]", HOLE, fmt.replace('\\"', '"'))
        if not catalogued(text, msgs) and f"`{ident}`" not in named:
            out.append((ident, fmt))
    return out


def shown(text):
    return text.replace(HOLE, "{}").replace("\n", "\\n")


def main(argv):
    msgs = doc_messages()
    ss = sites()
    inner = [s for s in ss if s[2] is not None and internal(s[2])]
    static = [s for s in ss if s[2] is not None and not internal(s[2])]
    missing = [s for s in static if not catalogued(s[2], msgs)]
    if "--update" in argv:
        with open(BASELINE, "w", encoding="utf-8") as f:
            f.write("# pyasc message sites not yet in docs/errors.md (scripts/pyasc_messages.py --update);\n"
                    "# errors_doc fails on a site neither catalogued nor listed here, and on a line here\n"
                    "# that is catalogued now or gone: catalogue a site, then delete its line.\n")
            for line in sorted({f"{r}: {shown(t)}" for r, _, t in missing}):
                f.write(line + "\n")
        print(f"{len(missing)} uncatalogued site(s) written to {os.path.relpath(BASELINE, ROOT)}")
        return 0
    if "--check" in argv:
        with open(BASELINE, encoding="utf-8") as f:
            base = {ln.rstrip("\n") for ln in f if ln.strip() and not ln.startswith("#")}
        now = {f"{r}: {shown(t)}": (r, n) for r, n, t in missing}
        new = sorted(k for k in now if k not in base)
        stale = sorted(base - set(now))
        for k in new:
            r, n = now[k]
            print(f"{r}:{n}: uncatalogued pyasc message (add a docs/errors.md row and a test): {k.split(': ', 1)[1]}")
        for k in stale:
            print(f"{os.path.relpath(BASELINE, ROOT)}: '{k}' is catalogued now or gone: delete the line")
        print(f"pyasc messages: {len(static)} sites with literal text ({len(static) - len(missing)} catalogued, "
              f"{len(missing)} listed as not yet), {len(inner)} internal, {len(ss) - len(static) - len(inner)} dynamic; "
              f"{len(new)} new uncatalogued, {len(stale)} stale")
        cmiss = c_uncatalogued()
        for ident, fmt in cmiss:
            print(f"isa/asc_diag.def: diagnostic {ident} (\"{fmt}\") is in no docs/errors.md row and not named "
                  f"under 'Not in the table:'")
        print(f"C diagnostics: {len(cmiss)} uncatalogued")
        return 1 if new or stale or cmiss else 0
    for r, n, t in ss:
        mark = "dynamic" if t is None else "internal" if internal(t) else "ok" if catalogued(t, msgs) else "MISSING"
        print(f"{r}:{n}: {mark}: {shown(t) if t is not None else ''}")
    print(f"{len(static)} sites, {len(static) - len(missing)} catalogued, {len(missing)} not, "
          f"{len(inner)} internal, {len(ss) - len(static) - len(inner)} dynamic")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
