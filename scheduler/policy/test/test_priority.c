/* test_priority.c - the priority and fair-share arithmetic, against values
 * worked out by hand. */
#include <config.h>
#include <math.h>

#include "scheduler/policy/priority.h"
#include "common/test/tap.h"

#define DAY 86400

static int near (double a, double b)
{
    return fabs (a - b) < 1e-6 * (fabs (b) > 1 ? fabs (b) : 1);
}

static void test_decay (void)
{
    ok (near (priority_decay (1000, 7 * DAY, 7 * DAY), 500),
        "one half-life halves usage");
    ok (near (priority_decay (1000, 14 * DAY, 7 * DAY), 250),
        "two half-lives quarter it");
    ok (near (priority_decay (1000, 21 * DAY, 7 * DAY), 125), "three: an eighth");
    /* 1000 * 2^-0.5 = 1000 / sqrt(2) */
    ok (near (priority_decay (1000, 7 * DAY / 2, 7 * DAY), 707.1067811865),
        "half a half-life: 1000/sqrt(2) = 707.107 (%f)",
        priority_decay (1000, 7 * DAY / 2, 7 * DAY));
    ok (near (priority_decay (1000, 0, 7 * DAY), 1000), "no time, no decay");
    ok (near (priority_decay (1000, -60, 7 * DAY), 1000),
        "a clock that went back does not grow usage");
    ok (near (priority_decay (1000, 7 * DAY, 0), 1000), "half-life 0: no decay");
    /* Decaying in two steps is decaying once: usage can be brought forward
     * whenever it is touched. */
    ok (near (priority_decay (priority_decay (3000, 3 * DAY, 7 * DAY), 4 * DAY,
                              7 * DAY),
              1500),
        "two steps of 3 and 4 days equal one of 7 days");
}

static void test_usage (void)
{
    ok (near (priority_run_usage (4, 0, 3600, 10), 14400), "4 cpus for an hour: 14400");
    ok (near (priority_run_usage (4, 1, 3600, 10), 50400),
        "plus one GPU weighted 10: (4 + 10) * 3600 = 50400");
    ok (near (priority_run_usage (2, 2, 0, 10), 0), "a run of no time costs nothing");
}

static void test_factor (void)
{
    ok (near (priority_fairshare_factor (0, 1000, 2), 1), "no usage: factor 1");
    ok (near (priority_fairshare_factor (0, 0, 0), 1), "nobody used anything: 1");
    ok (near (priority_fairshare_factor (1000, 1000, 2), 0.25),
        "all the usage of two users: 2^(-1/0.5) = 0.25");
    ok (near (priority_fairshare_factor (500, 1000, 2), 0.5),
        "exactly a fair half: 2^(-0.5/0.5) = 0.5");
    ok (near (priority_fairshare_factor (250, 1000, 4), 0.5),
        "a fair quarter of four users: 0.5");
    ok (near (priority_fairshare_factor (100, 1000, 1), exp2 (-0.1)),
        "one user alone with a tenth of the total: 2^-0.1");
}

static void test_compute (void)
{
    struct priority_weights w = {
        .queue = 1000, .job = 1, .age = 100, .fairshare = 1000, .max_age = DAY
    };
    struct priority_factors f;
    double t;

    t = priority_compute (&w, 2, 10, DAY / 2, 0.25, &f);
    /* 1000*2 + 1*10 + 100*0.5 + 1000*0.25 */
    ok (near (t, 2310) && near (f.total, 2310), "2000 + 10 + 50 + 250 = 2310 (%f)", t);
    ok (near (f.queue, 2000) && near (f.job, 10) && near (f.age, 50)
            && near (f.fairshare, 250) && near (f.fs_factor, 0.25),
        "each factor's contribution is kept");
    t = priority_compute (&w, 0, -5, 3 * DAY, 1, &f);
    ok (near (t, -5 + 100 + 1000), "age stops at max_age; -p may be negative: 1095");
    t = priority_compute (&w, 0, 0, -10, 1, &f);
    ok (near (f.age, 0) && near (t, 1000), "a job from the future has age 0");
    w.max_age = 0;
    t = priority_compute (&w, 0, 0, DAY, 1, &f);
    ok (near (f.age, 0), "max_age 0 turns the age factor off");
}

/* The scenario the integration test shows: a heavy and a light user with
 * equal jobs; the light one goes first. */
static void test_heavy_light (void)
{
    struct priority_weights w = {
        .queue = 1000, .job = 1, .age = 100, .fairshare = 1000, .max_age = 7 * DAY
    };
    struct priority_factors heavy, light;
    double total = priority_decay (7200, 7 * DAY, 7 * DAY); /* 3600 */

    priority_compute (&w, 0, 0, 60, priority_fairshare_factor (total, total, 2),
                      &heavy);
    priority_compute (&w, 0, 0, 60, priority_fairshare_factor (0, total, 2), &light);
    ok (near (heavy.fairshare, 250) && near (light.fairshare, 1000)
            && light.total > heavy.total,
        "heavy user 250, light user 1000: the light user's job ranks first");
}

int main (void)
{
    plan (NO_PLAN);
    test_decay ();
    test_usage ();
    test_factor ();
    test_compute ();
    test_heavy_light ();
    return done_testing ();
}
