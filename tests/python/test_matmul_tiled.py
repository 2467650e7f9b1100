"""kernels/asm/matmul_tiled.s (128 x 128 output tiles, block b takes tiles b, b + blocks, ...)
against numpy on block counts that do not divide the tile count, so a tile skipped or done twice
by the split shows as a wrong output.  The kernel is resized with the .equ lines it declares."""
import os
import re
import subprocess

import numpy as np
import pytest

from pyasc import _libasc

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
pytestmark = pytest.mark.libasc


def _tools():
    build = os.path.dirname(_libasc.lib()._path)
    return os.path.join(build, "asm", "asc-as"), os.path.join(build, "sim", "asc-sim")


@pytest.mark.parametrize("blocks", [1, 3, 5])
def test_matmul_tiled_against_numpy(tmp_path, blocks):
    asm, sim = _tools()
    m, n, k = 256, 384, 256                     # 2 x 3 = 6 output tiles: 3 and 5 blocks split unevenly
    with open(os.path.join(ROOT, "kernels", "asm", "matmul_tiled.s"), encoding="utf-8") as f:
        text = f.read()
    for name, v in (("M", m), ("N", n), ("K", k)):
        text, cnt = re.subn(rf"^\.equ {name}, \d+", f".equ {name}, {v}", text, flags=re.M)
        assert cnt == 1, f"matmul_tiled.s has no single '.equ {name}' line"
    (tmp_path / "mm.s").write_text(text)
    subprocess.run([asm, "-o", str(tmp_path / "mm.bin"), str(tmp_path / "mm.s")], check=True)
    rng = np.random.default_rng(blocks)
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "b.npy", b)
    r = subprocess.run([sim, "run", str(tmp_path / "mm.bin"), "--blocks", str(blocks), "--arg", f"a={tmp_path / 'a.npy'}",
                        "--arg", f"b={tmp_path / 'b.npy'}", "--arg", f"c=@{tmp_path / 'c.npy'}:{m},{n}:f32"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    c = np.load(tmp_path / "c.npy")
    ref = a.astype(np.float64) @ b.astype(np.float64)
    # f16 products are exact in f64; each output is one f64 sum rounded to f32 (docs/semantics.md)
    assert np.abs(c - ref).max() <= 2.0 ** -23 * np.abs(ref).max() * 2, np.abs(c - ref).max()
