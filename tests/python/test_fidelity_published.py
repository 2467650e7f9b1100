"""bench/fidelity/published.csv: every row is complete and runnable by bench/fidelity/compare.py
(a known kernel, a shape its driver parses, a positive time, a source URL and the passage), and
the rows come from the independent sources bench/README.md lists.  Nothing is simulated here."""
import csv
import importlib.util
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CSV = os.path.join(ROOT, "bench", "fidelity", "published.csv")
FIELDS = ["kernel", "shape", "dtype", "chip", "blocks", "published_us", "quoted", "source", "location"]


def _compare():
    spec = importlib.util.spec_from_file_location("fidelity_compare",
                                                  os.path.join(ROOT, "bench", "fidelity", "compare.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _rows():
    with open(CSV, newline="") as f:
        reader = csv.DictReader(f)
        assert reader.fieldnames == FIELDS
        return list(reader)


def test_every_row_is_complete_and_has_a_driver():
    cmp = _compare()
    rows = _rows()
    assert rows
    for i, r in enumerate(rows, start=2):
        where = f"published.csv:{i}"
        assert all(r[k] and r[k].strip() == r[k] for k in FIELDS), where
        assert r["dtype"] in ("f16", "bf16", "f32"), where
        assert int(r["blocks"]) > 0 and float(r["published_us"]) > 0, where
        assert re.fullmatch(r"https://(github\.com|gitcode\.com)/\S+", r["source"]), where
        shape = cmp.parse_shape(r["shape"])
        assert cmp.Sim.gflop(r["kernel"], shape) > 0, where       # a known kernel, its shape keys
        assert callable(getattr(cmp.Sim, r["kernel"])), where


def test_sources_are_the_ones_the_readme_lists():
    sources = {r["source"] for r in _rows()}
    readme = open(os.path.join(ROOT, "bench", "README.md")).read()
    fid = readme[readme.index("## Fidelity"):]
    for s in sources:
        assert s in fid, f"{s} is in published.csv but not in bench/README.md's Fidelity section"
