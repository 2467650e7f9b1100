#!/usr/bin/python3
"""timing_table.py -- the table of every profile key of docs/timing.md
("Sources and microbenchmarks"): value in each built-in profile (from
`asc-sim config`), its source (the parenthesised source in
target/asc_config.def, else "assumption" with the reason below) and the
microbenchmark of bench/micro/micro.py that measures it (run here on
ascend910b to get the names, so the column cannot drift).

  /usr/bin/python3 bench/micro/timing_table.py [--build DIR] > table.md
"""
import argparse
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import micro  # noqa: E402

PROFILES = ("ascend910b", "ascend910", "teach")

# Keys without a published figure: why no source exists.
ASSUMED = {
    "gm_bytes": "a simulator address-space size, not a chip property (HBM capacity is 32-64 GB)",
    "l1_bytes": "the L1 size of 910B is not in the sources gathered (ascend_facts.md); the asc-devkit GetMatmulApiTiling guide's example uses 'L1 Buffer可用大小为512KB' without naming a chip, and 512 KB matches CATLASS-style tiling of 910B kernels",
    "l0a_bytes": "64 KB is the size kernels tile for; the asc-devkit guides give 64 KB only for Ascend 950 (MmadBitMode/MmadMx: 'L0A Buffer ... 大小64KB', Atlas A2/A3 not supported) and no 910B figure was found",
    "l0b_bytes": "as l0a_bytes",
    "l0c_bytes": "128 KB (910B) / 256 KB (910) as kernels tile for; no official table was found",
    "ub_bank_layers": "192 KB UB / 64 KB per layer; the bank guide gives groups, not layers",
    "queue_depth": "instruction queue depths are unpublished (ascend_facts.md GAPs): the Ascend C guides say only that each pipe has an in-order queue, and neither they nor the msOpProf sources give its depth",
    "launch_cycles": "no public per-launch start-up figure on the device side; 500 cycles (~0.27 us) is a guess below the few-us host launch cost",
    "lat.scalar": "one cycle per scalar instruction: the scalar unit is an in-order core; no per-instruction table is public",
    "lat.branch": "taken-branch penalty of a short in-order pipeline; the guides describe the scalar unit as in-order issue and publish no cycle table for it",
    "lat.scalar_load": "a DCache miss to L2, order of magnitude from L2 latency; no public document gives the scalar unit's load latency (msprof reports only scalar-time ratios)",
    "lat.scalar_store": "write-buffered store; no public document gives the scalar unit's store cost",
    "lat.sync": "one cycle per flag/barrier instruction on its pipe; the guides define the ordering of SetFlag/WaitFlag/PipeBarrier, not their cycles",
    "lat.mmad": "cube pipeline fill; the guides give the cube's steady rate (16x16x16 per cycle) and no start-up latency",
    "dma.setup_cycles": "per-instruction MTE start-up; the guides give DataCopy's alignment effect (~70%) but no per-instruction cycle count",
    "dma.burst_cycles": "per-burst overhead; as dma.setup_cycles, no per-burst cycle count is published",
    "dma.local_bytes_per_cycle": "UB<->L1 path width; not among the per-core rates quoted from the SoC ini (3P-INI: ddr, l2 read/write, l1_to_l0, ub_to_l2)",
    "dma.local_latency": "no public source gives on-chip path latencies; the ini quotes (3P-INI) give rates only",
    "dma.l1_to_l0_latency": "as dma.local_latency: rates are quoted (l1_to_l0_a_rate), latencies are not",
    "dma.fix_bytes_per_cycle": "fixpipe output width; not among the per-core rates quoted from the SoC ini (3P-INI)",
    "dma.fix_latency": "as dma.local_latency: no public fixpipe latency",
    "xcore_max_pending": None,
    "link.latency_ns": "per-transfer start-up of an HCCS transfer is unpublished (for 910 and 910B alike; the searches for 910B interconnect figures found rates only); 1 us is an order of magnitude for a DMA start across a link",
    "max_cycles": "a simulator run bound, not a chip property: 1e9 cycles (0.54 s at 1850 MHz) is generous for any kernel and stops a runaway one",
}


# Sources the def line's parentheses do not spell out.
SOURCE = {
    "split": "ASCDK: arch 2201 is split (AIC + AIV), 1001 coupled",
    "ub_bank_groups": "ASCDK bank guide; MSOP ub_conflict_calculator",
    "ub_bank_group_lo": "ASCDK bank guide (32 B bank rows); MSOP ub_conflict_calculator",
    "ub_bank_layer_lo": "ASCDK bank guide (64 KB per bank layer); MSOP ub_conflict_calculator",
    "cube.n0": "ASCDK: 16x16x16 f16 fractal per cycle",
    "cube.k0_b16": "ASCDK: 16x16x16 f16 fractal per cycle",
    "cube.k0_b8": "ASCDK: K0 = 32 B / element size (s8: 32)",
    "cube.k0_b32": "ASCDK: K0 = 32 B / element size (f32: 8)",
    "dma.gm_align_fast": "ASCDK: GM addresses 512 B aligned run at full rate",
    "l1_align": "ASCDK C API general constraints (docs/zh/api/SIMD-API/C-API/通用说明和约束.md, table 1): L1 Buffer 32 B aligned",
    "l0ab_align": "ASCDK C API general constraints (same table 1): L0A/L0B Buffer 512 B aligned (one 16x16 f16 fractal)",
    "l0c_align": "ASCDK C API general constraints (same table 1): L0C Buffer 64 B aligned",
    "link.mbytes_per_s": "ascend910b (and teach, the default): HCCS910B, third party: 56 GB/s per HCCS link, 8 x 910B in a full mesh, 392 GB/s = 7 x 56 GB/s per card (no Huawei spec page or published HCCL measurement of 910B was found; the pages do not say per direction, taken so); ascend910: VENG, 240 Gbps per HCCS link",
}


def def_sources(path):
    src = {}
    for line in open(path):
        m = re.match(r'ASC_KEY\(\w+,\s*"([^"]+)",.*"([^"]*)"\)\s*$', line)
        if m:
            key, what = m.groups()
            paren = re.findall(r"\(([^()]*)\)", what)
            src[key] = (what, paren[-1] if paren else None)
    return src


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    a = ap.parse_args()
    top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    src = def_sources(os.path.join(top, "target", "asc_config.def"))
    simbin = os.path.join(a.build, "sim", "asc-sim")
    cfg = {p: json.loads(subprocess.run([simbin, "config", "--target", p], check=True, capture_output=True,
                                        text=True).stdout) for p in PROFILES}
    sim = micro.Sim(a.build, "ascend910b", None)
    try:
        suite = micro.Suite(sim)
        for bench in (suite.scalar, suite.sync, suite.queue_depth, suite.vector, suite.banks, suite.cube,
                      suite.dma, suite.hbm, suite.local, suite.l1_to_l0, suite.fixpipe):
            bench()
    finally:
        import shutil
        shutil.rmtree(sim.tmp, ignore_errors=True)
    print("| key | " + " | ".join(PROFILES) + " | source | microbenchmark |")
    print("|---|" + "---|" * len(PROFILES) + "---|---|")
    for key, (what, paren) in src.items():
        vals = " | ".join(str(cfg[p][key]) for p in PROFILES)
        why = ASSUMED.get(key)
        if key in SOURCE:
            source = SOURCE[key]
        elif paren and not paren.startswith("GAP") and key not in ASSUMED:
            source = paren
        elif why:
            source = "assumption: " + why
        else:
            source = paren or "design: " + what
        bench = suite.how.get(key) or "not timed: " + micro.NOT_TIMED.get(key, "?")
        print(f"| `{key}` | {vals} | {source} | {bench} |")


if __name__ == "__main__":
    main()
