"""Which libasc pyasc loads: $ASC_LIB, else the library scripts/install.sh
recorded, else the checkout's build/libasc.so; never the newest build*/ (the sanitizer build after
scripts/test.sh), never a sanitizer build; a library built from other headers than the
package's abi.json is a clear AbiMismatch.  Each case runs a copy of the package in a fake
checkout, in a fresh interpreter."""
import os
import shutil
import subprocess
import sys
import time

import pytest

from pyasc import _libasc

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PROBE = ("import pyasc._libasc as L\n"
         "try:\n    print('OK', L.lib()._path)\n"
         "except Exception as e:\n    print('ERR', type(e).__name__, e)\n")


@pytest.fixture
def checkout(tmp_path):
    """A checkout with python/pyasc, a release build/ (the real library) and a newer build-asan/
    whose libasc.so is not loadable (as an ASan one is not)."""
    shutil.copytree(os.path.join(ROOT, "python", "pyasc"), tmp_path / "python" / "pyasc",
                    ignore=shutil.ignore_patterns("__pycache__", "libasc.path"))
    real = _libasc.lib()._path
    (tmp_path / "build").mkdir()
    os.symlink(real, tmp_path / "build" / "libasc.so")
    (tmp_path / "build" / "CMakeCache.txt").write_text("ASC_SANITIZE:BOOL=OFF\n")
    (tmp_path / "build-asan").mkdir()
    (tmp_path / "build-asan" / "libasc.so").write_bytes(b"not a library: the sanitizer build\n")
    (tmp_path / "build-asan" / "CMakeCache.txt").write_text("ASC_SANITIZE:BOOL=ON\n")
    later = time.time() + 60
    os.utime(tmp_path / "build-asan" / "libasc.so", (later, later))
    return tmp_path


def probe(root, **env):
    e = {k: v for k, v in os.environ.items() if k not in ("ASC_LIB", "PYTHONPATH")}
    e.update(PYTHONPATH=str(root / "python"), **env)
    out = subprocess.run([sys.executable, "-c", PROBE], cwd=str(root), env=e, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def test_newest_build_is_not_picked(checkout):
    assert probe(checkout) == f"OK {checkout / 'build' / 'libasc.so'}"


def test_recorded_library_and_asc_lib_win(checkout, tmp_path_factory):
    other = tmp_path_factory.mktemp("elsewhere")
    os.symlink(_libasc.lib()._path, other / "libasc.so")
    rec = checkout / "python" / "pyasc" / "libasc.path"
    rec.write_text(str(other / "libasc.so") + "\n")
    assert probe(checkout) == f"OK {other / 'libasc.so'}"
    assert probe(checkout, ASC_LIB=str(checkout / "build" / "libasc.so")) == f"OK {checkout / 'build' / 'libasc.so'}"
    os.unlink(other / "libasc.so")
    out = probe(checkout)
    assert out.startswith("ERR LibascMissing") and "libasc.path" in out and "install.sh" in out


def test_sanitizer_build_is_refused(checkout):
    (checkout / "build" / "CMakeCache.txt").write_text("ASC_SANITIZE:BOOL=ON\n")
    out = probe(checkout)
    assert out.startswith("ERR LibascMissing") and "sanitizer build" in out and "ASC_LIB" in out


def test_missing_library_says_how_to_build(checkout):
    os.unlink(checkout / "build" / "libasc.so")
    out = probe(checkout)
    assert out.startswith("ERR LibascMissing") and "scripts/build.sh" in out


def test_abi_mismatch_is_a_clear_error(checkout):
    p = checkout / "python" / "pyasc" / "abi.json"
    p.write_bytes(p.read_bytes().replace(b'"version": 1,', b'"version": 1, ', 1))   # another abi.json
    out = probe(checkout)
    assert out.startswith("ERR AbiMismatch") and "does not match this pyasc" in out and "abi.json" in out
