"""LocalTensor.get_value/set_value (Ascend C GetValue/SetValue, `__inout_pipe__(S)`): scalar loads
and stores of UB (ld.ub.*/st.ub.*, sim/exec_scalar_ub.c), against numpy."""
import numpy as np
import pytest

import asc
from kernels_ubscalar import k_get_f16, k_get_out_of_ub, k_reverse_f32, k_scale_elems, k_set_consts


@pytest.mark.parametrize("n,dt", [(1, np.int32), (7, np.int32), (100, np.int16), (33, np.int8), (29, np.uint8),
                                  (13, np.uint16), (9, np.int64), (257, np.int32)])
def test_get_set_integers(n, dt):
    info = np.iinfo(dt)
    x = np.random.default_rng(n).integers(max(info.min, -1000), min(info.max, 1000), n).astype(dt)
    z = np.zeros(n, dt)
    k_scale_elems[1](x, z, n, -3)
    ref = (x.astype(np.int64) * -3 + np.arange(n)).astype(dt)   # wraps to the element type, as st.ub does
    np.testing.assert_array_equal(z, ref)


@pytest.mark.parametrize("n", [1, 5, 63, 300])
def test_get_set_f32_after_vector(n):
    x = np.random.default_rng(n).standard_normal(n).astype(np.float32)
    z = np.zeros(n, np.float32)
    k_reverse_f32[1](x, z, n)
    np.testing.assert_array_equal(z, (x + np.float32(1))[::-1])


def test_set_value_float_constants():
    z = np.zeros(5, np.float32)
    h = np.zeros(5, np.float16)
    k_set_consts[1](z, h)
    np.testing.assert_array_equal(z, np.array([0.1 * i for i in range(5)], np.float32))
    np.testing.assert_array_equal(h, np.array([i - 2.5 for i in range(5)], np.float16))


def test_get_value_f16_refused():
    with pytest.raises(asc.CompileError, match=r"kernels_ubscalar.py:\d+.*get_value of float16 is not supported"):
        k_get_f16[1](np.zeros(8, np.float16))


def test_get_value_outside_ub_faults():
    with pytest.raises(Exception, match=r"scalar load.*outside UB|UB.*outside"):
        k_get_out_of_ub[1](np.zeros(8, np.int32), 1 << 22)
