"""asc-sweep: run a design sweep, or plot its results.

    asc-sweep SPEC.json|SPEC.toml -o results.csv [-j N | --scheduler tcp://HOST:PORT]
              [--max-points K] [--flush-every SECONDS]
    asc-sweep plot results.csv --x KEY --y FIGURE [--by KEY]... [--where KEY=VALUE]... [--logx] [--logy]
              -o out.png
    asc-sweep plot results.csv --pareto FIG_A,FIG_B[:max] [--where KEY=VALUE]... -o out.png

Users: scripts/asc-sweep, `python3 -m pyasc sweep`, `python3 -m pyasc.sweep`.
Exit codes: 0 done (points that faulted are rows with status fault/limit, counted on stderr),
1 a bad spec, results file or plot request (the message names the key and the rule), 2 internal
error, 130 interrupted (the rows finished so far are in the CSV: run again to go on).
"""
from __future__ import annotations

import argparse
import sys


def _run_parser():
    ap = argparse.ArgumentParser(prog="asc-sweep", description="Run every point of a sweep spec through the asc "
                                 "simulator; one CSV row per point (docs/sweep.md).  `asc-sweep plot -h` for plots.")
    ap.add_argument("spec", help="sweep spec (.json or .toml)")
    ap.add_argument("-o", "--output", required=True, help="results CSV (points already in it are skipped)")
    ap.add_argument("-j", "--jobs", type=int, default=None, help="local worker processes (default: the cores)")
    ap.add_argument("--scheduler", default=None, metavar="tcp://HOST:PORT", help="run on this Dask scheduler")
    ap.add_argument("--max-points", type=int, default=None, metavar="K",
                    help="run at most K of the remaining points, then stop")
    ap.add_argument("--flush-every", type=float, default=1.0, metavar="SECONDS",
                    help="seconds between rewrites of the CSV while running (default 1; 0 = every point)")
    return ap


def _plot_parser():
    ap = argparse.ArgumentParser(prog="asc-sweep plot", description="Plot a results CSV to a PNG (matplotlib, "
                                 "no display needed).")
    ap.add_argument("csv")
    ap.add_argument("--x", help="column on the x axis (a parameter)")
    ap.add_argument("--y", action="append", default=[], help="figure on the y axis (repeatable)")
    ap.add_argument("--by", action="append", default=None,
                    help="one line per value of this column (repeatable; default: every other swept column)")
    ap.add_argument("--pareto", metavar="A,B", help="scatter of figure A against B with their Pareto front (both "
                    "minimised; B:max or A:max to maximise one); the front is printed as CSV")
    ap.add_argument("--where", action="append", default=[], metavar="KEY=VALUE",
                    help="only the rows whose column KEY is VALUE (repeatable)")
    ap.add_argument("--logx", action="store_true")
    ap.add_argument("--logy", action="store_true")
    ap.add_argument("--title", default=None)
    ap.add_argument("-o", "--output", required=True, help="PNG to write")
    return ap


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    from .spec import SpecError
    try:
        if argv and argv[0] == "plot":
            from . import plot
            a = _plot_parser().parse_args(argv[1:])
            return plot.main(a)
        if argv and argv[0] == "run":
            argv = argv[1:]
        a = _run_parser().parse_args(argv)
        if a.jobs is not None and a.jobs < 1:
            print("asc-sweep: error: -j must be at least 1", file=sys.stderr)
            return 1
        if a.jobs is not None and a.scheduler:
            print("asc-sweep: error: give -j or --scheduler, not both", file=sys.stderr)
            return 1
        from . import run
        st = run(a.spec, a.output, jobs=a.jobs, scheduler=a.scheduler, max_points=a.max_points,
                 flush_every=a.flush_every)
        left = st["points"] - st["done_before"] - st["simulated"]
        print(f"asc-sweep: wrote {a.output}: {st['done_before'] + st['simulated']} of {st['points']} points "
              f"({st['simulated']} simulated now" + (f", {left} left: run again to go on" if left else "") + ")",
              file=sys.stderr)
        if st["failed"]:
            print(f"asc-sweep: {st['failed']} points did not finish (status fault or limit; see the error column)",
                  file=sys.stderr)
        return 0
    except SpecError as e:
        print(f"asc-sweep: error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("asc-sweep: interrupted: the finished points are in the CSV; run again to go on", file=sys.stderr)
        return 130
    except Exception as e:  # noqa: BLE001
        from .._libasc import LibascMissing
        if isinstance(e, LibascMissing):
            print(f"asc-sweep: error: {e}", file=sys.stderr)
            return 1
        import traceback
        traceback.print_exc()
        print(f"asc-sweep: internal error: {type(e).__name__}: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
