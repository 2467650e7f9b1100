"""asc.get_sys_workspace / asc.set_sys_workspace: the system workspace in GM (real pyasc
python/asc/language/basic/common.py -> Ascend C GetSysWorkSpacePtr / SetSysWorkspace,
cannmirror/asc-devkit include/basic_api/kernel_operator_swap_mem_intf.h and
impl/basic_api/dav_c220/kernel_operator_common_impl.h).

On the card the runtime hands the kernel a workspace as a launch parameter and the framework
stores it (SetSysWorkspaceForce, cmake/asc/legacy_modules/util/extract_host_stub.py);
GetSysWorkSpacePtr returns it.  Its system part is RESERVED_WORKSPACE bytes
(impl/basic_api/utils/kernel_utils_constants.h: 16 MiB for __NPU_ARCH__ 2201, dav_c220 = the
ascend910b profiles; 2 MiB for 1001 / 2002), the user's workspace follows it (GetUserWorkspace).

Here: the first get_sys_workspace() of a kernel adds a hidden GM argument
`__pyasc_sys_workspace` (kind "sysws" in Compiled.args, `.arg __pyasc_sys_workspace, gm, u8` in the
assembly, after the user's arguments); the launcher (runtime/launch.py) places
sys_workspace_bytes(target) of GM for it, zero-filled as simulated GM starts, one workspace per
launch shared by every core (both programs of a mix kernel take it).  get_sys_workspace() returns
a GlobalAddress of uint8 to it.  set_sys_workspace(ws) makes get_sys_workspace() return `ws` from
there on in program order (Ascend C's SetSysWorkspace sets the pointer when the framework has set
none, the kernel-direct case real pyasc's launch is); it is accepted only at the kernel's top level
(not inside an `if` or a loop), since the pointer is tracked at compile time.
"""
from __future__ import annotations

from ..compiler import abi, ir
from ..compiler.builder import GmPtr, RVal
from . import dtype as dt
from .ops import intrinsic
from .tensor import tensor_type_name

__all__ = ["get_sys_workspace", "set_sys_workspace"]

ARG = "__pyasc_sys_workspace"
KIND = "sysws"
_MIB = 1 << 20
# RESERVED_WORKSPACE by the profile's NPU architecture (kernel_utils_constants.h, see above):
# the split 910B/910_93 profiles are dav_c220 (2201); the coupled ones are modelled on 910 (1001)
_RESERVED = {True: 16 * _MIB, False: 2 * _MIB}


def sys_workspace_bytes(target: dict) -> int:
    """Bytes of the system workspace a launch on profile `target` places (RESERVED_WORKSPACE)."""
    return _RESERVED[bool(target["split"])]


@intrinsic
def get_sys_workspace(*, _b):
    b = _b
    ws = getattr(b, "sys_workspace", None)
    if ws is not None:
        return ws
    a = next((x for x in b.fn.args if x.kind == KIND), None)
    if a is None:
        regs = sum(1 for x in b.fn.args if x.value is not None)
        if regs + 1 > abi.ARG_REGS:
            raise b.error(f"asc.get_sys_workspace: the system workspace takes a kernel argument register and "
                          f"this kernel already has {regs} run-time arguments (at most {abi.ARG_REGS}): pass fewer "
                          f"arguments (e.g. several sizes in one tiling struct)")
        a = ir.Arg(ARG, KIND, dt.uint8, b.new_value("i64", hint="sysws."))
        b.fn.args.append(a)
    return GmPtr(RVal(b, a.value), dt.uint8, ARG)


@intrinsic
def set_sys_workspace(workspace, *, _b):
    b = _b
    if not isinstance(workspace, GmPtr):
        raise b.error(f"asc.set_sys_workspace takes a GlobalAddress (a GM kernel argument), got "
                      f"{tensor_type_name(workspace)}")
    if len(b.blocks) != 1:
        raise b.error("asc.set_sys_workspace: call it at the kernel's top level (not inside an `if` or a loop): "
                      "the workspace pointer is tracked at compile time")
    b.sys_workspace = GmPtr(workspace.base, dt.uint8, workspace.name)
