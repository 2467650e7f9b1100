#!/usr/bin/python3
"""Check (default) or rewrite (--update) the figures each lab README states.

Every kernels/labs/labN_TOPIC.md holds one block

    <!-- figures: labN_TOPIC.py -->
    ```text
    (the exact output of the script)
    ```
    <!-- figures end -->

--check runs each script with the given build directory and fails (exit 1) when its output
differs from the README's block or when it takes a minute or more; --update writes the output
into the README instead.  Usage:

    /usr/bin/python3 kernels/labs/figures.py [--update] [BUILD_DIR]
"""

import difflib
import glob
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
BLOCK = re.compile(r"(<!-- figures: (\S+\.py) -->\n```text\n)(.*?)(```\n<!-- figures end -->)", re.S)
LIMIT_S = 60


def main():
    args = sys.argv[1:]
    update = "--update" in args
    args = [a for a in args if a != "--update"]
    if len(args) > 1:
        sys.exit("usage: /usr/bin/python3 kernels/labs/figures.py [--update] [BUILD_DIR]")
    failed = 0
    readmes = sorted(glob.glob(os.path.join(HERE, "lab[0-9]_*.md")))
    if not readmes:
        sys.exit(f"error: no lab README in {HERE}")
    for md in readmes:
        with open(md) as f:
            text = f.read()
        blocks = BLOCK.findall(text)
        if len(blocks) != 1:
            print(f"FAIL: {os.path.basename(md)}: {len(blocks)} figures blocks, want 1")
            failed += 1
            continue
        script = blocks[0][1]
        t0 = time.monotonic()
        r = subprocess.run([sys.executable, os.path.join(HERE, script)] + args,
                           capture_output=True, text=True)
        took = time.monotonic() - t0
        if r.returncode != 0:
            print(f"FAIL: {script} exited {r.returncode}:\n{r.stderr}")
            failed += 1
            continue
        if update:
            new = BLOCK.sub(lambda m: m.group(1) + r.stdout + m.group(4), text)
            with open(md, "w") as f:
                f.write(new)
            print(f"updated {os.path.basename(md)} ({took:.1f} s)")
            continue
        if r.stdout != blocks[0][2]:
            diff = difflib.unified_diff(blocks[0][2].splitlines(), r.stdout.splitlines(),
                                        os.path.basename(md), script, lineterm="")
            print(f"FAIL: {script}: output differs from the figures in {os.path.basename(md)}"
                  " (regenerate with kernels/labs/figures.py --update)")
            print("\n".join(diff))
            failed += 1
        elif took >= LIMIT_S:
            print(f"FAIL: {script} took {took:.1f} s (limit {LIMIT_S} s)")
            failed += 1
        else:
            print(f"ok: {script} ({took:.1f} s) prints the figures of {os.path.basename(md)}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
