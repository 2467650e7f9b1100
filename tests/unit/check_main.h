/* check_main.h -- the one way every Check suite of tests/unit is run.
 *
 * Each test file builds its Suite and returns asc_check_run(suite) from
 * main: run every test (CK_FORK follows the environment, CTest sets it),
 * print Check's summary line, and exit non-zero when any test failed. */
#ifndef ASC_CHECK_MAIN_H
#define ASC_CHECK_MAIN_H

#include <check.h>
#include <stdlib.h>

static inline int asc_check_run(Suite *s)
{
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif
