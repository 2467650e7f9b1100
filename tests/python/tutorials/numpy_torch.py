"""The few torch calls of real pyasc's tutorials 03-05 host code, on numpy arrays (so the
tutorials run unchanged where torch is not installed): the tensors are numpy arrays with torch's
`.to(dtype)`, the functions numpy's.  Only what those host sides call is here."""
import types

import numpy as np


class Tensor(np.ndarray):
    def to(self, dtype):
        return np.asarray(self).astype(dtype).view(Tensor)


def _t(a):
    return np.asarray(a).view(Tensor)


def module(seed=0):
    rng = np.random.default_rng(seed)
    m = types.ModuleType("torch")
    m.Tensor = Tensor
    m.float16, m.float32, m.bfloat16 = np.float16, np.float32, None
    m.uint8, m.int32 = np.uint8, np.int32
    m.randint = lambda lo, hi, shape, device=None: _t(rng.integers(lo, hi, shape))
    m.zeros = lambda shape, dtype=np.float32, device=None: _t(np.zeros(shape, dtype))
    m.matmul = lambda a, b: _t(np.matmul(np.asarray(a), np.asarray(b)))
    m.allclose = lambda a, b, rtol=1e-5, atol=1e-8: bool(np.allclose(np.asarray(a), np.asarray(b), rtol, atol))
    m.where = lambda c, a, b: _t(np.where(c, a, b))
    return m
