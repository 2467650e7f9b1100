"""A run-time comparison used as a number is a Python bool (0 or 1) in every builtin that takes a
number, and bool(n) is n != 0: int(n > 1), bool(n), max(n > 3, 0), (n == 2) * 7, min/abs of
conditions, checked against Python on the same values (issue 10: int(n > 1) said "not 'RCond'",
bool(n) returned n itself); a comparison passed to an asc API is its 0/1 value, and indexes a tensor as 0/1."""
import numpy as np
import pytest

import asc
from pyasc.compiler.errors import CompileError

pytestmark = pytest.mark.libasc


@asc.jit
def conds(z: asc.GlobalAddress, n: int):
    zg = asc.GlobalTensor()
    zg.set_global_buffer(z)
    zg.set_value(0, int(n > 1))
    zg.set_value(1, bool(n))
    zg.set_value(2, bool(n) * 3 + int(n <= 2) * 10)
    zg.set_value(3, max(n > 3, 0) + min(n != 5, 1) * 100)
    zg.set_value(4, abs(n == 2) + (n == 2) * 7)
    zg.set_value(5, int(not n) + bool(n - 5))
    zg.set_value(6, n > 1)                  # an API's scalar operand
    h = zg[n > 2]                           # a tensor index
    h.set_value(7, 5)


def _py(n):
    return [int(n > 1), int(bool(n)), bool(n) * 3 + int(n <= 2) * 10, max(n > 3, 0) + min(n != 5, 1) * 100,
            abs(n == 2) + (n == 2) * 7, int(not n) + int(bool(n - 5))]


@pytest.mark.parametrize("n", [0, 1, 2, 3, 5, -4, 1 << 40])
def test_comparisons_as_numbers(n):
    z = np.full(10, -1, np.int64)
    conds[1](z, n)
    want = np.full(10, -1, np.int64)
    want[:6] = _py(n)
    want[6] = int(n > 1)
    want[7 + int(n > 2)] = 5
    assert list(z) == list(want), (n, list(z))


@asc.jit
def f(z: asc.GlobalAddress, n: int):
    m = float(n > 1)  # line 47


def test_float_of_a_comparison_is_an_error_at_the_line():
    with pytest.raises(CompileError) as e:
        f[1](np.zeros(4, np.int64), 3)
    assert "test_cond_int.py:47:9: error: " in str(e.value) and "float() of a run-time integer is not supported" in str(e.value)
