/* test_cadence.c - Young/Daly and the mean time between interruptions,
 * against values worked out by hand (the steps are in the comments). */
#include <config.h>
#include <math.h>

#include "scheduler/policy/cadence.h"
#include "common/test/tap.h"

static int near (double a, double b, double tol)
{
    return fabs (a - b) <= tol;
}

static void test_young_daly (void)
{
    /* C = 1800 s, M = 3600 s: C/2M = 1/4, sqrt(C/2M) = 1/2,
     * sqrt(2 C M) = sqrt(12 960 000) = 3600,
     * 3600 (1 + 1/6 + 1/36) - 1800 = 3600 * 43/36 - 1800 = 4300 - 1800 = 2500. */
    ok (near (cadence_young_daly (1800, 3600), 2500, 1e-9),
        "C 1800, M 3600: 3600 * 43/36 - 1800 = 2500 (%.9f)",
        cadence_young_daly (1800, 3600));
    ok (near (cadence_young (1800, 3600), 3600, 1e-9),
        "Young alone: sqrt(2*1800*3600) = 3600");
    /* C = 50 s, M = 5000 s: C/2M = 0.005, sqrt = 0.0707107,
     * sqrt(2 C M) = sqrt(500 000) = 707.10678,
     * 707.10678 (1 + 0.0235702 + 0.0005556) - 50 = 724.16628 - 50 = 674.16628. */
    ok (near (cadence_young_daly (50, 5000), 674.16628, 1e-4),
        "C 50, M 5000: 674.166 (%.5f)", cadence_young_daly (50, 5000));
    /* A minute's checkpoint, a day between interruptions: C/2M = 1/2880,
     * sqrt(2 * 60 * 86400) = 3219.93789, times (1 + 0.0062113 + 0.0000386)
     * = 3240.06211, less 60: 3180.06211. */
    ok (near (cadence_young_daly (60, 86400), 3180.06211, 1e-4),
        "C 60, M 86400: 3180.062 (%.5f)", cadence_young_daly (60, 86400));
    ok (cadence_young_daly (60, 86400) < cadence_young (60, 86400),
        "Daly's correction shortens Young's interval when C is small next to M");
    /* Daly: C >= 2M gives T = M. */
    ok (near (cadence_young_daly (100, 40), 40, 0), "C 100 >= 2M (80): T = M = 40");
    ok (near (cadence_young_daly (80, 40), 40, 0), "C = 2M exactly: T = M");
    ok (cadence_young_daly (0, 3600) == 0 && cadence_young_daly (10, 0) == 0
            && cadence_young (-1, 10) == 0,
        "no cost or no M: 0 (no interval)");
}

static void test_mtbi (void)
{
    /* No history: the prior. */
    ok (near (cadence_mtbi (360000, 0, 0), 360000, 0), "no history: M = prior (100 h)");
    /* 900 node-hours up (3 240 000 s), 9 interruptions, prior 100 h:
     * (360 000 + 3 240 000) / (1 + 9) = 360 000. */
    ok (near (cadence_mtbi (360000, 3240000, 9), 360000, 1e-9),
        "900 node-hours, 9 interruptions, prior 100 h: 100 h");
    /* 10 node-hours, 3 interruptions: (360 000 + 36 000) / 4 = 99 000. */
    ok (near (cadence_mtbi (360000, 36000, 3), 99000, 1e-9),
        "10 node-hours, 3 interruptions: 99 000 s");
    /* Data outweigh the prior as they grow: 10 000 node-hours, 100 spot
     * reclaims (one per 100 h), prior 1 h: (3600 + 36e6) / 101 = 356 471.3. */
    ok (near (cadence_mtbi (3600, 36e6, 100), 356471.2871, 1e-3),
        "10 000 node-hours, 100 reclaims, prior 1 h: 356 471 s (%.4f)",
        cadence_mtbi (3600, 36e6, 100));
    /* Two nodes of 100 h each: 50 h; 100 h and 25 h: 1/(1/100 + 1/25) = 20 h. */
    {
        double two[] = { 360000, 360000 }, mixed[] = { 360000, 90000 },
               bad[] = { 10, 0 };
        ok (near (cadence_mtbi_combined (two, 2), 180000, 1e-6),
            "two nodes of 100 h: 50 h");
        ok (near (cadence_mtbi_combined (mixed, 2), 72000, 1e-6),
            "100 h and 25 h: 20 h");
        ok (cadence_mtbi_combined (bad, 2) == 0 && cadence_mtbi_combined (two, 0) == 0,
            "a node without M, or no node: 0");
    }
}

static void test_bound_median (void)
{
    double odd[] = { 5, 1, 3 }, even[] = { 4, 1, 3, 2 }, one[] = { 7 };

    ok (cadence_bound (10, 60, 3600) == 60, "below the minimum: the minimum");
    ok (cadence_bound (7200, 60, 3600) == 3600, "above the maximum: the maximum");
    ok (cadence_bound (120, 60, 3600) == 120, "between: itself");
    ok (cadence_bound (7200, 60, 0) == 7200, "no maximum");
    ok (cadence_median (odd, 3) == 3, "median of 5 1 3: 3");
    ok (cadence_median (even, 4) == 2.5, "median of 4 1 3 2: 2.5");
    ok (cadence_median (one, 1) == 7 && cadence_median (one, 0) == 0,
        "one value; none");
}

int main (void)
{
    plan (NO_PLAN);
    test_young_daly ();
    test_mtbi ();
    test_bound_median ();
    done_testing ();
}
