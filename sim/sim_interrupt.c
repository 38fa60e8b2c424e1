/* sim_interrupt.c - see sim_interrupt.h
 *
 * AWS's buckets: the Spot Instance Advisor
 * (https://aws.amazon.com/ec2/spot/instance-advisor/, whose data file
 * https://spot-bid-advisor.s3.amazonaws.com/spot-advisor-data.json says
 * "Frequency of interruption represents the rate at which Spot has
 * reclaimed capacity during the trailing month.  They are in ranges of
 * < 5%, 5-10%, 10-15%, 15-20% and >20%").
 */
#include <config.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/resource.h"
#include "common/util.h"
#include "scheduler/policy/cadence.h"
#include "sim/sim_interrupt.h"

static const struct {
    const char *name;
    double rate;
} aws_buckets[] = {
    { "<5%", 0.025 },    { "5-10%", 0.075 }, { "10-15%", 0.125 },
    { "15-20%", 0.175 }, { ">20%", 0.25 },
};

int sim_aws_buckets (void)
{
    return (int)ARRAY_SIZE (aws_buckets);
}

const char *sim_aws_bucket_name (int i)
{
    return aws_buckets[i].name;
}

double sim_aws_bucket_rate (int i)
{
    return aws_buckets[i].rate;
}

int sim_ckpt_parse (const char *s, struct sim_ckpt *ck, struct hpcq_error *err)
{
    struct hpcq_error e;

    memset (ck, 0, sizeof (*ck));
    if (snprintf (ck->name, sizeof (ck->name), "%s", s) >= (int)sizeof (ck->name))
        return errprintf (err, "invalid checkpoint policy '%s'", s);
    if (strcmp (s, "none") == 0)
        ck->kind = SIM_CKPT_NONE;
    else if (strcmp (s, "notice") == 0)
        ck->kind = SIM_CKPT_NOTICE;
    else if (strcmp (s, "young-daly") == 0)
        ck->kind = SIM_CKPT_YOUNG_DALY;
    else if (strncmp (s, "fixed=", 6) == 0) {
        ck->kind = SIM_CKPT_FIXED;
        if (resource_parse_walltime (s + 6, &ck->interval, &e) < 0 || ck->interval <= 0)
            return errprintf (err,
                              "invalid checkpoint interval '%s' (fixed=SECONDS or "
                              "fixed=HH:MM:SS, above 0)",
                              s + 6);
    } else
        return errprintf (err,
                          "unknown checkpoint policy '%s' (none, notice, "
                          "fixed=SEC, young-daly)",
                          s);
    return 0;
}

int sim_rate_parse (const char *s, const char *what, double *rate,
                    struct hpcq_error *err)
{
    char buf[64];
    size_t n = strlen (s);
    int pct = n > 0 && s[n - 1] == '%';
    double v;

    if (n == 0 || n >= sizeof (buf))
        return errprintf (err, "invalid %s '%s'", what, s);
    snprintf (buf, sizeof (buf), "%.*s", (int)(n - pct), s);
    if (util_parse_double (buf, 0, pct ? 100 : 1, &v) < 0 || (!pct && v >= 1)
        || (pct && v >= 100))
        return errprintf (err,
                          "invalid %s '%s' (a fraction per month below 1, "
                          "or a percentage such as 7.5%%)",
                          what, s);
    *rate = pct ? v / 100 : v;
    return 0;
}

double sim_rate_per_second (double p)
{
    if (p <= 0)
        return 0;
    return -log1p (-p) / SIM_MONTH;
}

void sim_rng_seed (struct sim_rng *r, uint64_t seed)
{
    r->s = seed;
}

/* splitmix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number
 * generators", OOPSLA 2014): good enough for event times, and the same
 * everywhere. */
static uint64_t rng_next (struct sim_rng *r)
{
    uint64_t z = (r->s += UINT64_C (0x9E3779B97F4A7C15));

    z = (z ^ (z >> 30)) * UINT64_C (0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C (0x94D049BB133111EB);
    return z ^ (z >> 31);
}

int64_t sim_rng_exp (struct sim_rng *r, double rate)
{
    double u, t;

    if (rate <= 0)
        return INT64_MAX;
    /* u in (0, 1]: 53 random bits, never 0. */
    u = ((double)(rng_next (r) >> 11) + 1.0) / 9007199254740992.0;
    t = -log (u) / rate;
    if (t >= 9e18)
        return INT64_MAX;
    return t < 1 ? 1 : (int64_t)t;
}

/* The number of checkpoints an attempt writes: one after each full
 * interval of work but the last. */
static double attempt_ckpts (const struct sim_attempt *a)
{
    if (a->interval <= 0 || a->work <= a->interval)
        return 0;
    return ceil (a->work / a->interval) - 1;
}

double sim_attempt_duration (const struct sim_attempt *a)
{
    return a->restart + a->work + attempt_ckpts (a) * a->cost;
}

void sim_attempt_progress (const struct sim_attempt *a, double elapsed, double *done,
                           double *saved, double *overhead)
{
    double n = attempt_ckpts (a), cycle = a->interval + a->cost, e, k, r;

    *done = *saved = 0;
    *overhead = elapsed < a->restart ? elapsed : a->restart;
    if (elapsed <= a->restart)
        return;
    e = elapsed - a->restart;
    if (n == 0) {
        *done = fmin (e, a->work);
        return;
    }
    k = floor (e / cycle);
    if (k >= n) {
        /* Past the last checkpoint: the final stretch. */
        *saved = n * a->interval;
        *overhead += n * a->cost;
        *done = fmin (*saved + (e - n * cycle), a->work);
        return;
    }
    r = e - k * cycle;
    *saved = k * a->interval;
    *overhead += k * a->cost;
    *done = *saved + fmin (r, a->interval);
}

double sim_ckpt_interval (const struct sim_ckpt *ck, double cost, double lossy_rate)
{
    switch (ck->kind) {
    case SIM_CKPT_FIXED: return (double)ck->interval;
    case SIM_CKPT_YOUNG_DALY:
        return lossy_rate > 0 ? cadence_young_daly (cost, 1 / lossy_rate) : 0;
    default: return 0;
    }
}

int sim_ckpt_at_notice (const struct sim_ckpt *ck, double cost, int64_t notice)
{
    return ck->kind != SIM_CKPT_NONE && cost <= (double)notice;
}

int sim_spot_policy_parse (const char *s, enum sim_spot_policy *p, int *max,
                           struct hpcq_error *err)
{
    static const char *const names[] = { "none", "always-spot", "always-ondemand",
                                         "max-reclaims", "expected-cost" };

    *max = 0;
    for (int i = 0; i < (int)ARRAY_SIZE (names); i++)
        if (strcmp (s, names[i]) == 0 && i != SIM_SPOT_MAX_RECLAIMS) {
            *p = (enum sim_spot_policy)i;
            return 0;
        }
    if (strncmp (s, "max-reclaims=", 13) == 0
        && util_parse_int (s + 13, 1, 1000000, max) == 0) {
        *p = SIM_SPOT_MAX_RECLAIMS;
        return 0;
    }
    return errprintf (err,
                      "invalid --spot-policy '%s' (none, always-spot, always-ondemand, "
                      "max-reclaims=N or expected-cost)",
                      s);
}
