"""What a launch served from the compile cache imports and builds (the Python side of every
pyasc process): language/enums.py makes each enumeration on first use, language/tensor.py reads
HardEvent through it, and the IR records are no dataclasses, so `import softmax` makes two of the
thirteen enums and imports neither typing nor dataclasses (test_ir_records.py checks those
records; test_lazy_import.py that no compiler is loaded).  The lazily made names are the same
objects whichever way they are reached, pickle, and are listed by dir()."""
import os
import pickle
import subprocess
import sys

import pyasc
from pyasc.language import enums, tensor

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ENUMS = ("TPosition", "PipeID", "HardEvent", "Hardware", "CubeFormat", "MaskMode", "RoundMode", "CMPMODE",
         "SELMODE", "AtomicDtype", "AtomicOp", "LayoutMode", "KernelType")


def _py(code):
    e = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=e, timeout=300)
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_import_makes_only_what_a_cached_launch_needs():
    out = _py("import sys, numpy\n"
              "before = set(sys.modules)\n"
              f"sys.path.insert(0, {os.path.join(ROOT, 'kernels', 'pyasc')!r})\n"
              "import softmax, norm, matmul\n"
              "import pyasc.language.enums as e\n"
              f"made = sorted(n for n in {ENUMS!r} if n in vars(e))\n"
              "print(made, sorted(m for m in ('typing', 'dataclasses') if m in set(sys.modules) - before))")
    assert out.split() == ["['KernelType',", "'TPosition']", "[]"], out


def test_lazy_enums_are_the_namespace_objects():
    from pyasc.language.enums import HardEvent
    from pyasc.language import api
    for n in ENUMS:
        c = getattr(enums, n)
        assert c is getattr(pyasc, n) is vars(enums)[n], n
        assert c.__qualname__ == c.__name__ == n and c.__module__ == "pyasc.language.enums"
        assert pickle.loads(pickle.dumps(list(c))) == list(c)
        assert n in dir(enums)
    assert HardEvent is tensor.HardEvent is api.HardEvent and tensor.POSITION_BUFFER is enums.POSITION_BUFFER
    assert {"HardEvent", "POSITION_BUFFER"} <= set(dir(tensor))
    assert enums.HardEvent.MTE2_V == 4 and repr(enums.HardEvent.FIX_FIX) == "<HardEvent.FIX_FIX: 34>"
    assert enums.event_of("mte2", "v") is enums.HardEvent.MTE2_V
    assert enums.event_pipes(enums.HardEvent.MTE3_MTE2) == ("mte3", "mte2")
    assert enums.PIPE_ISA[enums.PipeID.PIPE_MTE2] == "mte2" and enums.RND_ISA[enums.RoundMode.CAST_RINT] == "rint"
    assert enums.CMP_ISA[enums.CMPMODE.GE] == "ge" and enums.POSITION_BUFFER[enums.TPosition.CO1] == "L0C"
    assert enums.AtomicOp.__doc__.startswith("The store atomic config's op field") and \
        "\n    numbering of what" in enums.AtomicOp.__doc__   # as the module-level class had it


def test_star_imports_take_every_name():
    ns_e, ns_t = {}, {}
    exec("from pyasc.language.enums import *", ns_e)
    exec("from pyasc.language.tensor import *", ns_t)
    assert set(ENUMS) | {"PIPE_ISA", "CMP_ISA", "RND_ISA", "POSITION_BUFFER", "event_of", "event_pipes",
                         "IntEnum"} == set(ns_e) - {"__builtins__"}
    assert all(ns_e[n] is getattr(enums, n) for n in ENUMS)
    assert ns_t["HardEvent"] is enums.HardEvent and ns_t["POSITION_BUFFER"] is enums.POSITION_BUFFER
    assert {"GlobalTensor", "LocalTensor", "TQue", "ConstExpr", "TPosition"} <= set(ns_t)


def test_lazy_enum_made_once_across_threads():
    out = _py("import threading\n"
              "import pyasc.language.enums as e\n"
              "got, go = [], threading.Barrier(8)\n"
              "def take():\n"
              "    go.wait()\n"
              "    got.append(e.LayoutMode)\n"
              "ts = [threading.Thread(target=take) for _ in range(8)]\n"
              "[t.start() for t in ts]; [t.join() for t in ts]\n"
              "print(len(got), all(g is e.LayoutMode for g in got))")
    assert out.split() == ["8", "True"], out


def test_unknown_names_still_raise():
    for mod in (enums, tensor):
        try:
            getattr(mod, "NoSuchName")
        except AttributeError as e:
            assert "NoSuchName" in str(e)
        else:
            raise AssertionError(mod)
