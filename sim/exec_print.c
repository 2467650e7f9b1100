/* exec_print.c -- the device print channel: prt.arg, printf and dump
 * (Ascend C printf and DumpTensor; cannmirror/asc-devkit docs/zh/api/SIMD-API/
 * 基础API/调试接口/上板打印/printf.md and DumpTensor.md).
 *
 * Users: the engine's generated dispatch (asc_exec_PRINT); the run's records
 * are read with asc_sim_print_get (asc/sim.h), printed by pyasc and asc-sim.
 *
 * On the card a print writes a record into a GM workspace that the host
 * decodes after the kernel.  Here the scalar unit formats the record when it
 * executes the instruction, into the run's print log: records in execution
 * order, which is program order on each core; the log has a fixed size
 * (ASC_SIM_PRINT_BYTES of text, ASC_SIM_MAX_PRINTS records) and counts the
 * records it could not keep.  Formatting is C's, one conversion at a time:
 * %d %i %u %x %X %o %c take a 64-bit integer argument, %f %F %e %E %g %G %a
 * %A the IEEE f32 bits in the low 32 bits of the argument register (how the
 * scalar unit holds floats), with flags, width and precision (each at most
 * FIELD_MAX: a larger one faults rather than have libc pad or allocate
 * without bound); length
 * modifiers (h, l, ll, z) are accepted and ignored (arguments are 64-bit).
 * dump reads UB from the scalar unit (the compiler drains the pipes first)
 * and prints DumpTensor's header and values.
 * Cost: lat.scalar_store per record (the workspace write). */
#include <stdio.h>
#include <string.h>

#include "exec_internal.h"
#include "sim_internal.h"

#define FMT_MAX 256   /* bytes of a format string, NUL included */
#define FIELD_MAX 128 /* a conversion's width and precision */

/* A record being written straight into the log's free text, of fixed
 * capacity; `full` once something did not fit. */
typedef struct Out {
    char *p;
    size_t n, cap;
    bool full;
} Out;

static Out log_open(AscSim *sim)
{
    Out o = {sim->print_text + sim->print_used, 0, ASC_SIM_PRINT_BYTES - sim->print_used, false};
    if (o.cap) o.p[0] = '\0';
    return o;
}

static void out_put(Out *o, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (o->n + 1 >= o->cap) {
            o->full = true;
            return;
        }
        o->p[o->n++] = s[i];
    }
    o->p[o->n] = '\0';
}

/* Keeps the record of core c written into o; counted as dropped when the log
 * ran out of text or records. */
static void log_commit(AscCore *c, uint32_t pc, const Out *o)
{
    AscSim *sim = c->sim;
    if (o->full || !o->cap || sim->nprints == ASC_SIM_MAX_PRINTS) {
        sim->prints_dropped++;
        return;
    }
    AscPrintRec *r = &sim->prints[sim->nprints++];
    r->core = c->index;
    r->pc = pc;
    r->off = sim->print_used;
    r->len = (uint32_t)o->n;
    sim->print_used += (uint32_t)o->n + 1;
}

static double f32_of(uint64_t v)
{
    uint32_t u = (uint32_t)v;
    float f;
    memcpy(&f, &u, 4);
    return (double)f;
}

/* Formats fmt with args into o; false with a fault naming the rule. */
static bool format(AscExecCtx *ctx, const char *fmt, const uint64_t *args, unsigned nargs, Out *o)
{
    unsigned used = 0;
    for (const char *p = fmt; *p;) {
        if (*p != '%') {
            const char *q = strchr(p, '%');
            size_t n = q ? (size_t)(q - p) : strlen(p);
            out_put(o, p, n);
            p += n;
            continue;
        }
        if (p[1] == '%') {
            out_put(o, "%", 1);
            p += 2;
            continue;
        }
        /* %[flags][width][.precision][length]conv; width and precision at most
         * FIELD_MAX, so libc neither pads nor allocates without bound and the
         * conversion fits buf whole */
        char spec[32];
        size_t k = 0;
        spec[k++] = *p++;
        while (*p && strchr("-+ #0", *p) && k < 8) spec[k++] = *p++;
        while (*p && strchr("-+ #0", *p)) p++; /* a repeated flag says nothing more */
        for (int part = 0; part < 2; part++) {
            if (part == 1) {
                if (*p != '.') break;
                spec[k++] = *p++;
            }
            unsigned long v = 0;
            size_t nd = 0;
            for (; *p >= '0' && *p <= '9'; p++, nd++)
                if ((v = v * 10 + (unsigned long)(*p - '0')) > FIELD_MAX)
                    return asc_exec_fault(ctx, "printf: a field %s must be at most %u", part ? "precision" : "width",
                                          FIELD_MAX);
            if (nd) k += (size_t)snprintf(spec + k, sizeof spec - k, "%lu", v);
        }
        while (*p && strchr("hlzjt", *p)) p++;
        char conv = *p;
        if (!conv || !strchr("diuxXocfFeEgGaA", conv))
            return asc_exec_fault(ctx, "printf: conversion '%%%c' is not supported (d i u x X o c f F e E g G a A)",
                                  conv ? conv : '?');
        p++;
        if (used == nargs)
            return asc_exec_fault(ctx, "printf: the format needs more than the %u pending argument(s)", nargs);
        uint64_t v = args[used++];
        char buf[4 * FIELD_MAX]; /* %128.128f of FLT_MAX: 39 + 1 + 128 characters */
        int len;
        if (strchr("fFeEgGaA", conv)) {
            spec[k++] = conv;
            spec[k] = '\0';
            len = snprintf(buf, sizeof buf, spec, f32_of(v));
        } else if (conv == 'c') {
            spec[k++] = 'c';
            spec[k] = '\0';
            len = snprintf(buf, sizeof buf, spec, (int)(unsigned char)v);
        } else {
            spec[k++] = 'l';
            spec[k++] = 'l';
            spec[k++] = conv;
            spec[k] = '\0';
            if (conv == 'd' || conv == 'i')
                len = snprintf(buf, sizeof buf, spec, (long long)v);
            else
                len = snprintf(buf, sizeof buf, spec, (unsigned long long)v);
        }
        if (len > 0) out_put(o, buf, (size_t)len < sizeof buf ? (size_t)len : sizeof buf - 1);
    }
    if (used != nargs)
        return asc_exec_fault(ctx, "printf: %u argument(s) pending but the format takes %u", nargs, used);
    return true;
}

static bool do_printf(AscExecCtx *ctx, AscCore *c, const AscIssued *q)
{
    char fmt[FMT_MAX];
    uint64_t addr = c->x[q->in.rs1];
    size_t n = 0;
    for (; n < FMT_MAX; n++) {
        uint8_t b;
        if (!asc_gm_read(ctx->gm, addr + n, &b, 1))
            return asc_exec_fault(ctx, "printf: format string at GM 0x%llx runs outside GM", (unsigned long long)addr);
        fmt[n] = (char)b;
        if (!b) break;
    }
    if (n == FMT_MAX)
        return asc_exec_fault(ctx, "printf: format string at GM 0x%llx has no NUL within %u bytes",
                              (unsigned long long)addr, FMT_MAX);
    Out o = log_open(c->sim);
    bool ok = format(ctx, fmt, c->pargs, c->npargs, &o);
    c->npargs = 0;
    if (!ok) return false;
    log_commit(c, q->pc, &o);
    return true;
}

/* DumpTensor's header and values (DumpTensor.md: "DumpTensor: desc=5, addr=0,
 * data_type=float16, position=UB, dump_size=32" then "[v, v, ...]"). */
static bool do_dump(AscExecCtx *ctx, AscCore *c, const AscIssued *q)
{
    static const char *const names[] = {[ASC_DT_F16] = "float16", [ASC_DT_BF16] = "bfloat16", [ASC_DT_F32] = "float32",
                                        [ASC_DT_S8] = "int8",     [ASC_DT_U8] = "uint8",       [ASC_DT_S16] = "int16",
                                        [ASC_DT_U16] = "uint16",  [ASC_DT_S32] = "int32",      [ASC_DT_U32] = "uint32"};
    uint64_t addr = c->x[q->in.rd], count = c->x[q->in.rs1], word = c->x[q->in.rs2];
    unsigned dt = (unsigned)(word >> 32) & 0xff;
    uint32_t desc = (uint32_t)word;
    if (dt >= sizeof names / sizeof names[0] || !names[dt])
        return asc_exec_fault(ctx, "dump: element type %u is not one of f16 bf16 f32 s8 u8 s16 u16 s32 u32", dt);
    unsigned size = asc_dtype_size((AscDtype)dt);
    if (count > ASC_SIM_DUMP_MAX_BYTES / size)
        return asc_exec_fault(ctx, "dump: %llu elements of %u bytes exceed DumpTensor's %u-byte limit",
                              (unsigned long long)count, size, ASC_SIM_DUMP_MAX_BYTES);
    bool gm = (word >> 40) & 1; /* a GlobalTensor: read GM as the scalar unit does */
    uint8_t gmbuf[ASC_SIM_DUMP_MAX_BYTES];
    const uint8_t *ub = gmbuf;
    if (gm) {
        if (!asc_gm_read(ctx->gm, addr, gmbuf, count * size))
            return asc_exec_fault(ctx, "dump: GM [0x%llx, 0x%llx) is outside GM", (unsigned long long)addr,
                                  (unsigned long long)(addr + count * size));
    } else {
        if (!asc_exec_check_local(ctx, ASC_BUF_UB, "dump", false, addr, addr + count * size, false)) return false;
        ub = ctx->mem[ASC_BUF_UB].data + addr;
    }
    Out o = log_open(c->sim);
    char buf[160];
    int len = snprintf(buf, sizeof buf, "DumpTensor: desc=%u, addr=0x%llx, data_type=%s, position=%s, dump_size=%llu\n[",
                       desc, (unsigned long long)addr, names[dt], gm ? "GM" : "UB", (unsigned long long)count);
    out_put(&o, buf, (size_t)len < sizeof buf ? (size_t)len : sizeof buf - 1);
    char cell[64];
    for (uint64_t i = 0; i < count; i++) {
        const uint8_t *e = ub + i * size;
        uint64_t raw = 0;
        for (unsigned b = 0; b < size; b++) raw |= (uint64_t)e[b] << (8 * b);
        switch ((AscDtype)dt) {
        case ASC_DT_F16: len = snprintf(cell, sizeof cell, "%f", (double)asc_f16_to_f32((uint16_t)raw)); break;
        case ASC_DT_BF16: len = snprintf(cell, sizeof cell, "%f", (double)asc_bf16_to_f32((uint16_t)raw)); break;
        case ASC_DT_F32: len = snprintf(cell, sizeof cell, "%f", f32_of(raw)); break;
        case ASC_DT_S8: len = snprintf(cell, sizeof cell, "%d", (int)(int8_t)raw); break;
        case ASC_DT_S16: len = snprintf(cell, sizeof cell, "%d", (int)(int16_t)raw); break;
        case ASC_DT_S32: len = snprintf(cell, sizeof cell, "%d", (int)(int32_t)raw); break;
        default: len = snprintf(cell, sizeof cell, "%llu", (unsigned long long)raw); break;
        }
        if (i) out_put(&o, ", ", 2);
        out_put(&o, cell, (size_t)len < sizeof cell ? (size_t)len : sizeof cell - 1);
    }
    out_put(&o, "]", 1);
    log_commit(c, q->pc, &o);
    return true;
}

ASC_EXEC_FN(PRINT)
{
    (void)dt0, (void)dt1, (void)st;
    AscCore *c = (AscCore *)(void *)ctx; /* ctx is AscCore's first member */
    c->scost = c->sim->lat_store;
    switch (q->in.op) {
    case ASC_OP_PRT_ARG:
        if (c->npargs == ASC_PRINT_MAX_ARGS)
            return asc_exec_fault(ctx, "prt.arg: more than %u pending print arguments", ASC_PRINT_MAX_ARGS);
        c->pargs[c->npargs++] = c->x[q->in.rs1];
        return true;
    case ASC_OP_PRINTF: return do_printf(ctx, c, q);
    default: return do_dump(ctx, c, q);
    }
}
