"""Kernels for test_carry.py: values changed inside run-time loops and branches (names, list and
dict elements, tuples, swaps, nested loops, one-branch ifs, unrolled loops with run-time tails).
Each kernel takes (z, n, v) with run-time n and v and writes its results to z[0..15]; test_carry.py
runs it on the simulator and as plain Python (the same function, with a Python GlobalTensor) and
compares.  No `//` or `%` on negative run-time values: there real pyasc truncates like C and
Python floors (docs/pyasc.md "Integer semantics")."""
import asc

W = [3, 5]


@asc.jit
def list_acc(z: asc.GlobalAddress, n: int, v: int):
    """The reported case: a list element changed in a run-time loop."""
    zg = asc.GlobalTensor()
    zg.set_global_buffer(z)
    acc = [0, 0]
    for j in range(n):
        acc[0] = acc[0] + v
    zg.set_value(0, acc[0])
    zg.set_value(1, acc[1])


@asc.jit
def lists(z: asc.GlobalAddress, n: int, v: int):
    """Augmented assignment to subscripts, nested lists, an alias, a while loop, static bounds."""
    zg = asc.GlobalTensor()
    zg.set_global_buffer(z)
    acc = [1, 2]
    m = [[0, 1], [2, 3]]
    alias = acc
    for j in range(n):
        acc[1] += j * v
        m[1][0] = m[1][0] * 2 + j
        alias[0] = alias[0] + acc[1]
    k = [0, n]
    while k[0] < n:
        k[0] += 1
        k[1] = k[1] + k[0] * 3
    s = [v]
    for j in range(4):
        s[0] = s[0] * 3 + j
    zg.set_value(0, acc[0])
    zg.set_value(1, acc[1])
    zg.set_value(2, m[1][0])
    zg.set_value(3, m[0][1])
    zg.set_value(4, k[0])
    zg.set_value(5, k[1])
    zg.set_value(6, s[0])


@asc.jit
def branches(z: asc.GlobalAddress, n: int, v: int):
    """List elements and names assigned in one branch of a run-time if (top level and in a loop)."""
    zg = asc.GlobalTensor()
    zg.set_global_buffer(z)
    acc = [10, 20, 30]
    if v > 2:
        acc[0] = v * 7
    else:
        acc[2] += 1
    t = 0
    u = 5
    for j in range(n):
        if j % 2 == 0:
            acc[1] += j
            t = t + v
        else:
            acc[2] -= v
        if j > 1:
            u = u * 2 + j
    zg.set_value(0, acc[0])
    zg.set_value(1, acc[1])
    zg.set_value(2, acc[2])
    zg.set_value(3, t)
    zg.set_value(4, u)


@asc.jit
def bump(lst, n: int, v: int):
    for j in range(n):
        lst[0] += v + j


@asc.jit
def tuples_dicts(z: asc.GlobalAddress, n: int, v: int):
    """Tuples rebuilt in a loop, tuple-unpacking swaps, dict values, a list changed by a helper."""
    zg = asc.GlobalTensor()
    zg.set_global_buffer(z)
    t = (0, 1)
    for j in range(n):
        t = (t[0] + j, t[1] * 2)
    a, b = 1, v
    for j in range(n):
        a, b = b, a + b
    e, f = v, 2
    for j in range(n):
        e, f = f, e
    g = [v, 3]
    for j in range(n):
        g[0], g[1] = g[1], g[0]
    d = {"x": 0, "y": v}
    for j in range(n):
        d["x"] = d["x"] + d["y"]
        d["y"] += 1
    h = [100]
    bump(h, n, v)
    zg.set_value(0, t[0])
    zg.set_value(1, t[1])
    zg.set_value(2, a)
    zg.set_value(3, b)
    zg.set_value(4, d["x"])
    zg.set_value(5, d["y"])
    zg.set_value(6, h[0])
    zg.set_value(7, e)
    zg.set_value(8, f)
    zg.set_value(9, g[0])
    zg.set_value(10, g[1])


@asc.jit
def loops(z: asc.GlobalAddress, n: int, v: int):
    """Nested run-time loops, names overwritten (not read first) in a loop and read after it,
    the variable of a static-bounds loop after it, `//` and `%` on non-negative values."""
    zg = asc.GlobalTensor()
    zg.set_global_buffer(z)
    s = 0
    c = [0]
    for i in range(n):
        for j in range(i):
            s += j * v
            c[0] += 1
    y = 100
    for j in range(n):
        y = j * 3 + v
    for q in range(2, 9, 3):
        s = s + q
    r = 1
    p = [v]
    for j in range(n):
        r = (r * 7 + j) % 13
        p[0] = p[0] // 2 + j
    zg.set_value(0, s)
    zg.set_value(1, c[0])
    zg.set_value(2, y)
    zg.set_value(3, q)
    zg.set_value(4, r)
    zg.set_value(5, p[0])


@asc.jit
def unrolled(z: asc.GlobalAddress, n: int, v: int):
    """Loops unrolled by 2 (a list indexed by j % 2 needs a static index; static bounds, with and
    without a tail) whose bodies change list elements and names on run-time values."""
    zg = asc.GlobalTensor()
    zg.set_global_buffer(z)
    acc = [0, 0]
    y = 7
    s = 0
    for j in range(5):
        acc[j % 2] += j + v
        y = W[j % 2] * j + v
        if v > j:
            s = s + W[j % 2]
    k = [v, 0]
    for j in range(1, 7):
        k[j % 2] = k[j % 2] * 2 + k[(j + 1) % 2] + v
    zg.set_value(0, acc[0])
    zg.set_value(1, acc[1])
    zg.set_value(2, y)
    zg.set_value(3, s)
    zg.set_value(4, k[0])
    zg.set_value(5, k[1])
    zg.set_value(6, j)


@asc.jit
def swaps(z: asc.GlobalAddress, n: int, v: int):
    """Two GM views swapped every iteration (names and list elements): ping-pong writes."""
    zg = asc.GlobalTensor()
    zg.set_global_buffer(z)
    a = zg[0:]
    b = zg[8:]
    views = [zg[4:], zg[12:]]
    for j in range(n):
        a.set_value(j, v + j)
        a, b = b, a
        views[0].set_value(j, j * 10)
        views[0], views[1] = views[1], views[0]


# ---- rejected at the kernel's line (test_carry.py checks message and line) ----

@asc.jit
def e_defined_in_loop(z: asc.GlobalAddress, n: int, v: int):
    zg = asc.GlobalTensor()
    zg.set_global_buffer(z)
    for j in range(n):
        w = j + v
    zg.set_value(0, w)  # error: w


@asc.jit
def e_loop_var_after(z: asc.GlobalAddress, n: int, v: int):
    zg = asc.GlobalTensor()
    zg.set_global_buffer(z)
    for j in range(n):
        zg.set_value(1, j)
    zg.set_value(0, j)  # error: j


@asc.jit
def e_append_in_loop(z: asc.GlobalAddress, n: int, v: int):
    zg = asc.GlobalTensor()
    zg.set_global_buffer(z)
    acc = []
    for j in range(n):  # error: acc
        acc.append(j)
    zg.set_value(0, len(acc))


@asc.jit
def e_append_in_branch(z: asc.GlobalAddress, n: int, v: int):
    zg = asc.GlobalTensor()
    zg.set_global_buffer(z)
    acc = [0]
    if v > 0:  # error: acc
        acc.append(v)
    zg.set_value(0, acc[0])


@asc.jit
def e_tensor_slot_read_first(z: asc.GlobalAddress, n: int, v: int):
    zg = asc.GlobalTensor()
    zg.set_global_buffer(z)
    a = asc.LocalTensor(asc.int32, asc.TPosition.VECIN, 0, 64)
    b = asc.LocalTensor(asc.int32, asc.TPosition.VECIN, 256, 64)
    bufs = [a, b]
    for j in range(n):
        cur = bufs[0]  # error: bufs
        bufs[0] = bufs[1]
        bufs[1] = cur
    zg.set_value(0, v)


@asc.jit
def e_tensor_branch_slot(z: asc.GlobalAddress, n: int, v: int):
    zg = asc.GlobalTensor()
    zg.set_global_buffer(z)
    a = asc.LocalTensor(asc.int32, asc.TPosition.VECIN, 0, 64)
    b = asc.LocalTensor(asc.int32, asc.TPosition.VECIN, 256, 64)
    bufs = [a]
    if v > 0:
        bufs[0] = b
    asc.duplicate(bufs[0], 1, 64)  # error: bufs
    zg.set_value(0, v)
