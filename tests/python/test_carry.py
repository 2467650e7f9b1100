"""Values changed inside run-time loops and `if`s are carried from one iteration (or branch) to
what follows, or the kernel is rejected at its line (issue: a list element changed in a run-time
loop kept one iteration's value).  Every kernel of kernels_carry.py runs on the simulator and as
plain Python (the same function with a Python GlobalTensor), for several run-time n and v."""
import inspect
import types

import numpy as np
import pytest

import asc
import asc.runtime.config as config
import kernels_carry as kc
from pyasc.compiler.errors import CompileError

pytestmark = pytest.mark.libasc
SIZE = 16


@pytest.fixture(autouse=True)
def _model():
    config.set_platform(config.Backend.Model)


class _PyGlobalTensor:
    """asc.GlobalTensor for the Python run: set_value/get_value on a numpy array, gm[i:] views."""

    def __init__(self, arr=None, off=0):
        self.arr, self.off = arr, off

    def set_global_buffer(self, a):
        self.arr = a

    def set_value(self, i, e):
        self.arr[self.off + i] = e

    def get_value(self, i):
        return int(self.arr[self.off + i])

    def __getitem__(self, s):
        return _PyGlobalTensor(self.arr, self.off + (s.start if isinstance(s, slice) else s))


def _python(jf, n, v, monkeypatch):
    with monkeypatch.context() as m:
        m.setattr(kc, "asc", types.SimpleNamespace(GlobalTensor=_PyGlobalTensor, range=range,
                                                   static_range=range))
        for name, obj in vars(kc).items():
            if getattr(type(obj), "_asc_inline", False):
                m.setattr(kc, name, obj.fn)
        z = np.zeros(SIZE, np.int64)
        jf.fn(z, n, v)
    return z.tolist()


def _sim(jf, n, v):
    z = np.zeros(SIZE, np.int64)
    jf[1](z, n, v)
    return z.tolist()


KERNELS = [kc.list_acc, kc.lists, kc.branches, kc.tuples_dicts, kc.loops, kc.unrolled, kc.swaps]


@pytest.mark.parametrize("jf", KERNELS, ids=lambda jf: jf.fn.__name__)
def test_simulated_equals_python(jf, monkeypatch):
    for n in (0, 1, 2, 3, 4):
        for v in (1, 6):
            ref = _python(jf, n, v, monkeypatch)
            assert _sim(jf, n, v) == ref, (jf.fn.__name__, n, v, ref)


def test_the_reported_case():
    for n in (0, 1, 3):
        assert _sim(kc.list_acc, n, 5)[:2] == [5 * n, 0]


ERRORS = [
    (kc.e_defined_in_loop, "'w' is first assigned inside a run-time loop", "# error: w"),
    (kc.e_loop_var_after, "'j' is the variable of a run-time loop and cannot be used after it", "# error: j"),
    (kc.e_append_in_loop, "'acc' changes its length inside a run-time loop", "# error: acc"),
    (kc.e_append_in_branch, "'acc' has different lengths after the two branches of a run-time 'if'",
     "# error: acc"),
    (kc.e_tensor_slot_read_first, "'bufs[0]' changes inside a run-time loop, and a value of type "
     "LocalTensor cannot be carried", "# error: bufs"),
    (kc.e_tensor_branch_slot, "'bufs[0]' is assigned differently in the branches of a run-time 'if'",
     "# error: bufs"),
]


@pytest.mark.parametrize("jf,msg,marker", ERRORS, ids=lambda x: getattr(getattr(x, "fn", None), "__name__", ""))
def test_rejected_at_the_line(jf, msg, marker):
    src, first = inspect.getsourcelines(jf.fn)
    line = first + next(i for i, s in enumerate(src) if marker in s)
    with pytest.raises(CompileError) as e:
        jf.asm(np.zeros(SIZE, np.int64), 3, 1)
    assert msg in str(e.value)
    assert f"kernels_carry.py:{line}:" in str(e.value), str(e.value)
