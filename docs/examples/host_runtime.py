import numpy as np
import pyasc

a = np.random.default_rng(0).standard_normal((8, 1000)).astype(np.float32)
x = pyasc.AscendTensor.from_numpy(a)          # 64 B aligned, in the simulated GM
pyasc.profiler.start()
y = pyasc.softmax(pyasc.gelu(x) * 2.0)        # each operator launches a library kernel
p = pyasc.profiler.stop(trace="host_trace.json")
print(np.abs(y.numpy().sum(-1) - 1).max() < 1e-5, pyasc.memory_allocator)
try:
    pyasc.matmul(x, x)
except pyasc.AscendError as e:
    print(e.code, e.message)
