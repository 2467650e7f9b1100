#!/usr/bin/env bash
# install.sh [BUILD]: make this checkout's pyasc usable without PYTHONPATH (docs/pyasc.md
# "Install"): `/usr/bin/python3 -c "import pyasc, asc"` from any directory, and `pyasc` on PATH.
#   - a .pth file in Debian's site directory (the first of site.getsitepackages(), normally
#     /usr/local/lib/python3.X/dist-packages) naming this checkout's python/ directory;
#   - python/pyasc/libasc.path: the library pyasc loads (BUILD/libasc.so, default build/);
#   - a `pyasc` command (default /usr/local/bin/pyasc) running python/bin/pyasc of this checkout.
# Idempotent, and it always points at the checkout it runs from (a clone elsewhere that runs it
# takes over).  ASC_INSTALL_SITE and ASC_INSTALL_BIN choose other directories (the tests use
# temporary ones).  scripts/demo.sh runs it after the build.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$top/build}" && pwd)
lib=$build/libasc.so
py=/usr/bin/python3
[ -f "$lib" ] || { echo "install.sh: $lib does not exist: build first (bash scripts/build.sh build)" >&2; exit 1; }
if grep -qx 'ASC_SANITIZE:BOOL=ON' "$build/CMakeCache.txt" 2>/dev/null; then
  echo "install.sh: $build is a sanitizer build; pyasc needs a release build's libasc.so" >&2
  exit 1
fi
site=${ASC_INSTALL_SITE:-$("$py" -c 'import site; print(site.getsitepackages()[0])')}
bin=${ASC_INSTALL_BIN:-/usr/local/bin}
mkdir -p "$site" "$bin"

put() { # put FILE MODE: stdin to FILE, replaced atomically
  local tmp
  tmp=$(mktemp "$1.XXXXXX")
  cat > "$tmp"
  chmod "$2" "$tmp"
  mv -f "$tmp" "$1"
}
printf '%s\n' "$top/python" | put "$site/asc-pyasc.pth" 644
printf '%s\n' "$lib" | put "$top/python/pyasc/libasc.path" 644
put "$bin/pyasc" 755 <<SH
#!/bin/sh
# Written by $top/scripts/install.sh: the pyasc command of that checkout.
exec "$top/python/bin/pyasc" "\$@"
SH
echo "install.sh: $site/asc-pyasc.pth -> $top/python; pyasc loads $lib; $bin/pyasc"
