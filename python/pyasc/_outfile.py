"""Safe output files for pyasc's tools, by the rules of asc's C writers (include/asc/outfile.h):
a file is written into a temporary `DIR/.BASE.asc-tmp.PID.RANDOM` created exclusively beside it
(O_CREAT | O_EXCL | O_NOFOLLOW: a planted file or symlink of any name is never written through),
fsynced and renamed into place only when it was written completely; on any exception (including
KeyboardInterrupt, and SIGTERM once a CLI called `terminate_raises()`) the temporary is removed.
A SIGKILLed writer's temporaries carry its dead PID: the next write of the same target removes
them.  Users: pyasc.cli (compile -o, -S, run --save-dir, --report-json), pyasc.script.compile
(bundles), pyasc.runtime.launch (kernel binaries), pyasc.sweep (results, plots).

This module imports nothing of pyasc."""
from __future__ import annotations

import contextlib
import os
import secrets
import signal
import string

_ALPHA = string.ascii_letters


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _remove_stale(d: str, base: str) -> None:
    """`.BASE.asc-tmp.PID.*` entries of d whose PID no longer runs (and that we own)."""
    pre = f".{base}.asc-tmp."
    try:
        names = os.listdir(d)
    except OSError:
        return
    for n in names:
        if not n.startswith(pre):
            continue
        pid = n[len(pre):].split(".", 1)[0]
        if not pid.isdigit() or int(pid) == os.getpid() or _alive(int(pid)):
            continue
        p = os.path.join(d, n)
        try:
            st = os.lstat(p)
            if st.st_uid == os.getuid():
                os.unlink(p)
        except OSError:
            pass


@contextlib.contextmanager
def replacing(path: str, binary: bool = True):
    """`with replacing(path) as f: f.write(...)`: path gets the bytes written, whole, or is left as
    it was (the temporary removed) when the block raises."""
    path = os.fspath(path)
    d, base = os.path.split(os.path.abspath(path))
    _remove_stale(d, base)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        tmp = os.path.join(d, f".{base}.asc-tmp.{os.getpid()}.{''.join(secrets.choice(_ALPHA) for _ in range(12))}")
        try:
            fd = os.open(tmp, flags, 0o666)
            break
        except FileExistsError:
            continue
    else:
        raise FileExistsError(f"internal: 100 random temporary names beside {path} were all taken")   # 52**12 names
    try:
        with os.fdopen(fd, "wb" if binary else "w", **({} if binary else {"encoding": "utf-8", "newline": ""})) as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def write(path: str, data) -> None:
    """The whole of data (bytes or str) as the file path, through replacing()."""
    with replacing(path, binary=isinstance(data, (bytes, bytearray, memoryview))) as f:
        f.write(data)


def terminate_raises() -> None:
    """SIGTERM raises SystemExit(143) in the main thread, so `finally` blocks and replacing()
    remove temporaries as for Ctrl-C (a CLI calls this once)."""
    def _term(signum, frame):
        raise SystemExit(128 + signum)
    with contextlib.suppress(ValueError):        # not the main thread
        signal.signal(signal.SIGTERM, _term)
