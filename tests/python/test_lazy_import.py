"""`import pyasc` loads names on first use (pyasc/__init__.py, PEP 562): each name loaded alone
is the very object the whole namespace binds, every name is still there, and neither the import
nor a launch served from the compile cache loads the compiler proper or the kernel language's
operations (bench/README.md "Session 3b")."""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HEAVY = ("pyasc.compiler.driver", "pyasc.compiler.frontend", "pyasc.compiler.regalloc", "pyasc.compiler.codegen",
         "pyasc.compiler.simt", "pyasc.language.ops", "pyasc.host", "pyasc.script", "pyasc.adv")


def _py(code, **env):
    e = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"), **env)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=e, timeout=300)
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_light_names_are_the_full_namespace_objects():
    out = _py("import pyasc, sys\n"
              "light = {n: getattr(pyasc, n) for n in pyasc._LIGHT}\n"
              f"heavy = [m for m in {HEAVY!r} if m in sys.modules]\n"
              "pyasc._load_all()\n"
              "import pyasc._full as f\n"
              "bad = [n for n, v in light.items() if v is not getattr(pyasc, n) or v is not getattr(f, n)]\n"
              "missing = [n for n in vars(f) if not n.startswith('__') and getattr(pyasc, n) is not vars(f)[n]]\n"
              "print(heavy, bad, missing, len(pyasc.__all__) > 250, 'add' in dir(pyasc))")
    assert out.split() == ["[]", "[]", "[]", "True", "True"], out


def test_asc_alias_and_star_import():
    out = _py("import asc, pyasc\nfrom asc import *\nimport asc.lib.runtime as rt\n"
              "print(asc is pyasc, reduce_max is pyasc.reduce_max, asc.lib.runtime is rt, float32 is pyasc.float32)")
    assert out.split() == ["True"] * 4, out


def test_cache_hit_launch_loads_no_compiler(tmp_path):
    code = ("import sys, numpy as np\n"
            f"sys.path.insert(0, {os.path.join(ROOT, 'kernels', 'pyasc')!r})\n"
            "import softmax\n"
            "x = (np.arange(2 * 1024, dtype=np.float32).reshape(2, 1024) % 7)\n"
            "y = np.zeros_like(x)\n"
            "r = softmax.softmax_rows[2](x, y, 1)\n"
            f"print(r.cycles, float(np.abs(y - softmax.reference(x)).max()) < 1e-5, [m for m in {HEAVY!r} if m in sys.modules])")
    env = {"PYASC_CACHE_DIR": str(tmp_path)}
    cold = _py(code, **env).split(" ", 2)
    hot = _py(code, **env).split(" ", 2)
    assert cold[:2] == hot[:2] and cold[1] == "True", (cold, hot)
    assert "pyasc.compiler.driver" in cold[2]
    assert hot[2].strip() == "[]", hot
