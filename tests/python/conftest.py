"""pytest setup for pyasc: import from python/, a private compile cache, and the `libasc` mark.

Run with Debian's interpreter: /usr/bin/python3 -m pytest tests/python
Tests that launch kernels need build*/libasc.so (or $ASC_LIB); they skip, saying so, only when
the library has not been built.
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
    if _libasc.available():
        return
    skip = pytest.mark.skip(reason="libasc.so is not built (cmake --build build --target asc_shared)")
    for it in items:
        if "libasc" in it.keywords:
            it.add_marker(skip)


def pytest_configure(config):
    config.addinivalue_line("markers", "libasc: needs build*/libasc.so to assemble or run kernels")
