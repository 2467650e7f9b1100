"""The docs run from any checkout: no absolute path of a checkout or a home directory in any
Markdown file, and the timeline walkthrough (docs/traces.md) is linked from where readers start."""
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# a checkout's or a user's absolute location; /tmp/... scratch paths and /usr/bin/python3 are fine
ABSOLUTE = re.compile(r"(?<![\w.$])(/work/|/home/|/root/|/Users/|" + re.escape(ROOT) + ")")


def _markdown_files():
    for d, dirs, files in os.walk(ROOT):
        dirs[:] = [x for x in dirs if not x.startswith(".") and not x.startswith("build")]
        for f in files:
            if f.endswith(".md"):
                yield os.path.join(d, f)


def test_no_absolute_paths_in_docs():
    bad = []
    for p in _markdown_files():
        with open(p, encoding="utf-8") as f:
            for i, line in enumerate(f, 1):
                if ABSOLUTE.search(line):
                    bad.append(f"{os.path.relpath(p, ROOT)}:{i}: {line.strip()}")
    assert not bad, "absolute paths in docs:\n" + "\n".join(bad)


def test_traces_walkthrough_is_linked():
    for doc, link in (("README.md", "docs/traces.md"), ("docs/tutorial.md", "traces.md"),
                      ("docs/viewer.md", "traces.md")):
        with open(os.path.join(ROOT, doc), encoding="utf-8") as f:
            assert f"]({link})" in f.read(), f"{doc} does not link {link}"
