/* ub_env.h -- a UB-only execution context for the tests of one exec
 * function file (test_exec_vgather.c, test_exec_vsort.c): the ascend910b
 * profile, its usable UB filled with seeded pseudo-random bytes, and `ref`,
 * a copy of it for the test's reference model.  No global state. */
#ifndef ASC_TEST_UB_ENV_H
#define ASC_TEST_UB_ENV_H

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "../../sim/exec_internal.h"

typedef struct UbEnv {
    AscConfig cfg;
    AscExecCtx ctx;
    uint8_t *ub, *ref;
    uint32_t n;
    uint64_t seed;
} UbEnv;

static inline uint32_t ub_env_rndn(UbEnv *e, uint32_t n)
{
    e->seed = e->seed * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)((e->seed >> 33) % n);
}

static inline void ub_env_init(UbEnv *e, uint64_t seed)
{
    memset(e, 0, sizeof *e);
    AscDiags d;
    asc_diags_init(&d, NULL);
    ck_assert(asc_config_builtin(&e->cfg, "ascend910b", &d));
    asc_diags_free(&d);
    e->n = (uint32_t)(e->cfg.v[ASC_KEY_UB_BYTES] - e->cfg.v[ASC_KEY_UB_RESERVED_BYTES]);
    e->ub = calloc(e->n, 1);
    e->ref = calloc(e->n, 1);
    ck_assert(e->ub && e->ref);
    e->ctx.cfg = &e->cfg;
    e->ctx.mem[ASC_BUF_UB] = (AscMem){e->ub, e->n, (uint32_t)e->cfg.v[ASC_KEY_UB_ALIGN]};
    e->seed = seed;
    for (uint32_t i = 0; i < e->n; i++) e->ub[i] = (uint8_t)ub_env_rndn(e, 256);
    memcpy(e->ref, e->ub, e->n);
}

static inline void ub_env_free(UbEnv *e)
{
    free(e->ub);
    free(e->ref);
}

#endif
