/* test_asm.c -- assembler tests (being written). */
#include <check.h>
#include <stdlib.h>

#include "asc/asm.h"

START_TEST(assembles_a_kernel)
{
    AscAsm *as = asc_asm_new(NULL);
    AscImage img;
    asc_image_init(&img, NULL);
    const char src[] = ".kernel k, aiv\n  end\n";
    ck_assert(asc_asm_string(as, "t.s", src, sizeof src - 1, &img));
    ck_assert_uint_eq(img.text_words, 1);
    asc_image_free(&img);
    asc_asm_free(as);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("asm");
    TCase *tc = tcase_create("asm");
    tcase_add_test(tc, assembles_a_kernel);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int nf = srunner_ntests_failed(sr);
    srunner_free(sr);
    return nf ? EXIT_FAILURE : EXIT_SUCCESS;
}
