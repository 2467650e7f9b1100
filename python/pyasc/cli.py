"""The pyasc command line: `pyasc compile kernel.py [-k NAME] -o kernel.bin [--target NAME] [-O0..3]`,
`pyasc compile script.py -o out.om [--opt-level=O2] [--enable-memory-opt] [--dynamic-dims=...]
[--custom-op-config=ops.json]` for numpy scripts (python/pyasc/script), `pyasc run out.om`,
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
import re
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
            if re.fullmatch(r"[+-]?0[0-9]+", v.strip()):
                # Python's int(v, 0) refuses a leading 0 and float() would take "0128" as 128.0:
                # the same rule as asc-sim's --arg and --set (a leading 0 would read as octal in C)
                raise SystemExit(f"pyasc: error: -a {p.name}={v}: a leading 0 would make the number octal in C "
                                 f"(asc-sim refuses it too); write it in decimal without the leading 0, or in hex with 0x")
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


def _level(v):
    t = v[1:] if v[:1] in ("O", "o") else v
    if t not in ("0", "1", "2", "3"):
        raise argparse.ArgumentTypeError(f"optimisation level must be 0, 1, 2, 3 (or O0..O3), got '{v}'")
    return int(t)


def _is_script(args):
    """A numpy script: the output is a .om bundle, or the file has no @jit kernel."""
    if (args.output or "").endswith(".om"):
        return True
    try:
        with open(args.file, encoding="utf-8") as f:
            src = f.read()
    except OSError:
        return False
    import re
    return not re.search(r"^\s*@\s*(asc|pyasc)\.jit", src, re.M)


def _compile_script(args):
    from .script import ScriptError, compile_script
    from .script.compile import parse_dims
    opt = 2 if args.opt is None else args.opt
    out = args.output or os.path.splitext(os.path.basename(args.file))[0] + ".om"
    try:
        if args.dynamic_dims:
            parse_dims(args.dynamic_dims)
        b = compile_script(args.file, out, opt, args.target or "ascend910b", args.memory_opt, args.dynamic_dims,
                           args.custom_op_config)
    except (ScriptError, ValueError, OSError) as e:
        print(f"pyasc: {e}" if not isinstance(e, ScriptError) else str(e), file=sys.stderr)
        return 1
    kinds = [s["kind"] for s in b["steps"]]
    fused = sum(1 for s in b['steps'] if s['kind'] == 'fused' and len(s['nodes']) > 1)
    print(f"{out}: {len(kinds)} steps ({fused} fused chains), GM plan {b['gm_plan']['bytes']} bytes, -O{opt}")
    return 0


def _run(args):
    import json as _json
    import numpy as np
    from .script import BundleError, format_report, load_bundle
    try:
        b = load_bundle(args.bundle)
        if args.shape:
            b.set_input_shape([int(x) for x in args.shape.split(",")])
        given = {}
        for a in args.input:
            if "=" not in a:
                raise BundleError(f"-i expects NAME=FILE.npy, got '{a}'")
            k, v = a.split("=", 1)
            given[k] = v
        outs, rep = b.run(given)
    except (BundleError, ValueError, OSError) as e:
        print(f"pyasc: error: {e}", file=sys.stderr)
        return 1
    sys.stdout.write(format_report(rep))
    if args.check:
        ref = b.reference(given)
        for k, v in outs.items():
            r = ref.get(k)
            if r is None:
                print(f"check {k}: no numpy reference (custom op)")
                continue
            err = float(np.max(np.abs(v.astype(np.float64) - r.astype(np.float64)))) if v.size else 0.0
            ok = np.allclose(v, r, rtol=1e-3, atol=1e-3)
            print(f"check {k}: max abs difference {err:.3g} from numpy ({'ok' if ok else 'MISMATCH'})")
            if not ok:
                return 1
    from . import _outfile      # each output through a temporary created exclusively beside it
    if args.save_dir:
        os.makedirs(args.save_dir, exist_ok=True)
        for k, v in outs.items():
            with _outfile.replacing(os.path.join(args.save_dir, k + ".npy")) as f:
                np.save(f, v, allow_pickle=False)
    if args.report_json:
        _outfile.write(args.report_json, _json.dumps(rep, indent=1, sort_keys=True))
    return 0


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
    c.add_argument("-O", "--opt-level", dest="opt", type=_level, default=None, metavar="N",
                   help="optimisation level 0..3 (-O2 and --opt-level=O2 are the same; default 2 "
                        "(kernels and numpy scripts); docs/pyasc.md)")
    c.add_argument("--enable-memory-opt", "--enable-memory-reuse", dest="memory_opt", action="store_true",
                   help="numpy scripts: reuse GM buffers whose last reader ran")
    c.add_argument("--dynamic-dims", default=None, metavar="LO-HI,...",
                   help="numpy scripts: the inputs of that rank take any shape in these ranges")
    c.add_argument("--custom-op-config", default=None, metavar="ops.json",
                   help="numpy scripts: numpy names mapped to your own kernels")
    c.add_argument("-a", "--arg", action="append", default=[], metavar="NAME=TYPE|VALUE",
                   help="argument type (f32, f16, int, float...) or ConstExpr value")
    c.add_argument("--dump-ir", action="store_true", help="print the IR to stderr")
    r = sub.add_parser("run", help="run a bundle written by `pyasc compile script.py -o out.om`")
    r.add_argument("bundle")
    r.add_argument("-i", "--input", action="append", default=[], metavar="NAME=FILE.npy",
                   help="an input by its name in the script (others are generated, seeded)")
    r.add_argument("--shape", default=None, help="bind --dynamic-dims: e.g. 2,224,240 (set_input_shape)")
    r.add_argument("--save-dir", default=None, help="write each output as NAME.npy here")
    r.add_argument("--check", action="store_true", help="compare the outputs with numpy's evaluation of the graph")
    r.add_argument("--report-json", default=None, help="write the per-operator report as JSON")
    sub.add_parser("sweep", help="run a design sweep or plot its results (asc-sweep; docs/sweep.md)", add_help=False)
    args = ap.parse_args(argv)
    if args.cmd == "run":
        return _run(args)
    if _is_script(args):
        return _compile_script(args)
    if args.opt is None:
        args.opt = 2
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
            from . import _outfile
            _outfile.write(out, comp.asm)
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
