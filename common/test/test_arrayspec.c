/* test_arrayspec.c - job array ranges: PBS Pro's X-Y[:STEP], Torque and
 * Slurm lists, %LIMIT, and the bounds. */
#include <config.h>
#include <string.h>

#include "common/arrayspec.h"
#include "common/test/tap.h"

/* The indices of s as "a,b,c" (or "error: ..."), with the limit after '%'. */
static const char *parse (const char *s)
{
    static char out[512];
    struct arrayspec a;
    struct hpcq_error err;
    int o = 0;

    if (arrayspec_parse (s, &a, &err) < 0) {
        snprintf (out, sizeof (out), "error: %s", err.text);
        return out;
    }
    for (int i = 0; i < a.n && o < 200; i++)
        o += snprintf (out + o, sizeof (out) - o, "%s%d", i ? "," : "", a.index[i]);
    if (a.limit)
        snprintf (out + o, sizeof (out) - o, "%%%d", a.limit);
    arrayspec_release (&a);
    return out;
}

int main (void)
{
    struct arrayspec a;

    plan (NO_PLAN);
    is (parse ("1-5"), "1,2,3,4,5", "a range");
    is (parse ("0-9:3"), "0,3,6,9", "a step");
    is (parse ("1,3,5-7"), "1,3,5,6,7", "a list");
    is (parse ("5-7,3,1,6"), "1,3,5,6,7", "sorted, duplicates once");
    is (parse ("1-4%2"), "1,2,3,4%2", "a limit");
    ok (strstr (parse ("5"), "invalid array range"), "one index is not an array");
    ok (strstr (parse ("3-1"), "invalid array range"), "a range backwards");
    ok (strstr (parse ("1-4:0"), "invalid array step"), "a step of 0");
    ok (strstr (parse ("1-4%0"), "invalid array range"), "a limit of 0");
    ok (strstr (parse ("1,,2"), "invalid array range"), "an empty term");
    ok (arrayspec_parse ("1-100000", &a, NULL) == 0 && a.n == ARRAYSPEC_MAX
            && a.index[0] == 1 && a.index[a.n - 1] == 100000,
        "%d subjobs, the most", ARRAYSPEC_MAX);
    arrayspec_release (&a);
    ok (strstr (parse ("0-100000"), "more than 100000 subjobs"), "one more is refused");
    ok (strstr (parse ("1-50000,50001-100001"), "more than 100000 subjobs"),
        "over the limit in the second term");
    ok (strstr (parse ("0-99999999"), "more than 100000 subjobs"),
        "a huge range is refused (before storing any of it)");
    ok (strstr (parse ("0-999999999"), "invalid array range"),
        "past 10^8 is not a number");
    return done_testing ();
}
