"""The pyasc compiler: frontend (AST -> IR), ir, passes (IR -> lowered IR), codegen (lowered IR ->
assembly), driver (the pipeline).

Package layering (`LAYERS` below is the table; tests/python/test_layering.py enforces it on
every import, including those inside function bodies).  Lower layers never import higher ones:

    pyasc (package), cli, __main__      the user-facing top: anything
    runtime, lib                        jit, launch, cache, streams: compiler.driver, the
                                        language, _libasc
    language                            the asc.* kernel API: the IR core and compiler.builder
                                        (and compiler.dbuf, -O2's TQue depth rule: no imports).
                                        It sits above the IR because its intrinsics emit IR ops
                                        through the Builder the frontend hands them
    compiler.driver                     the pipeline: frontend, passes, codegen, builder, core
    compiler.frontend                   AST -> IR: builder and core only
    compiler.passes.*, compiler.codegen IR -> IR, IR -> text: core only (never the frontend or
                                        the builder; passes never import codegen nor it them);
                                        codegen also uses compiler.regalloc (core only)
    compiler.builder                    IR construction and run-time scalars: ir, errors,
                                        targets
    core: compiler.ir, errors, isa,     the standard library only, except targets (profiles
          events, abi, targets,         through _libasc, buffers through abi),
          compiled, simt_names,         compiler.abi (the register ABI of pyasc.abi) and
          source; _libasc               source (a kernel's Python text: ir, errors)
    pyasc.abi                           abi.json, what C knows: the bottom, imported by all
    pyasc._outfile                      safe output files (the standard library only): by all

So the compiler never imports the language or the runtime: the frontend recognises language
objects by `_asc_*` attributes (listed in compiler/frontend.py) and passes its Builder to them
explicitly; nothing holds a "current builder" at module level.
"""

CORE = ("pyasc.compiler.ir", "pyasc.compiler.errors", "pyasc.compiler.isa", "pyasc.compiler.targets",
        "pyasc.compiler.events", "pyasc.compiler.abi", "pyasc.abi", "pyasc.compiler.source",
        "pyasc.compiler.compiled", "pyasc.compiler.simt_names", "pyasc._outfile")
_COMPILER = CORE + ("pyasc.compiler.builder", "pyasc.compiler.frontend", "pyasc.compiler.passes",
                    "pyasc.compiler.codegen", "pyasc.compiler.regalloc", "pyasc.compiler.driver")

# module (or package) -> the pyasc modules it may import besides its own package.  The entry
# with the longest matching name applies; "pyasc" matches every module not listed.
LAYERS = {
    "pyasc": ("pyasc",),
    "pyasc.runtime": _COMPILER + ("pyasc.language", "pyasc._libasc", "pyasc.runtime"),
    "pyasc.lib": _COMPILER + ("pyasc.language", "pyasc._libasc", "pyasc.runtime", "pyasc.lib"),
    "pyasc.language": CORE + ("pyasc.compiler.builder", "pyasc.compiler.dbuf"),
    "pyasc.compiler": (),
    "pyasc.compiler.driver": _COMPILER,
    "pyasc.compiler.frontend": CORE + ("pyasc.compiler.builder",),
    "pyasc.compiler.passes": CORE,
    "pyasc.compiler.codegen": CORE + ("pyasc.compiler.regalloc",),
    "pyasc.compiler.regalloc": CORE,
    "pyasc.compiler.builder": ("pyasc.compiler.ir", "pyasc.compiler.errors", "pyasc.compiler.targets"),
    "pyasc.compiler.ir": (),
    "pyasc.compiler.errors": (),
    "pyasc.compiler.isa": (),
    "pyasc.compiler.targets": ("pyasc._libasc", "pyasc.abi"),
    "pyasc.compiler.abi": ("pyasc.abi",),
    "pyasc.compiler.events": (),
    "pyasc.compiler.source": ("pyasc.compiler.ir", "pyasc.compiler.errors"),
    "pyasc.compiler.simt": CORE,
    "pyasc.compiler.dbuf": (),
    "pyasc.compiler.compiled": (),
    "pyasc.compiler.simt_names": (),
    "pyasc._libasc": ("pyasc.abi",),
    "pyasc.abi": (),
}
