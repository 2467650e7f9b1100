"""The per-element (SIMT) style's names and the cheap test for a SIMT kernel: what `pyasc.jit`
and pyasc's namespace need at import, without compiler/simt.py's analyser (loaded only when a
SIMT kernel is compiled).  Users: compiler/simt.py (re-exports them), pyasc/simt.py."""

# names the per-element style uses; a function reading one of the first set is a SIMT kernel
INDEX_FUNCS = ("get_global_id", "get_local_id", "get_row", "get_col")
SIMT_FUNCS = INDEX_FUNCS + ("get_dim", "shared", "syncthreads", "load_global", "store_global",
                            "load_vector", "store_vector", "pack", "unpack", "load_async",
                            "store_async", "wait", "prefetch")


def is_simt(fn) -> bool:
    """True when fn reads one of the per-element index functions (get_global_id, ...): a cheap
    test on the code object's names, so ordinary @asc.jit kernels are not parsed twice."""
    code = getattr(fn, "__code__", None)
    return code is not None and any(n in code.co_names for n in INDEX_FUNCS)
