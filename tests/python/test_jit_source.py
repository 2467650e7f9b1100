"""Kernels whose source Python does not keep in a file (compiler/source.py): a kernel defined in
`python3 -c "..."` compiles and runs (its errors point at the command's line); one made by
exec() or read from stdin is a CompileError naming the function, where it was defined and the
rule, never a raw OSError from inspect."""
import os
import subprocess
import sys

import numpy as np
import pytest

from pyasc.compiler.errors import CompileError

pytestmark = pytest.mark.libasc
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

ADD = """import asc, numpy as np
@asc.jit(insert_sync=True)
def k(x: asc.GlobalAddress, n: int):
    g = asc.GlobalTensor(); g.set_global_buffer(x)
    a = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 128)
    asc.data_copy(a, g, 128)
    asc.adds(a, a, VALUE, 128)
    asc.data_copy(g, a, 128)
x = np.arange(128, dtype=np.float16)
k[1](x, 128)
print(int(x.sum()))
"""

NO_SOURCE = "cannot read the Python source of 'k' (defined at <string>, line 2): @asc.jit compiles a kernel " \
            "from its source text"


def _py(args, cache, stdin=None):
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"), PYASC_CACHE_DIR=str(cache))
    return subprocess.run([sys.executable, *args], input=stdin, capture_output=True, text=True, env=env,
                          timeout=120)


def test_dash_c_kernel_runs(tmp_path):
    r = _py(["-c", ADD.replace("VALUE", "1.0")], tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == str(sum(range(128)) + 128)


def test_dash_c_cache_keys_on_the_command(tmp_path):
    # the same kernel name and file name ('<string>') with another body must not hit the cache
    outs = [_py(["-c", ADD.replace("VALUE", v)], tmp_path) for v in ("1.0", "2.0", "1.0")]
    assert [o.returncode for o in outs] == [0, 0, 0], [o.stderr for o in outs]
    base = sum(range(128))
    assert [int(o.stdout) for o in outs] == [base + 128, base + 256, base + 128]


def test_dash_c_compile_error_points_at_the_command_line(tmp_path):
    src = "import asc, numpy as np\n@asc.jit\ndef k(x: asc.GlobalAddress, n: int):\n    m = n / 2\n" \
          "k[1](np.zeros(16, np.float16), 16)\n"
    r = _py(["-c", src], tmp_path)
    assert r.returncode == 1
    assert "<string>:4:9: error: '/' on run-time integers is not supported" in r.stderr, r.stderr
    assert "    m = n / 2\n            ^" in r.stderr, r.stderr
    assert "OSError" not in r.stderr


EXEC = "import asc, numpy as np\nexec('''\n@asc.jit\ndef k(x: asc.GlobalAddress, n: int):\n    pass\n''')\n" \
       "k[1](np.zeros(16, np.float16), 16)\n"


def test_exec_inside_dash_c_is_a_clear_error(tmp_path):
    # exec's functions carry '<string>' too: the -c text is not theirs (checked on the code object)
    r = _py(["-c", EXEC], tmp_path)
    assert r.returncode == 1
    assert "CompileError: error: " + NO_SOURCE in r.stderr, r.stderr
    assert "OSError" not in r.stderr and "inspect.py" not in r.stderr


def test_stdin_script_is_a_clear_error(tmp_path):
    src = "import asc, numpy as np\n@asc.jit\ndef k(x: asc.GlobalAddress, n: int):\n    pass\n" \
          "k[1](np.zeros(16, np.float16), 16)\n"
    r = _py(["-"], tmp_path, stdin=src)
    assert r.returncode == 1
    assert "cannot read the Python source of 'k' (defined at <stdin>, line 2)" in r.stderr, r.stderr
    assert "OSError" not in r.stderr


def test_exec_in_process_is_a_compile_error():
    import asc
    env = {"asc": asc}
    exec("@asc.jit\ndef k(x: asc.GlobalAddress, n: int):\n    pass\n", env)
    with pytest.raises(CompileError) as e:
        env["k"][1](np.zeros(16, np.float16), 16)
    assert str(e.value) == "error: " + NO_SOURCE.replace("line 2", "line 1") + \
        ", and Python keeps none for a function made by exec() or typed at the interactive prompt (it was " \
        "compiled from a string); define the kernel in a .py file (or in `python3 -c`) and import or run " \
        "it from there"
    with pytest.raises(CompileError):
        env["k"].asm(np.zeros(16, np.float16), 16)


def test_exec_with_a_file_name_is_a_compile_error():
    import asc
    env = {"asc": asc}
    exec(compile("@asc.jit\ndef k(x: asc.GlobalAddress, n: int):\n    pass\n", "made_up.py", "exec"), env)
    with pytest.raises(CompileError) as e:
        env["k"][1](np.zeros(16, np.float16), 16)
    assert str(e.value).startswith("made_up.py:1:1: error: cannot read the Python source of 'k' "
                                   "(defined at made_up.py, line 1)"), str(e.value)
