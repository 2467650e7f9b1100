"""Tracing a numpy script into a graph (docs/pyasc.md "numpy scripts").

The script runs with `numpy` replaced by a tracing module: creation calls make input or
constant nodes, operators and the supported numpy functions make operator nodes; nothing is
computed.  Any other numpy name, indexing, or a value the script inspects (bool(), float(),
printing elements) is a ScriptError at the script's line naming the call.

dtype rules (the compiler's, stricter than numpy's where the founding document says so):
  a Python float operand takes the tensor's dtype (numpy's rule); a Python int operand with a
  float tensor, or two tensors of different dtypes, is "Cannot infer dtype for operation 'add'
  between 'Tensor[float32]' and 'int'" (make it `np.float32(2)` or `2.0`); float64 (what
  np.random.rand gives) has no NPU type: any operator on it is an error asking for .astype();
  matmul takes float16 operands and gives float32 (the cube accumulates in float32); with
  `# pragma: auto_mixed_precision mode=O1` float32 operands of matmul are cast to float16 first,
  with mode=O2 every float32 element-wise operator also runs in float16.
"""
from __future__ import annotations

import builtins
import sys

import numpy as _np


class ScriptError(Exception):
    """file:line: error: message (like a compile error)."""

    def __init__(self, msg, file=None, line=None):
        self.msg, self.file, self.line = msg, file, line
        super().__init__(f"{file}:{line}: error: {msg}" if file and line else f"{file}: error: {msg}" if file
                         else f"error: {msg}")


class ScriptTypeError(ScriptError, TypeError):
    pass


_FLOATS = (_np.dtype(_np.float16), _np.dtype(_np.float32))


class Node:
    def __init__(self, op, args, shape, dtype, attrs=None, line=None):
        self.op, self.args, self.shape, self.dtype = op, list(args), tuple(shape), _np.dtype(dtype)
        self.attrs = dict(attrs or {})
        self.line = line
        self.id = None
        self.name = None


class Graph:
    def __init__(self, file):
        self.file = file
        self.nodes = []
        self.outputs = []
        self.amp = None           # None, "O1", "O2"
        self.parallel = {}        # line -> factor (lines of a parallelized loop body)

    def add(self, node):
        node.id = len(self.nodes)
        self.nodes.append(node)
        return node


def tname(x):
    if isinstance(x, Tensor):
        return f"Tensor[{x.node.dtype.name}]"
    if isinstance(x, _np.generic):
        return f"Scalar[{x.dtype.name}]"
    return type(x).__name__


class Tracer:
    def __init__(self, graph, ops=None):
        self.g = graph
        self.custom = dict(ops or {})      # numpy name -> custom-op entry (--custom-op-config)

    def line(self):
        f = sys._getframe(1)
        while f is not None:
            if f.f_code.co_filename == self.g.file:
                return f.f_lineno
            f = f.f_back
        return None

    def err(self, msg, cls=ScriptError):
        return cls(msg, self.g.file, self.line())

    def node(self, op, args, shape, dtype, **attrs):
        n = self.g.add(Node(op, [a.node if isinstance(a, Tensor) else a for a in args], shape, dtype, attrs,
                            self.line()))
        factor = self.g.parallel.get(n.line)
        if factor:
            n.attrs["cores"] = factor
        return Tensor(self, n)

    # ---- operands -------------------------------------------------------------------------
    def check_float(self, op, x):
        if x.node.dtype == _np.float64:
            raise self.err(f"operation '{op}' on 'Tensor[float64]': the NPU has no float64 (np.random.rand and "
                           f"np.array of Python floats give float64): add .astype(np.float32) or "
                           f".astype(np.float16)", ScriptTypeError)
        if x.node.dtype not in _FLOATS:
            raise self.err(f"operation '{op}' on '{tname(x)}': the kernels take float16 and float32",
                           ScriptTypeError)

    def binary(self, op, a, b):
        """Element-wise a op b: returns the Tensor."""
        ta, tb = isinstance(a, Tensor), isinstance(b, Tensor)
        for x in (a, b):
            if not isinstance(x, (Tensor, int, float, _np.generic, _np.ndarray)) or isinstance(x, bool):
                raise self.err(f"operation '{op}' between '{tname(a)}' and '{tname(b)}': unsupported operand",
                               ScriptTypeError)
        if isinstance(a, _np.ndarray) or isinstance(b, _np.ndarray):
            x = a if isinstance(a, _np.ndarray) else b
            if x.ndim != 0:
                raise self.err(f"operation '{op}': a numpy array operand that was not traced (make it with np.* "
                               f"in the script)")
        a = a[()] if isinstance(a, _np.ndarray) else a
        b = b[()] if isinstance(b, _np.ndarray) else b
        t = a if ta else b
        self.check_float(op, t)
        if ta and tb:
            if a.node.dtype != b.node.dtype:
                raise self.err(f"Cannot infer dtype for operation '{op}' between '{tname(a)}' and '{tname(b)}'",
                               ScriptTypeError)
            if a.node.shape != b.node.shape and b.node.shape == a.node.shape[:-1] + (1,):
                # a keepdims row operand: only the softmax pattern uses it (compile.py rejects the rest)
                return self.node(op, [a, b], a.node.shape, a.node.dtype, bcast=True)
            if a.node.shape != b.node.shape:
                raise self.err(f"operation '{op}' between shapes {a.node.shape} and {b.node.shape}: the "
                               f"compiler fuses same-shape operands only (no broadcasting, except the softmax "
                               f"pattern)")
            return self.node(op, [a, b], a.node.shape, a.node.dtype)
        s = b if ta else a
        if isinstance(s, int) or (isinstance(s, _np.generic) and s.dtype != t.node.dtype):
            raise self.err(f"Cannot infer dtype for operation '{op}' between '{tname(a)}' and '{tname(b)}'",
                           ScriptTypeError)
        return self.node(op, [a, b], t.node.shape, t.node.dtype)

    def unary(self, op, x):
        if not isinstance(x, Tensor):
            raise self.err(f"np.{op} of '{tname(x)}': only traced arrays are supported", ScriptTypeError)
        self.check_float(op, x)
        return self.node(op, [x], x.node.shape, x.node.dtype)

    def reduce(self, op, x, axis, keepdims):
        if not isinstance(x, Tensor):
            raise self.err(f"np.{op} of '{tname(x)}': only traced arrays are supported", ScriptTypeError)
        self.check_float(op, x)
        nd = len(x.node.shape)
        if axis is None:
            shape = (1,) * nd if keepdims else ()
            ax = None
        else:
            if axis not in (-1, nd - 1):
                raise self.err(f"np.{op}(axis={axis}) of shape {x.node.shape}: the kernel library reduces the last "
                               f"axis (axis=-1) or everything (axis=None)")
            ax = -1
            shape = x.node.shape[:-1] + ((1,) if keepdims else ())
        return self.node("reduce_" + op, [x], shape, x.node.dtype, axis=ax, keepdims=bool(keepdims))

    def matmul(self, a, b):
        if not isinstance(a, Tensor) or not isinstance(b, Tensor):
            raise self.err(f"np.matmul between '{tname(a)}' and '{tname(b)}': both must be traced arrays",
                           ScriptTypeError)
        for x in (a, b):
            if x.node.dtype == _np.float64:
                self.check_float("matmul", x)
        if len(a.node.shape) != 2 or len(b.node.shape) != 2:
            raise self.err(f"np.matmul of shapes {a.node.shape} and {b.node.shape}: 2-D operands only")
        if a.node.shape[1] != b.node.shape[0]:
            raise self.err(f"np.matmul: inner dimensions differ: {a.node.shape} @ {b.node.shape}")
        ops = []
        for x in (a, b):
            if x.node.dtype == _np.float32 and self.g.amp:
                x = self.node("cast", [x], x.node.shape, _np.float16, amp=True)
            if x.node.dtype != _np.float16:
                raise self.err(f"np.matmul of '{tname(a)}' and '{tname(b)}': the cube takes float16 operands "
                               f"(.astype(np.float16), or # pragma: auto_mixed_precision mode=O1)",
                               ScriptTypeError)
            ops.append(x)
        return self.node("matmul", ops, (a.node.shape[0], b.node.shape[1]), _np.float32)

    def amp2(self, op, x):
        """mode=O2: a float32 element-wise operand runs in float16."""
        if self.g.amp == "O2" and isinstance(x, Tensor) and x.node.dtype == _np.float32:
            return self.node("cast", [x], x.node.shape, _np.float16, amp=True)
        return x


class Tensor:
    """A traced array: operators make nodes."""
    __array_priority__ = 1000

    def __init__(self, tr, node):
        self._tr, self.node = tr, node

    shape = property(lambda self: self.node.shape)
    dtype = property(lambda self: self.node.dtype)
    ndim = property(lambda self: len(self.node.shape))
    size = property(lambda self: int(_np.prod(self.node.shape, dtype=_np.int64)))

    def _b(self, op, a, b):
        tr = self._tr
        return tr.binary(op, tr.amp2(op, a), tr.amp2(op, b))

    def __add__(self, o): return self._b("add", self, o)
    def __radd__(self, o): return self._b("add", o, self)
    def __sub__(self, o): return self._b("sub", self, o)
    def __rsub__(self, o): return self._b("sub", o, self)
    def __mul__(self, o): return self._b("mul", self, o)
    def __rmul__(self, o): return self._b("mul", o, self)
    def __truediv__(self, o): return self._b("div", self, o)
    def __rtruediv__(self, o): return self._b("div", o, self)
    def __neg__(self): return self._b("mul", self, -1.0)
    def __matmul__(self, o): return self._tr.matmul(self, o)
    def __rmatmul__(self, o): return self._tr.matmul(o, self)

    def astype(self, dtype):
        d = _np.dtype(dtype)
        if self.node.op == "input":          # an input is generated/loaded in that dtype directly
            return self._tr.node("input", [], self.node.shape, d, **{**self.node.attrs, "of": self.node.id})
        if d == self.node.dtype:
            return self
        if d not in _FLOATS or self.node.dtype not in _FLOATS:
            raise self._tr.err(f"astype({d.name}) of '{tname(self)}': casts between float16 and float32 only",
                               ScriptTypeError)
        return self._tr.node("cast", [self], self.node.shape, d)

    def sum(self, axis=None, keepdims=False): return self._tr.reduce("sum", self, axis, keepdims)
    def max(self, axis=None, keepdims=False): return self._tr.reduce("max", self, axis, keepdims)

    def reshape(self, *shape):
        raise self._tr.err("reshape of a traced array is not supported (shapes are fixed by the graph)")

    def __getitem__(self, k):
        raise self._tr.err("indexing a traced array is not supported: write the loop body as a whole-array "
                           "operation (x * 2, not x[i] * 2)")

    def __setitem__(self, k, v):
        raise self._tr.err("assigning into a traced array is not supported: write the loop body as a whole-array "
                           "operation (x = x * 2)")

    def __bool__(self):
        raise self._tr.err("the script branches on an array value: control flow cannot depend on computed data")

    def __float__(self):
        raise self._tr.err("float() of a traced array: values are computed only when the bundle runs")

    __int__ = __index__ = __float__

    def __array__(self, *a, **k):
        raise self._tr.err("a traced array was passed to a function outside the traced numpy API")

    def __array_ufunc__(self, ufunc, method, *inputs, **kw):
        name = ufunc.__name__
        f = getattr(self._tr.np, name, None)
        if method != "__call__" or f is None or kw:
            raise self._tr.err(f"numpy call 'np.{name}' (ufunc.{method}) is not supported by the pyasc compiler")
        return f(*inputs)

    def __repr__(self):
        return f"<traced {tname(self)}{list(self.node.shape)} from line {self.node.line}>"


class _Random:
    def __init__(self, tr):
        self._tr = tr

    def _input(self, shape, dist):
        shape = tuple(int(s) for s in shape)
        return self._tr.node("input", [], shape, _np.float64, dist=dist)

    def rand(self, *shape):
        return self._input(shape, "uniform")

    def randn(self, *shape):
        return self._input(shape, "normal")

    def random(self, size=None):
        return self._input(size if isinstance(size, tuple) else (size,), "uniform")

    def standard_normal(self, size=None):
        return self._input(size if isinstance(size, tuple) else (size,), "normal")

    def seed(self, s):
        self._tr.g.seed = int(s)

    def __getattr__(self, name):
        raise self._tr.err(f"numpy call 'np.random.{name}' is not supported by the pyasc compiler "
                           f"(rand, randn, random, standard_normal, seed)")


class TracedNumpy:
    """The `numpy` a traced script imports."""
    float16, float32, float64 = _np.float16, _np.float32, _np.float64
    int32, int64, pi, e = _np.int32, _np.int64, _np.pi, _np.e
    ndarray = Tensor

    def __init__(self, tr):
        self._tr = tr
        tr.np = self
        self.random = _Random(tr)

    def __getattr__(self, name):
        if name in self._tr.custom:
            return lambda *a, **k: self._custom(name, *a, **k)
        raise self._tr.err(f"numpy call 'np.{name}' is not supported by the pyasc compiler (supported: "
                           f"{', '.join(SUPPORTED)}; --custom-op-config maps others to kernels)")

    def _custom(self, name, *args, **kw):
        tr = self._tr
        ent = tr.custom[name]
        if kw or not args or not all(isinstance(a, Tensor) for a in args):
            raise tr.err(f"custom op '{name}' (--custom-op-config) takes traced arrays only")
        for a in args:
            tr.check_float(name, a)
        return tr.node("custom", list(args), args[0].node.shape, args[0].node.dtype, custom=name,
                       module=ent["module"], function=ent["function"], kernel=ent.get("kernel"),
                       elementwise=bool(ent.get("elementwise", False)))

    # creation
    def array(self, v, dtype=None):
        a = _np.array(v, dtype=dtype)
        if a.ndim == 0:
            return a          # a typed scalar (np.array(2, dtype=np.float32))
        raise self._tr.err("np.array of data in the script: give array inputs as np.load('x.npy') or "
                           "np.random.rand(...) (constants: np.zeros/ones/full)")

    def load(self, path):
        import os
        name = os.path.splitext(os.path.basename(str(path)))[0]
        try:
            with open(os.path.join(os.path.dirname(self._tr.g.file), str(path)), "rb") as f:
                ver = _np.lib.format.read_magic(f)
                shape, _, dtype = _np.lib.format._read_array_header(f, ver)
        except OSError as e:
            raise self._tr.err(f"np.load('{path}'): {e.strerror}") from None
        return self._tr.node("input", [], shape, dtype, npy=str(path), name=name)

    def _const(self, shape, value, dtype):
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        return self._tr.node("const", [], shape, dtype if dtype is not None else _np.float64, value=float(value))

    def zeros(self, shape, dtype=None): return self._const(shape, 0.0, dtype)
    def ones(self, shape, dtype=None): return self._const(shape, 1.0, dtype)
    def full(self, shape, value, dtype=None): return self._const(shape, value, dtype)

    def save(self, path, x):
        if not isinstance(x, Tensor):
            raise self._tr.err(f"np.save of '{tname(x)}': only traced arrays")
        x.node.attrs["save"] = str(path)
        self._tr.g.outputs.append(x.node)

    # operators
    def matmul(self, a, b): return self._tr.matmul(a, b)
    dot = matmul
    def add(self, a, b): return Tensor._b(a if isinstance(a, Tensor) else b, "add", a, b)
    def subtract(self, a, b): return Tensor._b(a if isinstance(a, Tensor) else b, "sub", a, b)
    def multiply(self, a, b): return Tensor._b(a if isinstance(a, Tensor) else b, "mul", a, b)
    def divide(self, a, b): return Tensor._b(a if isinstance(a, Tensor) else b, "div", a, b)
    true_divide = divide
    def maximum(self, a, b): return Tensor._b(a if isinstance(a, Tensor) else b, "max", a, b)
    def minimum(self, a, b): return Tensor._b(a if isinstance(a, Tensor) else b, "min", a, b)
    def negative(self, x): return -x
    def exp(self, x): return self._tr.unary("exp", self._tr.amp2("exp", x))
    def abs(self, x): return self._tr.unary("abs", self._tr.amp2("abs", x))
    absolute = abs
    def sqrt(self, x): return self._tr.unary("sqrt", self._tr.amp2("sqrt", x))
    def log(self, x): return self._tr.unary("ln", self._tr.amp2("log", x))
    def tanh(self, x): return self._tr.unary("tanh", x)
    def sum(self, x, axis=None, keepdims=False): return self._tr.reduce("sum", x, axis, keepdims)
    def max(self, x, axis=None, keepdims=False): return self._tr.reduce("max", x, axis, keepdims)
    amax = max


SUPPORTED = ("matmul", "dot", "@", "+", "-", "*", "/", "add", "subtract", "multiply", "divide", "maximum",
             "minimum", "negative", "exp", "abs", "sqrt", "log", "tanh", "sum", "max", "amax", "zeros", "ones",
             "full", "array (scalars)", "load", "save", "random.rand/randn/random/standard_normal", "astype")


def pragmas(src, file):
    """{'amp': mode or None, 'parallel': {line: factor}} from `# pragma:` comments; errors name the line."""
    import re
    amp, par = None, {}
    lines = src.splitlines()
    for i, text in enumerate(lines, 1):
        m = re.search(r"#\s*pragma:\s*(\S+)(.*)$", text)
        if not m:
            continue
        kind, rest = m.group(1), m.group(2).strip()
        kv = dict(p.split("=", 1) for p in rest.split() if "=" in p)
        if kind == "auto_mixed_precision":
            if kv.get("mode") not in ("O1", "O2"):
                raise ScriptError(f"pragma auto_mixed_precision needs mode=O1 or mode=O2, got '{rest}'", file, i)
            amp = kv["mode"]
        elif kind == "parallelize":
            try:
                f = int(kv.get("factor", ""))
            except ValueError:
                f = 0
            if f < 1:
                raise ScriptError(f"pragma parallelize needs factor=N (N >= 1), got '{rest}'", file, i)
            j = i   # the next non-blank line must be a for loop; its indented body gets the factor
            while j < len(lines) and not lines[j].strip():
                j += 1
            if j >= len(lines) or not lines[j].lstrip().startswith("for "):
                raise ScriptError("pragma parallelize must stand right above a for loop", file, i)
            ind = len(lines[j]) - len(lines[j].lstrip())
            k = j + 1
            while k < len(lines) and (not lines[k].strip() or len(lines[k]) - len(lines[k].lstrip()) > ind):
                par[k + 1] = f
                k += 1
        else:
            raise ScriptError(f"unknown pragma '{kind}' (auto_mixed_precision, parallelize)", file, i)
    return amp, par


def trace(path, custom=None):
    """Run the script at `path` under the tracing numpy; returns the Graph."""
    import os
    path = os.path.abspath(path)
    with open(path, encoding="utf-8") as f:
        src = f.read()
    g = Graph(path)
    g.seed = 0
    g.amp, g.parallel = pragmas(src, path)
    tr = Tracer(g, custom)
    fake = TracedNumpy(tr)
    real_import = builtins.__import__

    def imp(name, globals=None, locals=None, fromlist=(), level=0):
        if name == "numpy" or name.startswith("numpy."):
            if name != "numpy":
                raise ScriptError(f"import {name}: only `import numpy` is traced", path, tr.line())
            return fake
        return real_import(name, globals, locals, fromlist, level)

    bi = dict(vars(builtins))
    bi["__import__"] = imp
    bi["print"] = lambda *a, **k: None     # the script's prints would show traced values, not data
    ns = {"__name__": "__main__", "__file__": path, "__builtins__": bi}
    try:
        code = compile(src, path, "exec")
    except SyntaxError as e:
        raise ScriptError(f"syntax error: {e.msg}", path, e.lineno) from None
    exec(code, ns)
    if not g.outputs:      # no np.save: the sinks bound to names at the end are the outputs
        used = {id(a) for n in g.nodes for a in n.args if isinstance(a, Node)}
        for k, v in ns.items():
            if isinstance(v, Tensor) and id(v.node) not in used and v.node.op not in ("input", "const"):
                v.node.name = k
                if v.node not in g.outputs:
                    g.outputs.append(v.node)
    for k, v in ns.items():
        if isinstance(v, Tensor) and v.node.name is None:
            v.node.name = k
    if not g.outputs:
        raise ScriptError("the script computes nothing: no np.save and no computed array bound to a name", path, 1)
    return g


def trace_function(fn, example_inputs):
    """Trace `fn(*arrays)` (a Python function using numpy operators/np.* on its arguments) with
    inputs of the examples' shapes and dtypes; the returned arrays are the outputs."""
    import inspect
    file = inspect.getsourcefile(fn) or "<function>"
    g = Graph(file)
    g.seed = 0
    try:
        g.amp, g.parallel = pragmas(inspect.getsource(fn), file)
        g.parallel = {}
    except OSError:
        pass
    tr = Tracer(g)
    fake = TracedNumpy(tr)
    names = list(inspect.signature(fn).parameters)
    args = []
    for k, x in zip(names, example_inputs):
        x = _np.asarray(x)
        t = tr.node("input", [], x.shape, x.dtype, dist="normal")
        t.node.name = k
        args.append(t)
    glb = dict(fn.__globals__)
    for k, v in list(glb.items()):
        if v is _np:
            glb[k] = fake
    import types
    f2 = types.FunctionType(fn.__code__, glb, fn.__name__, fn.__defaults__, fn.__closure__)
    res = f2(*args)
    res = res if isinstance(res, tuple) else (res,)
    for i, r in enumerate(res):
        if not isinstance(r, Tensor):
            raise ScriptError(f"{fn.__name__} returned {tname(r)}, not a traced array", file,
                              fn.__code__.co_firstlineno)
        if r.node.name is None or r.node.op == "input":
            r.node.name = f"out{i}"
        g.outputs.append(r.node)
    return g
