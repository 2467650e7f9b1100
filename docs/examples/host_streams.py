import numpy as np
import pyasc

r = np.random.default_rng(0)
a = pyasc.from_numpy((r.random((256, 256)) - 0.5).astype(np.float16))
b = pyasc.from_numpy((r.random((256, 256)) - 0.5).astype(np.float16))
s1, s2 = pyasc.stream.create_stream(), pyasc.stream.create_stream()
pyasc.profiler.start()
with s1:
    c1 = pyasc.matmul(a, b)
with s2:
    c2 = pyasc.matmul(a, b)
pyasc.stream.synchronize()
pyasc.profiler.stop(trace="streams.json")
