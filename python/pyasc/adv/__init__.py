"""asc.adv: real pyasc's advanced API (python/asc/language/adv/ of hicann/pyasc), one submodule
per area: matmul.py (Matmul and its configuration), math.py (the elementwise math library),
activation.py (softmax with SoftmaxTiling; real pyasc's module name: a submodule named softmax
would replace the function when imported), sort.py (concat/extract).  TCubeTiling is filled by
asc.lib.host."""
from ..language.adv_tiling import TCubeTiling  # noqa: F401
from .matmul import *  # noqa: F401,F403
from .math import *  # noqa: F401,F403
from .activation import SoftmaxTiling, ShapeInfo, SoftMaxShapeInfo, softmax, get_softmax_tiling  # noqa: F401
from .sort import concat, extract  # noqa: F401
