"""asc.adv: real pyasc's advanced API (python/asc/language/adv/ of hicann/pyasc).  The matmul
tiling record TCubeTiling (filled by asc.lib.host); the elementwise math library (adv/math.py),
softmax with SoftmaxTiling (adv/activation.py, real pyasc's module name: a submodule named softmax would
replace the function when imported) and the sort helpers concat/extract (rejected,
adv/sort.py).  asc.adv.Matmul is not implemented yet (docs/pyasc.md)."""
from ..language.adv_tiling import TCubeTiling  # noqa: F401
from .math import *  # noqa: F401,F403
from .activation import SoftmaxTiling, ShapeInfo, SoftMaxShapeInfo, softmax, get_softmax_tiling  # noqa: F401
from .sort import concat, extract  # noqa: F401
