"""Run-time branches over bodies past a conditional branch's reach (isa.json formats.BR.off: 14-bit
word offset, +-32 KB): codegen relaxes them to an inverted short branch over a `j`
(compiler/codegen.py relax_branches); the results equal plain Python.  Kernels whose branches fit
keep their short branches (the whole suite's assembly is unchanged: tests/python/asm_compare.sh)."""
import numpy as np
import pytest

import asc
import asc.runtime.config as config
from pyasc.compiler import codegen, isa

STEPS = 3000        # 3 scalar words per step: ~36 KB of straight-line code


def _steps(acc):
    for j in range(STEPS):
        acc = (acc * 3 + j) & 0xFFF
    return acc


@asc.jit
def long_if(z: asc.GlobalAddress, n: int, v: int):
    zg = asc.GlobalTensor()
    zg.set_global_buffer(z)
    acc = v
    if v > 2:
        for j in asc.static_range(STEPS):
            acc = (acc * 3 + j) & 0xFFF
    else:
        acc = acc + 100
    zg.set_value(0, acc)


@asc.jit
def long_else_and_loop(z: asc.GlobalAddress, n: int, v: int):
    zg = asc.GlobalTensor()
    zg.set_global_buffer(z)
    acc = v
    if v <= 2:
        acc = acc + 100
    else:
        for j in asc.static_range(STEPS):
            acc = (acc * 3 + j) & 0xFFF
    s = v
    for i in range(n):              # the loop's back branch spans the unrolled body
        for j in asc.static_range(STEPS):
            s = (s * 3 + j) & 0xFFF
    zg.set_value(0, acc)
    zg.set_value(1, s)


def _py_long_else_and_loop(n, v):
    acc = v + 100 if v <= 2 else _steps(v)
    s = v
    for _ in range(n):
        s = _steps(s)
    return acc, s


def test_reach_comes_from_the_isa_table():
    lo, hi = isa.table()["formats"]["BR"]["off"]
    assert (lo, hi) == (-(1 << 13) * 4, ((1 << 13) - 1) * 4)
    jlo, jhi = isa.table()["formats"]["J"]["off"]
    assert jhi > hi and jlo < lo


def test_relax_only_far_branches():
    lin = codegen._Lin()
    lin.emit("blt", ["a", "b", "far"])
    lin.emit("bge", ["a", "b", "near"])
    lin.put_label("near")
    for _ in range(9000):
        lin.emit("add", ["a", "a", "b"])
    lin.put_label("far")
    codegen.relax_branches(lin)
    ops = [(i.op, i.ops) for i in lin.code[:5]]
    assert ops[0] == ("bge", ["a", "b", "L1_near"]) and ops[1] == ("j", ["far"])
    assert lin.code[2].label == "L1_near"
    assert ops[3] == ("bge", ["a", "b", "near"])        # in reach: unchanged


@pytest.mark.libasc
@pytest.mark.parametrize("v", [1, 7])
def test_long_if(v):
    config.set_platform(config.Backend.Model)
    z = np.zeros(16, np.int64)
    long_if[1](z, 0, v)
    assert z[0] == (_steps(v) if v > 2 else v + 100)


@pytest.mark.libasc
@pytest.mark.parametrize("n,v", [(0, 7), (2, 1), (3, 9)])
def test_long_else_and_loop(n, v):
    config.set_platform(config.Backend.Model)
    z = np.zeros(16, np.int64)
    long_else_and_loop[1](z, n, v)
    assert tuple(z[:2]) == _py_long_else_and_loop(n, v)
