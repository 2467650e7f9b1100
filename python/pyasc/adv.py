"""asc.adv: real pyasc's advanced API.  So far the matmul tiling record TCubeTiling (filled by
asc.lib.host); asc.adv.Matmul and the rest are not implemented yet (docs/pyasc.md)."""
from .language.adv_tiling import TCubeTiling  # noqa: F401
