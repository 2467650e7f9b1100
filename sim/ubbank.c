/* ubbank.c -- the UB bank-conflict model of one vector repeat.
 *
 * Users: exec_vector.c (every repeat of every vector instruction).
 *
 * Model (config keys ub_bank_groups, ub_bank_group_lo, ub_bank_layers,
 * ub_bank_layer_lo; 910B: 16 groups from bit 5, layers from bit 16):
 *   group(a) = (a >> group_lo) % groups
 *   layer(a) = a >> layer_lo
 *   bank(a)  = layer(a) * groups + group(a)
 * Per beat the vector unit reads or writes one row per bank group, so
 *   R  = max over groups of the blocks read in that group      (read-read)
 *   W  = max over groups of the blocks written in that group   (write-write)
 *   RW = max over banks both read and written of reads + writes (read-write)
 *   beats = vec.base_beats * max(1, R, W, RW)
 * A block is counted once per operand access (two sources reading the same
 * block count twice).  No allocation: at most ASC_BANK_MAX_BLOCKS each way. */
#include <string.h>

#include "exec_internal.h"

/* Linear time: the group of an address is a mask (config.c requires
 * ub_bank_groups to be a power of two; 910B: 16), computed once per block; RW counts
 * reads and writes per bank in a small open-addressing table (at most
 * 2 * ASC_BANK_MAX_BLOCKS distinct banks), so each block is looked at a
 * constant number of times.  The result is the same as comparing every
 * write's bank with every access. */
#define BANK_SLOTS 256 /* power of two, > 2 * ASC_BANK_MAX_BLOCKS */

typedef struct BankTable {
    uint8_t used[BANK_SLOTS];
    uint64_t bank[BANK_SLOTS];
    uint8_t nr[BANK_SLOTS], nw[BANK_SLOTS];
} BankTable;

static uint32_t bank_slot(BankTable *t, uint64_t bank)
{
    uint32_t i = (uint32_t)((bank * 0x9e3779b97f4a7c15ull) >> 56) & (BANK_SLOTS - 1);
    while (t->used[i] && t->bank[i] != bank) i = (i + 1) & (BANK_SLOTS - 1);
    if (!t->used[i]) {
        t->used[i] = 1;
        t->bank[i] = bank;
        t->nr[i] = t->nw[i] = 0;
    }
    return i;
}

AscBankCost asc_ubbank_cost(const AscConfig *cfg, const AscBankRepeat *rep)
{
    uint32_t groups = (uint32_t)cfg->v[ASC_KEY_UB_BANK_GROUPS];
    uint32_t glo = (uint32_t)cfg->v[ASC_KEY_UB_BANK_GROUP_LO];
    uint32_t llo = (uint32_t)cfg->v[ASC_KEY_UB_BANK_LAYER_LO];
    uint64_t gmask = groups - 1; /* a power of two (config.c) */
    uint8_t rcount[64], wcount[64]; /* groups <= 64 (config range), counts <= ASC_BANK_MAX_BLOCKS */
    memset(rcount, 0, groups);
    memset(wcount, 0, groups);
    uint8_t rg[ASC_BANK_MAX_BLOCKS], wg[ASC_BANK_MAX_BLOCKS];
    AscBankCost c = {0, 0, 0, 0};
    for (uint32_t i = 0; i < rep->nread; i++) {
        uint64_t x = rep->read[i] >> glo;
        uint32_t g = (uint32_t)(x & gmask);
        rg[i] = (uint8_t)g;
        if (++rcount[g] > c.r) c.r = rcount[g];
    }
    bool both = false; /* some group has reads and writes */
    for (uint32_t i = 0; i < rep->nwrite; i++) {
        uint64_t x = rep->write[i] >> glo;
        uint32_t g = (uint32_t)(x & gmask);
        wg[i] = (uint8_t)g;
        if (++wcount[g] > c.w) c.w = wcount[g];
        if (rcount[g]) both = true;
    }
    if (both) {
        /* read-write: banks (layer * groups + group) both read and written */
        BankTable t;
        memset(t.used, 0, sizeof t.used);
        for (uint32_t i = 0; i < rep->nread; i++)
            if (wcount[rg[i]]) t.nr[bank_slot(&t, (rep->read[i] >> llo) * groups + rg[i])]++;
        /* every read is in: a bank's last write sees its full count */
        for (uint32_t i = 0; i < rep->nwrite; i++) {
            if (!rcount[wg[i]]) continue;
            uint32_t k = bank_slot(&t, (rep->write[i] >> llo) * groups + wg[i]);
            t.nw[k]++;
            if (t.nr[k] && (uint32_t)(t.nr[k] + t.nw[k]) > c.rw) c.rw = t.nr[k] + t.nw[k];
        }
    }
    uint32_t worst = 1;
    if (c.r > worst) worst = c.r;
    if (c.w > worst) worst = c.w;
    if (c.rw > worst) worst = c.rw;
    c.beats = (uint32_t)cfg->v[ASC_KEY_VEC_BASE_BEATS] * worst;
    return c;
}

void asc_ubbank_account(const AscConfig *cfg, const AscBankRepeat *rep, AscExecStats *st)
{
    asc_ubbank_add(cfg, asc_ubbank_cost(cfg, rep), st);
}

void asc_ubbank_add(const AscConfig *cfg, AscBankCost c, AscExecStats *st)
{
    uint32_t base = (uint32_t)cfg->v[ASC_KEY_VEC_BASE_BEATS];
    st->beats += c.beats;
    st->conflict_beats += c.beats - base;
    if (c.r > 1) st->rr_conflicts++;
    if (c.w > 1) st->ww_conflicts++;
    if (c.rw > 1) st->rw_conflicts++;
}

void asc_ubbank_block(AscBankRepeat *br, bool write, uint64_t addr)
{
    addr &= ~31ull;
    uint32_t *n = write ? &br->nwrite : &br->nread;
    uint64_t *v = write ? br->write : br->read;
    for (uint32_t i = 0; i < *n; i++)
        if (v[i] == addr) return;
    if (*n < ASC_BANK_MAX_BLOCKS) v[(*n)++] = addr;
}

void asc_ubbank_flush(AscExecCtx *ctx, AscBankRepeat *br, AscExecStats *st)
{
    if (br->nread + br->nwrite == 0) return;
    if (!ctx->no_bank_cost) asc_ubbank_account(ctx->cfg, br, st);
    if (ctx->on_access) {
        for (uint32_t i = 0; i < br->nread; i++)
            ctx->on_access(ctx->access_ud, ASC_BUF_UB, br->read[i], br->read[i] + 32, false);
        for (uint32_t i = 0; i < br->nwrite; i++)
            ctx->on_access(ctx->access_ud, ASC_BUF_UB, br->write[i], br->write[i] + 32, true);
    }
    st->repeats++;
    br->nread = br->nwrite = 0;
}
