"""pytest setup for pyasc: import from python/, a private compile cache, and the `libasc` mark.

Run with Debian's interpreter: /usr/bin/python3 -m pytest tests/python
pyasc reads target profiles, legality rules and the ABI check through libasc, so compiling a
kernel needs the library as launching does: without one the session stops with the reason
(no test is skipped).  CTest's `pytest` runs it on its own build's libasc.so ($ASC_LIB).
"""
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture(autouse=True)
def _cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("PYASC_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "cache"))


def pytest_collection_modifyitems(config, items):
    from pyasc import _libasc
    try:
        _libasc.lib()
    except (_libasc.LibascMissing, OSError) as e:
        raise pytest.UsageError(f"pyasc needs libasc: {e}") from None


def pytest_configure(config):
    config.addinivalue_line("markers", "libasc: needs build*/libasc.so to assemble or run kernels")
