/* mkbin_loader.c -- test-only: write a hand-built kernel binary, so the
 * asc-objdump CLI test needs no assembler.
 *
 *   mkbin_loader OUT.bin SRC.s
 *
 * Writes SRC.s (a source file the line table points at, by the path given)
 * and OUT.bin: an aiv kernel 'vadd_demo' (gm/int/float arguments, a forward
 * branch, .uses ub), a mix kernel 'mm' with AIC and AIV programs, 20 bytes
 * of .rodata, and a line table.  Exit 0 on success, 1 on any error. */
#include <stdio.h>
#include <string.h>

#include "asc/image.h"
#include "asc/isa.h"

static const char source[] =
    "; demo source for the asc-objdump test\n"       /* 1 */
    ".kernel vadd_demo, aiv\n"                       /* 2 */
    "    movz x4, 0x40, 0\n"                         /* 3 */
    "    addi x5, x4, -3\n"                          /* 4 */
    "    beq x4, x5, done\n"                         /* 5 */
    "    vadd.f16 x0, x1, x2, x6\n"                  /* 6 */
    "done:\n"                                        /* 7 */
    "    end\n"                                      /* 8 */
    ".kernel mm, mix\n"                              /* 9 */
    ".aic\n"                                         /* 10 */
    "    mmad.f16f32 x0, x1, x2, x3\n"               /* 11 */
    "    end\n"                                      /* 12 */
    ".aiv\n"                                         /* 13 */
    "    set_flag v, mte3, 1\n"                      /* 14 */
    "    end\n";                                     /* 15 */

static uint32_t enc(AscInsn in)
{
    uint32_t w = 0;
    if (!asc_encode(&in, &w)) fprintf(stderr, "mkbin_loader: cannot encode op %u\n", in.op);
    return w;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: mkbin_loader OUT.bin SRC.s\n");
        return 1;
    }
    FILE *f = fopen(argv[2], "wb");
    if (!f || fwrite(source, 1, strlen(source), f) != strlen(source) || fclose(f) != 0) {
        fprintf(stderr, "mkbin_loader: cannot write %s\n", argv[2]);
        return 1;
    }
    uint32_t text[] = {
        enc((AscInsn){.op = ASC_OP_MOVZ, .rd = 4, .imm = 0x40}),
        enc((AscInsn){.op = ASC_OP_ADDI, .rd = 5, .rs1 = 4, .imm = -3}),
        enc((AscInsn){.op = ASC_OP_BEQ, .rs1 = 4, .rs2 = 5, .off = 8}),
        enc((AscInsn){.op = ASC_OP_VADD_F16, .rd = 0, .rs1 = 1, .rs2 = 2, .rs3 = 6}),
        enc((AscInsn){.op = ASC_OP_END}),
        enc((AscInsn){.op = ASC_OP_MMAD_F16F32, .rd = 0, .rs1 = 1, .rs2 = 2, .rs3 = 3}),
        enc((AscInsn){.op = ASC_OP_END}),
        enc((AscInsn){.op = ASC_OP_SET_FLAG, .psrc = ASC_PIPE_V, .pdst = ASC_PIPE_MTE3, .event = 1}),
        enc((AscInsn){.op = ASC_OP_END}),
    };
    static uint8_t rodata[20] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 0xff, 0xfe, 0xfd, 0xfc};
    AscKernelInfo kernels[2] = {
        {.name = "vadd_demo", .kind = ASC_KERNEL_AIV, .entry = {0, 0}, .size = {20, 0}, .nargs = 5,
         .args = {{"x", ASC_ARG_GM, ASC_DT_F16}, {"y", ASC_ARG_GM, ASC_DT_F16}, {"z", ASC_ARG_GM, ASC_DT_F16},
                  {"n", ASC_ARG_INT, ASC_DT_NONE}, {"alpha", ASC_ARG_FLOAT, ASC_DT_NONE}},
         .ub_bytes = 65536},
        {.name = "mm", .kind = ASC_KERNEL_MIX, .entry = {28, 20}, .size = {8, 8}, .nargs = 1,
         .args = {{"a", ASC_ARG_GM, ASC_DT_F16}}, .l1_bytes = 131072},
    };
    char *files[1] = {argv[2]};
    AscLineEntry lines[] = {{0, 0, 3, 5},  {4, 0, 4, 5},  {8, 0, 5, 5},   {12, 0, 6, 5}, {16, 0, 8, 5},
                            {20, 0, 11, 5}, {24, 0, 12, 5}, {28, 0, 14, 5}, {32, 0, 15, 5}};
    AscImage img;
    asc_image_init(&img, NULL);
    snprintf(img.target, sizeof img.target, "ascend910b");
    img.text = text;
    img.text_words = sizeof text / sizeof text[0];
    img.rodata = rodata;
    img.rodata_size = sizeof rodata;
    img.kernels = kernels;
    img.nkernels = 2;
    img.files = files;
    img.nfiles = 1;
    img.lines = lines;
    img.nlines = sizeof lines / sizeof lines[0];
    AscDiags d;
    asc_diags_init(&d, NULL);
    bool ok = asc_image_write_file(&img, argv[1], &d); /* the image borrows static data: never asc_image_free it */
    asc_diags_print(&d, stderr, NULL, NULL);
    asc_diags_free(&d);
    return ok ? 0 : 1;
}
