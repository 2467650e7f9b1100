"""The pyasc command line: `pyasc compile kernel.py [-k NAME] -o kernel.bin [--target NAME] [-O0..3]`,
and `pyasc sweep ...`, which is asc-sweep (pyasc.sweep.cli, docs/sweep.md).

Users: people and scripts (`python3 -m pyasc`, python/bin/pyasc).  The binary it writes is the
same ELF kernel binary asc-as writes, so `asc-sim run kernel.bin --arg ...` executes it.
Kernels specialise on argument types; give them with `-a NAME=TYPE` (a dtype such as f32/float16
for GlobalAddress arguments; int or float for scalars) or `-a NAME=VALUE` for ConstExpr
arguments.  Unspecified GlobalAddress arguments default to float32.
Exit codes: 0 success, 1 user error (compile errors printed as file:line:col), 2 internal error.
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import sys

_DT = {"f16": "float16", "half": "float16", "f32": "float32", "float": "float32", "bf16": "bfloat16",
       "s8": "int8", "u8": "uint8", "s16": "int16", "u16": "uint16", "s32": "int32", "u32": "uint32"}


def _load_module(path):
    spec = importlib.util.spec_from_file_location(os.path.splitext(os.path.basename(path))[0], path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    d = os.path.dirname(os.path.abspath(path))
    if d not in sys.path:
        sys.path.insert(0, d)
    spec.loader.exec_module(mod)
    return mod


def _specs(jf, given):
    from .compiler.driver import ArgSpec
    from .language import dtype as dt
    from .language.tensor import ConstExpr, GlobalAddress
    out = []
    for p in jf.signature.parameters.values():
        v = given.pop(p.name, None)
        ann = p.annotation
        if ann is ConstExpr:
            if v is None:
                if p.default is not p.empty:
                    out.append(ArgSpec(p.name, "const", value=p.default))
                    continue
                raise SystemExit(f"pyasc: error: ConstExpr argument '{p.name}' needs a value: -a {p.name}=VALUE")
            try:
                val = int(v, 0)
            except ValueError:
                try:
                    val = float(v)
                except ValueError:
                    val = v
            out.append(ArgSpec(p.name, "const", value=val))
        elif ann is int or v == "int":
            out.append(ArgSpec(p.name, "int"))
        elif ann is float or v == "float":
            out.append(ArgSpec(p.name, "float"))
        else:
            name = _DT.get(v or "float32", v or "float32")
            try:
                out.append(ArgSpec(p.name, "gm", dt.by_name(name)))
            except KeyError:
                raise SystemExit(f"pyasc: error: unknown dtype '{v}' for argument '{p.name}'") from None
    if given:
        raise SystemExit(f"pyasc: error: the kernel has no argument(s) {', '.join(given)}")
    return out


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["sweep"]:   # `pyasc sweep ...` is asc-sweep (pyasc.sweep.cli)
        from .sweep.cli import main as sweep_main
        return sweep_main(argv[1:])
    ap = argparse.ArgumentParser(prog="pyasc", description="Compile pyasc kernels for the asc simulator.")
    ap.add_argument("--version", action="version", version="pyasc 0.1.0")
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("compile", help="compile a kernel to an asc kernel binary (ELF)")
    c.add_argument("file")
    c.add_argument("-k", "--kernel", help="name of the @asc.jit kernel (default: the only one, or the first)")
    c.add_argument("-o", "--output", help="output binary (default: KERNEL.bin)")
    c.add_argument("-S", "--asm", action="store_true", help="write assembly text instead of a binary")
    c.add_argument("--target", default=None, help="target profile (ascend910b, ascend910, teach)")
    c.add_argument("-O", dest="opt", type=int, choices=[0, 1, 2, 3], default=3, help="optimisation level")
    c.add_argument("-a", "--arg", action="append", default=[], metavar="NAME=TYPE|VALUE",
                   help="argument type (f32, f16, int, float...) or ConstExpr value")
    c.add_argument("--dump-ir", action="store_true", help="print the IR to stderr")
    sub.add_parser("sweep", help="run a design sweep or plot its results (asc-sweep; docs/sweep.md)", add_help=False)
    args = ap.parse_args(argv)
    from .compiler.errors import CompileError
    from .runtime.jit import JITFunction
    try:
        mod = _load_module(args.file)
    except FileNotFoundError as e:
        print(f"pyasc: error: {e}", file=sys.stderr)
        return 1
    except CompileError as e:
        print(e, file=sys.stderr)
        return 1
    kernels = {n: v for n, v in vars(mod).items() if isinstance(v, JITFunction) and v.fn.__module__ == mod.__name__}
    if not kernels:
        print(f"pyasc: error: {args.file} defines no @asc.jit function", file=sys.stderr)
        return 1
    if args.kernel:
        if args.kernel not in kernels:
            print(f"pyasc: error: no @asc.jit function '{args.kernel}' in {args.file} "
                  f"(found: {', '.join(kernels)})", file=sys.stderr)
            return 1
        jf = kernels[args.kernel]
    else:
        jf = next(iter(kernels.values()))
    given = {}
    for a in args.arg:
        if "=" not in a:
            print(f"pyasc: error: -a expects NAME=TYPE or NAME=VALUE, got '{a}'", file=sys.stderr)
            return 1
        k, v = a.split("=", 1)
        given[k] = v
    try:
        specs = _specs(jf, given)
        opts = dict(jf.options)
        opts["opt_level"] = args.opt
        opts["always_compile"] = True
        if args.target:
            opts["target"] = args.target
        jf2 = JITFunction(jf.fn, **opts)
        comp = jf2.compile(*specs)
        if args.dump_ir:
            sys.stderr.write(comp.ir_text)
        out = args.output or (jf.fn.__name__ + (".s" if args.asm else ".bin"))
        if args.asm:
            with open(out, "w", encoding="utf-8") as f:
                f.write(comp.asm)
        else:
            from .runtime import launch
            launch.assemble(comp).write_file(out)
    except SystemExit as e:
        print(e, file=sys.stderr)
        return 1
    except CompileError as e:
        print(e, file=sys.stderr)
        return 1
    except Exception as e:  # noqa: BLE001
        from ._libasc import LibascMissing
        if isinstance(e, LibascMissing):
            print(f"pyasc: error: {e}", file=sys.stderr)
            return 1
        print(f"pyasc: internal error: {type(e).__name__}: {e}", file=sys.stderr)
        return 2
    return 0
