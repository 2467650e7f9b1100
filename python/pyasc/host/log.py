"""PYASC_DEBUG=1: the host runtime logs allocations, compilations and launches to stderr
(logger "pyasc"; read at each message, so setting it in a running process works)."""
import logging
import os
import sys

_logger = logging.getLogger("pyasc")


def enabled():
    return os.environ.get("PYASC_DEBUG", "") not in ("", "0")


def debug(msg, *args):
    if not enabled():
        return
    if not _logger.handlers:
        h = logging.StreamHandler(sys.stderr)
        h.setFormatter(logging.Formatter("[pyasc] %(message)s"))
        _logger.addHandler(h)
        _logger.propagate = False
    _logger.setLevel(logging.DEBUG)
    _logger.debug(msg, *args)
