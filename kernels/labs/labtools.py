"""Shared helpers of the lab scripts (kernels/labs/labN_*.py).

Each lab script is run as `/usr/bin/python3 kernels/labs/labN_TOPIC.py [BUILD_DIR]` from any
directory; BUILD_DIR defaults to build/ at the repository root.  It assembles its kernels with
BUILD_DIR/asm/asc-as, runs them with BUILD_DIR/sim/asc-sim in a scratch directory, checks every
output against numpy and prints its figures.  Kernels are assembled from the repository root
with paths relative to it, so the source lines in the simulator's messages read
`kernels/labs/...:LINE` wherever the script is started; a variant a script makes from a kernel
(one line removed, say) is written to the scratch directory and named there by its file name.
"""

import json
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class Lab:
    """The tools of one build and a scratch directory for one run of a lab script."""

    def __init__(self, argv):
        if len(argv) > 2 or (len(argv) == 2 and argv[1] in ("-h", "--help")):
            sys.exit(f"usage: /usr/bin/python3 {os.path.relpath(argv[0], ROOT)} [BUILD_DIR]"
                     " (default: build/ at the repository root)")
        build = os.path.abspath(argv[1]) if len(argv) == 2 else os.path.join(ROOT, "build")
        self.asm_bin = os.path.join(build, "asm", "asc-as")
        self.sim_bin = os.path.join(build, "sim", "asc-sim")
        for tool in (self.asm_bin, self.sim_bin):
            if not os.access(tool, os.X_OK):
                sys.exit(f"error: {tool} not found: build first (bash scripts/build.sh build)"
                         " or give the build directory as the argument")
        self._tmp = tempfile.TemporaryDirectory(prefix="asc-lab-")
        self.dir = self._tmp.name
        self.rng = np.random.default_rng(0)

    def path(self, name):
        return os.path.join(self.dir, name)

    def save(self, name, array):
        """Write an input array to the scratch directory; returns its path."""
        np.save(self.path(name), array)
        return self.path(name)

    def load(self, name):
        return np.load(self.path(name))

    def assemble(self, src, target=None):
        """Assemble kernels/... (relative to the repository root) or a scratch file name.
        Returns the path of the binary."""
        out = self.path(os.path.basename(src).replace(".s", ".bin"))
        cwd = ROOT if os.path.exists(os.path.join(ROOT, src)) else self.dir
        cmd = [self.asm_bin, src, "-o", out] + (["--target", target] if target else [])
        r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f"error: asc-as {src} failed:\n{r.stderr}")
        return out

    def variant(self, src, name, edit):
        """Write kernels/... with edit(text) -> text applied to the scratch directory as NAME."""
        with open(os.path.join(ROOT, src)) as f:
            text = f.read()
        new = edit(text)
        if new == text:
            sys.exit(f"error: the edit for {name} changed nothing in {src}")
        with open(self.path(name), "w") as f:
            f.write(new)
        return name

    def run(self, binary, args, extra=(), expect_ok=True):
        """asc-sim run BINARY with --arg NAME=VALUE for each (NAME, VALUE) of args.
        Returns (exit code, parsed --json report or None, stderr)."""
        cmd = [self.sim_bin, "run", binary, "--json"] + list(extra)
        for k, v in args:
            cmd += ["--arg", f"{k}={v}"]
        r = subprocess.run(cmd, cwd=self.dir, capture_output=True, text=True)
        rep = json.loads(r.stdout) if r.stdout.startswith("{") else None
        if expect_ok and r.returncode != 0:
            sys.exit(f"error: asc-sim run {os.path.basename(binary)} failed:\n{r.stderr}")
        return r.returncode, rep, r.stderr

    def trace_events(self, name):
        with open(self.path(name)) as f:
            t = json.load(f)
        return t["traceEvents"] if isinstance(t, dict) else t


def check(what, got, want, exact=True):
    """Compare an output with numpy's answer; stop the lab (exit 1) on a mismatch."""
    ok = got.shape == want.shape and (np.array_equal(got, want) if exact else
                                      np.allclose(got, want, rtol=1e-3, atol=1e-3))
    if not ok:
        bad = int(np.sum(got != want)) if got.shape == want.shape else -1
        sys.exit(f"error: {what}: the output differs from numpy ({bad} elements)")


def pipe(rep, name):
    """The per-core pipe record of core 0 in a --json report."""
    return rep["per_core"][0]["pipes"][name]


def table(header, rows):
    """A fixed-width text table: every column right-aligned to its widest cell."""
    cells = [header] + [[str(c) for c in r] for r in rows]
    w = [max(len(r[i]) for r in cells) for i in range(len(header))]
    lines = ["  ".join(c.rjust(w[i]) if i else c.ljust(w[i]) for i, c in enumerate(r)).rstrip()
             for r in cells]
    lines.insert(1, "  ".join("-" * x for x in w))
    return "\n".join(lines)


def first_line(text, pattern):
    """The first line of text that matches a regular expression (stripped), or ''."""
    for line in text.splitlines():
        if re.search(pattern, line):
            return line.strip()
    return ""
