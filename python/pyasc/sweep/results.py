"""The results CSV: one row per point, sorted by point index, columns in a fixed order; written
whole to a temporary file, fsync'ed and renamed over the old one, so a reader (or a run killed at
any moment) only ever sees a complete, valid CSV.

Users: pyasc.sweep.run (resume and write), pyasc.sweep.plot (read).

Columns: `point` (index in the spec's order), the swept parameters in spec order, `status`
(ok, fault, limit), `error` (why a point did not finish), `spec_digest` (what else the
results depend on: kernel binary, inputs, fixed profile, parameter names), then the report's
figures: total_cycles, microseconds, instructions first, the other top-level values next, then
every nested figure sorted by its dotted path.  The order depends only on the column names, so
it is the same whichever points ran, where, in which order and how many times the run was
resumed.
"""
from __future__ import annotations

import csv
import io
import os

FIXED_TAIL = ("status", "error", "spec_digest")
LEAD = ("total_cycles", "microseconds", "instructions")


class ResultsError(Exception):
    pass


def figure_order(name: str):
    if name in LEAD:
        return (0, LEAD.index(name), ())
    parts = tuple(name.split("."))
    return (1 if len(parts) == 1 else 2, 0, parts)


def header(params, rows) -> list:
    fixed = ["point", *params, *FIXED_TAIL]
    figs = set()
    for r in rows:
        figs.update(k for k, v in r.items() if v != "" and k not in fixed)
    return fixed + sorted(figs, key=figure_order)


def figure_column(name: str, params) -> str:
    """A report figure's column name; one that a parameter or fixed column already uses (the
    report's `blocks` when blocks is swept) is prefixed `report.`."""
    return "report." + name if name in params or name in FIXED_TAIL or name == "point" else name


def read(path: str):
    """(header, rows as {column: text}) of an existing results CSV."""
    with open(path, newline="", encoding="utf-8") as f:
        text = f.read()
    if not text.strip():
        return [], []
    rd = csv.reader(io.StringIO(text))
    try:
        hdr = next(rd)
        rows = []
        for n, rec in enumerate(rd, 2):
            if len(rec) != len(hdr):
                raise ResultsError(f"{path}:{n}: {len(rec)} fields, the header has {len(hdr)}")
            rows.append(dict(zip(hdr, rec)))
    except csv.Error as e:
        raise ResultsError(f"{path}: not a CSV file: {e}") from None
    return hdr, rows


def write(path: str, params, rows_by_index: dict):
    """Write every row (sorted by point index) through a safe temporary + fsync + rename
    (pyasc._outfile)."""
    rows = [rows_by_index[i] for i in sorted(rows_by_index)]
    hdr = header(params, rows)
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(hdr)
    for r in rows:
        w.writerow([r.get(c, "") for c in hdr])
    from .. import _outfile
    _outfile.write(path, buf.getvalue())      # a temporary created exclusively beside it, renamed
    try:
        fd = os.open(os.path.dirname(os.path.abspath(path)), os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError:
        pass
