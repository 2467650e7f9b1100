"""The bundle's native section: the compiled kernel binaries and the launch plan of every step, so
`asc-sim run out.om` (run/bundle.c) executes the bundle without Python (docs/pyasc.md "numpy
scripts", "The native launch plan").

How it is made: `pyasc compile` runs the bundle once (Bundle.run, generated inputs) with a launch
recorder in pyasc.runtime.launch.RECORDERS.  Every kernel launch of a step gives its ELF kernel
binary, kernel name, blocks and arguments; each gm argument is mapped, by the memory it spans, to a
GM buffer of the plan: a graph value (an input, a constant, an earlier step's output) or a scratch
buffer the step made (a workspace, the output, an intermediate shared by two launches).  A scratch
buffer must be all zero when it is first launched with: a non-zero one would be data the host
prepared from the inputs (padding, a conversion), and baking it into the bundle would give a
silently wrong answer for other inputs; such a step (and a host step) is marked "native": false
with the reason, and asc-sim refuses the bundle naming the step.  Scalars are recorded as the
launch passed them (shapes, tile counts: they depend on shapes only).
"""
from __future__ import annotations

import base64

import numpy as np


def _span(a):
    a = np.asarray(a)
    return a.__array_interface__["data"][0], a.nbytes


def _descr(dt):
    """The dtype as the simulator names it (asc_enums.def): f16, f32, s32, ..."""
    dt = np.dtype(dt)
    return {"f": "f", "i": "s", "u": "u"}[dt.kind] + str(dt.itemsize * 8)


class Recorder:
    def __init__(self):
        self.launches = []

    def launch(self, c, img, blocks, plan):
        # keep every array alive (a freed workspace's address could be reused by the next one) and
        # snapshot it as launched
        snap = [(k, (v, v.tobytes()) if k == "gm" else v) for k, v in plan]
        self.launches.append({"name": c.name, "elf": img.write_bytes(), "blocks": int(blocks), "plan": snap})


class Planner:
    """Collects the native plan across the steps of one Bundle.run."""

    def __init__(self, bundle):
        self.b = bundle
        self.kernels, self.kidx = [], {}
        self.buffers = []          # {"bytes", "init": "input"|"const"|"zeros", "node"}
        self.regions = []          # (ptr, nbytes, buffer, array) of live memory
        self.values = {}           # node id -> (buffer, offset, bytes)
        self.steps = []

    def _find(self, ptr, n):
        for p, m, buf, _ in self.regions:
            if p <= ptr and ptr + n <= p + m:
                return buf, ptr - p
        return None

    def value(self, node, arr, init):
        """An input or constant value held in arr."""
        ptr, n = _span(arr)
        buf = len(self.buffers)
        ent = {"id": buf, "bytes": n, "init": init, "node": node, "dtype": _descr(arr.dtype),
               "shape": [int(x) for x in arr.shape]}
        if init == "const":
            ent["data"] = base64.b64encode(np.ascontiguousarray(arr).tobytes()).decode("ascii")
        self.buffers.append(ent)
        self.regions.append((ptr, n, buf, arr))
        self.values[node] = (buf, 0, n)

    def step(self, s, rec, out, ok_reason=None):
        idx = len(self.steps)
        if ok_reason:
            self.steps.append({"step": idx, "native": False, "why": ok_reason, "output": s["output"]})
            return
        launches = []
        why = None
        for L in rec.launches:
            k = self.kidx.get(L["elf"])
            if k is None:
                k = self.kidx[L["elf"]] = len(self.kernels)
                self.kernels.append({"id": k, "name": L["name"], "bytes": len(L["elf"]),
                                     "elf": base64.b64encode(L["elf"]).decode("ascii")})
            args = []
            for kind, v in L["plan"]:
                if kind == "gm":
                    arr, data = v
                    ptr, n = _span(arr)
                    hit = self._find(ptr, n)
                    if hit is None:
                        if any(data):
                            why = (f"launch {len(launches)} ({L['name']}) passes a {n}-byte array the host filled "
                                   f"(not a graph value, not zero): the step prepares data on the host")
                            break
                        buf = len(self.buffers)
                        self.buffers.append({"id": buf, "bytes": n, "init": "zeros", "node": None})
                        self.regions.append((ptr, n, buf, arr))
                        hit = (buf, 0)
                    args.append({"kind": "gm", "buffer": hit[0], "offset": hit[1], "bytes": n})
                elif kind == "stack":
                    args.append({"kind": "stack", "bytes": int(v)})
                else:
                    args.append({"kind": kind, "value": int(v) if int(v) < 1 << 53 else str(int(v))})
            if why:
                break
            launches.append({"kernel": k, "blocks": L["blocks"], "args": args})
        if why is None:
            ptr, n = _span(out)
            hit = self._find(ptr, n)
            if hit is None:
                why = "the step's result is computed on the host, not in a launched buffer"
            else:
                self.values[s["output"]] = (hit[0], hit[1], n)
        if why:
            self.steps.append({"step": idx, "native": False, "why": why, "output": s["output"]})
            return
        self.steps.append({"step": idx, "native": True, "launches": launches, "output": s["output"],
                           "cycles": None})

    def result(self, rows, outputs, vals):
        for st, r in zip(self.steps, rows):
            if st["native"]:
                st["cycles"] = r["cycles"]
        vlist = [{"node": k, "buffer": b, "offset": o, "bytes": n} for k, (b, o, n) in sorted(self.values.items())]
        outs = []
        for o in outputs:
            v = self.values.get(o["node"])
            a = np.asarray(vals[o["node"]])
            outs.append({"node": o["node"], "name": o["name"] or f"node{o['node']}",
                         "buffer": v[0] if v else None, "offset": v[1] if v else None,
                         "dtype": _descr(a.dtype), "shape": [int(x) for x in a.shape]})
        return {"kernels": self.kernels, "buffers": self.buffers, "values": vlist, "steps": self.steps,
                "outputs": outs,
                "native": all(s["native"] for s in self.steps)}
