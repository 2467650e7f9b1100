"""The IR records of compiler/ir.py and the cache-hit records of compiler/compiled.py are written
out by hand (@dataclass built them with exec() at every import); they must behave as the
dataclasses they replace: the same constructor (positional order, defaults, a fresh object per
default factory, an explicit None kept), repr, ==, hashability, frozen Const, __match_args__,
copy.deepcopy.  REFERENCE below is the dataclass definitions as they were (main 6ff11ac)."""
import copy
import dataclasses
import inspect
from dataclasses import dataclass, field
from typing import Any

import pytest

from pyasc.compiler import compiled, ir


# ---- the reference dataclasses, verbatim (module level, so their repr names them as before)
@dataclass(frozen=True)
class Const:
    value: Any
    ty: str = "i64"

    def __repr__(self):
        return f"{self.value}" if self.ty == "i64" else f"{self.value}f"

@dataclass
class Loc:
    file: str
    line: int
    col: int

    def __str__(self):
        return f"{self.file}:{self.line}:{self.col}"

@dataclass
class Access:
    buf: str
    addr: Any
    nbytes: Any
    root: Any = None
    desc: str = ""

    def __repr__(self):
        n = "?" if self.nbytes is None else self.nbytes
        return f"{self.desc or self.buf}@{self.buf}[{self.addr}, +{n}]"

@dataclass
class Op:
    name: str
    result: Any = None
    args: list = field(default_factory=list)
    attrs: dict = field(default_factory=dict)
    loc: Any = None
    reads: list = field(default_factory=list)
    writes: list = field(default_factory=list)

@dataclass
class Block:
    ops: list = field(default_factory=list)

@dataclass
class For(Op):
    var: Any = None
    lo: Any = None
    hi: Any = None
    step: int = 1
    body: Block = field(default_factory=Block)

@dataclass
class If(Op):
    cond: tuple = ()
    then: Block = field(default_factory=Block)
    els: Block = field(default_factory=Block)

@dataclass
class While(Op):
    head: Block = field(default_factory=Block)
    cond: tuple = ()
    body: Block = field(default_factory=Block)

@dataclass
class Arg:
    name: str
    kind: str
    dtype: Any
    value: Any

@dataclass
class Function:
    name: str
    file: str
    args: list
    body: Any
    kernel_kind: str = "aiv"
    target: str = "ascend910b"
    buffers: list = field(default_factory=list)
    fixed: list = field(default_factory=list)
    events: list = field(default_factory=list)
    manual_events: set = field(default_factory=set)
    options: dict = field(default_factory=dict)

@dataclass
class ArgSpec:
    name: str
    kind: str
    dtype: object = None
    value: object = None

@dataclass
class Compiled:
    name: str
    asm: str
    ir_text: str
    lowered_text: str
    kernel_kind: str
    target: str
    args: list
    deps: dict = None
    warnings: list = None
    aivs: int = 0


REF = {c.__name__: c for c in (Const, Loc, Access, Op, Block, For, If, While, Arg, Function, ArgSpec, Compiled)}
CLASSES = [(ir, n) for n in ("Const", "Loc", "Access", "Op", "Block", "For", "If", "While", "Arg", "Function")] + \
          [(compiled, n) for n in ("ArgSpec", "Compiled")]


def _plain(v):
    """A field value with our Block and the reference Block compared by their ops."""
    return ("Block", v.ops) if type(v).__name__ == "Block" else v


def _params(cls):
    return [p.name for p in inspect.signature(cls.__init__).parameters.values()][1:]


@pytest.mark.parametrize("mod,name", CLASSES)
def test_same_fields_order_and_match_args(mod, name):
    ours, ref = getattr(mod, name), REF[name]
    names = [f.name for f in dataclasses.fields(ref)]
    assert _params(ours) == names
    assert ours.__match_args__ == ref.__match_args__ == tuple(names)
    assert ours.__hash__ is None if ref.__hash__ is None else ours.__hash__ is not None


def _samples(name):
    """Constructor calls (args, kwargs) for the class: required fields only, all given
    positionally, keywords, explicit None for factory fields."""
    fields = dataclasses.fields(REF[name])
    req = [f for f in fields if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING]
    base = [f"{name}-{f.name}" for f in req]
    full = [f"v{i}" for i in range(len(fields))]
    yield tuple(base), {}
    yield tuple(full), {}
    yield tuple(base[:1]), {f.name: 7 for f in req[1:]}
    yield tuple(base), {f.name: None for f in fields[len(req):]}
    if len(fields) > len(req):
        yield tuple(base), {fields[-1].name: [1, 2]}


@pytest.mark.parametrize("mod,name", CLASSES)
def test_same_values_repr_eq(mod, name):
    ours = getattr(mod, name)
    made = []
    for a, k in _samples(name):
        x, y = ours(*a, **k), REF[name](*a, **k)
        fields = [f.name for f in dataclasses.fields(y)]
        assert [_plain(getattr(x, f)) for f in fields] == [_plain(getattr(y, f)) for f in fields], (a, k)
        assert repr(x) == repr(y) and str(x) == str(y), (repr(x), repr(y))
        made.append((x, y))
    # == : same class and equal fields; never equal to another class (NotImplemented both ways)
    for i, (x1, y1) in enumerate(made):
        for j, (x2, y2) in enumerate(made):
            assert (x1 == x2) == (y1 == y2), (name, i, j)
            assert (x1 != x2) == (y1 != y2), (name, i, j)
        assert (x1 == object()) is False and (x1 != object()) is True
        assert x1.__eq__(object()) is NotImplemented
    # a fresh object per default factory
    a, k = next(_samples(name))
    x1, x2 = ours(*a, **k), ours(*a, **k)
    for f in dataclasses.fields(REF[name]):
        if f.default_factory is not dataclasses.MISSING:
            assert getattr(x1, f.name) is not getattr(x2, f.name)
            assert getattr(x1, f.name) == getattr(x2, f.name)


def test_subclass_eq_and_default_blocks():
    assert ir.For("for") != ir.Op("for") and ir.Op("for") != ir.For("for")
    assert ir.For("for") == ir.For("for") and ir.If("if") == ir.If("if")
    assert isinstance(ir.For("f").body, ir.Block) and ir.While("w").head.ops == []
    assert repr(ir.If("if")) == ("If(name='if', result=None, args=[], attrs={}, loc=None, reads=[], writes=[], "
                                 "cond=(), then=Block(ops=[]), els=Block(ops=[]))")
    assert ir.For("f").pipe == "s" and ir.Op("v", attrs={"pipe": "v"}).pipe == "v"


def test_unhashable_and_frozen_const():
    for v in (ir.Loc("f", 1, 2), ir.Op("x"), ir.Block(), ir.Function("k", "f", [], ir.Block()),
              compiled.ArgSpec("a", "int")):
        with pytest.raises(TypeError):
            hash(v)
    c = ir.Const(3)
    assert hash(c) == hash(Const(3)) == hash((3, "i64")) and {c: 1}[ir.Const(3)] == 1
    assert ir.Const(3) == ir.Const(3.0) and ir.Const(3) != ir.Const(3, "f32")
    with pytest.raises(dataclasses.FrozenInstanceError, match="cannot assign to field 'value'"):
        c.value = 4
    with pytest.raises(dataclasses.FrozenInstanceError, match="cannot assign to field 'other'"):
        c.other = 4
    with pytest.raises(dataclasses.FrozenInstanceError, match="cannot delete field 'ty'"):
        del c.ty
    assert repr(ir.Const(2.5, "f32")) == "2.5f" and repr(c) == "3"


def test_recursive_repr_and_deepcopy():
    b = ir.Block()
    op = ir.Op("x", args=[b])
    b.ops.append(op)
    rb = Block()
    rop = Op("x", args=[rb])
    rb.ops.append(rop)
    assert repr(b) == repr(rb) == "Block(ops=[Op(name='x', result=None, args=[...], attrs={}, " \
                                                    "loc=None, reads=[], writes=[])])"
    fn = ir.Function("k", "f.py", [ir.Arg("n", "int", None, ir.Value(0))],
                     ir.Block([ir.For("for", var=ir.Value(1), lo=ir.Const(0), hi=ir.Const(4),
                                      body=ir.Block([ir.Op("add", args=[ir.Const(1)], loc=ir.Loc("f.py", 3, 5))]))]))
    d = copy.deepcopy(fn)
    assert d is not fn and d.body.ops[0].body.ops[0].args[0] == ir.Const(1)
    assert ir.dump(d) == ir.dump(fn)
    assert isinstance(d.body.ops[0].body.ops[0].args[0], ir.Const)
