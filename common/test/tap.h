/* tap.h - a minimal Test Anything Protocol producer for unit tests.
 *
 * Header-only so each test program is one .c file:
 *     plan (NO_PLAN); ok (x == 1, "x is one"); done_testing ();
 */
#ifndef HPCQ_COMMON_TEST_TAP_H
#define HPCQ_COMMON_TEST_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NO_PLAN (-1)

static int tap_count;
static int tap_failed;

static inline void plan (int n)
{
    if (n >= 0)
        printf ("1..%d\n", n);
}

static inline int ok_at (int cond, const char *file, int line, const char *fmt, ...)
    __attribute__ ((format (printf, 4, 5)));

static inline int ok_at (int cond, const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    printf ("%sok %d - ", cond ? "" : "not ", ++tap_count);
    va_start (ap, fmt);
    vprintf (fmt, ap);
    va_end (ap);
    printf ("\n");
    if (!cond) {
        tap_failed++;
        printf ("#   failed at %s:%d\n", file, line);
    }
    fflush (stdout);
    return cond;
}

/* A function, not a macro, so arrays may be passed without -Waddress. */
static inline int tap_streq (const char *a, const char *b)
{
    if (!(a && b && strcmp (a, b) == 0)) {
        printf ("#   got: '%s'\n#   expected: '%s'\n", a ? a : "(null)",
                b ? b : "(null)");
        return 0;
    }
    return 1;
}

#define ok(cond, ...) ok_at (!!(cond), __FILE__, __LINE__, __VA_ARGS__)
#define is(a, b, ...) ok_at (tap_streq ((a), (b)), __FILE__, __LINE__, __VA_ARGS__)
#define diag(...)             \
    do {                      \
        printf ("# ");        \
        printf (__VA_ARGS__); \
        printf ("\n");        \
    } while (0)

static inline int done_testing (void)
{
    printf ("1..%d\n", tap_count);
    return tap_failed ? 1 : 0;
}

#endif
