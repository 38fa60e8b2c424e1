/* test_arrayspec.c - array ranges kept as runs: every index and position
 * agrees with the range written out one by one. */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/arrayspec.h"
#include "common/test/tap.h"

/* s parses into exactly the indices in want (ascending), each at its
 * position both ways, and nothing between them has a position. */
static void check (const char *s, const int *want, int n, int runs, int limit)
{
    struct arrayspec a;
    struct hpcq_error err;
    int bad = 0;

    if (arrayspec_parse (s, &a, &err) < 0) {
        ok (0, "'%s' parses: %s", s, err.text);
        return;
    }
    for (int i = 0; i < n && i < a.n; i++) {
        if (arrayspec_index (&a, i) != want[i] || arrayspec_pos (&a, want[i]) != i)
            bad++;
        if (i > 0)
            for (int v = want[i - 1] + 1; v < want[i]; v++)
                bad += arrayspec_pos (&a, v) != -1;
    }
    bad += arrayspec_pos (&a, want[0] - 1) != -1
           || arrayspec_pos (&a, want[n - 1] + 1) != -1;
    ok (a.n == n && bad == 0 && a.nrun == runs && a.limit == limit,
        "'%s': %d indices in %d run%s, limit %d (got %d in %d, %d wrong)", s, n, runs,
        runs == 1 ? "" : "s", limit, a.n, a.nrun, bad);
    arrayspec_release (&a);
}

static void refused (const char *s, const char *why)
{
    struct arrayspec a;
    struct hpcq_error err;

    ok (arrayspec_parse (s, &a, &err) < 0 && strstr (err.text, why) && a.run == NULL,
        "'%s' refused (%s)", s, why);
}

int main (void)
{
    plan (NO_PLAN);
    check ("1-5", (const int[]){ 1, 2, 3, 4, 5 }, 5, 1, 0);
    check ("0-98:2%10",
           (const int[]){ 0,  2,  4,  6,  8,  10, 12, 14, 16, 18, 20, 22, 24,
                          26, 28, 30, 32, 34, 36, 38, 40, 42, 44, 46, 48, 50,
                          52, 54, 56, 58, 60, 62, 64, 66, 68, 70, 72, 74, 76,
                          78, 80, 82, 84, 86, 88, 90, 92, 94, 96, 98 },
           50, 1, 10);
    check ("1,3,5-7", (const int[]){ 1, 3, 5, 6, 7 }, 5, 3, 0);
    /* Out of order and overlapping: sorted, duplicates dropped, runs again. */
    check ("7,1-3,2,10-20:5", (const int[]){ 1, 2, 3, 7, 10, 15, 20 }, 7, 3, 0);
    check ("5-9,0-6", (const int[]){ 0, 1, 2, 3, 4, 5, 6, 7, 8, 9 }, 10, 1, 0);
    check ("3-4", (const int[]){ 3, 4 }, 2, 1, 0);
    {
        struct arrayspec a;
        int ok1 = arrayspec_parse ("0-999999", &a, NULL) == 0;
        ok (ok1 && a.n == 1000000 && a.nrun == 1
                && arrayspec_index (&a, 999999) == 999999
                && arrayspec_pos (&a, 123456) == 123456,
            "a million indices are one run of a few bytes");
        arrayspec_release (&a);
        ok1 = arrayspec_parse ("1-399999:2,0-399999:2", &a, NULL) == 0;
        ok (ok1 && a.n == 400000 && a.nrun == 1 && arrayspec_pos (&a, 399999) == 399999,
            "two interleaved ranges become one run");
        arrayspec_release (&a);
    }
    refused ("5-1", "invalid array range");
    refused ("1-4000001", "more than 4000000");
    refused ("0-2000000,0-2000000", "more than 4000000");
    refused ("0-99999999", "more than 4000000");    /* counted, never stored */
    refused ("0-999999999", "invalid array range"); /* past 10^8 is not a number */
    refused ("7", "invalid array range");
    refused ("1-3%0", "invalid array range");
    refused ("1-3:0", "invalid array step");
    refused ("1-99999999999", "invalid array range");
    refused ("1-3,", "invalid array range");
    return done_testing ();
}
