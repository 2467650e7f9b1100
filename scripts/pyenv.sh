# Sourced by the scripts: picks a Python 3 that has numpy (Debian's
# /usr/bin/python3 first: on some machines the python3 on PATH is another
# interpreter without numpy) and exports ASC_PYTHON, or says that none was
# found.
asc_find_python() {
  local c
  for c in /usr/bin/python3 python3 python; do
    if command -v "$c" >/dev/null 2>&1 && "$c" -c 'import numpy' >/dev/null 2>&1; then
      ASC_PYTHON=$(command -v "$c")
      export ASC_PYTHON
      return 0
    fi
  done
  echo "no Python 3 with numpy found (tried /usr/bin/python3, python3, python); install python3-numpy" >&2
  return 1
}
