"""Capture every compiled pyasc kernel (assembly, IR and lowered IR) to one text file, to compare
the compiler's output before and after a refactoring.

Run from the repo root (needs build/libasc.so, since the kernels run):
  ASC_LIB=$PWD/build/libasc.so PYTHONPATH=$PWD/python /usr/bin/python3 tests/python/asm_capture.py OUT.txt
then `cmp` two OUT files made from the same checkout path (the .loc lines name source files;
tests/python/asm_compare.sh REV_A REV_B does that for two commits).  It runs each kernels/pyasc/*.py `run()`, then the pytest suite in
this process, recording every call of compiler.driver.compile_kernel in order.  The disk cache
is switched off (every request that misses the per-function memory cache compiles), so
test_cache_hit_never_recompiles_a_path_loaded_module fails in this run, by design.
Not a test module itself (pytest collects test_*.py only).
"""
import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, HERE)


def main(out_path):
    import pytest
    from pyasc.compiler import driver
    from pyasc.runtime import jit

    records = []
    real = driver.compile_kernel

    def recording(fn, specs, options=None):
        c = real(fn, specs, options)
        spec = ", ".join(f"{s.name}:{s.kind}:{s.dtype!r}:{s.value!r}" for s in specs)
        opts = ", ".join(f"{k}={v!r}" for k, v in sorted((options or {}).items()))
        records.append(f"==== {fn.__module__}.{fn.__qualname__} ({spec}) [{opts}]\n"
                       f"---- asm\n{c.asm}\n---- ir\n{c.ir_text}\n---- lowered\n{c.lowered_text}\n")
        return c

    driver.compile_kernel = recording
    jit._disk_get = lambda key: None
    kdir = os.path.join(ROOT, "kernels", "pyasc")
    for name in sorted(os.listdir(kdir)):
        if not name.endswith(".py") or name.startswith("_"):
            continue
        spec = importlib.util.spec_from_file_location("kernel_" + name[:-3], os.path.join(kdir, name))
        m = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(m)
        m.run()
    # a fixed basetemp: kernels written to tmp_path by tests get the same path in every run
    rc = pytest.main(["-q", "-p", "no:cacheprovider", "--basetemp", "/tmp/pyasc_asm_capture_tmp",
                      os.path.join(ROOT, "tests", "python")])
    with open(out_path, "w", encoding="utf-8") as f:
        f.writelines(records)
    print(f"{len(records)} compiles recorded in {out_path}; pytest exit {int(rc)}")
    return int(rc)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
