"""asc.adv.concat / asc.adv.extract: the pre- and post-processing of Ascend C Sort (real pyasc
python/asc/language/adv/sort.py; Ascend C Concat/Extract pack values into and out of the
region-proposal layout that the sort instructions (vbitsort, vmrgsort4) read and write).  On dav_c220
Concat is `concat = src` and Extract two GatherMask calls (cannmirror/asc-devkit impl/basic_api/
kernel_operator_proposal_intf_impl.h).  asc.gather_mask models GatherMask now, but the two are not
written yet (for half, Extract's index pass runs 2 * repeatTime repeats over 32-element repeats, which
needs checking against the hardware first), so both are rejected at the call with that reason."""
from ..language.ops import _unsupported

_WHY = ("it packs data for / unpacks the result of Ascend C Sort (on dav_c220 through GatherMask, which "
        "asc.gather_mask models); not implemented yet: asc.sort32 / asc.mrg_sort / asc.sort work on the "
        "(score, index) layout directly and asc.gather_mask(..., 3 or 1, ...) / (..., 2, ...) extract its parts")
concat = _unsupported("adv.concat", _WHY)
extract = _unsupported("adv.extract", _WHY)
