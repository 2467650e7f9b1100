"""scripts/install.sh: after it, Debian's python imports pyasc and asc from any
directory with no PYTHONPATH, loads the library it recorded, and `pyasc` runs; running it again
changes nothing, and a clone elsewhere that runs it takes over.  Run on copies of the checkout
with temporary site and bin directories, so the test installs nothing on the machine."""
import os
import shutil
import subprocess

import numpy as np

from pyasc import _libasc

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PY = "/usr/bin/python3"
_NUMPY_DIR = os.path.dirname(os.path.dirname(np.__file__))


def _clone(dst):
    shutil.copytree(os.path.join(ROOT, "python"), dst / "python",
                    ignore=shutil.ignore_patterns("__pycache__", "libasc.path"))
    (dst / "scripts").mkdir()
    shutil.copy(os.path.join(ROOT, "scripts", "install.sh"), dst / "scripts")
    (dst / "build").mkdir()
    os.symlink(_libasc.lib()._path, dst / "build" / "libasc.so")
    return dst


def _env(tmp):
    e = {k: v for k, v in os.environ.items() if k not in ("ASC_LIB", "PYTHONPATH")}
    e.update(ASC_INSTALL_SITE=str(tmp / "site"), ASC_INSTALL_BIN=str(tmp / "bin"))
    return e


def _install(clone, tmp):
    r = subprocess.run(["bash", str(clone / "scripts" / "install.sh")], env=_env(tmp), capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return {p: p.read_bytes() for p in sorted((tmp / "site").iterdir()) + sorted((tmp / "bin").iterdir())}


def _import(tmp, cwd):
    # the site directory stands for Debian's dist-packages: python processes its .pth files.  -S
    # keeps the machine's own site directories out (after the README's first command they hold
    # a real asc-pyasc.pth naming that checkout); numpy's directory is added as a plain path.
    code = (f"import sys, site; sys.path.append({_NUMPY_DIR!r}); site.addsitedir({str(tmp / 'site')!r}); "
            "import pyasc, asc, pyasc._libasc as L; print(pyasc.__file__); print(L.lib()._path); print(asc is pyasc)")
    r = subprocess.run([PY, "-S", "-c", code], cwd=str(cwd), env=_env(tmp), capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    return r.stdout.split("\n")[:3]


def test_install_makes_pyasc_importable_and_a_command(tmp_path):
    a = _clone(tmp_path / "a")
    first = _install(a, tmp_path)
    assert set(p.name for p in first) == {"asc-pyasc.pth", "pyasc"}
    assert _import(tmp_path, tmp_path) == [str(a / "python" / "pyasc" / "__init__.py"),
                                           str(a / "build" / "libasc.so"), "True"]
    r = subprocess.run([str(tmp_path / "bin" / "pyasc"), "--help"], cwd=str(tmp_path), env=_env(tmp_path),
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and "compile" in r.stdout, r.stderr
    assert _install(a, tmp_path) == first                                  # idempotent
    b = _clone(tmp_path / "b")                                             # a fresh clone elsewhere
    _install(b, tmp_path)
    assert _import(tmp_path, tmp_path)[:2] == [str(b / "python" / "pyasc" / "__init__.py"),
                                               str(b / "build" / "libasc.so")]


def test_install_refuses_a_sanitizer_build(tmp_path):
    a = _clone(tmp_path / "a")
    (a / "build" / "CMakeCache.txt").write_text("ASC_SANITIZE:BOOL=ON\n")
    r = subprocess.run(["bash", str(a / "scripts" / "install.sh")], env=_env(tmp_path), capture_output=True,
                       text=True, timeout=60)
    assert r.returncode != 0 and "sanitizer build" in r.stderr
