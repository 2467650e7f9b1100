/* image.c -- AscImage lifetime and lookups (the ELF form is elf_read.c and
 * elf_write.c). */
#include <string.h>

#include "asc/image.h"

void asc_image_init(AscImage *img, const AscAlloc *alloc)
{
    memset(img, 0, sizeof *img);
    img->alloc = asc_alloc_resolve(alloc);
}

void asc_image_free(AscImage *img)
{
    const AscAlloc *a = &img->alloc;
    asc_free(a, img->text);
    asc_free(a, img->rodata);
    asc_free(a, img->kernels);
    for (uint32_t i = 0; i < img->nfiles; i++) asc_free(a, img->files[i]);
    asc_free(a, img->files);
    asc_free(a, img->lines);
    AscAlloc keep = img->alloc;
    memset(img, 0, sizeof *img);
    img->alloc = keep;
}

const AscKernelInfo *asc_image_kernel(const AscImage *img, const char *name)
{
    if (!name) return img->nkernels ? &img->kernels[0] : NULL;
    for (uint32_t i = 0; i < img->nkernels; i++)
        if (strcmp(img->kernels[i].name, name) == 0) return &img->kernels[i];
    return NULL;
}

const AscLineEntry *asc_image_line_at(const AscImage *img, uint32_t pc)
{
    /* entries are sorted by pc: binary search for the last entry <= pc */
    uint32_t lo = 0, hi = img->nlines;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (img->lines[mid].pc <= pc) lo = mid + 1;
        else hi = mid;
    }
    if (lo == 0) return NULL;
    const AscLineEntry *e = &img->lines[lo - 1];
    return e->pc == pc ? e : NULL;
}

const char *asc_kernel_kind_name(unsigned kind)
{
    switch (kind) {
    case ASC_KERNEL_AIV: return "aiv";
    case ASC_KERNEL_AIC: return "aic";
    case ASC_KERNEL_MIX: return "mix";
    }
    return NULL;
}

const char *asc_arg_kind_name(unsigned kind)
{
    switch (kind) {
    case ASC_ARG_GM: return "gm";
    case ASC_ARG_INT: return "int";
    case ASC_ARG_FLOAT: return "float";
    }
    return NULL;
}
