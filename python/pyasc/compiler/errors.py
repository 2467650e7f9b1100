"""Errors of the pyasc compiler and launcher, all pointing at Python source.

Users: every compiler stage raises CompileError with the Loc of the offending node; the launcher
raises LaunchError (argument checks) and KernelFault (a simulator fault mapped back to the Python
line through the .loc line table).  str(err) is the familiar
    file.py:12:5: error: message
        source line
        ^
so errors read the same as asc-as diagnostics.
"""
from __future__ import annotations

import linecache


def _excerpt(file: str, line: int, col: int) -> str:
    src = linecache.getline(file, line) if file and line else ""
    if not src:
        return ""
    src = src.rstrip("\n")
    caret = " " * max(col - 1, 0) + "^"
    return f"\n    {src}\n    {caret}"


class CompileError(Exception):
    """A kernel that breaks a rule of the language; `loc` is where."""

    def __init__(self, msg: str, loc=None):
        self.msg = msg
        self.loc = loc
        super().__init__(self._text())

    def _text(self) -> str:
        if self.loc is None:
            return f"error: {self.msg}"
        return f"{self.loc.file}:{self.loc.line}:{self.loc.col}: error: {self.msg}" + \
            _excerpt(self.loc.file, self.loc.line, self.loc.col)


class LaunchError(TypeError):
    """Wrong launch: argument count or types, grid, unavailable backend."""


class KernelFault(RuntimeError):
    """The simulator stopped the kernel; the message names the Python line that issued the
    faulting instruction when the line table has it."""

    def __init__(self, msg: str, file: str | None = None, line: int = 0, col: int = 0, report=None):
        self.file, self.line, self.col, self.report = file, line, col, report
        head = f"{file}:{line}:{col}: error: " if file else "error: "
        super().__init__(head + msg + (_excerpt(file, line, col) if file else ""))


class NeedUnroll(Exception):
    """Internal: a loop body needs its loop unrolled so some value becomes static."""

    def __init__(self, msg: str, loc=None):
        super().__init__(msg)
        self.msg, self.loc = msg, loc
