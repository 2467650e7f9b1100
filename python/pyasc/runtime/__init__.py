"""asc.runtime: launch machinery (config, jit)."""
from . import config  # noqa: F401
