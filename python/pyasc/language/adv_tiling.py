"""asc.adv.TCubeTiling: the matmul tiling record (real pyasc python/asc/language/adv/tiling.py,
Ascend C TCubeTiling), filled on the host by asc.lib.host.*.get_tiling.  Field names and order
are real pyasc's; every field is an int32 there, an int here."""
from __future__ import annotations

FIELDS = ("used_core_num", "m", "n", "k_a", "k_b", "single_core_m", "single_core_n", "single_core_k", "base_m",
          "base_n", "base_k", "depth_a1", "depth_b1", "step_m", "step_n", "is_bias", "trans_length",
          "iterate_order", "share_mode", "share_l1_size", "share_l0c_size", "share_ub_size", "batch_m", "batch_n",
          "single_batch_m", "single_batch_n", "step_k_a", "step_k_b", "depth_a_l1_cache_ub",
          "depth_b_l1_cache_ub", "db_l0a", "db_l0b", "db_l0c", "a_layout_info_b", "a_layout_info_s",
          "a_layout_info_n", "a_layout_info_g", "a_layout_info_d", "b_layout_info_b", "b_layout_info_s",
          "b_layout_info_n", "b_layout_info_g", "b_layout_info_d", "c_layout_info_b", "c_layout_info_s1",
          "c_layout_info_n", "c_layout_info_g", "c_layout_info_s2", "batch_num")


class TCubeTiling:
    def __init__(self, **fields):
        for f in FIELDS:
            setattr(self, f, 0)
        for k, v in fields.items():
            if k not in FIELDS:
                raise TypeError(f"TCubeTiling has no field '{k}'")
            setattr(self, k, v)

    def __eq__(self, other):
        return isinstance(other, TCubeTiling) and all(getattr(self, f) == getattr(other, f) for f in FIELDS)

    def __repr__(self):
        return "TCubeTiling(" + ", ".join(f"{f}={getattr(self, f)}" for f in FIELDS if getattr(self, f)) + ")"

    def __str__(self):
        t = self
        lines = [f"TCubeTiling: {t.m} x {t.n} x {t.k_a} on {t.used_core_num} core(s)",
                 f"  single core  {t.single_core_m} x {t.single_core_n} x {t.single_core_k}",
                 f"  base block   {t.base_m} x {t.base_n} x {t.base_k}  (L0A/L0B double buffer "
                 f"{t.db_l0a}/{t.db_l0b}, L0C {t.db_l0c})",
                 f"  L1           depth_a1 {t.depth_a1}, depth_b1 {t.depth_b1}, step_ka {t.step_k_a}, "
                 f"step_kb {t.step_k_b}, step_m {t.step_m}, step_n {t.step_n}: {t.share_l1_size} B",
                 f"  L0C          {t.share_l0c_size} B, iterate_order {'N' if t.iterate_order else 'M'} first, "
                 f"bias {'on' if t.is_bias else 'off'}"]
        if t.batch_num > 1:
            lines.append(f"  batch        {t.batch_m} x {t.batch_n} ({t.batch_num})")
        return "\n".join(lines)

    def fits(self, capacity) -> list:
        """The buffers this tiling overflows, given capacity(buf) -> usable bytes (f16 A/B, f32 C)."""
        t, bad = self, []
        if t.base_m * t.base_k * 2 * t.db_l0a > capacity("L0A"):
            bad.append("L0A")
        if t.base_k * t.base_n * 2 * t.db_l0b > capacity("L0B"):
            bad.append("L0B")
        if t.base_m * t.base_n * 4 * t.db_l0c > capacity("L0C"):
            bad.append("L0C")
        if t.share_l1_size > capacity("L1"):
            bad.append("L1")
        return bad


class _TInt(int):
    """A tiling field: an int with real pyasc's `.ceildiv` (tiling.m.ceildiv(tiling.single_core_m))."""

    def ceildiv(self, other):
        if isinstance(other, int):
            return _TInt(-(-int(self) // int(other)))
        return NotImplemented


def _setattr(self, name, value):
    if isinstance(value, int) and not isinstance(value, bool):
        value = _TInt(value)
    object.__setattr__(self, name, value)


TCubeTiling.__setattr__ = _setattr
