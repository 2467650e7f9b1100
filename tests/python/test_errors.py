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
    (ke.e_return_mid, GM, "a kernel cannot return a value", "return 5"),
    (ke.e_count_huge, GM, "integer constant 1180591620717411303424 does not fit in 64 bits", "2**70"),
    (ke.e_count_huge_vec, GM, "integer constant 1180591620717411303424 does not fit in 64 bits", "2**70"),
    (ke.e_count_float, GM, "asc.data_copy: count must be an integer, got float 64.0", "64.0"),
    (ke.e_count_float_vec, GM, "asc.add: count must be an integer, got float 64.5", "64.5"),
    (ke.e_repeat_float, GM, "asc.add: repeat_times must be an integer, got float 2.5", "2.5"),
    (ke.e_burst_too_long, GM, "DMA config field 'len' value 524288 does not fit in 16 bits", "1 << 22"),
    (ke.e_neg_local_slice, GM, "LocalTensor index -64 is negative", "a[-64:]"),
    (ke.e_neg_local_index, GM, "LocalTensor index -8 is negative", "a[-8]"),
    (ke.e_neg_gm_slice, GM, "GlobalTensor index -64 is negative", "xg[-64:]"),
    (ke.e_slice_past_end, GM, "LocalTensor slice ends at element 512, past the tensor's 256 elements", "a[128:512]"),
    (ke.e_slice_backwards, GM, "LocalTensor slice [64:32] ends before it starts", "a[64:32]"),
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


# A compile error raised by a launch: its traceback ends at the user's call (the kernel's file:line
# is in the message), not 15-30 lines into the compiler; PYASC_DEBUG=1 keeps the compiler's frames.
_SCRIPT = """
import numpy as np
import kernels_errors as ke
x = np.zeros(256, np.float32)
ke.{kernel}[1](x)
"""


def _run_script(kernel, debug):
    import subprocess
    import sys
    env = dict(os.environ)
    here = os.path.dirname(os.path.abspath(__file__))
    env["PYTHONPATH"] = os.pathsep.join([os.path.join(os.path.dirname(os.path.dirname(here)), "python"), here])
    env.pop("PYASC_DEBUG", None)
    if debug:
        env["PYASC_DEBUG"] = "1"
    p = subprocess.run([sys.executable, "-c", _SCRIPT.format(kernel=kernel)], env=env, capture_output=True,
                       text=True, timeout=120)
    assert p.returncode == 1, p.stderr
    return p.stderr.splitlines()


@pytest.mark.parametrize("kernel", ["e_count_huge", "e_count_float", "e_neg_gm_slice", "e_return_mid"])
def test_launch_error_traceback_is_short(kernel):
    lines = _run_script(kernel, debug=False)
    frames = [ln for ln in lines if ln.lstrip().startswith('File "')]
    assert len(frames) == 2, "\n".join(lines)   # the user's launch line and the pyasc entry point
    assert 'File "<string>", line 5' in frames[0]
    assert lines[-3].startswith("pyasc.compiler.errors.CompileError: ") and "kernels_errors.py:" in lines[-3]
    assert len(lines) <= 10, "\n".join(lines)
    assert "During handling" not in "\n".join(lines)
    full = _run_script(kernel, debug=True)
    assert len([ln for ln in full if ln.lstrip().startswith('File "')]) > 2, "\n".join(full)


def test_internal_error_is_a_compile_error(monkeypatch):
    """An exception the compiler does not expect is a CompileError at the line being compiled."""
    from pyasc.compiler import passes
    from pyasc.compiler.driver import compile_kernel
    from kernels_basic import k_add_count
    specs = [ArgSpec(n, "gm", F32) for n in "xyz"]

    def boom(*a, **k):
        raise KeyError("boom")
    monkeypatch.setattr(passes, "const_fold", boom)
    monkeypatch.delenv("PYASC_DEBUG", raising=False)
    with pytest.raises(asc.CompileError, match="internal compiler error: KeyError: 'boom' .PYASC_DEBUG=1"):
        compile_kernel(k_add_count.fn, specs)
    monkeypatch.setenv("PYASC_DEBUG", "1")
    with pytest.raises(KeyError):
        compile_kernel(k_add_count.fn, specs)
