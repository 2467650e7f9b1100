"""asc.adv.concat / asc.adv.extract: the pre- and post-processing of Ascend C Sort (real pyasc
python/asc/language/adv/sort.py; Ascend C Concat/Extract pack values into and out of the
region-proposal layout that the sort instructions (vbitsort, vmrgsort4) read and write).  The asc
ISA has no sort instructions, so these are rejected at the call with that reason."""
from ..language.ops import _unsupported

_WHY = ("it prepares data for / unpacks the result of Ascend C Sort, and the asc ISA has no sort "
        "instructions (vbitsort/vmrgsort4) to run it on")
concat = _unsupported("adv.concat", _WHY)
extract = _unsupported("adv.extract", _WHY)
