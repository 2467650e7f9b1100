"""asc.check_local_memory_ia (Ascend C CheckLocalMemoryIA on dav_c220: the word CheckLocalMemoryIAImpl
packs into set_data_exp_N, here SPRs data_exp_0..3): an access of a checked kind (scalar / vector /
MTE, read / write) to a checked 32 B block b, start < b <= end (the docs' (startAddr, endAddr]),
faults at that instruction with core, pc and the kernel's Python line; other kinds, blocks outside
the range and a reset check (is_enable=False) change nothing."""
import numpy as np
import pytest

import asc

pytestmark = pytest.mark.libasc

D = 0x2000          # UB address of d: 64 f32 = 32 B blocks 256..263


@asc.jit
def k_ia(x: asc.GlobalAddress, z: asc.GlobalAddress, reg: asc.ConstExpr[int], start: asc.ConstExpr[int],
         end: asc.ConstExpr[int], kind: asc.ConstExpr[str], enable: asc.ConstExpr[bool],
         access: asc.ConstExpr[str]):
    xg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg = asc.GlobalTensor()
    zg.set_global_buffer(z)
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 64)
    d = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 0x2000, 64)
    asc.data_copy(a, xg, 64)
    asc.data_copy(d, xg, 64)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.check_local_memory_ia(asc.CheckLocalMemoryIAParam(
        reg, start, end, kind == "sr", kind == "sw", kind == "vr", kind == "vw", kind == "mr", kind == "mw", enable))
    if access == "vector":
        asc.adds(d, a, 1.0, 64)  # the vector line
    if access == "scalar":
        d.set_value(3, 7.0)  # the scalar line
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.data_copy(zg, d, 64)  # the mte line
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.check_local_memory_ia(asc.CheckLocalMemoryIAParam(reg, 0, 0, False, False, False, False, False, False,
                                                          False))


def _line(tag):
    with open(__file__, encoding="utf-8") as f:
        return next(i for i, s in enumerate(f, 1) if s.rstrip().endswith(f"# the {tag} line"))


def _run(reg, start, end, kind, enable, access):
    x = np.arange(64, dtype=np.float32)
    z = np.zeros(64, np.float32)
    k_ia[1](x, z, reg, start, end, kind, enable, access)
    return x, z


@pytest.mark.parametrize("reg", [0, 3])
@pytest.mark.parametrize("kind,access,tag,what", [("vw", "vector", "vector", "vector UB write of dst"),
                                                  ("mr", "none", "mte", "MTE UB read of src"),
                                                  ("sw", "scalar", "scalar", "scalar UB write")])
def test_checked_access_faults_with_core_pc_line(reg, kind, access, tag, what):
    with pytest.raises(asc.KernelFault) as ei:
        _run(reg, 255, 256, kind, True, access)      # blocks (255, 256]: the first block of d
    msg = str(ei.value)
    assert what in msg and f"touches the range data_exp_{reg} checks" in msg, msg
    assert "core0." in msg and " pc 0x" in msg, msg
    assert f"test_check_ia.py:{_line(tag)}" in msg, msg


@pytest.mark.parametrize("start,end,hit", [(263, 300, False), (262, 300, True), (200, 255, False),
                                           (200, 256, True), (0, 65535, True)])
def test_range_is_start_exclusive_end_inclusive(start, end, hit):
    if hit:
        with pytest.raises(asc.KernelFault, match="CheckLocalMemoryIA"):
            _run(1, start, end, "vw", True, "vector")
    else:
        x, z = _run(1, start, end, "vw", True, "vector")
        np.testing.assert_array_equal(z, x + 1)


@pytest.mark.parametrize("kind,enable", [("vr", True), ("mw", True), ("sr", True), ("vw", False)])
def test_other_kinds_and_disabled_pass(kind, enable):
    """d is written by the vector unit and read by MTE3 only: a vector-read, MTE-write or
    scalar-read check on d, or a disabled one, does not fire."""
    x, z = _run(2, 255, 263, kind, enable, "vector")
    np.testing.assert_array_equal(z, x + 1)
