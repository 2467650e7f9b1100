/* sim_fixture.h -- what the simulator's Check suites start from: a target
 * profile with "key=value" overrides, and a kernel image assembled from a
 * string (failing the test with the assembler's first message).  Each suite
 * keeps its own Run struct and asc_sim_new call; these two steps were
 * written out the same way in every one of them. */
#ifndef ASC_SIM_FIXTURE_H
#define ASC_SIM_FIXTURE_H

#include <check.h>
#include <string.h>

#include "asc/asm.h"
#include "asc/config.h"

/* Load built-in `target` into cfg and apply the NULL-terminated `sets`. */
static inline void asc_test_profile(AscConfig *cfg, AscDiags *d, const char *target, const char *const *sets)
{
    ck_assert(asc_config_builtin(cfg, target, d));
    for (; sets && *sets; sets++) ck_assert_msg(asc_config_set(cfg, *sets, d), "%s", *sets);
}

/* Assemble `src` (named `name` in diagnostics and line tables) for `target`
 * into img, which this initialises. */
static inline void asc_test_assemble(AscImage *img, const char *target, const char *name, const char *src)
{
    AscAsmDesc ad = {.target = target};
    AscAsm *as = asc_asm_new(&ad);
    ck_assert_ptr_nonnull(as);
    asc_image_init(img, NULL);
    if (!asc_asm_string(as, name, src, strlen(src), img)) {
        AscDiags *ed = asc_asm_diags(as);
        ck_abort_msg("assembly failed: %s (line %u)", ed->count ? ed->items[0].msg : "?",
                     ed->count ? ed->items[0].loc.line : 0);
    }
    asc_asm_free(as);
}

#endif
