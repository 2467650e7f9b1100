"""Frontend: Python AST of an @asc.jit kernel -> IR (compiler.ir), by abstract interpretation.

Users: compiler.driver.compile_kernel.  The walker evaluates every expression: values known at
compile time (ints, ConstExpr arguments, module constants, dtypes, enums, params records) stay
Python objects, so constant folding happens as the kernel is read; run-time values are RVals and
every operation on them emits a scalar op.  Calls to asc.* run the language functions, which emit
machine-level ops; calls to other @asc.jit functions are inlined (a fresh scope, the callee's
AST walked in place), wherever the helper is defined in its module.

Control flow stays structured:
- `if` on a compile-time condition compiles one branch; on a run-time one it emits an If op and
  merges the variables either branch changed into "home" registers.
- `for ... in range(...)` emits a scalar loop (For op).  When the body needs a value to be static
  (an event id `i % 2`, a TQue slot), the loop is unrolled by 2, 3, 4 ... copies: the loop index
  carries a congruence, so `i % BUFFER_NUM` folds in each copy.  A trip count that is not a
  multiple of the unroll factor gets a tail (static, or guarded by ifs at run time).
- `while` emits a While op.
- What a run-time loop or `if` changes (names, list/dict elements reachable from the scope,
  tuples) is carried in "home" registers; what cannot be (a list that changes length, a name
  only a run-time loop defines) is an error at the line that needs it (docs/pyasc.md "Values
  changed in run-time loops and branches").
Unsupported Python (real pyasc's list: nested functions, global, nonlocal, break, continue,
raise, try, with, yield, lambda, import, async, kernels in classes...) is rejected with the file,
line and column of the node and the rule.

The frontend never imports the language or the runtime (they sit above the compiler; see
compiler/__init__.py).  It recognises their objects by these class or function attributes:
- `_asc_builder` (a function or class): called with this compilation's Builder as the keyword
  argument `_b` (asc.add(..., _b=builder), asc.TQue(..., _b=builder)); objects it creates keep
  the builder, so their methods need nothing passed.
- `_asc_inline` (on the class of a JITFunction): an @asc.jit helper, inlined from its `.fn`.
- `_asc_loop` ("range" or "static", on asc.range / asc.static_range): a loop iterator.
- `_asc_tensor` (LocalTensor, GlobalTensor): Python operators on it are an error.
- `_asc_typed` (GmPtr, GlobalTensor, LocalTensor): a loop-carried value keeps its dtype.
- `_asc_mutable` (GlobalTensor, TPipe): state saved and restored around loop unroll attempts.
- `_asc_type_name()`: the object's name in error messages (builder.type_name).
"""
from __future__ import annotations

import ast
import builtins
import copy as _copy
import inspect
import operator
import re
import textwrap
import types

from . import ir
from .compiled import deps_valid, file_digest  # noqa: F401  (frontend.deps_valid as before; a cache hit uses them alone)
from .builder import Builder, RCond, RVal, is_static, type_name
from .errors import CompileError, NeedUnroll
from .source import source_lines

_UNSUPPORTED = {
    ast.Global: "'global' statements are not supported in @asc.jit functions",
    ast.Nonlocal: "'nonlocal' statements are not supported in @asc.jit functions",
    ast.Break: "'break' is not supported in @asc.jit functions (loops run their full range)",
    ast.Continue: "'continue' is not supported in @asc.jit functions",
    ast.Raise: "'raise' is not supported in @asc.jit functions",
    ast.Try: "'try'/'except' is not supported in @asc.jit functions",
    ast.AsyncWith: "'async with' is not supported in @asc.jit functions",
    ast.AsyncFor: "'async for' is not supported in @asc.jit functions",
    ast.AsyncFunctionDef: "async functions are not supported in @asc.jit functions",
    ast.Await: "'await' is not supported in @asc.jit functions",
    ast.Yield: "'yield' is not supported in @asc.jit functions",
    ast.YieldFrom: "'yield from' is not supported in @asc.jit functions",
    ast.Lambda: "lambda expressions are not supported in @asc.jit functions",
    ast.Import: "'import' inside an @asc.jit function is not supported: import at module level",
    ast.ImportFrom: "'from ... import' inside an @asc.jit function is not supported: import at module level",
    ast.FunctionDef: "nested functions are not supported in @asc.jit functions: define the helper at "
                     "module level and decorate it with @asc.jit",
    ast.ClassDef: "class definitions are not supported in @asc.jit functions",
    ast.Delete: "'del' is not supported in @asc.jit functions",
    ast.ListComp: "comprehensions are not supported in @asc.jit functions",
    ast.SetComp: "comprehensions are not supported in @asc.jit functions",
    ast.DictComp: "comprehensions are not supported in @asc.jit functions",
    ast.GeneratorExp: "generator expressions are not supported in @asc.jit functions",
    ast.NamedExpr: "':=' is not supported in @asc.jit functions",
}
if hasattr(ast, "TryStar"):
    _UNSUPPORTED[ast.TryStar] = _UNSUPPORTED[ast.Try]

_BINOPS = {ast.Add: ("add", operator.add), ast.Sub: ("sub", operator.sub), ast.Mult: ("mul", operator.mul),
           ast.FloorDiv: ("floordiv", operator.floordiv), ast.Mod: ("mod", operator.mod),
           ast.BitAnd: ("and", operator.and_), ast.BitOr: ("or", operator.or_), ast.BitXor: ("xor", operator.xor),
           ast.LShift: ("lshift", operator.lshift), ast.RShift: ("rshift", operator.rshift),
           ast.Div: ("div", operator.truediv), ast.Pow: ("pow", operator.pow)}
_CMPS = {ast.Lt: "lt", ast.LtE: "le", ast.Gt: "gt", ast.GtE: "ge", ast.Eq: "eq", ast.NotEq: "ne"}
_UNROLLS = [2, 3, 4, 6, 8, 12, 16]


def _slots_copy(b, st=None):
    """A copy of the builder's promoted-slot tracking (compiler/dbuf.py: fresh_slots, freed_slots),
    or of the saved one `st`; None when nothing is tracked."""
    if st is None:
        if getattr(b, "fresh_slots", None) is None:
            return None
        st = (b.fresh_slots, b.freed_slots)
    return {r: (list(v[0]), v[1]) for r, v in st[0].items()}, set(st[1])


class _Poison:
    """What a name or a list/dict element holds when no single value is right for it at compile
    time (branches of a run-time `if` that give it different, uncarriable values; a value left by
    a run-time loop that may run zero times): reading it is an error at the reader's line."""

    def __init__(self, name, loc, why=None):
        self._name, self._loc, self._why = name, loc, why

    def fail(self, loc):
        if self._why:
            raise CompileError(f"'{self._name}' {self._why}", loc)
        raise CompileError(f"'{self._name}' is assigned differently in the branches of a run-time 'if' "
                           f"and cannot be used after it (pyasc rule: if-scoped variables)", loc)


class _NeedHomes(Exception):
    def __init__(self, names, slots=()):
        self.names, self.slots = names, set(slots)


class ParsedFunction:
    """AST of one Python function, line numbers made absolute."""

    def __init__(self, fn):
        self.fn = fn
        lines, first = source_lines(fn)   # a CompileError naming fn when Python has no source
        src = textwrap.dedent("".join(lines))
        tree = ast.parse(src)
        ast.increment_lineno(tree, first - 1)
        self.file = inspect.getsourcefile(fn) or fn.__code__.co_filename
        self.node = tree.body[0]
        self.indent = len(lines[0]) - len(lines[0].lstrip())
        self.source = src
        if not isinstance(self.node, ast.FunctionDef):
            raise CompileError(f"asc.jit: {fn.__name__} is not a plain function: a kernel is a `def` "
                               f"statement (not a lambda or an expression)", self.loc(self.node))
        self._check_syntax()

    def loc(self, node):
        return ir.Loc(self.file, getattr(node, "lineno", self.node.lineno),
                      getattr(node, "col_offset", 0) + 1 + self.indent)

    def _check_syntax(self):
        fn = self.node
        if fn.args.vararg or fn.args.kwarg or fn.args.kwonlyargs:
            raise CompileError("@asc.jit functions take plain positional parameters only "
                               "(no *args, **kwargs or keyword-only parameters)", self.loc(fn))
        if "." in self.fn.__qualname__ and "<locals>" not in self.fn.__qualname__:
            raise CompileError("@asc.jit kernels defined inside classes are not supported: define them "
                               "at module level", self.loc(fn))
        if "<locals>" in self.fn.__qualname__:
            raise CompileError("nested functions are not supported: @asc.jit functions must be defined "
                               "at module level", self.loc(fn))
        for node in ast.walk(fn):
            if node is fn:
                continue
            rule = _UNSUPPORTED.get(type(node))
            if rule:
                raise CompileError(f"unsupported syntax: {rule}", self.loc(node))
        for stmt in ast.walk(fn):
            for field in ("body", "orelse"):
                if stmt is fn:
                    continue
                stmts = getattr(stmt, field, None)
                for s in stmts if isinstance(stmts, list) else []:
                    if isinstance(s, ast.Return):
                        raise CompileError("unsupported syntax: 'return' inside if/for/while is not supported "
                                           "(return only as a top-level statement of a helper)", self.loc(s))
            if isinstance(stmt, (ast.For, ast.While)) and stmt.orelse:
                raise CompileError("unsupported syntax: 'else' on loops is not supported", self.loc(stmt))


class Scope:
    def __init__(self, parsed: ParsedFunction, env: dict, is_kernel: bool):
        self.parsed, self.env, self.is_kernel = parsed, env, is_kernel
        self.globals = parsed.fn.__globals__
        self.closure = {}
        if parsed.fn.__closure__:
            for name, cell in zip(parsed.fn.__code__.co_freevars, parsed.fn.__closure__):
                try:
                    self.closure[name] = cell.cell_contents
                except ValueError:
                    pass


class Frontend:
    def __init__(self, builder: Builder):
        self.b = builder
        self.scope: Scope | None = None
        self.inline_stack = []
        self._parsed_cache = {}
        self.globals_read = {}   # (module, name) -> repr of a plain constant the kernel read

    def deps(self) -> dict:
        """What the compiled code depends on beyond the kernel's own module source: every
        source file a parsed function came from, and the module-level constants read (so a
        cache hit is re-validated when a helper file or an imported constant changes)."""
        files = sorted({p.file for p in self._parsed_cache.values() if p.file})
        return {"files": [[f, file_digest(f)] for f in files],
                "globals": [[m, n, r] for (m, n), r in sorted(self.globals_read.items())]}

    def _note_global(self, module, name, v):
        if isinstance(v, (int, float, str, bool, tuple, type(None))):
            self.globals_read[(module, name)] = repr(v)

    # ---- entry ----------------------------------------------------------------------
    def parsed(self, fn) -> ParsedFunction:
        p = self._parsed_cache.get(fn)
        if p is None:
            p = self._parsed_cache[fn] = ParsedFunction(fn)
        return p

    def run_kernel(self, fn, bound_env: dict):
        p = self.parsed(fn)
        self.scope = Scope(p, dict(bound_env), True)
        self.inline_stack.append(fn)
        body = p.node.body
        if body and isinstance(body[-1], ast.Return):
            r = body[-1]
            if r.value is not None:
                raise CompileError("unsupported syntax: a kernel cannot return a value (only helpers can)",
                                   p.loc(r))
            body = body[:-1]
        self.block(body)

    # ---- helpers --------------------------------------------------------------------
    def loc(self, node):
        return self.scope.parsed.loc(node)

    def setloc(self, node):
        self.b.loc = self.loc(node)

    def err(self, msg, node=None):
        return CompileError(msg, self.loc(node) if node is not None else self.b.loc)

    # ---- statements -----------------------------------------------------------------
    def block(self, stmts):
        for s in stmts:
            self.stmt(s)

    def stmt(self, node):
        self.setloc(node)
        m = getattr(self, "s_" + type(node).__name__, None)
        if m is None:
            raise self.err(f"unsupported syntax: {type(node).__name__} statements are not supported", node)
        m(node)

    def s_Pass(self, node):
        pass

    def s_Expr(self, node):
        if isinstance(node.value, ast.Constant):
            return  # docstring
        self.expr(node.value)

    def s_Assign(self, node):
        val = self.expr(node.value)
        for t in node.targets:
            self.assign(t, val)

    def s_AnnAssign(self, node):
        if node.value is not None:
            self.assign(node.target, self.expr(node.value))

    def s_AugAssign(self, node):
        cur = self.expr(_as_load(node.target))
        self.setloc(node)
        val = self.binop(node.op, cur, self.expr(node.value), node)
        self.assign(node.target, val)

    def s_Assert(self, node):
        test = self.expr(node.test)
        if isinstance(test, (RVal, RCond)):
            return  # run-time asserts are not checked (no trap instruction); see docs/pyasc.md
        if not test:
            msg = self.expr(node.msg) if node.msg is not None else "assertion failed"
            raise self.err(f"assertion failed at compile time: {msg}", node)

    def s_Return(self, node):
        # helpers return through Frontend.inline (a top-level statement of their body) and
        # _check_syntax rejects 'return' in if/for/while, so this is a kernel's own top level
        # before its last statement
        if node.value is not None:
            raise self.err("unsupported syntax: a kernel cannot return a value (only helpers can)", node)
        raise self.err("unsupported syntax: 'return' before the end of a kernel (the statements after it "
                       "would never run)", node)

    def assign(self, target, val):
        if isinstance(target, ast.Name):
            self.scope.env[target.id] = val
        elif isinstance(target, (ast.Tuple, ast.List)):
            if not isinstance(val, (tuple, list)):
                raise self.err("cannot unpack a non-tuple value", target)
            if len(val) != len(target.elts):
                raise self.err(f"cannot unpack {len(val)} values into {len(target.elts)} names", target)
            for t, v in zip(target.elts, val):
                self.assign(t, v)
        elif isinstance(target, ast.Subscript):
            obj = self.expr(target.value)
            idx = self.expr(target.slice)
            if hasattr(obj, "set_value"):
                self.call_py(obj.set_value, [idx, val], {}, target)
            elif isinstance(obj, list):
                obj[self.static_int(idx, target)] = val
            elif isinstance(obj, dict):
                if isinstance(idx, (RVal, RCond)):
                    raise self.err("a dict key must be known at compile time", target)
                obj[idx] = val
            else:
                raise self.err("item assignment is supported on lists, dicts and GlobalTensors only", target)
        else:
            raise self.err("unsupported assignment target", target)

    # ---- if ------------------------------------------------------------------------------
    def s_If(self, node):
        cond = self.expr(node.test)
        if not isinstance(cond, (RVal, RCond)):
            if isinstance(cond, _Poison):
                cond.fail(self.loc(node.test))
            self.block(node.body if cond else node.orelse)
            return
        self.setloc(node)
        c = self.cond(cond)
        before = dict(self.scope.env)
        conts = _containers(before)
        saved = [_contents(x) for x, _ in conts]
        qs = [q.state() for q in self.b.queues]
        op = ir.If(name="if", cond=c, loc=self.loc(node))
        self.b.push(op.then)
        self.block(node.body)
        self.b.pop()
        env_t = self.scope.env
        cont_t = [_contents(x) for x, _ in conts]
        for (x, _), sv in zip(conts, saved):
            _set_contents(x, sv)
        qs_t = [q.state() for q in self.b.queues]
        for q, s in zip(self.b.queues, qs):
            q.set_state(s)
        self.scope.env = dict(before)
        self.b.push(op.els)
        self.block(node.orelse)
        self.b.pop()
        env_e = self.scope.env
        for q, st, se in zip(self.b.queues, qs_t, [q.state() for q in self.b.queues]):
            if st != se:
                q.set_state(st)
                q.unknown = True
        self.scope.env = self.merge(op, before, env_t, env_e)
        self.merge_containers(op, conts, cont_t, node)
        self.b.emit(op)

    def merge(self, op, before, env_t, env_e):
        out = dict(before)
        for name in sorted(set(env_t) | set(env_e)):   # sorted: value ids must not follow str hashing
            vt, ve = env_t.get(name, _MISSING), env_e.get(name, _MISSING)
            out[name] = self._merge_value(op, name, vt, ve)
        return out

    def _merge_value(self, op, name, vt, ve):
        """One value after a run-time `if` whose branches left vt and ve: the value itself when
        both are the same, registers written at the end of each branch when both can be carried,
        else a _Poison."""
        if _same(vt, ve):
            return vt
        ct, ce = _carry(vt), _carry(ve)
        if ct is None or ce is None or len(ct) != len(ce) or not _compatible(vt, ve):
            return _Poison(name, self.b.loc)
        homes = [self.b.new_value("f32" if (isinstance(x, RVal) and x.ty == "f32") or isinstance(x, float)
                                  else "i64", hint=name + ".") for x in ct]
        for blk, vals in ((op.then, ct), (op.els, ce)):
            self.b.push(blk)
            for h, v in zip(homes, vals):
                self.b.mov_into(h, v)
            self.b.pop()
        return _rebuild(vt, [RVal(self.b, h) for h in homes])

    def merge_containers(self, op, conts, cont_t, node):
        """The elements of lists and dicts that existed before a run-time `if`, merged like
        names: `acc[0] = acc[0] + x` in one branch gives acc[0] a register both branches write.
        Each container holds the else branch's contents when this is called."""
        for (c, path), t in zip(conts, cont_t):
            e = _contents(c)
            tk = list(t.keys()) if isinstance(t, dict) else list(range(len(t)))
            if tk != _keys(c):
                raise self.err(f"'{path}' has different {'keys' if isinstance(c, dict) else 'lengths'} "
                               f"after the two branches of a run-time 'if': a list or dict can only "
                               f"change its elements there (not append/pop/insert/add keys); build it "
                               f"with the same shape on both paths", node)
            for k in tk:
                if not _same(t[k], e[k]):
                    c[k] = self._merge_value(op, f"{path}[{k!r}]", t[k], e[k])

    def cond(self, c):
        if isinstance(c, RCond):
            return (c.cmp, self.b.reg(c.a) if not isinstance(c.a, RVal) else c.a.v,
                    self.b.reg(c.b) if not isinstance(c.b, RVal) else c.b.v)
        zero = self.b.reg(0)
        return ("ne", c.v, zero)

    # ---- loops ---------------------------------------------------------------------------
    def s_While(self, node):
        test_static = self._static_probe(node.test)
        if test_static is False:
            return
        homes, slots = set(), set()
        while True:
            snap = self.snapshot()
            try:
                ops = self._while_attempt(node, homes, slots)
            except _NeedHomes as e:
                self.restore(snap)
                homes |= e.names
                slots |= e.slots
                continue
            break
        for o in ops:
            self.b.emit(o)

    def s_With(self, node):
        """`with obj as i:` for objects that iterate (asc.adv.Matmul.iterate()): the body is the
        body of `for i in range(obj.count)`, obj told the loop variable's name (frontend state
        the object reads through the callable it is given)."""
        if len(node.items) != 1:
            raise self.err("unsupported syntax: 'with' statements are not supported in @asc.jit functions "
                           "(except `with matmul.iterate() as count:` of an asc.adv.Matmul)", node)
        item = node.items[0]
        ce = item.context_expr
        enter = None
        if isinstance(ce, ast.Call) and isinstance(ce.func, ast.Attribute) and ce.func.attr == "iterate":
            ctx = self.expr(ce)
            enter = getattr(ctx, "_asc_with_loop", None)
        if enter is None:
            raise self.err("unsupported syntax: 'with' statements are not supported in @asc.jit functions "
                           "(except `with matmul.iterate() as count:` of an asc.adv.Matmul)", node)
        if item.optional_vars is not None and not isinstance(item.optional_vars, ast.Name):
            raise self.err("the 'as' target of a with statement must be a plain name", item.optional_vars)
        name = item.optional_vars.id if item.optional_vars is not None else f"__asc_with_{id(node)}"
        hi = enter(lambda: self.scope.env[name])
        tmp_hi, tmp_range = f"__asc_with_hi_{id(node)}", f"__asc_with_range_{id(node)}"
        self.scope.env[tmp_hi], self.scope.env[tmp_range] = hi, range
        call = ast.Call(func=ast.Name(tmp_range, ast.Load()), args=[ast.Name(tmp_hi, ast.Load())], keywords=[])
        loop = ast.For(target=ast.Name(name, ast.Store()), iter=call, body=node.body, orelse=[])
        for n in (call, call.func, call.args[0], loop, loop.target):
            ast.copy_location(n, node)
        self.s_For(loop)

    def _static_probe(self, test):
        if isinstance(test, ast.Constant):
            if test.value:
                raise self.err("'while True' never ends: loops need a run-time condition", test)
            return False
        return None

    def _while_attempt(self, node, homes, slots):
        outer = ir.Block()
        self.b.push(outer)
        ls = self._enter_loop(node, homes, slots)
        qs = [q.state() for q in self.b.queues]
        op = ir.While(name="while", loc=self.loc(node))
        self.b.push(op.head)
        c = self.expr(node.test)
        if not isinstance(c, (RVal, RCond)):
            raise self.err("a while condition must depend on run-time values (loop-carried variables)", node.test)
        op.cond = self.cond(c)
        self.b.pop()
        self.b.push(op.body)
        self.b.loop_depth += 1
        self.block(node.body)
        self.b.loop_depth -= 1
        self._end_body(node, ls, True)
        self.b.pop()
        if [q.state() for q in self.b.queues] != qs:
            raise self.err("TQue operations in a while loop must leave every queue as they found it "
                           "(the loop cannot be unrolled)", node)
        self.b.emit(op)
        self.b.pop()
        self._back_home(ls)
        self._after_loop(ls, True, None)
        return outer.ops

    def s_For(self, node):
        it = node.iter
        if not (isinstance(it, ast.Call)):
            raise self.err("unsupported syntax: for loops iterate over range(...) only", it)
        fn = self.expr(it.func)
        loop = _loop_kind(fn)
        if loop is None:
            raise self.err("unsupported syntax: for loops iterate over range(...) only", it)
        if not isinstance(node.target, ast.Name):
            raise self.err("the loop variable must be a plain name", node.target)
        args = [self.expr(a) for a in it.args]
        if len(args) == 1:
            lo, hi, step = 0, args[0], 1
        elif len(args) == 2:
            (lo, hi), step = args, 1
        elif len(args) == 3:
            lo, hi, step = args
        else:
            raise self.err("range() takes 1 to 3 arguments", it)
        if not is_static(step) or step == 0:
            raise self.err("the range step must be a non-zero compile-time integer", it)
        for v in (lo, hi):
            if not isinstance(v, (int, RVal)) or isinstance(v, bool):
                raise self.err("range bounds must be integers", it)
        if loop == "static" or (is_static(lo) and is_static(hi) and len(range(lo, hi, step)) <= 1):
            if not (is_static(lo) and is_static(hi)):
                raise self.err("static_range needs compile-time bounds", it)
            for i in range(lo, hi, step):
                self.scope.env[node.target.id] = i
                self.block(node.body)
            return
        if is_static(lo) and is_static(hi) and len(range(lo, hi, step)) == 0:
            return
        if step < 0 and not (is_static(lo) and is_static(hi)):
            raise self.err("run-time range bounds need a positive step", it)
        homes, slots = set(), set()
        unroll_i = 0
        U = 1
        while True:
            snap = self.snapshot()
            try:
                ops = self._for_attempt(node, lo, hi, step, U, homes, slots)
            except _NeedHomes as e:
                self.restore(snap)
                homes |= e.names
                slots |= e.slots
                continue
            except NeedUnroll as e:
                self.restore(snap)
                n = len(range(lo, hi, step)) if is_static(lo) and is_static(hi) else None
                if unroll_i >= len(_UNROLLS) or (n is not None and U >= n):
                    raise CompileError(e.msg, e.loc) from None
                U = _UNROLLS[unroll_i]
                unroll_i += 1
                if n is not None and U > n:
                    U = n
                continue
            break
        for o in ops:
            self.b.emit(o)

    def _for_attempt(self, node, lo, hi, step, U, homes, slots):
        name = node.target.id
        outer = ir.Block()
        self.b.push(outer)
        static = is_static(lo) and is_static(hi)
        ls = self._enter_loop(node, homes, slots)
        qs = [q.state() for q in self.b.queues]
        n = len(range(lo, hi, step)) if static else None

        def body_copies(iv, count):
            for k in range(count):
                self.scope.env[name] = iv + k * step if k else iv
                self.b.loop_depth += 1
                self.block(node.body)
                self.b.loop_depth -= 1

        self.b.loop_depth += 1
        if static and n // U == 1:
            body_copies(lo, U)
            main_end = lo + U * step
            looped = False
        elif static:
            main_end = lo + (n // U) * U * step
            looped = True
        else:
            main_end = None
            looped = True
        self.b.loop_depth -= 1
        if looped:
            var = self.b.new_value(hint=name + ".")
            if static:
                hi_main = main_end
            else:
                hi_main = hi - (U - 1) * step if U > 1 else hi
            op = ir.For(name="for", var=var, lo=_opnd(self.b, lo), hi=_opnd(self.b, hi_main), step=U * step,
                        loc=self.loc(node))
            self.b.push(op.body)
            iv = RVal(self.b, var, U * abs(step), lo) if is_static(lo) else RVal(self.b, var)
            if step > 0 and is_static(lo) and lo >= 0 or step < 0 and is_static(hi) and hi >= -1:
                self.b.nonneg.add(var.id)      # every value of the loop variable is >= 0
            body_copies(iv, U)
            self._end_body(node, ls, not static)
            self.b.pop()
            if [q.state() for q in self.b.queues] != qs:
                raise NeedUnroll("TQue slots must be static in a loop: the loop is unrolled by the "
                                 "buffer count", self.loc(node))
            self.b.emit(op)
            self._back_home(ls)
            if static:
                self.scope.env[name] = main_end - step   # the last index the loop ran
        elif [q.state() for q in self.b.queues] != qs:
            pass  # straight-line copies: queue state simply advances
        # tail
        if static:
            for i in range(main_end, hi, step):
                self.scope.env[name] = i
                self.block(node.body)
                self._store_homes(ls)
                self._back_home(ls)
        elif U > 1:
            iv = RVal(self.b, var)
            for k in range(U - 1):
                tail = ir.If(name="if", cond=("lt", var, self.b.reg(hi)), loc=self.loc(node))
                qs2 = [q.state() for q in self.b.queues]
                self.b.push(tail.then)
                self.scope.env[name] = iv
                self.block(node.body)
                self._store_homes(ls)
                self.b.emit(ir.Op("add", var, [var, ir.Const(step)]))
                self.b.pop()
                self._back_home(ls)
                for q, s in zip(self.b.queues, qs2):
                    if q.state() != s:
                        q.set_state(s)
                        q.unknown = True
                self.b.emit(tail)
        if looped:
            self._after_loop(ls, not static, name)
        self.b.pop()
        return outer.ops

    def _new_home(self, x, hint):
        return self.b.new_value("f32" if isinstance(x, float) or (isinstance(x, RVal) and x.ty == "f32")
                                else "i64", hint=hint)

    def _enter_loop(self, node, homes, slots):
        """Start one attempt at compiling a run-time loop: the names in `homes` and the list/dict
        elements in `slots` ((id of the container, key)) that change in the body get a register
        each ("home"), written with their value before the loop and at the end of every
        iteration; the body reads the homes.  An element whose value cannot be carried (a
        tensor, a list) holds a _Poison in the body until the body assigns it."""
        ls = types.SimpleNamespace(node=node, homes=homes, slots=slots, before=dict(self.scope.env))
        env = self.scope.env
        for nm in sorted(homes):
            v = env.get(nm, _MISSING)
            vals = _carry(v)
            if vals is None:
                raise self.err(f"'{nm}' changes inside the loop but a value of type {type(v).__name__} "
                               f"cannot be carried from one iteration to the next")
            hs = []
            for x in vals:
                h = self._new_home(x, nm + ".")
                self.b.mov_into(h, x)
                hs.append(RVal(self.b, h))
            env[nm] = _rebuild(v, hs)
        ls.entry = dict(env)
        ls.conts = _containers(env)
        for c, path in ls.conts:
            for k in _keys(c):
                if (id(c), k) not in slots:
                    continue
                v = c[k]
                vals = _carry(v)
                if vals is None:
                    c[k] = _Poison(f"{path}[{k!r}]", self.b.loc,
                                   f"changes inside a run-time loop, and a value of type {type(v).__name__} "
                                   f"cannot be carried from one iteration to the next: read it in the loop "
                                   f"only after the same iteration assigned it, or use asc.static_range")
                    continue
                hs = []
                for x in vals:
                    h = self._new_home(x, path + ".")
                    self.b.mov_into(h, x)
                    hs.append(RVal(self.b, h))
                c[k] = _rebuild(v, hs)
        ls.entry_c = [_contents(c) for c, _ in ls.conts]
        ls.poison_after = set()
        return ls

    def _end_body(self, node, ls, runtime):
        """After the body of a loop attempt: ask for more homes (_NeedHomes) when a name or an
        element changed that the next iteration (or, for a loop that may run zero times, the code
        after the loop) can read; else write the homes."""
        exposed = _upward_exposed(node)
        later = _read_outside(self.scope.parsed.node, node) if runtime else set()
        env = self.scope.env
        changed, ls.poison_after = set(), set()
        for nm, old in ls.entry.items():
            if nm in ls.homes:
                continue
            new = env.get(nm, _MISSING)
            if _same(old, new) or not (nm in exposed or nm in later):
                continue
            if nm not in exposed and (_carry(old) is None or _carry(new) is None or not _compatible(old, new)):
                ls.poison_after.add(nm)     # left by the loop, cannot be carried: an error when read
            else:
                changed.add(nm)
        slots = set()
        for (c, path), ent in zip(ls.conts, ls.entry_c):
            ek = list(ent.keys()) if isinstance(ent, dict) else list(range(len(ent)))
            if ek != _keys(c):
                raise self.err(f"'{path}' changes its {'keys' if isinstance(c, dict) else 'length'} inside a "
                               f"run-time loop: the body is compiled once, so a list or dict can only "
                               f"change its elements there (not append/pop/insert/add keys); build it "
                               f"before the loop, or use asc.static_range", node)
            for k in ek:
                if (id(c), k) not in ls.slots and not _same(ent[k], c[k]):
                    slots.add((id(c), k))
        if changed or slots:
            raise _NeedHomes(changed, slots)
        self._store_homes(ls)

    def _store_homes(self, ls):
        """Write every home with the value its name or element has at the end of the body, as
        one parallel copy: `a, b = b, a` reads both old homes before writing either."""
        env = self.scope.env
        moves = []
        for nm in sorted(ls.homes):
            moves += self._moves(nm, ls.entry[nm], env.get(nm))
        for (c, path), ent in zip(ls.conts, ls.entry_c):
            for k in _keys(c):
                if (id(c), k) in ls.slots and not isinstance(ent[k], _Poison):
                    moves += self._moves(f"{path}[{k!r}]", ent[k], c[k])
        moves = [(h, x) for h, x in moves if x is not h]
        written, saved = set(), {}
        for h, x in moves:
            if isinstance(x, RVal) and id(x.v) in written and id(x.v) not in saved:
                saved[id(x.v)] = None       # read after an earlier move of this list overwrote it
            written.add(id(h.v))
        if saved:
            for h, x in moves:
                if isinstance(x, RVal) and id(x.v) in saved and saved[id(x.v)] is None:
                    t = self._new_home(x, "swap.")
                    self.b.mov_into(t, x)
                    saved[id(x.v)] = RVal(self.b, t)
        for h, x in moves:
            if isinstance(x, RVal) and id(x.v) in saved:
                x = saved[id(x.v)]
            self.b.mov_into(h.v, x)

    def _moves(self, nm, home, val):
        hv, cur = _carry(home), _carry(val)
        if cur is None or len(cur) != len(hv) or not _compatible(home, val):
            raise self.err(f"'{nm}' changes type inside the loop (from {type(home).__name__} to "
                           f"{type(val).__name__})")
        return list(zip(hv, cur))

    def _back_home(self, ls):
        """After a loop (or a guarded copy of its body): names and elements read their homes."""
        self.scope.env.update({h: ls.entry[h] for h in ls.homes})
        for (c, _), ent in zip(ls.conts, ls.entry_c):
            for k in _keys(c):
                if (id(c), k) in ls.slots and not isinstance(ent[k], _Poison):
                    c[k] = ent[k]

    def _after_loop(self, ls, runtime, loop_var):
        """After a loop that may run zero times: what only its body defined, its variable, and
        what it changed but cannot carry are errors when read (real pyasc scopes them to the loop
        region, hicann/pyasc python/asc/codegen/function_visitor.py visit_For/compute_inout)."""
        if not runtime:
            return
        env = self.scope.env
        why = ("is first assigned inside a run-time loop, which may run zero times, and cannot be used "
               "after it (pyasc rule: loop-scoped variables): assign it before the loop")
        for nm in list(env):
            if nm not in ls.entry and nm != loop_var:
                env[nm] = _Poison(nm, self.b.loc, why)
        for nm in ls.poison_after:
            env[nm] = _Poison(nm, self.b.loc, "changes inside a run-time loop, which may run zero times, "
                              f"and its value (a {type(env[nm]).__name__}) cannot be carried out of it: "
                              "read it inside the loop, or use asc.static_range")
        if loop_var is not None:
            env[loop_var] = _Poison(loop_var, self.b.loc, "is the variable of a run-time loop and cannot be "
                                    "used after it (the loop may run zero times): copy it into a variable "
                                    "assigned before the loop")
        for (c, path), ent in zip(ls.conts, ls.entry_c):
            for k in _keys(c):
                if isinstance(ent[k], _Poison):
                    c[k] = ent[k]

    def snapshot(self):
        return (dict(self.scope.env), [q.state() for q in self.b.queues], len(self.b.fn.events),
                set(self.b.fn.manual_events), len(self.b.queues), self.b.loop_depth,
                self.b.uses_cube, self.b.uses_vector, [(t, t.__dict__.copy()) for t in _mutables(self.scope.env)],
                len(self.b.blocks), self.b.loc, [(c, _contents(c)) for c, _ in _containers(self.scope.env)],
                _slots_copy(self.b))

    def restore(self, snap):
        env, qs, ne, me, nq, ld, uc, uv, muts, nb, loc, conts, slots = snap
        if getattr(self.b, "fresh_slots", None) is not None:
            # -O2's promoted-slot tracking (compiler/dbuf.py) as it was, not as an abandoned
            # attempt at a loop left it (a slot it freed is not freed in the retry)
            self.b.fresh_slots, self.b.freed_slots = _slots_copy(self.b, slots) if slots else ({}, set())
        for c, saved in conts:
            _set_contents(c, saved)
        del self.b.blocks[nb:]
        self.b.loc = loc
        self.scope.env = env
        del self.b.queues[nq:]
        for q, s in zip(self.b.queues, qs):
            q.set_state(s)
        del self.b.fn.events[ne:]
        self.b.fn.manual_events = me
        self.b.loop_depth = ld
        self.b.uses_cube, self.b.uses_vector = uc, uv
        for t, d in muts:
            t.__dict__.update(d)

    # ---- expressions ------------------------------------------------------------------------
    def expr(self, node):
        m = getattr(self, "e_" + type(node).__name__, None)
        if m is None:
            raise self.err(f"unsupported syntax: {type(node).__name__} expressions are not supported", node)
        v = m(node)
        if isinstance(v, _Poison):
            v.fail(self.loc(node))
        return v

    def e_Constant(self, node):
        return node.value

    def e_Name(self, node):
        nm = node.id
        sc = self.scope
        if nm in sc.env:
            v = sc.env[nm]
            if v is _MISSING:
                raise self.err(f"'{nm}' is not defined on every path to this use", node)
            return v
        if nm in sc.closure:
            return sc.closure[nm]
        if nm in sc.globals:
            v = sc.globals[nm]
            self._note_global(sc.globals.get("__name__", "?"), nm, v)
            return v
        if hasattr(builtins, nm):
            return getattr(builtins, nm)
        raise self.err(f"name '{nm}' is not defined", node)

    def e_Attribute(self, node):
        obj = self.expr(node.value)
        if isinstance(obj, (RVal, RCond)):
            raise self.err(f"run-time scalars have no attribute '{node.attr}'", node)
        try:
            v = getattr(obj, node.attr)
            if isinstance(obj, types.ModuleType):
                self._note_global(obj.__name__, node.attr, v)
            return v
        except AttributeError:
            raise self.err(f"'{type(obj).__name__}' object has no attribute '{node.attr}'", node) from None

    def e_Tuple(self, node):
        return tuple(self.expr(e) for e in node.elts)

    def e_List(self, node):
        return [self.expr(e) for e in node.elts]

    def e_Dict(self, node):
        return {self.expr(k): self.expr(v) for k, v in zip(node.keys, node.values)}

    def e_Slice(self, node):
        return slice(*(None if x is None else self.expr(x) for x in (node.lower, node.upper, node.step)))

    def e_JoinedStr(self, node):
        parts = []
        for v in node.values:
            x = self.expr(v.value) if isinstance(v, ast.FormattedValue) else v.value
            if isinstance(x, (RVal, RCond)):
                raise self.err("an f-string of a run-time value: its text is only known at run time, and "
                               "a kernel has no strings then; use a compile-time value", v)
            parts.append(str(x))
        return "".join(parts)

    def e_Subscript(self, node):
        obj = self.expr(node.value)
        idx = self.expr(node.slice)
        self.setloc(node)
        if isinstance(obj, (list, tuple, str, dict)):
            kind = {list: "list", tuple: "tuple", str: "str", dict: "dict"}.get(type(obj), type(obj).__name__)
            if isinstance(idx, (RVal, RCond)):
                what = "key" if isinstance(obj, dict) else "index"
                raise NeedUnroll(f"indexing a Python {kind} needs a compile-time {what}", self.loc(node))
            try:
                return obj[idx]
            except (IndexError, KeyError, TypeError) as e:
                raise self.err(f"indexing a Python {kind} of {len(obj)} item{'s' if len(obj) != 1 else ''} with {idx!r}: "
                               f"{'no such key' if isinstance(e, KeyError) else e}", node) from None
        if isinstance(idx, RCond):      # a comparison is a Python bool: index 0 or 1
            idx = self.b.materialize(idx)
        if hasattr(obj, "__getitem__"):
            return self.call_py(obj.__getitem__, [idx], {}, node)
        raise self.err(f"'{type(obj).__name__}' object is not subscriptable", node)

    def e_BinOp(self, node):
        a = self.expr(node.left)
        bv = self.expr(node.right)
        self.setloc(node)
        return self.binop(node.op, a, bv, node)

    def binop(self, opnode, a, b, node):
        if type(opnode) not in _BINOPS:   # '@' (MatMult): no meaning on scalars
            raise self.err("unsupported syntax: the '@' operator is not supported in @asc.jit functions "
                           "(use asc.mmad or asc.adv.Matmul for a matrix product)", node)
        name, fn = _BINOPS[type(opnode)]
        if getattr(type(a), "_asc_tensor", False) or getattr(type(b), "_asc_tensor", False):
            raise self.err(f"Cannot infer dtype for operation '{name}' between '{type_name(a)}' and "
                           f"'{type_name(b)}' (use asc.{name}(dst, src0, src1, count) on tensors)", node)
        if isinstance(a, RCond):
            a = self.b.materialize(a)
        if isinstance(b, RCond):
            b = self.b.materialize(b)
        if isinstance(opnode, ast.Pow) and (isinstance(a, RVal) or isinstance(b, RVal)):
            raise self.err("'**' on run-time values is not supported", node)
        try:
            return fn(a, b)
        except CompileError:
            raise
        except NeedUnroll:
            raise
        except ZeroDivisionError:
            raise self.err("division by zero in a compile-time expression", node) from None
        except TypeError as e:
            raise self.err(f"Cannot infer dtype for operation '{name}' between '{type_name(a)}' and "
                           f"'{type_name(b)}' ({e})", node) from None

    def e_UnaryOp(self, node):
        v = self.expr(node.operand)
        self.setloc(node)
        if isinstance(v, RCond):
            v = self.b.materialize(v)
        if isinstance(node.op, ast.Not):
            if isinstance(v, RVal):
                return RCond(self.b, "eq", v, 0)
            return not v
        if isinstance(node.op, ast.USub):
            return -v
        if isinstance(node.op, ast.UAdd):
            return v
        if isinstance(node.op, ast.Invert):
            return ~v
        raise self.err("unsupported unary operator", node)

    def e_Compare(self, node):
        left = self.expr(node.left)
        result = None
        for opn, right_node in zip(node.ops, node.comparators):
            right = self.expr(right_node)
            self.setloc(node)
            if type(opn) in _CMPS:
                if isinstance(left, RCond):
                    left = self.b.materialize(left)
                if isinstance(right, RCond):
                    right = self.b.materialize(right)
                if isinstance(left, RVal) or isinstance(right, RVal):
                    if len(node.ops) > 1:
                        raise self.err("chained comparisons on run-time values are not supported", node)
                    for x in (left, right):
                        if isinstance(x, RVal) and x.ty == "f32":
                            raise self.err("comparisons of run-time floats are not supported", node)
                    return self.b.compare(_CMPS[type(opn)], left, right)
                r = {"lt": operator.lt, "le": operator.le, "gt": operator.gt, "ge": operator.ge,
                     "eq": operator.eq, "ne": operator.ne}[_CMPS[type(opn)]](left, right)
            elif isinstance(opn, (ast.Is, ast.IsNot, ast.In, ast.NotIn)):
                if isinstance(left, RVal) or isinstance(right, RVal):
                    raise self.err("'is'/'in' need compile-time operands", node)
                r = {ast.Is: operator.is_, ast.IsNot: operator.is_not,
                     ast.In: lambda x, y: x in y, ast.NotIn: lambda x, y: x not in y}[type(opn)](left, right)
            else:
                raise self.err("unsupported comparison", node)
            result = r if result is None else (result and r)
            left = right
        return result

    def e_BoolOp(self, node):
        vals = []
        for v in node.values:
            x = self.expr(v)
            if not isinstance(x, (RVal, RCond)):
                if isinstance(node.op, ast.And) and not x:
                    return x if not vals else False
                if isinstance(node.op, ast.Or) and x:
                    return x if not vals else True
                continue
            vals.append(x)
        if not vals:
            return isinstance(node.op, ast.And)
        acc = None
        for x in vals:
            m = self.b.materialize(x) if isinstance(x, RCond) else self.b.materialize(RCond(self.b, "ne", x, 0))
            acc = m if acc is None else (acc & m if isinstance(node.op, ast.And) else acc | m)
        return acc

    def e_IfExp(self, node):
        c = self.expr(node.test)
        if not isinstance(c, (RVal, RCond)):
            return self.expr(node.body if c else node.orelse)
        op = ir.If(name="if", cond=self.cond(c), loc=self.loc(node))
        self.b.push(op.then)
        t = self.expr(node.body)
        self.b.pop()
        self.b.push(op.els)
        e = self.expr(node.orelse)
        self.b.pop()
        for x in (t, e):
            if not isinstance(x, (int, RVal)):
                raise self.err("a run-time conditional expression must give integers", node)
        h = self.b.new_value()
        for blk, v in ((op.then, t), (op.els, e)):
            self.b.push(blk)
            self.b.mov_into(h, v)
            self.b.pop()
        self.b.emit(op)
        return RVal(self.b, h)

    def e_Call(self, node):
        fn = self.expr(node.func)
        args = []
        for a in node.args:
            if isinstance(a, ast.Starred):
                v = self.expr(a.value)
                if not isinstance(v, (tuple, list)):
                    raise self.err("*args needs a compile-time tuple", a)
                args.extend(v)
            else:
                args.append(self.expr(a))
        kwargs = {}
        for k in node.keywords:
            if k.arg is None:
                raise self.err("**kwargs calls are not supported", node)
            kwargs[k.arg] = self.expr(k.value)
        self.setloc(node)
        return self.call(fn, args, kwargs, node)

    def call(self, fn, args, kwargs, node):
        if getattr(type(fn), "_asc_inline", False):
            return self.inline(fn, args, kwargs, node)
        # a run-time comparison passed to a call is a Python bool: its 0/1 value (no asc API and no
        # builtin takes a comparison object; int(n > 1), max(n > 3, 0), g.set_value(0, n > 1))
        args = [self.b.materialize(a) if isinstance(a, RCond) else a for a in args]
        kwargs = {k: self.b.materialize(v) if isinstance(v, RCond) else v for k, v in kwargs.items()}
        if fn is builtins.print:
            raise self.err("unsupported syntax: print is not supported in @asc.jit functions", node)
        rt = [a for a in list(args) + list(kwargs.values()) if isinstance(a, (RVal, RCond))]
        owner = getattr(fn, "__self__", None)
        if rt and isinstance(owner, _PY_CONTAINERS) and not isinstance(fn, types.MethodType) and \
                getattr(fn, "__name__", "") not in _STORING_METHODS:
            # {1: 2}.get(n) looked n up by identity (the default came back), [1, 2].index(n) and
            # .count(n) compared it by identity: Python containers exist only while compiling
            raise self.err(f"{type(owner).__name__}.{getattr(fn, '__name__', 'method')}() with a run-time "
                           f"argument: a Python {type(owner).__name__} exists only at compile time, so it "
                           f"cannot look up, compare or format a value known only at run time; use a "
                           f"compile-time value "
                           f"(asc.ConstExpr) or if/elif on the run-time value", node)
        if rt and fn in (builtins.str, builtins.repr, builtins.format, builtins.ascii, builtins.hex,
                         builtins.oct, builtins.bin, builtins.chr, builtins.hash):
            raise self.err(f"{fn.__name__}() of a run-time value: its text or hash is only known at run "
                           f"time, and a kernel has no strings then; use a compile-time value", node)
        if fn in (builtins.open, builtins.input, builtins.exec, builtins.eval):
            raise self.err(f"calling {fn.__name__} is not supported in @asc.jit functions", node)
        if fn in (builtins.min, builtins.max) and any(isinstance(a, RVal) for a in args):
            acc = args[0]
            for a in args[1:]:
                acc = self.b.binop("min" if fn is builtins.min else "max", acc, a)
            return acc
        if fn is builtins.abs and args and isinstance(args[0], RVal):
            a = args[0]
            return self.b.binop("max", a, -a)
        if fn is builtins.range:
            if any(isinstance(a, RVal) for a in args):
                raise self.err("range() with run-time bounds is only supported as a for-loop iterator", node)
            return range(*args)
        if fn is builtins.bool and args and isinstance(args[0], RVal):
            return self.b.materialize(RCond(self.b, "ne", args[0], 0))    # bool(n) is n != 0
        if fn is builtins.int and args and isinstance(args[0], RVal):
            return args[0]
        if fn is builtins.float and args and isinstance(args[0], RVal):
            raise self.err("float() of a run-time integer is not supported (no scalar FPU)", node)
        if fn is builtins.len and args and isinstance(args[0], RVal):
            raise self.err("len() of a run-time value", node)
        if isinstance(fn, (types.FunctionType, type)) and getattr(fn, "_asc_builder", False):
            return self.call_py(fn, args, dict(kwargs, _b=self.b), node, builder_kw=True)
        if _allowed_callable(fn):
            return self.call_py(fn, args, kwargs, node)
        name = getattr(fn, "__qualname__", getattr(fn, "__name__", repr(fn)))
        raise self.err(f"calling '{name}' is not supported inside a kernel: call asc.* APIs, other "
                       f"@asc.jit functions, or Python builtins on compile-time values", node)

    def call_py(self, fn, args, kwargs, node, builder_kw=False):
        try:
            return fn(*args, **kwargs)
        except (CompileError, NeedUnroll):
            raise
        except (TypeError, ValueError, KeyError, IndexError) as e:
            msg = _without_builder_kw(str(e)) if builder_kw and isinstance(e, TypeError) else e
            raise self.err(f"{getattr(fn, '__name__', 'call')}: {msg}", node) from None

    def inline(self, jf, args, kwargs, node):
        fn = jf.fn
        if fn in self.inline_stack:
            raise self.err(f"recursive call of @asc.jit function '{fn.__name__}' is not supported", node)
        p = self.parsed(fn)
        try:
            bound = inspect.signature(fn).bind(*args, **kwargs)
        except TypeError as e:
            raise self.err(f"{fn.__name__}(): {e}", node) from None
        bound.apply_defaults()
        saved, saved_loc = self.scope, self.b.loc
        self.scope = Scope(p, dict(bound.arguments), False)
        self.inline_stack.append(fn)
        ret = None
        try:
            body = p.node.body
            for s in body:
                if isinstance(s, ast.Return):
                    self.setloc(s)
                    ret = None if s.value is None else self.expr(s.value)
                    break
                self.stmt(s)
        finally:
            self.inline_stack.pop()
            self.scope = saved
            self.b.loc = saved_loc
        return ret

    def static_int(self, v, node):
        if isinstance(v, RVal):
            raise NeedUnroll("a compile-time integer is needed here", self.loc(node))
        return v


_PY_CONTAINERS = (dict, list, tuple, set, frozenset, str, bytes, bytearray, range)
# methods that only store a run-time value (a list of them, used later) and look nothing up by it
_STORING_METHODS = {"append", "extend", "insert", "copy"}

_KWONLY_GIVEN = re.compile(r" positional arguments? \(and (\d+) keyword-only arguments?\) were given")


def _without_builder_kw(msg: str) -> str:
    """A TypeError about the kernel's arguments, as if the `_b=` the frontend added were not
    there ("takes 2 positional arguments but 3 were given", not "... (and 1 keyword-only
    argument) were given"), so the message names only what the kernel wrote."""
    m = _KWONLY_GIVEN.search(msg)
    if not m:
        return msg
    k = int(m.group(1)) - 1
    if k == 0:
        tail = " were given"
    else:
        tail = m.group(0).replace(f"(and {k + 1} keyword-only", f"(and {k} keyword-only")
        tail = tail.replace("keyword-only arguments)", "keyword-only argument)") if k == 1 else tail
    return msg[:m.start()] + tail + msg[m.end():]


class _Missing:
    def __repr__(self):
        return "<missing>"


_MISSING = _Missing()


def _as_load(target):
    t = _copy.copy(target)
    t.ctx = ast.Load()
    return t


def _same(a, b):
    if a is b:
        return True
    if type(a) is int and type(b) is int or type(a) is float and type(b) is float:
        return a == b
    return False


def _carry(v):
    """The scalars a value is made of when it is carried through a loop or merged after an `if`
    (one register each), or None when it cannot be.  A tuple is carried element by element."""
    if isinstance(v, bool):
        return None
    if isinstance(v, (int, float, RVal)):
        return [v]
    if isinstance(v, tuple):
        out = []
        for e in v:
            c = _carry(e)
            if c is None:
                return None
            out.extend(c)
        return out
    if hasattr(v, "_carry"):
        c = v._carry()
        return c if c else None
    return None


def _rebuild(v, homes):
    if isinstance(v, (int, float, RVal)):
        return homes[0]
    if isinstance(v, tuple):
        out, k = [], 0
        for e in v:
            n = len(_carry(e))
            out.append(_rebuild(e, homes[k:k + n]))
            k += n
        return tuple(out)
    return v._rebuild(homes)


def _compatible(a, b):
    if isinstance(a, (int, RVal)) and isinstance(b, (int, RVal)) and not isinstance(a, bool):
        return True
    if type(a) is not type(b):
        return False
    if isinstance(a, tuple):
        return len(a) == len(b) and all(_compatible(x, y) for x, y in zip(a, b))
    if getattr(type(a), "_asc_typed", False):
        return a.dtype is b.dtype
    return True


def _containers(env):
    """Every list and dict reachable from the values of `env` (through lists, dicts and
    tuples), once each, in a fixed order: [(container, the expression that names it)].  Their
    elements are program state like names are: a run-time loop carries them, a run-time `if`
    merges them."""
    out, seen = [], set()

    def walk(v, path):
        if isinstance(v, (list, dict)):
            if id(v) in seen:
                return
            seen.add(id(v))
            out.append((v, path))
            items = v.items() if isinstance(v, dict) else enumerate(v)
        elif isinstance(v, tuple):
            items = enumerate(v)
        else:
            return
        for k, e in list(items):
            walk(e, f"{path}[{k!r}]")

    for name, v in list(env.items()):
        walk(v, name)
    return out


def _contents(c):
    return dict(c) if isinstance(c, dict) else list(c)


def _set_contents(c, saved):
    if isinstance(c, dict):
        c.clear()
        c.update(saved)
    else:
        c[:] = saved


def _keys(c):
    return list(c.keys()) if isinstance(c, dict) else list(range(len(c)))


def _read_outside(fn_node, loop_node) -> set:
    """Names the function may read outside `loop_node` (before it, after it, or in an enclosing
    loop's other statements): where a value the loop leaves behind may be used."""
    inside = {id(n) for n in ast.walk(loop_node)}
    r = set()
    for n in ast.walk(fn_node):
        if id(n) in inside:
            continue
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
            r.add(n.id)
        elif isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name):
            r.add(n.target.id)
    return r


def _mutables(env):
    return [v for v in env.values() if getattr(type(v), "_asc_mutable", False)]


def _loop_kind(fn):
    """'range' for range() and asc.range, 'static' for asc.static_range, else None."""
    if fn is builtins.range:
        return "range"
    if isinstance(fn, types.FunctionType):
        return getattr(fn, "_asc_loop", None)
    return None


def _opnd(b, x):
    if isinstance(x, RVal):
        return x.v
    return ir.Const(int(x))


def _allowed_callable(fn):
    mod = getattr(fn, "__module__", None) or ""
    if mod.startswith("pyasc") or mod.startswith("asc"):
        return True
    self_obj = getattr(fn, "__self__", None)
    if isinstance(self_obj, (str, bytes, int, float, tuple, list, dict, range)) and not isinstance(self_obj, RVal):
        return True  # methods of compile-time Python values ("abc".startswith, t.index)
    if self_obj is not None:
        m2 = type(self_obj).__module__
        if m2.startswith("pyasc"):
            return True
    if isinstance(fn, type) and fn.__module__.startswith("pyasc"):
        return True
    if fn in (builtins.len, builtins.min, builtins.max, builtins.abs, builtins.int, builtins.float,
              builtins.bool, builtins.range, builtins.tuple, builtins.list, builtins.isinstance,
              builtins.divmod, builtins.round, builtins.str, builtins.pow, builtins.sum, builtins.zip,
              builtins.enumerate, builtins.hasattr, builtins.getattr):
        return True
    return False


def _upward_exposed(loop_node) -> set:
    """Names a loop may read before writing them in one iteration (approximation: source order)."""
    assigned, exposed = set(), set()

    def visit_expr(e):
        for n in ast.walk(e):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id not in assigned:
                exposed.add(n.id)

    def visit(stmts):
        for s in stmts:
            if isinstance(s, ast.Assign):
                visit_expr(s.value)
                for t in s.targets:
                    for n in ast.walk(t):
                        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                            assigned.add(n.id)
                        elif isinstance(n, ast.Name):
                            visit_expr(n)
            elif isinstance(s, ast.AugAssign):
                visit_expr(s.value)
                if isinstance(s.target, ast.Name):
                    if s.target.id not in assigned:
                        exposed.add(s.target.id)
                    assigned.add(s.target.id)
            elif isinstance(s, ast.AnnAssign):
                if s.value is not None:
                    visit_expr(s.value)
                if isinstance(s.target, ast.Name):
                    assigned.add(s.target.id)
            elif isinstance(s, ast.If):
                visit_expr(s.test)
                a0 = set(assigned)
                visit(s.body)
                a1 = set(assigned)
                assigned.clear()
                assigned.update(a0)
                visit(s.orelse)
                assigned.intersection_update(a1)  # only names assigned on both paths
                assigned.update(a0)
            elif isinstance(s, (ast.For, ast.While)):
                visit_expr(s.iter if isinstance(s, ast.For) else s.test)
                if isinstance(s, ast.For) and isinstance(s.target, ast.Name):
                    assigned.add(s.target.id)
                visit(s.body)
                # a nested loop may not run: its assignments do not kill later reads
                for n in ast.walk(s):
                    if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
                        if n.id not in assigned:
                            exposed.add(n.id)
            else:
                visit_expr(s)

    if isinstance(loop_node, ast.While):
        visit_expr(loop_node.test)
    else:
        assigned.add(loop_node.target.id)
    visit(loop_node.body)
    if isinstance(loop_node, ast.While):
        visit_expr(loop_node.test)
        exposed |= {n.id for n in ast.walk(loop_node.test) if isinstance(n, ast.Name)}
    return exposed
