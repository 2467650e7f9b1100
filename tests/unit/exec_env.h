/* exec_env.h -- what the exec-function Check suites (test_exec_load3d.c,
 * test_exec_load2dt.c) start from: the ascend910b profile, an AscExecCtx
 * whose local buffers are calloc'd at the profile's sizes, and a xorshift
 * generator for their contents.  One copy, so the suites agree on the
 * environment an exec function sees. */
#ifndef ASC_TEST_EXEC_ENV_H
#define ASC_TEST_EXEC_ENV_H

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "../../sim/exec_internal.h"

typedef struct Env {
    AscConfig cfg;
    AscExecCtx ctx;
    uint8_t *buf[ASC_BUF_COUNT];
    uint64_t seed;
} Env;

static uint64_t rnd(Env *e)
{
    e->seed ^= e->seed >> 12;
    e->seed ^= e->seed << 25;
    e->seed ^= e->seed >> 27;
    return e->seed * 2685821657736338717ull;
}

static void env_init(Env *e)
{
    memset(e, 0, sizeof *e);
    AscDiags d;
    asc_diags_init(&d, NULL);
    ck_assert(asc_config_builtin(&e->cfg, "ascend910b", &d));
    asc_diags_free(&d);
    const AscConfig *c = &e->cfg;
    struct { AscBuf b; int64_t size, align; } t[] = {
        {ASC_BUF_L1, c->v[ASC_KEY_L1_BYTES], c->v[ASC_KEY_L1_ALIGN]},
        {ASC_BUF_L0A, c->v[ASC_KEY_L0A_BYTES], c->v[ASC_KEY_L0AB_ALIGN]},
        {ASC_BUF_L0B, c->v[ASC_KEY_L0B_BYTES], c->v[ASC_KEY_L0AB_ALIGN]},
    };
    for (size_t i = 0; i < 3; i++) {
        e->buf[t[i].b] = calloc((size_t)t[i].size, 1);
        e->ctx.mem[t[i].b] = (AscMem){e->buf[t[i].b], (uint32_t)t[i].size, (uint32_t)t[i].align};
    }
    e->ctx.cfg = &e->cfg;
    e->seed = 0x0123456789abcdefull;
}

static void env_free(Env *e)
{
    for (int i = 0; i < ASC_BUF_COUNT; i++) free(e->buf[i]);
}

#endif
