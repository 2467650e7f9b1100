"""Run one of real pyasc's tutorials (a file path) on the simulator with numpy arrays in place of
torch tensors: `torch` is tests/python/tutorials/numpy_torch.py, the kernel code is the file's own.
Calls the tutorial's *_custom(Backend.Model, None), which asserts against its own reference."""
import os
import runpy
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy_torch  # noqa: E402

sys.modules["torch"] = numpy_torch.module()
import asc.runtime.config as config  # noqa: E402

g = runpy.run_path(sys.argv[1], run_name="tutorial")
next(v for k, v in g.items() if k.endswith("_custom"))(config.Backend.Model, None)
print("OK")
