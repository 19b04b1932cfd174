/* A minimal test harness: CHECK records failures and goes on; each test
 * file's main returns the failure count (ctest reads the exit status). */
#ifndef FRICON_TEST_H
#define FRICON_TEST_H

#include <stdio.h>
#include <math.h>
#include <string.h>
#include <stdlib.h>

static int test_failures = 0;
static int test_checks = 0;

#define CHECK(cond, ...)                                                     \
    do {                                                                     \
        test_checks++;                                                       \
        if (!(cond)) {                                                       \
            test_failures++;                                                 \
            fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__, __LINE__, \
                    #cond);                                                  \
            fprintf(stderr, __VA_ARGS__);                                    \
            fputc('\n', stderr);                                             \
        }                                                                    \
    } while (0)

#define CHECK_NEAR(a, b, tol, what)                                           \
    CHECK(fabs((double)(a) - (double)(b)) <= (tol), "%s: %.17g vs %.17g (tol %g)", \
          what, (double)(a), (double)(b), (double)(tol))

#define TEST_DONE()                                                          \
    do {                                                                     \
        printf("%d checks, %d failed\n", test_checks, test_failures);        \
        return test_failures ? 1 : 0;                                        \
    } while (0)

#include "fricon.h"

/* The problem in the file at path; NULL, with a failed check, when
 * unreadable. */
static inline fc_problem *test_read(const char *path)
{
    fc_problem *p = NULL;
    fc_error err;
    if (fc_read(path, &p, &err) != FC_OK) {
        CHECK(0, "cannot read %s: %s", path, err.msg);
        return NULL;
    }
    return p;
}

/* A problem of the shared collection by its path under shared/data
 * ("fc3d/Rover1039.dat"). */
#ifdef FRICON_SHARED_DATA
static inline fc_problem *test_load(const char *rel)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", FRICON_SHARED_DATA, rel);
    return test_read(path);
}
#endif

#endif
