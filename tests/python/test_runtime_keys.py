"""Run-time values into Python containers and text (docs/errors.md): `{1: 2}.get(n)` used to
compile to the default (n looked up by identity), `[1, 1].count(n)` to 0 and `str(n)`/f"{n}" to
the text "RVal(%n.2)"; each is now an error at its line.  Compile-time keys still fold, and a
list that only stores run-time values still works."""
import importlib.util

import numpy as np
import pytest

import asc


def _kernel(tmp_path, name, body):
    p = tmp_path / f"{name}.py"
    p.write_text("import asc\n\n@asc.jit\ndef k(z: asc.GlobalAddress, n: int):\n"
                 "    zg = asc.GlobalTensor()\n    zg.set_global_buffer(z)\n" + body + "\n")
    sp = importlib.util.spec_from_file_location(name, p)
    m = importlib.util.module_from_spec(sp)
    sp.loader.exec_module(m)
    return m.k, str(p)


@pytest.mark.parametrize("stmt,words", [
    ("v = {1: 2}.get(n, 5)", "dict.get() with a run-time argument"),
    ("v = {1: 2}.get(n)", "dict.get() with a run-time argument"),
    ("v = [1, 2, 3].index(n)", "list.index() with a run-time argument"),
    ("v = [1, 1, 2].count(n)", "list.count() with a run-time argument"),
    ("v = (1, 1, 2).count(n)", "tuple.count() with a run-time argument"),
    ("v = len('{}'.format(n))", "str.format() with a run-time argument"),
    ("v = len(str(n))", "str() of a run-time value"),
    ("v = len(repr(n))", "repr() of a run-time value"),
    ("v = hash(n) & 1", "hash() of a run-time value"),
    ("v = len(f'{n}')", "an f-string of a run-time value"),
    ("v = 7 if n in (1, 2) else 9", "'is'/'in' need compile-time operands"),
    ("v = {1: 2, 3: 4}[n]", "indexing a Python dict needs a compile-time key"),
])
def test_run_time_key_is_an_error_at_its_line(tmp_path, stmt, words):
    k, path = _kernel(tmp_path, "rtkey", f"    {stmt}\n    zg.set_value(0, v)")
    with pytest.raises(asc.CompileError) as ei:
        k[1](np.zeros(8, np.int32), 1)
    assert f"{path}:7:" in str(ei.value) and words in str(ei.value), str(ei.value)


@pytest.mark.parametrize("n", [1, 3, 7])
def test_compile_time_lookups_and_stored_run_time_values(tmp_path, n):
    k, _ = _kernel(tmp_path, "rtkeyok", "    vals = []\n    vals.append(n * 2)\n    vals.insert(0, n + 1)\n"
                   "    zg.set_value(0, {1: 2}.get(3, 5) + [4, 6].index(6))\n"
                   "    zg.set_value(1, vals[0])\n    zg.set_value(2, vals[1])\n"
                   "    zg.set_value(3, len(f'{12}'))")
    z = np.zeros(8, np.int32)
    k[1](z, n)
    assert z[:4].tolist() == [5 + 1, n + 1, n * 2, 2]
