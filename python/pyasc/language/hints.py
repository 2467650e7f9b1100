"""Instruction-cache hints (Ascend C ICachePreLoad / GetICachePreloadStatus: cannmirror/asc-devkit
impl/basic_api/dav_c220/kernel_operator_cache_impl.h, `preload(pc, preFetchLen)` and
`get_icache_prl_st()`).  They move no data: on the card a preload only warms the instruction
cache.  asc's cores fetch instructions without a cache model (docs/timing.md), so here
icache_preload emits nothing and costs 0 cycles, and get_icache_preload_status is the constant 0
(no preload in flight: every preload has finished, since none takes time)."""
from __future__ import annotations


def make(ops):
    @ops.intrinsic
    def icache_preload(pre_fetch_len, *, _b):
        ops._int_arg(_b, "asc.icache_preload: pre_fetch_len", pre_fetch_len)
        return None

    @ops.intrinsic
    def get_icache_preload_status(*, _b):
        return 0

    return icache_preload, get_icache_preload_status
