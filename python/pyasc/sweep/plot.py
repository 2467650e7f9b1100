"""asc-sweep plot: a results CSV as a PNG (matplotlib's Agg backend: no display needed).

Users: the asc-sweep CLI.  Two kinds:
  --x KEY --y FIGURE   one line per combination of the other swept columns (or of --by), the
                       figure against KEY;
  --pareto A,B         every point as (A, B) and its Pareto front: the points no other point
                       beats in both (each minimised, or maximised with A:max / B:max); the
                       front is also printed to stdout as CSV (point, parameters, A, B).
--where KEY=VALUE keeps only the rows with that value.  Only rows with status ok are drawn; the
count of the others is said in the title.
"""
from __future__ import annotations

import csv
import os
import sys

from . import results
from .spec import SpecError


def _num(v, col, n):
    try:
        return float(v)
    except ValueError:
        raise SpecError(f"column '{col}' is not numeric (row {n}: '{v}')") from None


def _load(path):
    try:
        hdr, rows = results.read(path)
    except (OSError, results.ResultsError) as e:
        raise SpecError(f"{path}: {e}") from None
    if not hdr or "status" not in hdr or hdr[0] != "point":
        raise SpecError(f"{path}: not an asc-sweep results file (no point / status columns)")
    params = hdr[1:hdr.index("status")]
    return hdr, params, rows


def _need(col, hdr, what):
    if col not in hdr:
        raise SpecError(f"{what} '{col}' is not a column; columns are: {', '.join(hdr)}")


def pareto_front(pts, max_a=False, max_b=False):
    """Indices of the points (a, b) that no other point beats in both (minimising unless max_*);
    ties keep every copy.  Sorted by a."""
    sa, sb = (-1 if max_a else 1), (-1 if max_b else 1)
    order = sorted(range(len(pts)), key=lambda i: (sa * pts[i][0], sb * pts[i][1]))
    front = []
    best = None
    for i in order:
        b = sb * pts[i][1]
        if best is None or b < best:
            front.append(i)
            best = b
        elif b == best and sa * pts[i][0] == sa * pts[front[-1]][0]:
            front.append(i)
    return front


def main(a) -> int:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    hdr, params, rows = _load(a.csv)
    for w in a.where:
        k, eq, v = w.partition("=")
        if not eq:
            raise SpecError(f"--where '{w}': expected KEY=VALUE")
        _need(k, hdr, "--where")
        rows = [r for r in rows if r[k] == v]
        if not rows:
            raise SpecError(f"--where {w}: no row has {k} = {v}")
    ok = [r for r in rows if r.get("status") == "ok"]
    bad = len(rows) - len(ok)
    if not ok:
        raise SpecError(f"{a.csv}: no row has status ok: nothing to plot")
    if a.where and not a.title:
        note = " [" + ", ".join(a.where) + "]"
    else:
        note = ""
    fig, ax = plt.subplots(figsize=(8, 5), dpi=100)
    note += f" ({bad} points not finished, not drawn)" if bad else ""
    if a.pareto:
        if a.x or a.y:
            raise SpecError("plot: give --pareto A,B or --x/--y, not both")
        parts = a.pareto.split(",")
        if len(parts) != 2:
            raise SpecError(f"--pareto '{a.pareto}': expected two figures A,B (e.g. total_cycles,ub_bank_groups)")
        cols, maxes = [], []
        for p in parts:
            c, _, m = p.partition(":")
            if m not in ("", "max", "min"):
                raise SpecError(f"--pareto '{p}': a figure may end in :max or :min, not ':{m}'")
            _need(c, hdr, "--pareto figure")
            cols.append(c)
            maxes.append(m == "max")
        pts = [(_num(r[cols[0]], cols[0], n), _num(r[cols[1]], cols[1], n)) for n, r in enumerate(ok, 2)]
        front = pareto_front(pts, *maxes)
        ax.scatter([p[0] for p in pts], [p[1] for p in pts], s=14, c="#9aa7b8", label=f"{len(pts)} points")
        fx, fy = [pts[i][0] for i in front], [pts[i][1] for i in front]
        ax.plot(fx, fy, "o-", c="#c0392b", ms=5, drawstyle="steps-post" if not any(maxes) else "default",
                label=f"Pareto front ({len(front)} points)")
        ax.set_xlabel(cols[0] + (" (max)" if maxes[0] else ""))
        ax.set_ylabel(cols[1] + (" (max)" if maxes[1] else ""))
        ax.set_title(a.title or f"{cols[0]} vs {cols[1]}: Pareto front{note}")
        w = csv.writer(sys.stdout, lineterminator="\n")
        shown = ["point", *params, *(c for c in dict.fromkeys(cols) if c not in params)]
        w.writerow(shown)
        for i in front:
            w.writerow([ok[i][c] for c in shown])
    else:
        if not a.x or not a.y:
            raise SpecError("plot: give --x KEY and --y FIGURE (or --pareto A,B)")
        _need(a.x, hdr, "--x")
        for y in a.y:
            _need(y, hdr, "--y")
        by = a.by if a.by is not None else [p for p in params if p != a.x and len({r[p] for r in ok}) > 1]
        for b in by:
            _need(b, hdr, "--by")
        series = {}
        for n, r in enumerate(ok, 2):
            series.setdefault(tuple(r[b] for b in by), []).append(r)
        if len(series) * len(a.y) > 40:
            raise SpecError(f"plot: {len(series) * len(a.y)} lines: at most 40 (choose fewer with --by, "
                            f"or plot a subset of the rows); series by {', '.join(by)}")
        styles = ("-", "--", ":", "-.")
        line = 0
        for key in sorted(series, key=lambda k: [(0, float(v)) if _isnum(v) else (1, v) for v in k]):
            rs = sorted(series[key], key=lambda r: _num(r[a.x], a.x, 0))
            for y in a.y:
                fmt = dict(marker="o", ms=4, ls=styles[line // 10 % 4], c=f"C{line % 10}")
                line += 1
                lab = ", ".join(f"{b}={v}" for b, v in zip(by, key))
                if len(a.y) > 1:
                    lab = f"{y}" + (f" ({lab})" if lab else "")
                ax.plot([_num(r[a.x], a.x, 0) for r in rs], [_num(r[y], y, 0) for r in rs], label=lab or y, **fmt)
        ax.set_xlabel(a.x)
        ax.set_ylabel(", ".join(a.y))
        ax.set_title(a.title or f"{', '.join(a.y)} vs {a.x}{note}")
    if a.logx:
        ax.set_xscale("log", base=2)
    if a.logy:
        ax.set_yscale("log")
    ax.grid(True, alpha=0.3)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=8)
    fig.tight_layout()
    from .. import _outfile
    with _outfile.replacing(a.output) as f:
        fig.savefig(f, format="png", metadata={"Software": None})
    plt.close(fig)
    print(f"asc-sweep: wrote {a.output}", file=sys.stderr)
    return 0


def _isnum(v):
    try:
        float(v)
        return True
    except ValueError:
        return False
