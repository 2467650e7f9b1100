/* legality.c -- asc_target_check_insn: the one place that decides whether
 * a decoded instruction is legal on a core kind of a target (rules listed
 * in include/asc/target.h, texts in isa/asc_diag.def).
 *
 * Users: the assembler (asm/asm_insn.c, at assembly time, per kernel part),
 * the simulator's scalar unit (sim/scalar.c, before issuing each
 * instruction, so a binary assembled for another target faults with the
 * same words) and pyasc through libasc. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "asc/target.h"

static const char *const rule_format[ASC_DIAG_COUNT] = {
#define ASC_DIAG(id, sev, fmt) [ASC_DIAG_##id] = fmt,
#include "asc_diag.def"
#undef ASC_DIAG
};

static const char *pname(unsigned pipe)
{
    const char *n = asc_pipe_name(pipe);
    return n ? n : "?";
}

static unsigned broken(AscTargetRule *out, unsigned n, const AscConfig *cfg, AscCoreKind core, const AscInsn *in,
                       AscDiagId id, AscFieldKind field)
{
    AscTargetRule *r = &out[n];
    memset(r, 0, sizeof *r);
    r->id = id;
    r->field = field;
    r->core = core;
    r->op = in->op;
    r->target = cfg->name;
    return n + 1;
}

unsigned asc_target_check_insn(const AscConfig *cfg, AscCoreKind core, const AscInsn *in,
                               AscTargetRule out[ASC_TARGET_MAX_BROKEN])
{
    unsigned n = 0;
    if (!asc_config_insn_legal(cfg, core, (AscOp)in->op))
        return broken(out, n, cfg, core, in, ASC_DIAG_INSN_CORE, ASC_FK_COUNT);
    switch ((AscOp)in->op) {
    case ASC_OP_SET_FLAG:
    case ASC_OP_WAIT_FLAG: {
        int64_t ids = cfg->v[ASC_KEY_EVENT_IDS];
        if (in->event >= ids) {
            n = broken(out, n, cfg, core, in, ASC_DIAG_EVENT_RANGE, ASC_FK_EVENT);
            out[n - 1].value = in->event;
            out[n - 1].max = (unsigned)(ids - 1);
        }
        if (in->psrc >= ASC_PIPE_COUNT || in->pdst >= ASC_PIPE_COUNT ||
            !asc_config_sync_legal(cfg, core, (AscPipe)in->psrc, (AscPipe)in->pdst)) {
            n = broken(out, n, cfg, core, in, ASC_DIAG_SYNC_PAIR, ASC_FK_PSRC);
            out[n - 1].pipe = in->psrc;
            out[n - 1].pipe2 = in->pdst;
        }
        break;
    }
    case ASC_OP_BAR:
        if (in->pipe == ASC_PIPE_S) {
            n = broken(out, n, cfg, core, in, ASC_DIAG_BAR_SCALAR, ASC_FK_PIPE);
            out[n - 1].pipe = in->pipe;
        } else if (in->pipe != ASC_PIPE_ALL &&
                   (in->pipe >= ASC_PIPE_COUNT || !asc_config_core_has_pipe(cfg, core, (AscPipe)in->pipe))) {
            n = broken(out, n, cfg, core, in, ASC_DIAG_BAR_PIPE, ASC_FK_PIPE);
            out[n - 1].pipe = in->pipe;
        }
        break;
    case ASC_OP_SET_CROSS_CORE:
        if (in->pipe >= ASC_PIPE_COUNT || !asc_config_core_has_pipe(cfg, core, (AscPipe)in->pipe)) {
            n = broken(out, n, cfg, core, in, ASC_DIAG_PIPE_CORE, ASC_FK_PIPE);
            out[n - 1].pipe = in->pipe;
        }
        break;
    default: break;
    }
    return n;
}

/* Where a message goes: a diagnostics list or a buffer. */
typedef struct Sink {
    AscDiags *d;
    AscLoc loc;
    char *buf;
    size_t n;
} Sink;

static int say(Sink *s, AscDiagId id, ...)
{
    va_list ap;
    va_start(ap, id);
    int len = 0;
    if (s->d)
        asc_vdiag(s->d, id, s->loc, ap);
    else
        len = vsnprintf(s->buf, s->n, rule_format[id], ap);
    va_end(ap);
    return len;
}

/* The arguments of each rule, in the order of its asc_diag.def format. */
static int emit(const AscTargetRule *r, Sink *s)
{
    const char *mn = r->op < ASC_OP_COUNT && asc_insn_info[r->op].mnemonic ? asc_insn_info[r->op].mnemonic : "?";
    const char *cn = asc_core_kind_name(r->core);
    switch (r->id) {
    case ASC_DIAG_INSN_CORE: return say(s, r->id, mn, cn, r->target);
    case ASC_DIAG_EVENT_RANGE: return say(s, r->id, r->max, r->target);
    case ASC_DIAG_SYNC_PAIR: return say(s, r->id, pname(r->pipe), pname(r->pipe2), cn, r->target);
    case ASC_DIAG_BAR_SCALAR: return say(s, r->id);
    case ASC_DIAG_BAR_PIPE: return say(s, r->id, pname(r->pipe), cn, r->target, pname(r->pipe));
    case ASC_DIAG_PIPE_CORE: return say(s, r->id, mn, pname(r->pipe), cn, r->target);
    default: return say(s, ASC_DIAG_NOTE, "unknown target rule");
    }
}

void asc_target_rule_diag(const AscTargetRule *r, AscDiags *d, AscLoc loc)
{
    Sink s = {.d = d, .loc = loc};
    emit(r, &s);
}

int asc_target_rule_text(const AscTargetRule *r, char *buf, size_t n)
{
    Sink s = {.buf = buf, .n = n};
    return emit(r, &s);
}

int asc_target_check_op(const AscConfig *cfg, AscCoreKind core, const char *mnemonic, unsigned pipe, unsigned psrc,
                        unsigned pdst, unsigned event, char *buf, size_t n)
{
    int op = mnemonic ? asc_op_lookup(mnemonic, strlen(mnemonic)) : -1;
    if (op < 0)
        return -1;
    AscInsn in = {.op = (uint16_t)op,
                  .pipe = (uint8_t)(pipe > UINT8_MAX ? UINT8_MAX : pipe),
                  .psrc = (uint8_t)(psrc > UINT8_MAX ? UINT8_MAX : psrc),
                  .pdst = (uint8_t)(pdst > UINT8_MAX ? UINT8_MAX : pdst),
                  .event = (uint8_t)(event > UINT8_MAX ? UINT8_MAX : event)};
    AscTargetRule r[ASC_TARGET_MAX_BROKEN];
    unsigned k = asc_target_check_insn(cfg, core, &in, r);
    if (buf && n)
        buf[0] = '\0';
    if (k && buf && n)
        asc_target_rule_text(&r[0], buf, n);
    return (int)k;
}
