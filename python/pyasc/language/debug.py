"""The device print channel of kernels: asc.printf, asc.dump_tensor, asc.dump_acc_chk_point,
asc.print_time_stamp, asc.metrics_prof_start / metrics_prof_stop.

Users: language/ops.py re-exports these.  Each call lowers to the scalar unit's print
instructions (isa/asc_isa.def `prt.arg`, `printf`, `dump`; sim/exec_print.c): the simulated core
formats a record when it executes the call, the launch result carries the records
(LaunchResult.prints) and pyasc and asc-sim print them as "[core N] file:line: text", in program
order per core.  Semantics follow Ascend C (cannmirror/asc-devkit docs/zh/api/SIMD-API/基础API/
调试接口/上板打印/printf.md, DumpTensor.md, DumpAccChkPoint.md, PrintTimeStamp.md) and real pyasc's
signatures (hicann/pyasc docs/python-api/language/generated/asc.language.basic.printf.md ...).

- printf(fmt, *args): fmt a literal string; %d %i %u %x %X %o %c take integers, %f %F %e %E %g
  %G %a %A floats (f32 on the scalar unit), checked here against the arguments, at most 8.
- dump_tensor(tensor, desc, dump_size): the header "DumpTensor: desc=..., addr=..., data_type=...,
  position=UB|GM, dump_size=N" and the N values.  The pipes are drained first (`bar all`), so the
  values are those every earlier instruction left, as the card's DumpTensor shows them.
- dump_acc_chk_point(tensor, index, count_off, dump_size): dump_tensor of the elements from
  count_off on, desc = index.
- print_time_stamp(desc_id): "PrintTimeStamp: desc_id=..., rsv=0, time_stamp=<cycle>, pc_ptr=<pc>".
- metrics_prof_start / metrics_prof_stop: the card starts and stops msProf's counters; here they
  are markers in the print log with the cycle ("MetricsProfStart: time_stamp=<cycle>"), so a run
  shows the cycles of the region between them.
Each record costs lat.scalar_store on the scalar unit (its workspace write on the card).
"""
from __future__ import annotations

import re

from .. import abi as _abi
from ..compiler import ir
from ..compiler.builder import RVal, is_static
from .tensor import GlobalTensor, LocalTensor, tensor_type_name

_MAX_ARGS = 8          # sim/sim_internal.h ASC_PRINT_MAX_ARGS
_DUMP_MAX = 30 * 1024  # include/asc/sim.h ASC_SIM_DUMP_MAX_BYTES (DumpTensor.md: 30 KB per call)
_SPEC = re.compile(r"%(%|[-+ #0]*[0-9]*(?:\.[0-9]+)?(?:hh|h|ll|l|z|j|t)?([a-zA-Z]))")
_INT_CONV, _FLOAT_CONV = set("diuxXoc"), set("fFeEgGaA")


def _label(b):
    fn = b.fn
    ro = fn.options.setdefault("rodata", [])
    return ro, f"__asc_str_{fn.kernel_kind}_{len(ro)}"


def _string_reg(b, text):
    """A register holding the GM address of `text` (NUL-terminated) in the kernel's .rodata."""
    data = text.encode("utf-8")
    if b"\0" in data:
        raise b.error("asc.printf: the format string must not contain a NUL character")
    if len(data) >= 256:
        raise b.error(f"asc.printf: the format string is {len(data)} bytes; at most 255 fit (sim/exec_print.c)")
    ro, label = _label(b)
    ro.append((label, data + b"\0"))
    r = b.new_value()
    b.emit(ir.Op("la", r, [], {"sym": label}))
    return r


def _emit_printf(b, fmt, args):
    for a in args:
        b.emit(ir.Op("prt", None, [b.reg(a)], {"mnem": "prt.arg"}))
    b.emit(ir.Op("prt", None, [_string_reg(b, fmt)], {"mnem": "printf"}))


def printf(fmt, *args, _b):
    b = _b
    if not isinstance(fmt, str):
        raise b.error(f"asc.printf: the format must be a literal string, got {tensor_type_name(fmt)}")
    convs = [m.group(2) for m in _SPEC.finditer(fmt) if m.group(1) != "%"]
    bad = [c for c in convs if c not in _INT_CONV | _FLOAT_CONV]
    if bad:
        raise b.error(f"asc.printf: conversion '%{bad[0]}' is not supported (d i u x X o c f F e E g G a A)")
    if len(convs) != len(args):
        raise b.error(f"asc.printf: the format takes {len(convs)} argument(s), {len(args)} given")
    if len(args) > _MAX_ARGS:
        raise b.error(f"asc.printf: at most {_MAX_ARGS} arguments per call, got {len(args)}")
    vals = []
    for i, (c, a) in enumerate(zip(convs, args)):
        is_f = isinstance(a, float) or (isinstance(a, RVal) and a.ty == "f32")
        if isinstance(a, bool) or not (isinstance(a, (int, float, RVal))):
            raise b.error(f"asc.printf: argument {i + 1} must be a scalar, got {tensor_type_name(a)}")
        if c in _INT_CONV and is_f:
            raise b.error(f"asc.printf: argument {i + 1} is a float but '%{c}' takes an integer")
        if c in _FLOAT_CONV and not is_f:
            if is_static(a):
                a = float(a)    # a literal integer printed with %f: its value, as a float
            else:
                raise b.error(f"asc.printf: argument {i + 1} is a run-time integer but '%{c}' takes a float")
        vals.append(a)
    _emit_printf(b, fmt, vals)


def _int_const(b, name, what, v, hi=(1 << 32) - 1):
    if isinstance(v, bool) or not isinstance(v, (int, RVal)) or isinstance(v, RVal) and v.ty == "f32":
        raise b.error(f"asc.{name}: {what} must be an integer, got {tensor_type_name(v)}")
    if is_static(v) and not 0 <= v <= hi:
        raise b.error(f"asc.{name}: {what} must be in [0, {hi}], got {v}")
    return v


def _dump(b, name, tensor, desc, offset, count):
    if isinstance(tensor, LocalTensor):
        if tensor.buf != "UB":
            raise b.error(f"asc.{name}: a LocalTensor in {tensor.pos.name} cannot be dumped: only UB "
                          "(VECIN/VECOUT/VECCALC) is readable by the scalar unit")
        gm = 0
    elif isinstance(tensor, GlobalTensor):
        tensor._check()
        gm = 1
    else:
        raise b.error(f"asc.{name}: the tensor must be a LocalTensor or GlobalTensor, got {tensor_type_name(tensor)}")
    dt = tensor.dtype
    names = _abi.enum_names("AscDtype")
    if dt.isa not in names or dt.sizeof() > 4:
        raise b.error(f"asc.{name} of {dt.name} is not supported (8-bit to 32-bit elements)")
    desc = _int_const(b, name, "desc", desc)
    count = _int_const(b, name, "dump_size", count)
    if is_static(count) and count * dt.sizeof() > _DUMP_MAX:
        raise b.error(f"asc.{name}: {count} elements of {dt.name} exceed DumpTensor's {_DUMP_MAX}-byte limit")
    b.emit(ir.Op("bar", None, [], {"pipe": "all", "bpipe": "all"}))   # the values every earlier op left
    addr = b.reg(tensor.addr + offset * dt.sizeof() if not is_static(offset) or offset else tensor.addr)
    word = (names.index(dt.isa) << 32) | (gm << 40)
    w = b.reg(desc | word if is_static(desc) else (desc & 0xFFFFFFFF) | word)
    b.emit(ir.Op("prt", None, [addr, b.reg(count), w], {"mnem": "dump"}))


def dump_tensor(tensor, desc, dump_size, shape_info=None, *, _b):
    if shape_info is not None:
        raise _b.error("asc.dump_tensor: shape_info is not supported (the values print as one list)")
    _dump(_b, "dump_tensor", tensor, desc, 0, dump_size)


def dump_acc_chk_point(tensor, index, count_off, dump_size, *, _b):
    _int_const(_b, "dump_acc_chk_point", "count_off", count_off)
    _dump(_b, "dump_acc_chk_point", tensor, index, count_off, dump_size)


def print_time_stamp(desc_id, *, _b):
    b = _b
    _int_const(b, "print_time_stamp", "desc_id", desc_id)
    _emit_printf(b, "PrintTimeStamp: desc_id=%u, rsv=0, time_stamp=%u, pc_ptr=%#x",
                 [desc_id, b.spr("cycle"), b.spr("pc")])


def metrics_prof_start(*, _b):
    _emit_printf(_b, "MetricsProfStart: time_stamp=%u", [_b.spr("cycle")])


def metrics_prof_stop(*, _b):
    _emit_printf(_b, "MetricsProfStop: time_stamp=%u", [_b.spr("cycle")])
