/* test_ckptreport.c - the bounds on a checkpoint report's figures
 * (ckptreport_check), which the worker and the scheduler both apply. */
#include <config.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "common/ckptreport.h"
#include "common/test/tap.h"

int main (void)
{
    struct hpcq_error err;

    plan (NO_PLAN);
    ok (ckptreport_check (0, -1, -1, &err) == 0, "nothing given is fine");
    ok (ckptreport_check (3, 1 << 20, 2.5, &err) == 0, "an ordinary report passes");
    ok (ckptreport_check (CKPTREPORT_GENERATION_MAX, CKPTREPORT_BYTES_MAX,
                          CKPTREPORT_SECONDS_MAX, &err)
            == 0,
        "the bounds themselves pass");
    ok (ckptreport_check (0, INT64_MAX, -1, &err) < 0 && strstr (err.text, "bytes"),
        "bytes 2^63-1 is refused: %s", err.text);
    ok (ckptreport_check (0, -2, -1, &err) < 0, "bytes below -1 is refused");
    ok (ckptreport_check (0, -1, 1e308, &err) < 0 && strstr (err.text, "seconds"),
        "seconds 1e308 is refused: %s", err.text);
    ok (ckptreport_check (0, -1, INFINITY, &err) < 0, "infinite seconds are refused");
    ok (ckptreport_check (0, -1, NAN, &err) < 0, "NaN seconds are refused");
    ok (ckptreport_check (INT64_MAX, -1, -1, &err) < 0
            && strstr (err.text, "generation"),
        "generation 2^63-1 is refused: %s", err.text);
    ok (ckptreport_check (-1, -1, -1, &err) < 0, "a negative generation is refused");
    return done_testing ();
}
