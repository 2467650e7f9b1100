"""Package surface: import names, enum values, dtypes, params records, config, streams."""
import numpy as np
import pytest

import asc
import asc.lib.runtime as rt
import asc.runtime.config as config
import pyasc


def test_asc_is_pyasc_and_submodules_are_shared():
    import pyasc.lib.runtime
    import pyasc.runtime.config
    assert asc is pyasc
    assert config is pyasc.runtime.config
    assert rt is pyasc.lib.runtime


def test_enum_values_match_real_pyasc():
    assert asc.TPosition.VECIN == 9 and asc.TPosition.CO1 == 7 and asc.TPosition.VECCALC == 11
    assert asc.PipeID.PIPE_MTE2 == 4 and asc.PipeID.PIPE_FIX == 10 and asc.PipeID.PIPE_ALL == 6
    assert asc.HardEvent.MTE2_V == 4 and asc.HardEvent.V_MTE3 == 7 and asc.HardEvent.MTE3_MTE2 == 19
    assert asc.HardEvent.FIX_FIX == 34
    assert asc.KernelType.AIC_ONLY == 1 and asc.KernelType.MIX_AIC_1_2 == 7
    assert asc.RoundMode.CAST_TRUNC == 5 and asc.MaskMode.COUNTER == 1
    assert asc.CubeFormat.NZ == 1 and asc.Hardware.L0C == 5


def test_dtypes():
    assert asc.float16 is asc.half and asc.float16.sizeof() == 2
    assert asc.float32.sizeof() == 4 and asc.int8.sizeof() == 1 and asc.uint64.sizeof() == 8
    assert asc.bool_.sizeof() == 1
    from pyasc.language.dtype import from_numpy
    assert from_numpy(np.float32) is asc.float32
    with pytest.raises(TypeError):
        from_numpy(np.complex64)


def test_params_defaults_and_keywords():
    p = asc.BinaryRepeatParams()
    assert (p.dst_blk_stride, p.src1_rep_stride) == (1, 8)
    u = asc.UnaryRepeatParams(2, 3)
    assert (u.dst_blk_stride, u.src_blk_stride, u.dst_rep_stride) == (2, 3, 8)
    d = asc.DataCopyParams(block_count=4, block_len=2)
    assert (d.block_count, d.block_len, d.src_stride) == (4, 2, 0)
    m = asc.MmadParams(16, 32, 64)
    assert (m.m, m.n, m.k, m.cmatrix_init_val) == (16, 32, 64, True)
    with pytest.raises(TypeError):
        asc.MmadParams(1)
    with pytest.raises(TypeError):
        asc.DataCopyParams(bogus=1)
    assert asc.LoadData2DParams(1, 2, 3).src_stride == 3
    assert asc.FixpipeParamsV220(16, 16).n_size == 16


def test_config_and_streams():
    assert config.Backend.Sim is config.Backend.Model
    config.set_platform(config.Backend.Model)
    assert config.get_backend() is config.Backend.Model
    config.set_platform(config.Backend.Model, config.Platform.Ascend910B1)
    assert config.get_target() == "ascend910b"
    assert isinstance(rt.current_stream(), rt.Stream)


def test_language_functions_need_jit():
    with pytest.raises(RuntimeError, match="inside an @asc.jit"):
        asc.get_block_idx()


def test_kernel_direct_call_is_an_error():
    from kernels_basic import k_add_count
    with pytest.raises(asc.LaunchError, match=r"launch it as k_add_count\[core_num\]"):
        k_add_count(1, 2, 3)
