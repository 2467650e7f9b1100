"""asc.lib: host-side helpers (asc.lib.runtime)."""
