/* exec_atomic.c -- GM writes under the store atomic config (SPR st_atomic).
 *
 * Ascend C's SetAtomicAdd/Max/Min<T>, SetAtomicType<T>, SetAtomicNone and
 * SetStoreAtomicConfig<type, op> set one register that every later DMA or
 * fixpipe write to GM obeys: the data written becomes op(GM value, data)
 * element by element (public sources: cannmirror/asc-devkit
 * impl/basic_api/dav_c220/kernel_operator_set_atomic_impl.h sets the op with
 * set_atomic_add/max/min and the type with set_atomic_f32/f16/s16/s32/s8/bf16;
 * impl/basic_api/dav_c220/kernel_operator_common_impl.h reads it back with
 * get_st_atomic_cfg: type in bits 2:0, op in bits 4:3; the AtomicDtype order
 * NONE, F32, F16, S16, S32, S8, BF16 is include/basic_api/kernel_operator_common_intf.h's).
 * AtomicOp documents only ATOMIC_SUM = 0; asc numbers max 1 and min 2.
 *
 * Arithmetic: f32 in f32 (IEEE, round to nearest even); f16 and bf16 widened
 * to f32, combined, rounded once to the type (RNE); integers wrap (two's
 * complement).  max/min keep the GM value unless the data compares greater
 * (max) or smaller (min), so a NaN on either side keeps GM.  The register is
 * captured when the instruction issues (AscIssued.st_atomic), like the mask.
 * Cost: as a plain write (the read-modify-write happens at the GM side). */
#include <string.h>

#include "exec_internal.h"

enum { AT_NONE, AT_F32, AT_F16, AT_S16, AT_S32, AT_S8, AT_BF16, AT_COUNT };
enum { OP_ADD, OP_MAX, OP_MIN, OP_COUNT };

static const char *const at_name[AT_COUNT] = {"none", "f32", "f16", "s16", "s32", "s8", "bf16"};
static const unsigned at_size[AT_COUNT] = {1, 4, 2, 2, 4, 1, 2};

static float widen(unsigned t, uint32_t raw)
{
    float f;
    if (t == AT_F16) return asc_f16_to_f32((uint16_t)raw);
    if (t == AT_BF16) return asc_bf16_to_f32((uint16_t)raw);
    memcpy(&f, &raw, 4);
    return f;
}

static uint32_t narrow(unsigned t, float f)
{
    uint32_t raw;
    if (t == AT_F16) return asc_f32_to_f16(f);
    if (t == AT_BF16) return asc_f32_to_bf16(f);
    memcpy(&raw, &f, 4);
    return raw;
}

static int64_t sext(uint32_t raw, unsigned size)
{
    uint64_t sign = 1ull << (8 * size - 1), v = raw;
    if (size < 8) v &= (1ull << (8 * size)) - 1;
    return (int64_t)((v ^ sign) - sign);
}

static uint32_t combine(unsigned t, unsigned op, uint32_t g, uint32_t s)
{
    unsigned size = at_size[t];
    if (t == AT_F32 || t == AT_F16 || t == AT_BF16) {
        float a = widen(t, g), b = widen(t, s);
        if (op == OP_ADD) return narrow(t, a + b);
        if (op == OP_MAX) return b > a ? s : g;
        return b < a ? s : g;
    }
    int64_t a = sext(g, size), b = sext(s, size);
    if (op == OP_ADD) return (uint32_t)((uint64_t)a + (uint64_t)b);
    if (op == OP_MAX) return b > a ? s : g;
    return b < a ? s : g;
}

bool asc_exec_gm_store(AscExecCtx *ctx, uint64_t st_atomic, uint64_t addr, const void *src, size_t n)
{
    unsigned t = (unsigned)(st_atomic & 7), op = (unsigned)((st_atomic >> 3) & 3);
    if (st_atomic >> 5)
        return asc_exec_fault(ctx, "st_atomic 0x%llx sets reserved bits 0x%llx (only bits 4:0, type and op, exist)",
                              (unsigned long long)st_atomic, (unsigned long long)(st_atomic & ~0x1full));
    if (t >= AT_COUNT)
        return asc_exec_fault(ctx, "st_atomic type %u does not exist (0 none, 1 f32, 2 f16, 3 s16, 4 s32, 5 s8, 6 bf16)", t);
    if (t == AT_NONE) return asc_exec_gm_write(ctx, addr, src, n);
    if (op >= OP_COUNT) return asc_exec_fault(ctx, "st_atomic op %u does not exist (0 add, 1 max, 2 min)", op);
    unsigned size = at_size[t];
    if (addr % size || n % size)
        return asc_exec_fault(ctx, "atomic %s GM write [0x%llx, 0x%llx) is not a whole number of aligned %u-byte elements",
                              at_name[t], (unsigned long long)addr, (unsigned long long)(addr + n), size);
    const uint8_t *s = src;
    uint8_t buf[256];
    for (size_t done = 0; done < n;) {
        size_t k = n - done < sizeof buf ? n - done : sizeof buf;
        if (!asc_exec_gm_read(ctx, addr + done, buf, k)) return false;
        for (size_t i = 0; i < k; i += size) {
            uint32_t g = 0, v = 0;
            memcpy(&g, buf + i, size); /* little endian host, as everywhere in the simulator */
            memcpy(&v, s + done + i, size);
            uint32_t r = combine(t, op, g, v);
            memcpy(buf + i, &r, size);
        }
        if (!asc_exec_gm_write(ctx, addr + done, buf, k)) return false;
        done += k;
    }
    return true;
}
