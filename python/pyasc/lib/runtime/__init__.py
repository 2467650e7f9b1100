"""asc.lib.runtime: streams (real pyasc's module of the same name).

Our simulator runs a launch synchronously, so a stream is a token: `kernel[n, stream](...)`
accepts it and `synchronize()` returns at once.
"""


class Stream:
    def __init__(self, index=0):
        self.index = index

    def synchronize(self):
        pass

    def __repr__(self):
        return f"Stream({self.index})"


_default = Stream()


def current_stream() -> Stream:
    return _default


def synchronize():
    pass
