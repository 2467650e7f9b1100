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
#include "exec_internal.h"

AscBankCost asc_ubbank_cost(const AscConfig *cfg, const AscBankRepeat *rep)
{
    uint32_t groups = (uint32_t)cfg->v[ASC_KEY_UB_BANK_GROUPS];
    uint32_t glo = (uint32_t)cfg->v[ASC_KEY_UB_BANK_GROUP_LO];
    uint32_t llo = (uint32_t)cfg->v[ASC_KEY_UB_BANK_LAYER_LO];
    uint32_t rcount[64] = {0}, wcount[64] = {0}; /* groups <= 64 (config range) */
    AscBankCost c = {0, 0, 0, 0};
    for (uint32_t i = 0; i < rep->nread; i++) {
        uint32_t g = (uint32_t)((rep->read[i] >> glo) % groups);
        if (++rcount[g] > c.r) c.r = rcount[g];
    }
    for (uint32_t i = 0; i < rep->nwrite; i++) {
        uint32_t g = (uint32_t)((rep->write[i] >> glo) % groups);
        if (++wcount[g] > c.w) c.w = wcount[g];
    }
    /* read-write: only banks in a group that has both reads and writes */
    for (uint32_t i = 0; i < rep->nwrite; i++) {
        uint64_t a = rep->write[i];
        uint32_t g = (uint32_t)((a >> glo) % groups);
        if (!rcount[g]) continue;
        uint64_t bank = (a >> llo) * groups + g;
        uint32_t n = 0;
        bool read = false;
        for (uint32_t j = 0; j < rep->nread; j++) {
            uint64_t b = rep->read[j];
            if ((b >> llo) * groups + (uint32_t)((b >> glo) % groups) == bank) {
                n++;
                read = true;
            }
        }
        if (!read) continue;
        for (uint32_t j = 0; j < rep->nwrite; j++) {
            uint64_t b = rep->write[j];
            if ((b >> llo) * groups + (uint32_t)((b >> glo) % groups) == bank) n++;
        }
        if (n > c.rw) c.rw = n;
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
    AscBankCost c = asc_ubbank_cost(cfg, rep);
    uint32_t base = (uint32_t)cfg->v[ASC_KEY_VEC_BASE_BEATS];
    st->beats += c.beats;
    st->conflict_beats += c.beats - base;
    if (c.r > 1) st->rr_conflicts++;
    if (c.w > 1) st->ww_conflicts++;
    if (c.rw > 1) st->rw_conflicts++;
}
