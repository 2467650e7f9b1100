"""Every compile-time error: message, rule and the Python file:line:col it points at."""
import inspect
import os

import numpy as np
import pytest

import asc
import kernels_errors as ke
from pyasc.compiler.driver import ArgSpec

F32 = asc.float32


def _line_of(fn, text):
    src, first = inspect.getsourcelines(fn.fn)
    for i, line in enumerate(src):
        if i >= 2 and text in line:
            return first + i
    raise AssertionError(text)


def _compile(jf, specs):
    return jf.compile(*specs)


INT = [ArgSpec("n", "int")]
GM = [ArgSpec("x", "gm", F32)]

CASES = [
    (ke.e_break, INT, "'break' is not supported", "break"),
    (ke.e_continue, INT, "'continue' is not supported", "continue"),
    (ke.e_global, INT, "'global' statements are not supported", "global CONST"),
    (ke.e_lambda, INT, "lambda expressions are not supported", "lambda"),
    (ke.e_import, INT, "'import' inside an @asc.jit function is not supported", "import math"),
    (ke.e_with, INT, "'with' statements are not supported", "with open"),
    (ke.e_raise, INT, "'raise' is not supported", "raise"),
    (ke.e_try, INT, "'try'/'except' is not supported", "try:"),
    (ke.e_nested, INT, "nested functions are not supported", "def inner"),
    (ke.e_yield, INT, "'yield' is not supported", "yield"),
    (ke.e_return_value, INT, "a kernel cannot return a value", "return n"),
    (ke.e_print, INT, "print is not supported", "print(n)"),
    (ke.e_tensor_plus_int, GM, "Cannot infer dtype for operation 'add' between 'Tensor[float32]' and 'int'",
     "t + 1"),
    (ke.e_add_int, GM, "Cannot infer dtype for operation 'add' between 'Tensor[float32]' and 'int'",
     "asc.add(t, t, 5"),
    (ke.e_add_mixed, GM + [ArgSpec("y", "gm", asc.float16)],
     "Cannot infer dtype for operation 'add' between 'Tensor[float32]' and 'Tensor[float16]'", "asc.add(t, t, u"),
    (ke.e_capacity, GM, "UB capacity exceeded: requested 200 KB, available 184 KB on ascend910b", "init_buffer"),
    (ke.e_isa_dtype, [ArgSpec("x", "gm", asc.int16)], "asc.exp on int16 is not supported by the asc ISA", "asc.exp"),
    (ke.e_barrier_s, INT, "pipe_barrier(PIPE_S): bar s is illegal on every core", "pipe_barrier"),
    (ke.e_event_range, INT, "event id 9 out of range: ascend910b has ids 0..7", "set_flag"),
    (ke.e_runtime_event, INT, "event ids must be compile-time constants", "set_flag"),
    (ke.e_deque_empty, GM, "deque on an empty TQue", "q.deque"),
    (ke.e_undefined, INT, "name 'undefined_name' is not defined", "undefined_name"),
    (ke.e_float_runtime, [ArgSpec("a", "float")], "floating-point arithmetic on run-time values is not supported",
     "a * 2.0"),
    (ke.e_misaligned, GM, "not 32-byte aligned", "LocalTensor(x.dtype, asc.TPosition.VECIN, 4"),
]


@pytest.mark.parametrize("jf,specs,msg,where", CASES, ids=[c[0].__name__ for c in CASES])
def test_compile_errors(jf, specs, msg, where):
    with pytest.raises(asc.CompileError) as ei:
        _compile(jf, specs)
    e = ei.value
    assert msg in str(e)
    assert e.loc is not None and os.path.basename(e.loc.file) == "kernels_errors.py"
    assert e.loc.line == _line_of(jf, where), str(e)
    assert e.loc.col >= 1
    head = str(e).splitlines()[0]
    assert head.startswith(f"{e.loc.file}:{e.loc.line}:{e.loc.col}: error: ")
    assert "^" in str(e)          # the caret line


def test_kernel_in_class():
    with pytest.raises(asc.CompileError, match="inside classes are not supported"):
        ke.Holder.e_in_class.compile(ArgSpec("self", "int"), ArgSpec("n", "int"))


def test_launch_argument_count_and_types():
    from kernels_basic import k_add_count
    x = np.zeros(256, np.float32)
    with pytest.raises(asc.LaunchError, match="takes 3 argument"):
        k_add_count[1](x, x)
    with pytest.raises(asc.LaunchError, match="'y' is a GlobalAddress and needs a numpy array"):
        k_add_count[1](x, 5, x)
    with pytest.raises(asc.LaunchError, match="cannot be passed to a kernel"):
        k_add_count[1](x, np.zeros(4, np.complex64), x)
    with pytest.raises(asc.LaunchError, match="core_num must be a positive integer"):
        k_add_count[0](x, x, x)
    import kernels_basic as kb
    with pytest.raises(asc.LaunchError, match="ConstExpr and must be a Python constant"):
        kb.k_reduce[1](x, x, "reduce_sum", np.zeros(2))


def test_unknown_jit_option():
    with pytest.raises(TypeError, match="unknown option"):
        asc.jit(bogus=1)(lambda: None)
