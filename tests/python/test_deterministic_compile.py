"""Same kernel, same bytes out, in every process: the compiler's output must not depend on
Python's string hashing (PYTHONHASHSEED is random per process).  The merge of variables after a
run-time `if` (compiler/frontend.py) iterated a set of names, so the values it created, and with
them the register allocation, followed the hash seed: test_review_opt.nested_scalars compiled to
two different programs depending on the seed (found comparing the whole suite's assembly
between two commits, tests/python/asm_compare.sh)."""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CODE = f"""
import hashlib, sys
sys.path.insert(0, {os.path.join(ROOT, 'tests', 'python')!r})
sys.path.insert(0, {os.path.join(ROOT, 'kernels', 'pyasc')!r})
import numpy as np
import test_review_opt as t, softmax
s = np.zeros(8, np.int64)
x = np.zeros(3 * 100, np.float32)
out = []
for lv in (0, 2):
    jf = t.nested_scalars.__class__(t.nested_scalars.fn, always_compile=True, opt_level=lv)
    out.append(jf.asm(s, 1, 20, 5))
    jf = softmax.softmax_kernel.__class__(softmax.softmax_kernel.fn, always_compile=True, opt_level=lv)
    out.append(jf.asm(x, x, np.zeros(8, np.int32), 3, 1, 100))
print(hashlib.sha256("".join(out).encode()).hexdigest())
"""


def test_assembly_does_not_follow_the_hash_seed():
    got = {}
    for seed in ("0", "1", "2", "3", "4"):
        e = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"), PYTHONHASHSEED=seed)
        r = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True, env=e, timeout=300)
        assert r.returncode == 0, r.stderr
        got[seed] = r.stdout.strip()
    assert len(set(got.values())) == 1, got
