/* test_sim_interrupt - hpcq-sim's interruption arithmetic on hand-worked
 * values: an attempt's duration and progress under periodic checkpoints,
 * the policies' intervals, rates per month, and the generator's
 * repeatability. */
#include <config.h>
#include <math.h>

#include "common/test/tap.h"
#include "sim/sim_interrupt.h"

static int near (double a, double b)
{
    return fabs (a - b) < 1e-9;
}

static void test_attempt (void)
{
    /* 100 s of work, a checkpoint every 30 s costing 5: after 30, 60, 90
     * (not at the end): 115 s; restarting first adds 5. */
    struct sim_attempt a = { .work = 100, .restart = 0, .interval = 30, .cost = 5 };
    double done, saved, ovh;

    ok (near (sim_attempt_duration (&a), 115), "100 s, every 30 s at 5 s: 115 s");
    a.restart = 5;
    ok (near (sim_attempt_duration (&a), 120), "with a restart: 120 s");
    a.restart = 0;
    sim_attempt_progress (&a, 40, &done, &saved, &ovh);
    ok (near (done, 35) && near (saved, 30) && near (ovh, 5),
        "at 40 s: 35 done, 30 saved, 5 checkpointing (%g %g %g)", done, saved, ovh);
    sim_attempt_progress (&a, 32, &done, &saved, &ovh);
    ok (near (done, 30) && near (saved, 0) && near (ovh, 0),
        "during the first checkpoint: 30 done, nothing saved yet");
    sim_attempt_progress (&a, 110, &done, &saved, &ovh);
    ok (near (done, 95) && near (saved, 90) && near (ovh, 15),
        "in the last stretch: 95 done, 90 saved, 15 checkpointing");
    sim_attempt_progress (&a, 115, &done, &saved, &ovh);
    ok (near (done, 100), "at the end: all done");
    a.restart = 5;
    sim_attempt_progress (&a, 3, &done, &saved, &ovh);
    ok (near (done, 0) && near (ovh, 3),
        "while restarting: nothing done, 3 s overhead");
    a = (struct sim_attempt){ .work = 90, .interval = 30, .cost = 5 };
    ok (near (sim_attempt_duration (&a), 100), "90 s in 30 s stretches: 2 checkpoints");
    a = (struct sim_attempt){ .work = 50, .interval = 0, .cost = 5 };
    sim_attempt_progress (&a, 20, &done, &saved, &ovh);
    ok (near (sim_attempt_duration (&a), 50) && near (done, 20) && near (saved, 0),
        "no interval: no checkpoints, nothing saved");
}

static void test_policies (void)
{
    struct sim_ckpt ck;
    struct hpcq_error err;
    double t;

    ok (sim_ckpt_parse ("fixed=1:00", &ck, &err) == 0 && ck.kind == SIM_CKPT_FIXED
            && ck.interval == 60,
        "fixed=1:00 is every 60 s");
    ok (near (sim_ckpt_interval (&ck, 5, 0.1), 60), "fixed ignores the rate");
    ok (sim_ckpt_at_notice (&ck, 5, 10) && !sim_ckpt_at_notice (&ck, 15, 10),
        "a notice checkpoint when it fits in the notice");
    ok (sim_ckpt_parse ("young-daly", &ck, &err) == 0, "young-daly");
    /* C = 5, M = 50: sqrt(500) (1 + sqrt(0.05)/3 + 0.05/9) - 5 */
    t = sim_ckpt_interval (&ck, 5, 1.0 / 50);
    ok (fabs (t - 19.1507) < 1e-3, "Young/Daly at C=5, M=50: %g", t);
    ok (sim_ckpt_interval (&ck, 5, 0) == 0, "nothing loses work: no interval");
    ok (sim_ckpt_parse ("none", &ck, &err) == 0 && !sim_ckpt_at_notice (&ck, 0, 100),
        "none never checkpoints");
    ok (sim_ckpt_parse ("hourly", &ck, &err) < 0
            && strstr (err.text, "unknown checkpoint policy 'hourly'"),
        "unknown: %s", err.text);
    ok (sim_ckpt_parse ("fixed=0", &ck, &err) < 0, "fixed=0 refused");
}

static void test_rates (void)
{
    struct hpcq_error err;
    struct sim_rng a, b;
    double r;
    int same = 1;

    ok (sim_rate_parse ("7.5%", "r", &r, &err) == 0 && near (r, 0.075), "7.5%%");
    ok (sim_rate_parse ("0.2", "r", &r, &err) == 0 && near (r, 0.2), "0.2");
    ok (sim_rate_parse ("1", "--x", &r, &err) < 0
            && strstr (err.text, "invalid --x '1'"),
        "1 a month is refused (certainty has no rate)");
    ok (sim_rate_parse ("-1%", "r", &r, &err) < 0, "negative refused");
    /* 7.5% of nodes interrupted in a month: -ln(0.925) per month. */
    ok (fabs (sim_rate_per_second (0.075) * SIM_MONTH - 0.0779615) < 1e-6,
        "7.5%% a month is a rate of 0.07796 a month");
    ok (sim_aws_buckets () == 5 && !strcmp (sim_aws_bucket_name (4), ">20%")
            && near (sim_aws_bucket_rate (1), 0.075),
        "AWS's five buckets");
    sim_rng_seed (&a, 42);
    sim_rng_seed (&b, 42);
    for (int i = 0; i < 100; i++)
        same &= sim_rng_exp (&a, 0.01) == sim_rng_exp (&b, 0.01);
    ok (same, "one seed, one sequence");
    {
        double sum = 0;
        sim_rng_seed (&a, 1);
        for (int i = 0; i < 20000; i++)
            sum += (double)sim_rng_exp (&a, 0.001);
        ok (fabs (sum / 20000 - 1000) < 30, "mean of exponential draws near 1/rate: %g",
            sum / 20000);
    }
    ok (sim_rng_exp (&a, 0) == INT64_MAX, "rate 0: never");
}

int main (void)
{
    plan (NO_PLAN);
    test_attempt ();
    test_policies ();
    test_rates ();
    done_testing ();
}
