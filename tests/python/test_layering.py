"""The pyasc package layering (python/pyasc/compiler/__init__.py LAYERS), checked on the source:
every import of every module, including those inside function bodies, goes to a layer the
table allows; and no module of the compiler or the language keeps mutable module state (the
builder used to be a module-level stack)."""
import ast
import os

import pytest

from pyasc.compiler import LAYERS

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PKG = os.path.join(ROOT, "python", "pyasc")


def _modules():
    out = []
    for d, subdirs, files in os.walk(PKG):
        subdirs[:] = sorted(s for s in subdirs if s != "__pycache__")
        for f in sorted(files):
            if f.endswith(".py"):
                rel = os.path.relpath(os.path.join(d, f), os.path.dirname(PKG))[:-3].split(os.sep)
                is_pkg = rel[-1] == "__init__"
                name = ".".join(rel[:-1] if is_pkg else rel)
                out.append((name, is_pkg, os.path.join(d, f)))
    return out


MODULES = _modules()
NAMES = {m for m, _, _ in MODULES}


def _imports(name, is_pkg, tree):
    """(line, absolute pyasc module) of every import in the tree, at any depth."""
    base = name.split(".") if is_pkg else name.split(".")[:-1]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                yield node.lineno, a.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                mod = ".".join(base[:len(base) - node.level + 1] + ([node.module] if node.module else []))
            else:
                mod = node.module
            subs = [f"{mod}.{a.name}" for a in node.names if f"{mod}.{a.name}" in NAMES]
            for m in subs or [mod]:
                yield node.lineno, m


def _within(mod, prefix):
    return mod == prefix or mod.startswith(prefix + ".")


def _layer(mod):
    return max((k for k in LAYERS if _within(mod, k)), key=len)


def test_layer_table_covers_every_module():
    for m, _, _ in MODULES:
        assert _layer(m), m
    for k, allowed in LAYERS.items():
        for a in allowed:
            assert any(_within(m, a) for m in NAMES), f"LAYERS names {a}, which is no module"


@pytest.mark.parametrize("name,is_pkg,path", MODULES, ids=[m for m, _, _ in MODULES])
def test_imports_go_down_only(name, is_pkg, path):
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    key = _layer(name)
    own = key if key != "pyasc.compiler" else name
    bad = []
    for line, mod in _imports(name, is_pkg, tree):
        if not _within(mod, "pyasc"):
            continue
        if mod == "pyasc.compiler" and name != "pyasc.compiler":
            continue   # the package itself (LAYERS); importing a submodule runs it anyway
        if _within(mod, own) or any(_within(mod, a) for a in LAYERS[key]):
            continue
        bad.append(f"{os.path.relpath(path, ROOT)}:{line}: {name} ({key}) imports {mod}")
    assert not bad, "upward imports:\n" + "\n".join(bad)


_MUTATORS = {"append", "extend", "insert", "pop", "popitem", "clear", "update", "add", "remove", "discard",
             "setdefault"}


@pytest.mark.parametrize("name,is_pkg,path", [m for m in MODULES if m[0].startswith(("pyasc.compiler",
                                                                                      "pyasc.language"))],
                         ids=[m for m, _, _ in MODULES if m.startswith(("pyasc.compiler", "pyasc.language"))])
def test_no_mutable_module_state(name, is_pkg, path):
    """Compiler and language modules keep no state between compilations: no `global`, no
    contextvars/threading.local, no function mutating a module-level container, no Builder
    made at module level (the driver makes one per compilation)."""
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    where = os.path.relpath(path, ROOT)
    containers = set()
    for stmt in tree.body:
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target] if isinstance(
            stmt, ast.AnnAssign) and stmt.value is not None else []
        for t in targets:
            if isinstance(t, ast.Name):
                containers.add(t.id)
        for n in ast.walk(stmt):
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "Builder" \
                    and not isinstance(stmt, (ast.FunctionDef, ast.ClassDef)):
                pytest.fail(f"{where}:{n.lineno}: a Builder made at module level")
    for n in ast.walk(tree):
        if isinstance(n, (ast.Global, ast.Nonlocal)) and isinstance(n, ast.Global):
            pytest.fail(f"{where}:{n.lineno}: 'global' (module state written by a function)")
        if isinstance(n, (ast.Import, ast.ImportFrom)):
            names = [a.name for a in n.names] + [getattr(n, "module", None) or ""]
            if any(x in ("contextvars", "threading") for x in names):
                pytest.fail(f"{where}:{n.lineno}: contextvars/threading (hidden per-thread state)")
    for fn in ast.walk(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for n in ast.walk(fn):
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in _MUTATORS \
                    and isinstance(n.func.value, ast.Name) and n.func.value.id in containers:
                pytest.fail(f"{where}:{n.lineno}: {fn.name} mutates module-level {n.func.value.id}")
            if isinstance(n, (ast.Assign, ast.AugAssign, ast.Delete)):
                for t in (n.targets if isinstance(n, (ast.Assign, ast.Delete)) else [n.target]):
                    if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id in containers:
                        pytest.fail(f"{where}:{n.lineno}: {fn.name} writes into module-level {t.value.id}")


def test_builder_is_not_module_state():
    from pyasc.compiler import builder
    assert not hasattr(builder, "current") and not hasattr(builder, "_CURRENT")
