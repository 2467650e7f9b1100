# acceptance script (issue 16): a 256x256 matmul followed by three element-wise operations
import numpy as np

a = np.random.rand(256, 256).astype(np.float16)
b = np.random.rand(256, 256).astype(np.float16)
c = np.matmul(a, b)
d = c * 0.5
e = d + 1.0
f = np.maximum(e, 2.0)
