"""pyasc.AscendError: what every host-runtime failure raises (docs/pyasc.md "Host runtime").

Users: pyasc.host.* (tensors, memory, operators, streams, profiler), user code
(`except pyasc.AscendError as e: e.code, e.message`).  Each subclass has a fixed `.code` (our own
numbering, listed in docs/pyasc.md; not CANN's ACL codes).  Errors of the kernel library
(ValueError), of the launcher (LaunchError) and of the simulator (KernelFault) that surface
through an eager operator are re-raised as the matching subclass with the original as __cause__.
"""


class AscendError(Exception):
    """A host-runtime failure: `.code` (int) and `.message` (str); str() is "[code] message"."""
    code = 100

    def __init__(self, message, code=None):
        self.message = message
        if code is not None:
            self.code = code
        super().__init__(f"[{self.code}] {message}")


class DeviceMemoryError(AscendError, MemoryError):
    """Device memory exceeded or a freed tensor used."""
    code = 101


class ShapeError(AscendError, ValueError):
    """Operand shapes do not broadcast or do not fit the operator."""
    code = 102


class DTypeError(AscendError, TypeError):
    """Operand dtypes the operator or its kernel does not take."""
    code = 103


class KernelNotFound(AscendError, NotImplementedError):
    """The kernel library (kernels/pyasc) has no kernel for this operator (or these shapes)."""
    code = 104


class KernelLaunchError(AscendError, RuntimeError):
    """The kernel failed to compile, launch or run on the simulator."""
    code = 105


class StreamError(AscendError, RuntimeError):
    """Misuse of streams or events."""
    code = 106


def human(n):
    """Bytes as the seed documents write them: 2GB, 1.5GB, 640KB, 12B (binary units)."""
    for unit, size in (("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10)):
        if n >= size:
            return f"{n / size:.4g}{unit}"
    return f"{n}B"
