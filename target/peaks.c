/* peaks.c -- chip-level peak throughputs derived from a profile's keys
 * (asc-sim config --peaks; docs/timing.md compares them with published chip
 * specifications).
 *
 * Users: asc_sim_main.c.  The formulas are the simulator's own: a cube step
 * is cube.m0 x cube.n0 x K0 multiply-adds (2 FLOP each) per cycle per cube
 * core (docs/timing.md "Cube steps"); a vector repeat of 256 bytes per
 * operand takes vec.base_beats cycles, one operation per element; GM moves
 * dma.hbm_bytes_per_cycle chip-wide.  Integer arithmetic only, so the text is
 * the same on every machine. */
#include <inttypes.h>
#include <stdio.h>

#include "asc/config.h"

void asc_config_peaks(const AscConfig *cfg, AscPeaks *p)
{
    const int64_t *v = cfg->v;
    int64_t mn = v[ASC_KEY_CUBE_M0] * v[ASC_KEY_CUBE_N0];
    p->clock_mhz = v[ASC_KEY_CLOCK_MHZ];
    p->cube_cores = v[ASC_KEY_AI_CORES];
    p->vector_cores = v[ASC_KEY_SPLIT] ? v[ASC_KEY_AI_CORES] * v[ASC_KEY_AIV_PER_CORE] : v[ASC_KEY_AI_CORES];
    p->cube_flop_per_cycle[ASC_PEAK_B16] = 2 * mn * v[ASC_KEY_CUBE_K0_B16];
    p->cube_flop_per_cycle[ASC_PEAK_B8] = 2 * mn * v[ASC_KEY_CUBE_K0_B8];
    p->cube_flop_per_cycle[ASC_PEAK_B32] = 2 * mn * v[ASC_KEY_CUBE_K0_B32];
    p->vec_flop_per_cycle[0] = 128 / v[ASC_KEY_VEC_BASE_BEATS]; /* f16: 128 lanes per repeat */
    p->vec_flop_per_cycle[1] = 64 / v[ASC_KEY_VEC_BASE_BEATS];  /* f32: 64 lanes */
    p->hbm_bytes_per_cycle = v[ASC_KEY_HBM_BYTES_PER_CYCLE];
    p->gm_bytes_per_cycle = v[ASC_KEY_GM_BYTES_PER_CYCLE];
}

/* x per cycle per core * cores * MHz, in units of 10^12 / s, one decimal */
static int tera(char *buf, size_t cap, size_t n, int64_t per_cycle, int64_t cores, int64_t mhz)
{
    int64_t mega = per_cycle * cores * mhz; /* 10^6 / s */
    int64_t tenths = (mega + 50000) / 100000;
    return snprintf(buf + n, cap - n, "%" PRId64 ".%" PRId64, tenths / 10, tenths % 10);
}

char *asc_config_peaks_text(const AscConfig *cfg, const AscAlloc *alloc)
{
    AscPeaks p;
    asc_config_peaks(cfg, &p);
    size_t cap = 2048, n = 0;
    char *buf = asc_malloc(alloc, cap);
    if (!buf) return NULL;
    static const char *const cube_names[ASC_PEAK_DTYPES] = {"f16/bf16", "s8", "f32"};
    n += (size_t)snprintf(buf + n, cap - n, "peaks of %s (from the profile's keys)\n", cfg->name);
    n += (size_t)snprintf(buf + n, cap - n, "  clock               %" PRId64 " MHz\n", p.clock_mhz);
    n += (size_t)snprintf(buf + n, cap - n, "  cores               %" PRId64 " cube-capable, %" PRId64 " vector-capable\n",
                          p.cube_cores, p.vector_cores);
    for (int i = 0; i < ASC_PEAK_DTYPES; i++) {
        n += (size_t)snprintf(buf + n, cap - n, "  cube %-9s      %6" PRId64 " FLOP/cycle per core, ", cube_names[i],
                              p.cube_flop_per_cycle[i]);
        n += (size_t)tera(buf, cap, n, p.cube_flop_per_cycle[i], p.cube_cores, p.clock_mhz);
        n += (size_t)snprintf(buf + n, cap - n, " T%s/s chip\n", i == ASC_PEAK_B8 ? "OP" : "FLOP");
    }
    static const char *const vec_names[2] = {"f16", "f32"};
    for (int i = 0; i < 2; i++) {
        n += (size_t)snprintf(buf + n, cap - n, "  vector %-9s    %6" PRId64 " FLOP/cycle per core, ", vec_names[i],
                              p.vec_flop_per_cycle[i]);
        n += (size_t)tera(buf, cap, n, p.vec_flop_per_cycle[i], p.vector_cores, p.clock_mhz);
        n += (size_t)snprintf(buf + n, cap - n, " TFLOP/s chip\n");
    }
    /* rounded as a whole, then split, so a carry reaches the integer part (1.9996 -> 2.000) */
    int64_t hbm_gbs = (p.hbm_bytes_per_cycle * p.clock_mhz + 500) / 1000; /* MB/s -> GB/s, rounded */
    n += (size_t)snprintf(buf + n, cap - n, "  HBM                 %6" PRId64 " B/cycle chip, %" PRId64 ".%03" PRId64
                          " TB/s\n", p.hbm_bytes_per_cycle, hbm_gbs / 1000, hbm_gbs % 1000);
    int64_t core_dgbs = (p.gm_bytes_per_cycle * p.clock_mhz + 50) / 100; /* MB/s -> tenths of GB/s */
    snprintf(buf + n, cap - n, "  GM per core pipe    %6" PRId64 " B/cycle, %" PRId64 ".%01" PRId64 " GB/s\n",
             p.gm_bytes_per_cycle, core_dgbs / 10, core_dgbs % 10);
    return buf;
}
