"""Framework and tensor calls of real pyasc's documented API, against numpy."""
import numpy as np
import pytest

import asc
from kernels_api import k_alloc, k_bind_pool, k_rejected
from kernels_copy import k_copy_count


@pytest.mark.parametrize("n", [1, 7, 256, 1000, 1029])
def test_bind_pool_tails(n):
    x = np.random.default_rng(n).standard_normal(n).astype(np.float32)
    z = np.zeros(n, np.float32)
    k_bind_pool[1](x, z, n)
    np.testing.assert_array_equal(z, x * np.float32(2) + np.float32(1))


def test_local_mem_allocator():
    x = np.arange(40, dtype=np.float32)
    z = np.zeros(40, np.float32)
    k_alloc[1](x, z)
    np.testing.assert_array_equal(z, x + 160)      # b placed after a's 160 bytes


def test_rejected_names_the_hardware_feature():
    with pytest.raises(asc.CompileError, match=r"kernels_api.py:\d+.*HCCL contexts are not modelled"):
        k_rejected[1](np.zeros(8, np.float32))


def test_asc_backend_model_runs_npu(monkeypatch):
    from asc.runtime import config
    x = np.arange(64, dtype=np.float32)
    old = config.get_backend()
    try:
        config.set_platform(config.Backend.NPU)
        monkeypatch.delenv("ASC_BACKEND", raising=False)
        with pytest.raises(asc.LaunchError, match="ASC_BACKEND=model"):
            k_copy_count[1](x, np.zeros(64, np.float32), 64)
        monkeypatch.setenv("ASC_BACKEND", "model")
        z = np.zeros(64, np.float32)
        k_copy_count[1](x, z, 64)
        np.testing.assert_array_equal(z, x)
    finally:
        config.set_platform(old)
