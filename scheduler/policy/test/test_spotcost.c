/* test_spotcost.c - spot or on-demand by expected cost, against values
 * worked out by hand (the steps are in the comments). */
#include <config.h>
#include <math.h>
#include <string.h>

#include "scheduler/policy/spotcost.h"
#include "common/test/tap.h"

static int near (double a, double b, double rel)
{
    return fabs (a - b) <= rel * fabs (b);
}

/* A 4-hour job (W = 14 400 s) on a spot class interrupted once an hour
 * (M = 3600 s) at 0.30/h, or on demand at 1.00/h (4.00). */
static struct spotcost_in flaky (double ckpt_cost, double restart)
{
    struct spotcost_in in = { .work = 14400,
                              .mtbi = 3600,
                              .ckpt_cost = ckpt_cost,
                              .restart_cost = restart,
                              .spot_price = 0.30,
                              .ondemand_price = 1.00 };
    return in;
}

static void test_no_checkpoints (void)
{
    struct spotcost_in in = flaky (-1, 0);
    struct spotcost_out out;

    /* W/M = 4, e^4 - 1 = 53.59815, E = 3600 x 53.59815 = 192 953 s
     * (53.6 h: it starts over about e^4 times); 0.30 x 53.598 = 16.08 >
     * 4.00: on demand. */
    ok (near (spotcost_time_restart (14400, 3600, 0), 192953.34, 1e-6),
        "no checkpoints: E = M (e^(W/M) - 1) = 192953 s (%.2f)",
        spotcost_time_restart (14400, 3600, 0));
    spotcost_decide (&in, &out);
    ok (near (out.spot_cost, 16.0794, 1e-4) && near (out.ondemand_cost, 4.0, 1e-9),
        "cheap, flaky spot: 16.08 on spot against 4.00 on demand (%.4f, %.4f)",
        out.spot_cost, out.ondemand_cost);
    ok (out.spot == 0 && !out.hard && strncmp (out.why, "on-demand: ", 11) == 0,
        "a long job without checkpoints goes on demand (%s)", out.why);
}

static void test_cheap_checkpoints (void)
{
    struct spotcost_in in = flaky (60, 60);
    struct spotcost_out out;

    /* C = R = 60 s: C/2M = 1/120, sqrt = 0.0912871; sqrt(2 C M) =
     * sqrt(432 000) = 657.2671; T = 657.2671 (1 + 0.0304290 + 0.0009259)
     * - 60 = 677.8756 - 60 = 617.8756 s.  E = M e^(R/M) (e^((T+C)/M) - 1)
     * W/T = 3600 x 1.0168064 x (e^0.1882988 - 1) x 23.30549
     *     = 3600 x 1.0168064 x 0.2072196 x 23.30549 = 17 675.8 s (4.91 h);
     * 0.30 x 4.90995 = 1.473 < 4.00: spot. */
    spotcost_decide (&in, &out);
    ok (near (out.interval, 617.8756, 1e-6), "T = 617.876 s (%.4f)", out.interval);
    ok (near (out.spot_time, 17675.82, 1e-5), "E = 17675.8 s (%.2f)", out.spot_time);
    ok (near (out.spot_cost, 1.47299, 1e-4) && out.spot == 1,
        "with cheap checkpoints the same spot class wins: 1.473 < 4.00 (%s)", out.why);
}

static void test_recent_reclaims (void)
{
    struct spotcost_in in = flaky (60, 60);
    double age[] = { 0, 3600 };
    struct spotcost_out out;

    /* Two reclaims, now and one half-life ago: 1 + 0.5 = 1.5, so M =
     * 3600 / 2.5 = 1440 s; an hour later both have halved: 0.5 + 0.25. */
    ok (near (spotcost_recent (age, 2, 3600), 1.5, 1e-12), "recent: 1 + 1/2 = 1.5");
    in.recent = spotcost_recent (age, 2, 3600);
    spotcost_decide (&in, &out);
    ok (near (out.mtbi, 1440, 1e-12), "M = 3600 / (1 + 1.5) = 1440 s");
    in.ckpt_cost = -1;
    in.restart_cost = 0;
    spotcost_decide (&in, &out);
    /* W/M = 10: E = 1440 (e^10 - 1) = 31 716 671 s: on demand. */
    ok (near (out.spot_time, 31716670.7, 1e-6) && out.spot == 0,
        "without checkpoints after two reclaims: E = 1440 (e^10 - 1) (%.1f)",
        out.spot_time);
}

static void test_wants (void)
{
    struct spotcost_in in = flaky (-1, 0);
    struct spotcost_out out;

    in.want = RES_SPOT_REQUIRE;
    spotcost_decide (&in, &out);
    ok (out.spot == 1 && out.hard, "spot=require: spot only, whatever it costs");
    in.want = RES_SPOT_PREFER;
    spotcost_decide (&in, &out);
    ok (out.spot == 1 && !out.hard, "spot=prefer: spot first");
    in = flaky (60, 60);
    in.want = RES_SPOT_AVOID;
    spotcost_decide (&in, &out);
    ok (out.spot == 0 && !out.hard,
        "spot=avoid: on demand first, though spot is cheaper");
    in.want = RES_SPOT_NEVER;
    spotcost_decide (&in, &out);
    ok (out.spot == 0 && out.hard, "spot=never: on demand only");
    in.want = RES_SPOT_ANY;
    in.reclaims = 3;
    in.max_reclaims = 3;
    spotcost_decide (&in, &out);
    ok (out.spot == 0 && out.hard
            && strcmp (out.why, "on-demand: reclaimed 3 times (spot_max_reclaims 3)")
                   == 0,
        "reclaimed spot_max_reclaims times: on demand only (%s)", out.why);
    in.max_reclaims = 0;
    spotcost_decide (&in, &out);
    ok (out.spot == 1, "spot_max_reclaims 0: no limit");
}

static void test_edges (void)
{
    ok (spotcost_time_restart (100, 0, 5) == 100, "M 0 (never interrupted): E = W");
    ok (isinf (spotcost_time_restart (1e7, 1000, 0)), "W/M beyond e^700: for ever");
    ok (near (spotcost_time_checkpoint (1000, 0, 10, 100, 0), 1100, 1e-12),
        "never interrupted, with checkpoints: W + (W/T) C");
}

int main (void)
{
    plan (NO_PLAN);
    test_no_checkpoints ();
    test_cheap_checkpoints ();
    test_recent_reclaims ();
    test_wants ();
    test_edges ();
    done_testing ();
}
