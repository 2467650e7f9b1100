"""numpy scripts compiled to asc bundles: `pyasc compile script.py -o out.om`, `pyasc run out.om`
(docs/pyasc.md "numpy scripts").  trace.py traces, compile.py maps/fuses/plans and writes the
bundle (asc's own JSON format, not Huawei's OM), run.py executes it on the simulator."""
from .compile import compile_script, save_as_om, FORMAT
from .run import Bundle, BundleError, format_report, load_bundle
from .trace import ScriptError, ScriptTypeError

__all__ = ["compile_script", "save_as_om", "load_bundle", "Bundle", "BundleError", "format_report", "ScriptError",
           "ScriptTypeError", "FORMAT"]
