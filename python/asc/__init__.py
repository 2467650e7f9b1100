"""`asc`: the same package as `pyasc`, under real pyasc's import name.

`import asc`, `import asc.runtime.config as config`, `import asc.lib.runtime as rt` give the very
module objects of pyasc (a meta-path finder maps asc.X to pyasc.X), so state such as the selected
backend is shared whichever name a program uses.
"""
import importlib
import importlib.util
import sys

# The loader and finder are plain classes (the import system calls create_module /
# exec_module and find_spec by name): importlib.abc's base classes would import
# importlib.resources and typing with it, ~7 ms of every `import asc`.


class _AliasLoader:
    def __init__(self, target):
        self.target = target

    def create_module(self, spec):
        return importlib.import_module(self.target)

    def exec_module(self, module):
        pass


class _AliasFinder:
    def find_spec(self, fullname, path=None, target=None):
        if fullname.startswith("asc."):
            real = "pyasc." + fullname[4:]
            if importlib.util.find_spec(real) is None:
                return None
            return importlib.util.spec_from_loader(fullname, _AliasLoader(real))
        return None


if not any(isinstance(f, _AliasFinder) for f in sys.meta_path):
    sys.meta_path.insert(0, _AliasFinder())

import pyasc as _pyasc  # noqa: E402

sys.modules[__name__] = _pyasc
