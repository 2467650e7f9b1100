"""init_soc_state (Ascend C InitSocState, cannmirror/asc-devkit impl/basic_api/kernel_utils_base.h):
after it, GM writes are plain again (the atomic config is none) and the vector mask is the full
mask in normal mode, whatever the kernel had set before."""
import numpy as np

import asc


@asc.jit
def k_soc(x: asc.GlobalAddress, z: asc.GlobalAddress, cfg: asc.GlobalAddress):
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    cg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    cg.set_global_buffer(cfg)
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 64)
    asc.set_atomic_add(asc.float32)
    asc.set_mask_count()
    asc.set_vector_mask(0, 5)
    asc.init_soc_state()
    t, o = asc.get_store_atomic_config()
    cg.set_value(0, t)
    cg.set_value(1, o)
    asc.data_copy(a, xg, count=64)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.data_copy(zg, a, count=64)


def test_init_soc_state():
    x = np.arange(64, dtype=np.float32)
    z = np.full(64, 100.0, np.float32)
    cfg = np.full(4, -1, np.int64)
    k_soc[1](x, z, cfg)
    np.testing.assert_array_equal(z, x)          # a plain write: the atomic add is off
    assert list(cfg[:2]) == [0, 0]               # type none; set_atomic_add's op (add, 0) kept
    asm = k_soc.compile(x, z, cfg).asm
    line = open(__file__, encoding="utf-8").read().splitlines().index("    asc.init_soc_state()") + 1
    block = asm.split(f'test_soc_state.py", {line}, 5\n')[1].split(".loc")[0]
    ops = [ln.split()[:3] for ln in block.strip().splitlines()]
    # st_atomic type cleared, normal mask mode, all 128 lanes (li -1 into both mask registers)
    assert [o[0] for o in ops] == ["mfspr", "andi", "mtspr", "set_mask_norm", "li", "mtspr", "mtspr"], ops
    assert ops[4][2] == "-1" and ops[5][1] == "mask0," and ops[6][1] == "mask1,", ops
