"""asc.adv.concat / asc.adv.extract: the pre- and post-processing of Ascend C Sort (real pyasc
python/asc/language/adv/sort.py; Ascend C Concat/Extract pack values into and out of the
region-proposal layout that the sort instructions (vbitsort, vmrgsort4) read and write).  On dav_c220
Extract is built from GatherMask patterns (cannmirror/asc-devkit impl/basic_api/
kernel_operator_proposal_intf_impl.h), which asc does not model yet, so both are rejected at the
call with that reason."""
from ..language.ops import _unsupported

_WHY = ("it packs data for / unpacks the result of Ascend C Sort through GatherMask, which asc does "
        "not model yet (asc.sort32 / asc.mrg_sort / asc.sort work on the (score, index) layout directly)")
concat = _unsupported("adv.concat", _WHY)
extract = _unsupported("adv.extract", _WHY)
