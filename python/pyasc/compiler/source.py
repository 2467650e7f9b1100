"""The Python source of an @asc.jit function, which the compiler parses (it compiles the AST,
never the bytecode).

Users: compiler.frontend and compiler.simt (the functions they parse), runtime.jit (the compile
cache keys on the source).

Python keeps the source of a function defined in a file.  For the other places a function can
be defined:
- `python3 -c "..."`: the command string is in `sys.orig_argv`; its functions carry the file name
  `<string>`.  The string is registered in `linecache` under that name (as Python's own REPL does
  for its input from 3.13 on) once it is checked to be where the function came from: the
  function's code object must equal the one compiling the string gives at the same name and first
  line (bytecode, names and constants), so a function made by `exec(...)` in such a process,
  which carries the same file name, is never given the command's text;
- `exec(...)` of a string, the interactive prompt of Python 3.11/3.12 (`<stdin>`): no source
  exists; the error names the function, where it was defined and the rule.
"""
from __future__ import annotations

import inspect
import linecache
import sys
import types

from .errors import CompileError
from .ir import Loc

_DASH_C = "<string>"   # co_filename of code compiled from `python -c` (and exec's default)


def _command_string():
    """The text of `python -c TEXT`, or None."""
    argv = getattr(sys, "orig_argv", None) or []
    for i, a in enumerate(argv[1:-1], 1):
        if a == "-c":
            return argv[i + 1]
        if not a.startswith("-") or a == "-m":
            return None          # a script or a module: no -c
        if a.startswith("-c") and len(a) > 2:
            return a[2:]
    return None


def _same_code(a: types.CodeType, b: types.CodeType) -> bool:
    if (a.co_code, a.co_names, a.co_varnames, a.co_name, a.co_firstlineno) != \
            (b.co_code, b.co_names, b.co_varnames, b.co_name, b.co_firstlineno):
        return False
    ca, cb = a.co_consts, b.co_consts
    if len(ca) != len(cb):
        return False
    for x, y in zip(ca, cb):
        if isinstance(x, types.CodeType) != isinstance(y, types.CodeType):
            return False
        if isinstance(x, types.CodeType):
            if not _same_code(x, y):
                return False
        elif type(x) is not type(y) or x != y:
            return False
    return True


def _codes(code: types.CodeType):
    yield code
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            yield from _codes(c)


def _from_command(fn) -> bool:
    """Whether fn was defined by the `python -c` string, checked on its code object; registers
    the string in linecache when it was."""
    text = _command_string()
    if text is None:
        return False
    try:
        top = compile(text, _DASH_C, "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return False
    code = fn.__code__
    if not any(c.co_name == code.co_name and c.co_firstlineno == code.co_firstlineno and _same_code(c, code)
               for c in _codes(top)):
        return False
    lines = text.splitlines(True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    linecache.cache[_DASH_C] = (len(text), None, lines, _DASH_C)
    return True


def _unavailable(fn, why: str) -> CompileError:
    code = getattr(fn, "__code__", None)
    file = code.co_filename if code else "?"
    line = code.co_firstlineno if code else 0
    # no Loc for a '<...>' pseudo-file: linecache may hold another text under that name, and an
    # excerpt of it would be a wrong line
    pseudo = file.startswith("<") and file.endswith(">")
    return CompileError(f"cannot read the Python source of '{fn.__name__}' (defined at {file}, line {line}): "
                        f"@asc.jit compiles a kernel from its source text, and Python keeps none for a function "
                        f"made by exec() or typed at the interactive prompt ({why}); define the kernel in a .py "
                        f"file (or in `python3 -c`) and import or run it from there",
                        Loc(file, line, 1) if code and line and not pseudo else None)


def source_lines(fn):
    """(lines, first line number) of fn's definition, as inspect.getsourcelines; a CompileError
    naming the function, its file and the rule when Python has no source for it."""
    code = getattr(fn, "__code__", None)
    if code is None:
        raise CompileError(f"asc.jit: {getattr(fn, '__name__', fn)!r} is not a Python function (a builtin or "
                           f"C function has no Python source to compile): decorate a `def` function")
    if code.co_filename == _DASH_C and not _from_command(fn):
        # a '<string>' function that the -c text did not define: whatever linecache holds under
        # that name (another exec, an earlier registration) is not its source
        raise _unavailable(fn, "it was compiled from a string")
    try:
        return inspect.getsourcelines(fn)
    except (OSError, TypeError) as e:
        raise _unavailable(fn, str(e)) from None


def module_source(fn) -> str:
    """The text the compile cache keys on: fn's module source when Python has it (module-level
    helpers and constants shape the code), else fn's own source."""
    if getattr(fn, "__code__", None) is None:
        source_lines(fn)       # a builtin or C function: the CompileError naming it
    if fn.__code__.co_filename != _DASH_C:
        try:
            return inspect.getsource(inspect.getmodule(fn))
        except (OSError, TypeError):
            pass
    lines, _ = source_lines(fn)
    if fn.__code__.co_filename == _DASH_C:
        return "".join(linecache.getlines(_DASH_C)) or "".join(lines)
    return "".join(lines)
