"""GM tensor lists against numpy: asc.ListTensorDesc / asc.TensorDesc read the descriptor the host
builds from a Python list of arrays (pyasc/runtime/tensor_list.py), with Ascend C's layout and
decoding (cannmirror/asc-devkit impl/basic_api/dav_c220/kernel_operator_list_tensor_impl.h)."""
import numpy as np
import pytest

import asc
from pyasc.runtime import tensor_list
from kernels_list_tensor import k_list_fma


def _run(shapes, cores):
    rng = np.random.default_rng(len(shapes) * 7 + cores)
    xs = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    ys = [np.zeros(s, np.float32) for s in shapes]
    info = np.zeros(64 + 8 * cores, np.int64)
    k_list_fma[cores](xs, ys, info)
    for x, y in zip(xs, ys):
        np.testing.assert_array_equal(y, x * x + x)
    return info


@pytest.mark.parametrize("shapes,cores", [([(1001,), (3,), (1,), (4097,)], 3),
                                          ([(63,)], 1),
                                          ([(7,), (256,), (257,)], 8)])
def test_list_rank1(shapes, cores):
    info = _run(shapes, cores)
    assert info[0] == len(shapes) and info[1] == 1
    for i, s in enumerate(shapes):
        assert list(info[2 + 5 * i:5 + 5 * i]) == [i, s[0], s[0]]
    addrs = [int(info[5 + 5 * i]) for i in range(len(shapes))] + [int(info[6 + 5 * i]) for i in range(len(shapes))]
    assert len(set(addrs)) == len(addrs) and all(a > 0 for a in addrs)


def test_list_rank2():
    shapes = [(3, 5), (1, 1), (17, 33)]
    info = _run(shapes, 2)
    assert info[0] == 3 and info[1] == 2
    for i, s in enumerate(shapes):
        assert list(info[2 + 5 * i:5 + 5 * i]) == [i, s[0], s[1]]


def test_descriptor_layout():
    """The words the framework's layout has: offset of the pointers, dim | index << 32 and the
    extents per tensor, then the addresses."""
    w = tensor_list.descriptor([(2, 3), (4, 1)], [0x1000, 0x2000])
    assert list(w) == [8 * 7, 2, 2, 3, 2 | 1 << 32, 4, 1, 0x1000, 0x2000]


def test_list_errors():
    with pytest.raises(asc.LaunchError, match="same rank"):
        k_list_fma[1]([np.zeros(3, np.float32), np.zeros((1, 3), np.float32)], [np.zeros(3, np.float32)],
                      np.zeros(72, np.int64))
    with pytest.raises(asc.LaunchError, match="0-d array"):
        k_list_fma[1]([np.zeros((), np.float32)], [np.zeros(3, np.float32)], np.zeros(72, np.int64))


@asc.jit
def k_no_shape_addr(xs: asc.GlobalAddress):
    xl = asc.ListTensorDesc(data=xs)
    d = asc.TensorDesc()
    xl.get_desc(d, 0)


@asc.jit
def k_desc_unfilled(xs: asc.GlobalAddress):
    d = asc.TensorDesc()
    d.get_dim()


def test_desc_compile_errors():
    with pytest.raises(asc.CompileError, match="set_shape_addr first"):
        k_no_shape_addr[1]([np.zeros(3, np.float32)])
    with pytest.raises(asc.CompileError, match="before ListTensorDesc.get_desc"):
        k_desc_unfilled[1]([np.zeros(3, np.float32)])
