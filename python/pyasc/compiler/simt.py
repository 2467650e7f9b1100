"""SIMT-style (per-element, GPU style) kernels: analysis of the per-element function and the
tiled, double-buffered vector kernel it becomes (docs/pyasc.md "Per-element (SIMT) kernels").

Users: pyasc.simt (the launcher behind `@pyasc.jit` when the function asks for its element's
index), tests.

A per-element kernel describes what ONE element does (`idx = pyasc.get_global_id()`,
`if idx < size: out[idx] = x[idx] * 2`).  The Ascend vector unit has no threads: it runs one
instruction over up to a few thousand elements of a UB tile.  `analyse(fn)` reads the function's
AST once and returns a Plan:

  Plan("map")      element-wise code: every load and store is at the element's own index, so the
                   whole body is one expression DAG per output, evaluated tile by tile (each AST
                   operator becomes one vector instruction over the tile; python constants and
                   scalar parameters become the scalar operand of vadds/vmuls/vmaxs/vmins or a
                   vdup'ed tile).  `map_source` writes the asc-language kernel: each core takes a
                   contiguous range, walks it in tiles through TQues, which -O2 and up make
                   double-buffered (compiler/dbuf.py: MTE2 copies tile t+1 in while V computes
                   tile t and MTE3 writes tile t-1; one buffer each at -O0/-O1), the `if idx <
                   size` guard gives the range's end, whose last, short tile is read and written
                   with byte-exact data_copy_pad.
  Plan("gemm")     `for k in range(K): s += A[row, k] * B[k, col]` under `row < M and col < N`,
                   then `C[row, col] = s`: a matrix product, run on the cube by the kernel
                   library's matmul (kernels/pyasc/matmul.py).
  Plan("softmax")  a row program (`row = get_row()`: max over j, sum of exp(x - max) over j,
                   `out[row, j] = exp(x - max) / sum`): vector reductions (vcmax, vcadd) per row,
                   run by the kernel library's softmax (kernels/pyasc/softmax.py).

What the vector ISA cannot express is a CompileError at the line, saying why: a gather
(`x[y[idx]]`, `x[idx * 2]`, `shared[(tid + 1) % 16]`: an index that is not the element's own), a
loop that reads other elements and is not one of the recognised reductions, a data-dependent
branch, float64 arithmetic (no f64 vector instructions).
"""
from __future__ import annotations

import ast
import inspect
import re
import textwrap
from dataclasses import dataclass, field

from . import ir
from .errors import CompileError
from .source import source_lines

from .simt_names import INDEX_FUNCS, SIMT_FUNCS, is_simt  # noqa: F401,E402  (one list: simt_names.py)

VECTOR_WIDTH = 4          # load_vector / store_vector: elements per vector, as in the documents
_UNARY = {"exp": "exp", "log": "ln", "sqrt": "sqrt", "abs": "abs", "relu": "relu"}
_BINARY_CALLS = ("max", "min", "maximum", "minimum")
_BINOPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/"}
_F32_UNARY = ("exp", "log", "sqrt")      # float16 inputs are widened to float32 (numpy does the same)


# ---- the element expression DAG ------------------------------------------------------------
@dataclass(eq=False)
class E:
    op: str                 # ld (array at the own index), c (python number), p (scalar param),
    #                         bin (+ - * / max min), un (neg exp log sqrt abs relu)
    args: tuple = ()
    name: str = ""          # ld: array parameter; p: parameter; bin/un: operator
    value: object = None    # c: the number
    loc: object = None

    def is_scalar(self):
        # memoised: the code generator asks at every node of a chain, and a long chain (a sum of
        # 2048 terms) made the unmemoised recursion quadratic
        r = self.__dict__.get("_scalar")
        if r is None:
            r = self.__dict__["_scalar"] = self.op in ("c", "p") or (
                self.op in ("bin", "un") and all(a.is_scalar() for a in self.args))
        return r


@dataclass
class Store:
    array: str
    expr: E
    loc: object


@dataclass
class Plan:
    kind: str                       # map, gemm, softmax
    name: str
    params: list
    loc: object = None
    stores: list = field(default_factory=list)      # map: Store, in program order
    barriers: list = field(default_factory=list)    # map: number of stores before each syncthreads
    bound: object = None            # map: E (scalar) of the guard, or None (the outputs' length)
    width: int = 1                  # map: elements per index (load_vector: VECTOR_WIDTH)
    shared_elems: int = 0           # map: the largest pyasc.shared(n)
    mm: dict = field(default_factory=dict)          # gemm/softmax: the arrays and bounds by role


class _Parsed:
    def __init__(self, fn):
        lines, first = source_lines(fn)   # a CompileError naming fn when Python has no source
        src = textwrap.dedent("".join(lines))
        tree = ast.parse(src)
        ast.increment_lineno(tree, first - 1)
        self.file = inspect.getsourcefile(fn) or fn.__code__.co_filename
        self.indent = len(lines[0]) - len(lines[0].lstrip())
        self.node = tree.body[0]
        if not isinstance(self.node, ast.FunctionDef):
            raise CompileError(f"pyasc.jit: {fn.__name__} is not a plain function: a per-element kernel is a "
                               f"`def` statement (not a lambda or an expression)", self.loc(self.node))

    def loc(self, node):
        return ir.Loc(self.file, getattr(node, "lineno", self.node.lineno),
                      getattr(node, "col_offset", 0) + 1 + self.indent)


def _simt_call(node, mods):
    """'get_global_id' for `pyasc.get_global_id(...)` / `asc.get_global_id(...)` (a module
    name bound to pyasc in the kernel's globals), else None."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
            isinstance(node.func.value, ast.Name) and node.func.value.id in mods:
        return node.func.attr
    return None


class _Analyser:
    def __init__(self, fn):
        self.fn = fn
        self.p = _Parsed(fn)
        self.params = [a.arg for a in self.p.node.args.args]
        g = fn.__globals__
        self.mods = {k for k, v in g.items() if getattr(v, "__name__", None) in ("pyasc", "asc")} | {"pyasc", "asc"}
        self.env = {}           # local name -> E, or ("index", kind), or ("shared", name)
        self.shared = {}        # shared array name -> {"size": n, "synced": bool}
        self.pending = set()    # names loaded by load_async, not yet waited for
        self.plan = Plan("map", fn.__name__, self.params, self.p.loc(self.p.node))
        self.width = None

    def err(self, msg, node):
        raise CompileError(msg, self.p.loc(node))

    # ---- entry --------------------------------------------------------------------------
    def run(self) -> Plan:
        body = list(self.p.node.body)
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
            body = body[1:]     # docstring
        calls = {_simt_call(n, self.mods) for n in ast.walk(self.p.node)}
        if "get_row" in calls and any(isinstance(n, ast.For) for n in ast.walk(self.p.node)):
            return self._row_program(body)
        self._block(body, guarded=False)
        if self.pending:
            n = sorted(self.pending)[0]
            self.err(f"'{n}' was loaded with pyasc.load_async and never waited for: call pyasc.wait() "
                     f"before the kernel ends", self.p.node)
        if not self.plan.stores:
            self.err("this per-element kernel stores nothing (no out[idx] = ... or pyasc.store_global)",
                     self.p.node)
        self.plan.width = self.width or 1
        return self.plan

    # ---- statements ---------------------------------------------------------------------
    def _block(self, stmts, guarded):
        for s in stmts:
            self._stmt(s, guarded)

    def _stmt(self, s, guarded):
        if isinstance(s, ast.Assign) and len(s.targets) == 1:
            t = s.targets[0]
            if isinstance(t, ast.Name):
                self.env[t.id] = self._value(s.value)
                return
            if isinstance(t, ast.Tuple) and all(isinstance(e, ast.Name) for e in t.elts):
                v = self._value(s.value)
                if not (isinstance(v, tuple) and v[0] == "pack" and len(v[1]) == len(t.elts)):
                    self.err(f"unpacking into {len(t.elts)} names needs pyasc.unpack of a pyasc.pack of "
                             f"{len(t.elts)} values", s)
                for e, x in zip(t.elts, v[1]):
                    self.env[e.id] = x
                return
            if isinstance(t, ast.Subscript):
                self._store(t, self._expr(s.value), s)
                return
        if isinstance(s, ast.AugAssign) and isinstance(s.target, (ast.Name, ast.Subscript)) and \
                type(s.op) in _BINOPS:
            load = ast.copy_location(ast.Name(s.target.id, ast.Load()), s) if isinstance(s.target, ast.Name) \
                else ast.copy_location(ast.Subscript(s.target.value, s.target.slice, ast.Load()), s)
            v = ast.copy_location(ast.BinOp(load, s.op, s.value), s)
            if isinstance(s.target, ast.Name):
                self.env[s.target.id] = self._expr(v)
            else:
                self._store(s.target, self._expr(v), s)
            return
        if isinstance(s, ast.Expr) and isinstance(s.value, ast.Call):
            name = _simt_call(s.value, self.mods)
            if name == "syncthreads":
                self.plan.barriers.append(len(self.plan.stores))
                for sh in self.shared.values():
                    sh["synced"] = True
                return
            if name in ("store_global", "store_async", "store_vector"):
                a = s.value.args
                if len(a) != 3 or not isinstance(a[0], ast.Name) or a[0].id not in self.params:
                    self.err(f"pyasc.{name}(out, index, value): out must be an array parameter", s)
                if name == "store_vector":
                    self._vec(s)
                self._check_index(a[1], a[0].id, s)
                self._add_store(a[0].id, self._expr(a[2]), s)
                return
            if name == "wait":
                self.pending.clear()
                return
            if name == "prefetch":
                return      # the pipeline always reads tile t+1 while tile t is computed
            if name is not None:
                self.err(f"pyasc.{name}(...) as a statement does nothing here", s)
        if isinstance(s, ast.If):
            self._guard(s, guarded)
            return
        if isinstance(s, (ast.For, ast.While)):
            self.err("a loop in a per-element kernel: each element's work must be independent of the "
                     "others, and this loop is neither a GEMM reduction (for k: s += A[row, k] * B[k, col]) "
                     "nor a row reduction (max, sum over j); the SIMT lowering cannot prove its iterations "
                     "independent, so it cannot become tile instructions", s)
        if isinstance(s, ast.Pass):
            return
        self.err(f"unsupported statement in a per-element kernel: {ast.unparse(s).splitlines()[0]}", s)

    def _guard(self, s, guarded):
        t = s.test
        if guarded or s.orelse:
            self.err("a data-dependent branch: only one `if idx < size:` guard (no else) is supported; "
                     "the vector unit runs every element of a tile through the same instructions "
                     "(use pyasc.max/min or arithmetic instead of per-element branches)", s)
        if not (isinstance(t, ast.Compare) and len(t.ops) == 1 and isinstance(t.ops[0], ast.Lt)):
            self.err("the guard must be `if idx < size:` (the element's index below a bound): other "
                     "conditions are per-element branches the vector unit does not have", t)
        left = self._value(t.left)
        if left != ("index", "global"):
            self.err("the guard must compare the element's global index (pyasc.get_global_id())", t.left)
        bound = self._expr(t.comparators[0])
        if not bound.is_scalar():
            self.err("the guard's bound reads an array: a data-dependent branch", t.comparators[0])
        self.plan.bound = bound
        self._block(s.body, guarded=True)

    def _vec(self, node):
        if self.width not in (None, VECTOR_WIDTH):
            self.err("load_vector/store_vector and element accesses x[idx] mix two index spaces", node)
        self.width = VECTOR_WIDTH

    def _scalar_width(self, node):
        if self.width not in (None, 1):
            self.err("load_vector/store_vector and element accesses x[idx] mix two index spaces", node)
        self.width = 1

    def _store(self, t, value, s):
        arr = t.value
        if isinstance(arr, ast.Name) and arr.id in self.shared:
            self._check_shared_index(t.slice, arr.id, s)
            self.env[("shared", arr.id)] = value
            return
        if not (isinstance(arr, ast.Name) and arr.id in self.params):
            self.err("stores go to an array parameter (out[idx] = ...)", t)
        self._check_index(t.slice, arr.id, t)
        self._scalar_width(t)
        self._add_store(arr.id, value, s)

    def _add_store(self, name, value, s):
        self.plan.stores.append(Store(name, value, self.p.loc(s)))

    def _check_index(self, node, arr, where):
        v = self._index_of(node)
        if v == ("index", "global"):
            return
        if v == ("index", "local"):
            self.err(f"{arr}[...] is indexed by pyasc.get_local_id(): the index within a tile only "
                     f"addresses pyasc.shared memory; global arrays take pyasc.get_global_id()", where)
        self.err(f"{arr}[{ast.unparse(node)}]: the index is not the element's own index "
                 f"(pyasc.get_global_id()): this is a gather/scatter with a computed or data-dependent "
                 f"address, which the asc vector ISA cannot express (its loads and stores move whole "
                 f"contiguous tiles)", where)

    def _index_of(self, node):
        """The index marker an index expression is, or None (anything else: a computed index)."""
        if isinstance(node, ast.Name) and isinstance(self.env.get(node.id), tuple):
            return self.env[node.id]
        if _simt_call(node, self.mods) in ("get_global_id", "get_local_id"):
            return self._value(node)
        return None

    def _check_shared_index(self, node, arr, where):
        v = self._index_of(node)
        if v in (("index", "local"), ("index", "global")):
            return
        self.err(f"{arr}[{ast.unparse(node)}] reads another element's slot of pyasc.shared memory: a "
                 f"cross-element gather (a rotation or shuffle within the tile) that the asc vector ISA "
                 f"cannot express; only {arr}[tid] of the element's own index maps to a UB tile", where)

    # ---- values ---------------------------------------------------------------------------
    def _value(self, node):
        """An E, or an index marker, or a shared array, or a pack."""
        name = _simt_call(node, self.mods)
        if name in ("get_global_id", "get_local_id"):
            if node.args and not (isinstance(node.args[0], ast.Constant) and node.args[0].value == 0):
                self.err(f"pyasc.{name}({ast.unparse(node.args[0])}): a per-element map has one index "
                         f"dimension (0); 2-D element-wise code uses get_row/get_col", node)
            return ("index", "global" if name == "get_global_id" else "local")
        if name in ("get_row", "get_col"):
            self.err(f"pyasc.{name}() outside a GEMM or a row reduction: write element-wise code over "
                     f"the flat index (pyasc.get_global_id())", node)
        if name == "shared":
            if len(node.args) != 1 or not isinstance(node.args[0], ast.Constant) or \
                    not isinstance(node.args[0].value, int) or node.args[0].value < 1:
                self.err("pyasc.shared(n) takes a positive integer constant", node)
            n = node.args[0].value
            self.plan.shared_elems = max(self.plan.shared_elems, n)
            return ("shared", n)
        if name == "pack":
            return ("pack", tuple(self._expr(a) for a in node.args))
        if name == "unpack":
            if len(node.args) != 1:
                self.err("pyasc.unpack(packed) takes one value", node)
            v = self._value(node.args[0])
            if not (isinstance(v, tuple) and v[0] == "pack"):
                self.err("pyasc.unpack takes a value made by pyasc.pack", node)
            return v
        if isinstance(node, ast.Name) and isinstance(self.env.get(node.id), tuple):
            return self.env[node.id]
        return self._expr(node)

    def _stmt_shared(self, target, n):
        self.shared[target] = {"size": n, "synced": False}

    def _expr(self, node) -> E:
        loc = self.p.loc(node)
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and \
                not isinstance(node.value, bool):
            return E("c", value=node.value, loc=loc)
        if isinstance(node, ast.Name):
            v = self.env.get(node.id)
            if isinstance(v, E):
                if node.id in self.pending:
                    self.err(f"'{node.id}' comes from pyasc.load_async and is used before pyasc.wait()", node)
                return v
            if isinstance(v, tuple):
                if v[0] == "index":
                    self.err(f"the index '{node.id}' used as a value: element values cannot depend on "
                             f"their own position (no iota instruction)", node)
                self.err(f"'{node.id}' ({v[0]}) cannot be used as an element value", node)
            if node.id in self.params:
                return E("p", name=node.id, loc=loc)
            self.err(f"'{node.id}' is not defined in this per-element kernel", node)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            a = self._expr(node.operand)
            if a.op == "c":
                return E("c", value=-a.value, loc=loc)
            return E("un", (a,), "neg", loc=loc)
        if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
            return E("bin", (self._expr(node.left), self._expr(node.right)), _BINOPS[type(node.op)], loc=loc)
        if isinstance(node, ast.BinOp):
            self.err(f"operator {type(node.op).__name__} in element code: +, -, *, / and "
                     f"pyasc.max/min/exp/log/sqrt/abs/relu map to vector instructions", node)
        if isinstance(node, ast.Subscript):
            arr = node.value
            if isinstance(arr, ast.Name) and isinstance(self.env.get(arr.id), tuple) and \
                    self.env[arr.id][0] == "shared":
                self._check_shared_index(node.slice, arr.id, node)
                v = self.env.get(("shared", arr.id))
                if v is None:
                    self.err(f"{arr.id}[...] is read before anything was written to it", node)
                return v
            if not (isinstance(arr, ast.Name) and arr.id in self.params):
                self.err("element loads read an array parameter (x[idx])", node)
            self._check_index(node.slice, arr.id, node)
            self._scalar_width(node)
            return E("ld", name=arr.id, loc=loc)
        name = _simt_call(node, self.mods)
        if name in ("load_global", "load_async", "load_vector"):
            a = node.args
            if len(a) != 2 or not isinstance(a[0], ast.Name) or a[0].id not in self.params:
                self.err(f"pyasc.{name}(array, index): the array must be an array parameter", node)
            if name == "load_vector":
                self._vec(node)
            else:
                self._scalar_width(node)
            self._check_index(a[1], a[0].id, node)
            return E("ld", name=a[0].id, loc=loc)
        if name in _UNARY and len(node.args) == 1:
            return E("un", (self._expr(node.args[0]),), name, loc=loc)
        if name in _BINARY_CALLS and len(node.args) == 2:
            return E("bin", (self._expr(node.args[0]), self._expr(node.args[1])), name[:3], loc=loc)
        if name == "get_dim":
            if len(node.args) != 1 or not isinstance(node.args[0], ast.Constant):
                self.err("pyasc.get_dim(i) takes a constant axis", node)
            return E("p", name=f"@dim{node.args[0].value}", loc=loc)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len" and \
                len(node.args) == 1 and isinstance(node.args[0], ast.Name) and node.args[0].id in self.params:
            return E("p", name=f"@len:{node.args[0].id}", loc=loc)
        if name is not None:
            self.err(f"pyasc.{name}(...) is not an element operation of the per-element style here", node)
        self.err(f"unsupported expression in a per-element kernel: {ast.unparse(node)}", node)

    # ---- row programs: GEMM and softmax ------------------------------------------------------
    def _row_program(self, body):
        idx = {}
        stmts = []
        for s in body:
            if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name) and \
                    _simt_call(s.value, self.mods) in ("get_row", "get_col"):
                idx[s.targets[0].id] = _simt_call(s.value, self.mods)[4:]
            else:
                stmts.append(s)
        if len(stmts) != 1 or not isinstance(stmts[0], ast.If) or stmts[0].orelse:
            self.err("a row/column kernel is `row = pyasc.get_row()` [`col = pyasc.get_col()`] then one "
                     "`if row < M [and col < N]:` guard around the work", stmts[0] if stmts else self.p.node)
        g = stmts[0]
        bounds = self._row_guard(g.test, idx)
        if "col" in idx.values():
            return self._gemm(g, idx, bounds)
        return self._softmax(g, idx, bounds)

    def _row_guard(self, t, idx):
        conds = t.values if isinstance(t, ast.BoolOp) and isinstance(t.op, ast.And) else [t]
        bounds = {}
        for c in conds:
            if not (isinstance(c, ast.Compare) and len(c.ops) == 1 and isinstance(c.ops[0], ast.Lt) and
                    isinstance(c.left, ast.Name) and c.left.id in idx):
                self.err("the guard must be `row < M` [and `col < N`]", c)
            bounds[idx[c.left.id]] = self._bound(c.comparators[0])
        if set(bounds) != set(idx.values()):
            self.err("every index (row, col) needs its `< bound` in the guard", t)
        return bounds

    def _bound(self, node):
        if isinstance(node, ast.Name) and node.id in self.params:
            return ("p", node.id)
        if isinstance(node, ast.Constant) and isinstance(node.value, int):
            return ("c", node.value)
        self.err("a bound must be a scalar parameter or an integer constant", node)

    def _is_ix(self, node, arr, first, second):
        """node is arr[first, second] with the given index names."""
        return isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and \
            (arr is None or node.value.id == arr) and isinstance(node.slice, ast.Tuple) and \
            len(node.slice.elts) == 2 and all(isinstance(e, ast.Name) for e in node.slice.elts) and \
            [e.id for e in node.slice.elts] == [first, second]

    def _gemm(self, g, idx, bounds):
        inv = {v: k for k, v in idx.items()}
        row, col = inv["row"], inv["col"]
        body = g.body
        msg = ("GEMM-shaped per-element code must be exactly: `s = 0`, `for k in range(K): s += A[row, k] * "
               "B[k, col]`, `C[row, col] = s` (the dot product the cube computes)")
        if len(body) != 3:
            self.err(msg, g)
        init, loop, st = body
        if not (isinstance(init, ast.Assign) and isinstance(init.targets[0], ast.Name) and
                isinstance(init.value, ast.Constant) and init.value.value == 0):
            self.err(msg + ": the accumulator starts at 0", init)
        acc = init.targets[0].id
        if not (isinstance(loop, ast.For) and isinstance(loop.target, ast.Name) and isinstance(loop.iter, ast.Call)
                and isinstance(loop.iter.func, ast.Name) and loop.iter.func.id == "range" and
                len(loop.iter.args) == 1 and len(loop.body) == 1):
            self.err(msg, loop)
        k = loop.target.id
        kb = self._bound(loop.iter.args[0])
        s = loop.body[0]
        prod = None
        if isinstance(s, ast.AugAssign) and isinstance(s.op, ast.Add) and isinstance(s.target, ast.Name) and \
                s.target.id == acc:
            prod = s.value
        elif isinstance(s, ast.Assign) and isinstance(s.targets[0], ast.Name) and s.targets[0].id == acc and \
                isinstance(s.value, ast.BinOp) and isinstance(s.value.op, ast.Add) and \
                isinstance(s.value.left, ast.Name) and s.value.left.id == acc:
            prod = s.value.right
        if not (isinstance(prod, ast.BinOp) and isinstance(prod.op, ast.Mult) and
                self._is_ix(prod.left, None, row, k) and self._is_ix(prod.right, None, k, col)):
            self.err(msg + ": the loop body must add A[row, k] * B[k, col]", s)
        if not (isinstance(st, ast.Assign) and self._is_ix(st.targets[0], None, row, col) and
                isinstance(st.value, ast.Name) and st.value.id == acc):
            self.err(msg + ": the result is stored as C[row, col] = s", st)
        a, b, c = prod.left.value.id, prod.right.value.id, st.targets[0].value.id
        for n, node in ((a, prod.left), (b, prod.right), (c, st.targets[0])):
            if n not in self.params:
                self.err(f"'{n}' is not an array parameter", node)
        if len({a, b, c}) != 3:
            self.err("C must not be A or B (the cube reads A and B while it writes C)", st)
        self.plan = Plan("gemm", self.fn.__name__, self.params, self.p.loc(g),
                         mm={"A": a, "B": b, "C": c, "M": bounds["row"], "N": bounds["col"], "K": kb})
        return self.plan

    def _softmax(self, g, idx, bounds):
        row = next(iter(idx))
        msg = ("a row program here is the row softmax: `m = x[row, 0]` (or -inf), `for j in range(cols): "
               "m = pyasc.max(m, x[row, j])`, `s = 0`, `for j in range(cols): s += pyasc.exp(x[row, j] - m)`, "
               "`for j in range(cols): out[row, j] = pyasc.exp(x[row, j] - m) / s` (row max and sum become "
               "vector reductions); other row loops cannot be proven independent")
        body = g.body
        if len(body) != 5:
            self.err(msg, g)
        m0, lmax, s0, lsum, lout = body

        def loop(node):
            if not (isinstance(node, ast.For) and isinstance(node.target, ast.Name) and
                    isinstance(node.iter, ast.Call) and isinstance(node.iter.func, ast.Name) and
                    node.iter.func.id == "range" and len(node.iter.args) == 1 and len(node.body) == 1):
                self.err(msg, node)
            return node.target.id, self._bound(node.iter.args[0]), node.body[0]

        def call(node, fname, nargs):
            return _simt_call(node, self.mods) == fname and len(node.args) == nargs

        if not (isinstance(m0, ast.Assign) and isinstance(m0.targets[0], ast.Name)):
            self.err(msg, m0)
        mv = m0.targets[0].id
        x = None
        if isinstance(m0.value, ast.Subscript) and isinstance(m0.value.value, ast.Name) and \
                isinstance(m0.value.slice, ast.Tuple) and len(m0.value.slice.elts) == 2 and \
                isinstance(m0.value.slice.elts[0], ast.Name) and m0.value.slice.elts[0].id == row and \
                isinstance(m0.value.slice.elts[1], ast.Constant) and m0.value.slice.elts[1].value == 0:
            x = m0.value.value.id
        elif not (isinstance(m0.value, ast.UnaryOp) and isinstance(m0.value.op, ast.USub) and
                  ast.unparse(m0.value.operand) in ("float('inf')", 'float("inf")', "math.inf", "np.inf")):
            self.err(msg + ": the running max starts at x[row, 0] or -inf", m0)
        j, cols, st = loop(lmax)
        if not (isinstance(st, ast.Assign) and isinstance(st.targets[0], ast.Name) and st.targets[0].id == mv and
                call(st.value, "max", 2) and isinstance(st.value.args[0], ast.Name) and st.value.args[0].id == mv
                and self._is_ix(st.value.args[1], x, row, j)):
            self.err(msg + ": the max loop is `m = pyasc.max(m, x[row, j])`", st)
        x = st.value.args[1].value.id

        def exp_sub(node, j):
            return call(node, "exp", 1) and isinstance(node.args[0], ast.BinOp) and \
                isinstance(node.args[0].op, ast.Sub) and self._is_ix(node.args[0].left, x, row, j) and \
                isinstance(node.args[0].right, ast.Name) and node.args[0].right.id == mv

        if not (isinstance(s0, ast.Assign) and isinstance(s0.targets[0], ast.Name) and
                isinstance(s0.value, ast.Constant) and s0.value.value == 0):
            self.err(msg + ": the sum starts at 0", s0)
        sv = s0.targets[0].id
        j2, cols2, st = loop(lsum)
        if not (isinstance(st, ast.AugAssign) and isinstance(st.op, ast.Add) and isinstance(st.target, ast.Name)
                and st.target.id == sv and exp_sub(st.value, j2)):
            self.err(msg + ": the sum loop is `s += pyasc.exp(x[row, j] - m)`", st)
        j3, cols3, st = loop(lout)
        if not (isinstance(st, ast.Assign) and self._is_ix(st.targets[0], None, row, j3) and
                isinstance(st.value, ast.BinOp) and isinstance(st.value.op, ast.Div) and
                exp_sub(st.value.left, j3) and isinstance(st.value.right, ast.Name) and st.value.right.id == sv):
            self.err(msg + ": the output loop is `out[row, j] = pyasc.exp(x[row, j] - m) / s`", st)
        if not cols == cols2 == cols3:
            self.err("the three row loops must run over the same range(cols)", lout)
        out = st.targets[0].value.id
        for n in (x, out):
            if n not in self.params:
                self.err(f"'{n}' is not an array parameter", g)
        self.plan = Plan("softmax", self.fn.__name__, self.params, self.p.loc(g),
                         mm={"X": x, "Y": out, "ROWS": bounds["row"], "COLS": cols})
        return self.plan


def analyse(fn) -> Plan:
    """The Plan of a per-element kernel; CompileError at the line that cannot be vectorised."""
    a = _Analyser(fn)
    # pyasc.shared(n) bound to a name: remember it as a shared array
    orig = a._stmt

    def stmt(s, guarded):
        if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name) and \
                _simt_call(s.value, a.mods) == "shared":
            v = a._value(s.value)
            a.env[s.targets[0].id] = v
            a._stmt_shared(s.targets[0].id, v[1])
            return
        if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name) and \
                _simt_call(s.value, a.mods) == "load_async":
            orig(s, guarded)
            a.pending.add(s.targets[0].id)
            return
        orig(s, guarded)
    a._stmt = stmt
    return a.run()


# ---- code generation of a map plan ------------------------------------------------------------
_ASC_DT = {"float16": "asc.float16", "float32": "asc.float32", "int32": "asc.int32", "int16": "asc.int16"}
_SIZE = {"float16": 2, "float32": 4, "int32": 4, "int16": 2}


def type_nodes(plan, arrays, scalars):
    """numpy's result dtype of every node (by id), with the launch's array dtypes and scalar
    values (numpy 1.x value-based casting of Python scalars included): {id(E): np.dtype or
    'scalar'}.  CompileError where numpy's type is one the vector unit has no instructions for."""
    import numpy as np
    types = {}

    def sample(e):
        if id(e) in types:
            return types[id(e)][1]
        if e.op == "c":
            v = e.value
        elif e.op == "p":
            v = scalars[e.name]
        elif e.op == "ld":
            v = np.ones(1, arrays[e.name])
        elif e.op == "un":
            a = sample(e.args[0])
            f = {"neg": np.negative, "exp": np.exp, "log": np.log, "sqrt": np.sqrt, "abs": np.abs,
                 "relu": lambda z: np.maximum(z, 0)}[e.name]
            with np.errstate(all="ignore"):
                v = f(a) if not np.isscalar(a) else type(a)(f(a))
        else:
            a, b = sample(e.args[0]), sample(e.args[1])
            f = {"+": np.add, "-": np.subtract, "*": np.multiply, "/": np.true_divide, "max": np.maximum,
                 "min": np.minimum}[e.name]
            with np.errstate(all="ignore"):
                v = f(a, b)
            if np.isscalar(a) and np.isscalar(b):
                v = v.item() if hasattr(v, "item") else v
        dtn = "scalar" if e.is_scalar() else np.asarray(v).dtype
        if dtn != "scalar" and dtn.name not in _ASC_DT:
            raise CompileError(f"this operation gives {dtn.name} in numpy (operands "
                               f"{', '.join(_tname(types, x) for x in e.args) or e.name}), and the vector unit "
                               f"has no {dtn.name} instructions: cast the inputs, or use float32 arrays", e.loc)
        types[id(e)] = (dtn, v)
        return v

    for st in plan.stores:
        sample(st.expr)
    return {k: v[0] for k, v in types.items()}


def _tname(types, e):
    t = types.get(id(e))
    return "scalar" if t is None or t[0] == "scalar" else f"Tensor[{t[0].name}]"


class _Gen:
    """The asc-language source of one specialisation of a map plan."""

    def __init__(self, plan, arrays, types, tile):
        self.plan, self.arrays, self.types, self.tile = plan, arrays, types, tile
        self.lines = []
        self.scalar_args = []       # (kernel parameter name, E) computed on the host
        self.tmp = 0                # temporaries used (each a float32-sized TBuf)
        self.memo = {}

    def scalar(self, e, dtype):
        """A source expression for a scalar node: a literal, or a host-computed argument."""
        if e.op == "c":
            return repr(float(e.value)) if dtype.kind == "f" else repr(int(e.value))
        name = f"s{len(self.scalar_args)}"
        self.scalar_args.append((name, e, dtype))
        return name

    def new_tmp(self, dtype):
        t = self.tmp
        self.tmp += 1
        v = f"tmp{t}"
        self.lines.append(f"{v} = tb{t}.get({_ASC_DT[dtype.name]})")
        return v

    def tile_of(self, e, want=None):
        """The UB tile (a source name) holding node e, of e's own dtype, or cast to `want`."""
        key = (id(e), want.name if want is not None else None)
        if key in self.memo:
            return self.memo[key]
        dt = self.types[id(e)]
        if want is not None and want != dt:
            src = self.tile_of(e)
            v = self.new_tmp(want)
            self.cast(v, src, dt, want, e.loc)
            self.memo[key] = v
            return v
        if e.op == "ld":
            v = f"in_{e.name}"
        elif e.op == "un":
            v = self.unary(e, dt)
        else:
            v = self.binary(e, dt)
        self.memo[(id(e), None)] = v
        if want is not None:
            self.memo[key] = v
        return v

    def cast(self, dst, src, frm, to, loc):
        if (frm.name, to.name) == ("float16", "float32"):
            self.lines.append(f"asc.cast({dst}, {src}, asc.RoundMode.CAST_NONE, m)")
        elif (frm.name, to.name) == ("float32", "float16"):
            self.lines.append(f"asc.cast({dst}, {src}, asc.RoundMode.CAST_RINT, m)")
        elif (frm.name, to.name) == ("int32", "float32"):
            self.lines.append(f"asc.cast({dst}, {src}, asc.RoundMode.CAST_NONE, m)")
        else:
            raise CompileError(f"no vector conversion from {frm.name} to {to.name} here", loc)

    def unary(self, e, dt):
        a = e.args[0]
        if e.name == "neg":
            src = self.tile_of(a, dt)
            v = self.new_tmp(dt)
            self.lines.append(f"asc.muls({v}, {src}, {'-1.0' if dt.kind == 'f' else '-1'}, m)")
            return v
        if e.name == "relu" and dt.name not in ("float16", "float32", "int32"):
            raise CompileError(f"relu of {dt.name} has no vector instruction", e.loc)
        if e.name in _F32_UNARY and dt.kind != "f":
            raise CompileError(f"pyasc.{e.name} of {dt.name}", e.loc)
        if e.name in ("abs",) and dt.kind != "f":
            raise CompileError(f"abs of {dt.name} has no vector instruction (vabs is float only)", e.loc)
        import numpy as np
        work = np.dtype(np.float32) if e.name in _F32_UNARY and dt.name == "float16" else dt
        src = self.tile_of(a, work)
        v = self.new_tmp(work)
        self.lines.append(f"asc.{_UNARY[e.name]}({v}, {src}, m)")
        if work != dt:
            w = self.new_tmp(dt)
            self.cast(w, v, work, dt, e.loc)
            v = w
        return v

    def binary(self, e, dt):
        a, b = e.args
        op = e.name
        if op == "/" and dt.kind != "f":
            # unreachable: numpy's '/' of integers is float64, refused before ("gives float64")
            raise CompileError("internal: integer division has no vector instruction", e.loc)
        if a.is_scalar() and op in ("+", "*", "max", "min"):
            a, b = b, a
        if b.is_scalar():
            src = self.tile_of(a, dt)
            v = self.new_tmp(dt)
            fn = {"+": "adds", "-": "adds", "*": "muls", "max": "maxs", "min": "mins"}.get(op)
            if fn is None:     # tile / scalar: a vdup'ed tile, so the quotient is rounded once
                d = self.new_tmp(dt)
                self.lines.append(f"asc.duplicate({d}, {self.scalar(b, dt)}, m)")
                self.lines.append(f"asc.div({v}, {src}, {d}, m)")
                return v
            s = self.scalar(E("un", (b,), "neg", loc=b.loc) if op == "-" else b, dt) if not \
                (op == "-" and b.op == "c") else self.scalar(E("c", value=-b.value), dt)
            self.lines.append(f"asc.{fn}({v}, {src}, {s}, m)")
            return v
        if a.is_scalar():       # scalar - tile, scalar / tile
            src = self.tile_of(b, dt)
            v = self.new_tmp(dt)
            if op == "-":
                self.lines.append(f"asc.muls({v}, {src}, {'-1.0' if dt.kind == 'f' else '-1'}, m)")
                self.lines.append(f"asc.adds({v}, {v}, {self.scalar(a, dt)}, m)")
            else:
                self.lines.append(f"asc.duplicate({v}, {self.scalar(a, dt)}, m)")
                self.lines.append(f"asc.div({v}, {v}, {src}, m)")
            return v
        x, y = self.tile_of(a, dt), self.tile_of(b, dt)
        v = self.new_tmp(dt)
        fn = {"+": "add", "-": "sub", "*": "mul", "/": "div", "max": "max", "min": "min"}[op]
        self.lines.append(f"asc.{fn}({v}, {x}, {y}, m)")
        return v


_DECL = re.compile(r"tmp(\d+) = tb\1\.get\(")     # a temporary's declaration line (_Gen.new_tmp)
_TMP = re.compile(r"\btmp(\d+)\b")


def map_source(plan, arrays, types, tile, kname):
    """(source text, scalar args [(name, E, dtype)], inputs, outputs) of the asc-language kernel
    for this specialisation.  arrays: parameter -> numpy dtype."""
    import numpy as np
    outs = []
    for st in plan.stores:
        if st.array not in outs:
            outs.append(st.array)
    ins = []

    def walk(e):
        if e.op == "ld" and e.name not in ins:
            ins.append(e.name)
        for a in e.args:
            walk(a)
    for st in plan.stores:
        walk(st.expr)
    for o in outs:
        if o in ins:
            st = next(s for s in plan.stores if s.array == o)
            raise CompileError(f"'{o}' is both read and written: the tiles of an in-place kernel would race "
                               f"with the next tile's prefetch; write to another array", st.loc)
    g = _Gen(plan, arrays, types, tile)
    body = []
    done = 0
    for i, st in enumerate(plan.stores):
        for _ in range(plan.barriers.count(i)):
            g.lines.append("asc.pipe_barrier(asc.PipeID.PIPE_V)")      # pyasc.syncthreads()
        od = np.dtype(arrays[st.array])
        if od.name not in _ASC_DT:
            raise CompileError(f"'{st.array}' is {od.name}: the vector unit handles "
                               f"{', '.join(_ASC_DT)}: pass an array of one of those", st.loc)
        e = st.expr
        if e.is_scalar():
            g.lines.append(f"asc.duplicate(out_{st.array}, {g.scalar(e, od)}, m)")
        else:
            et = types[id(e)]
            if et != od and not np.can_cast(et, od, "same_kind"):
                raise CompileError(f"storing a {et.name} value into {st.array} ({od.name}): numpy refuses "
                                   f"this cast (same_kind)", st.loc)
            src = g.tile_of(e)
            if et != od:
                g.cast(f"out_{st.array}", src, et, od, st.loc)
            else:
                g.lines.append(f"asc.copy(out_{st.array}, {src}, m)" if e.op == "ld" else
                               f"__retarget__ {src} out_{st.array}")
        done += 1
    # a value computed straight into its output: the last instruction that wrote it writes the
    # output tile instead, when nothing after that instruction reads the temporary
    lines = []
    for i, ln in enumerate(g.lines):
        if ln.startswith("__retarget__ "):
            _, src, dst = ln.split()
            k = max((j for j in range(len(lines)) if lines[j].startswith("asc.") and f"({src}," in lines[j]),
                    default=None)
            later = [x for x in lines[k + 1:] if src in x] if k is not None else [1]
            later += [x for x in g.lines[i + 1:] if src in x]
            if k is not None and not later and src.startswith("tmp"):
                lines[k] = lines[k].replace(f"({src},", f"({dst},", 1)
            else:
                lines.append(f"asc.copy({dst}, {src}, m)")
            continue
        lines.append(ln)
    # the temporaries some instruction names (a declaration alone does not use it); one pass over
    # the lines (a search per temporary and line was quadratic: 49 s for 2048 temporaries)
    used = set()
    decl_of = {}
    for i, ln in enumerate(lines):
        d = _DECL.match(ln)
        if d:
            decl_of[i] = int(d.group(1))
        used.update(int(t) for t in _TMP.findall(ln[d.end():] if d else ln))
    lines = [ln for i, ln in enumerate(lines) if decl_of.get(i, -1) < 0 or decl_of[i] in used]
    # temporaries share UB buffers when their lives do not overlap (linear scan over the lines):
    # a temporary's buffer is free after the last line that names it, for temporaries declared
    # later; the vector pipe runs the lines in order, so the reuse is not a race
    last = {}
    for i, ln in enumerate(lines):
        for t in _TMP.findall(ln):
            last[int(t)] = i
    import heapq
    slot_of, free, nslots, ends = {}, [], 0, []
    for i, ln in enumerate(lines):
        while ends and ends[0][0] < i:
            free.append(heapq.heappop(ends)[1])
        d = _DECL.match(ln)
        if d:
            t = int(d.group(1))
            if free:
                slot = free.pop()
            else:
                slot, nslots = nslots, nslots + 1
            slot_of[t] = slot
            heapq.heappush(ends, (last.get(t, i), slot))
            lines[i] = f"tmp{t} = tb{slot}.get(" + ln[d.end():]
    used = set(range(nslots))
    args = [f"{n}: asc.GlobalAddress" for n in ins + outs]
    args += ["n: int", "per: int"] + [f"{n}: {'float' if d.kind == 'f' else 'int'}" for n, _, d in g.scalar_args]
    src = [f"def {kname}({', '.join(args)}):",
           "    start = asc.get_block_idx() * per",
           "    cnt = min(per, n - start)",
           "    pipe = asc.TPipe()"]
    for a in ins + outs:
        src += [f"    g_{a} = asc.GlobalTensor()", f"    g_{a}.set_global_buffer({a})"]
        pos = "VECIN" if a in ins else "VECOUT"
        # one buffer as written; -O2 and up give the queue its second one (compiler/dbuf.py)
        src += [f"    q_{a} = asc.TQue(asc.TPosition.{pos}, 1)",
                f"    pipe.init_buffer(q_{a}, 1, {tile * _SIZE[np.dtype(arrays[a]).name]})"]
    for t in sorted(used):
        src += [f"    tb{t} = asc.TBuf(asc.TPosition.VECCALC)", f"    pipe.init_buffer(tb{t}, {tile * 4})"]
    src += [f"    ntile = (cnt + {tile - 1}) // {tile}",
            "    for t in range(ntile):",
            f"        off = start + t * {tile}",
            f"        m = min({tile}, cnt - t * {tile})"]
    for a in ins:
        d = _ASC_DT[np.dtype(arrays[a]).name]
        src += [f"        in_{a} = q_{a}.alloc_tensor({d})",
                f"        asc.data_copy_pad(in_{a}, g_{a}[off:], asc.DataCopyExtParams(1, m * {d}.sizeof(), 0, 0, 0), "
                f"asc.DataCopyPadExtParams({d}, False, 0, 0, 0))",
                f"        q_{a}.enque(in_{a})"]
    for a in ins:
        src.append(f"        in_{a} = q_{a}.deque({_ASC_DT[np.dtype(arrays[a]).name]})")
    for a in outs:
        src.append(f"        out_{a} = q_{a}.alloc_tensor({_ASC_DT[np.dtype(arrays[a]).name]})")
    src += ["        " + ln for ln in lines]
    for a in outs:
        src.append(f"        q_{a}.enque(out_{a})")
    for a in ins:
        src.append(f"        q_{a}.free_tensor(in_{a})")
    for a in outs:
        d = _ASC_DT[np.dtype(arrays[a]).name]
        src += [f"        out_{a} = q_{a}.deque({d})",
                f"        asc.data_copy_pad(g_{a}[off:], out_{a}, asc.DataCopyExtParams(1, m * {d}.sizeof(), 0, 0, 0))",
                f"        q_{a}.free_tensor(out_{a})"]
    return "\n".join(src) + "\n", g.scalar_args, ins, outs, len(used)
