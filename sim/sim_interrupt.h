/* sim_interrupt.h - what hpcq-sim does to running jobs: spot reclaims and
 * node failures, the checkpoints that limit what they cost, and prices.
 *
 * A scenario says which nodes are spot nodes, how often the provider
 * takes one back (a rate, or a trace of reclaim times) and with how much
 * notice, how often any node fails with none, and how long a node taken
 * away stays gone before a replacement joins.  A checkpoint policy says
 * when a job writes a checkpoint, each costing it ckpt_cost seconds (and
 * as much again to restart from one):
 *   none         never: an interrupted job starts over;
 *   notice       only when a reclaim notice comes (PBS's -c s), if the
 *                checkpoint fits in the notice;
 *   fixed=SEC    every SEC seconds of work, and at a notice;
 *   young-daly   every T = Young/Daly (scheduler/policy/cadence.h) of the job's
 *                checkpoint cost and the mean time between the
 *                interruptions that would lose its work (those with no
 *                usable notice) on the nodes it holds, and at a notice.
 *
 * Rates are per node per 30-day month, as the fraction of nodes
 * interrupted in a month: AWS's Spot Instance Advisor gives spot
 * interruption frequency in these buckets (<5%, 5-10%, 10-15%, 15-20%,
 * >20%); a fraction p becomes the Poisson rate -ln(1 - p) per month, the
 * rate at which a node is interrupted at least once in a month with
 * probability p.  Each bucket's scenario takes its middle (2.5%, 7.5%,
 * 12.5%, 17.5%) and 25% for >20%.
 *
 * Everything here is arithmetic and a seeded random generator: the
 * engine (sim_engine.c) owns the events.
 */
#ifndef HPCQ_SIM_SIM_INTERRUPT_H
#define HPCQ_SIM_SIM_INTERRUPT_H

#include <stdint.h>

#include "common/error.h"

#define SIM_MONTH (30 * 86400)

enum sim_ckpt_kind {
    SIM_CKPT_NONE,
    SIM_CKPT_NOTICE,
    SIM_CKPT_FIXED,
    SIM_CKPT_YOUNG_DALY,
};

struct sim_ckpt {
    enum sim_ckpt_kind kind;
    int64_t interval; /* fixed: seconds of work between checkpoints */
    char name[32];    /* as given: "none", "fixed=3600", ... */
};

/* One reclaim of a trace: node index (0-based) at time (seconds from the
 * workload's start). */
struct sim_reclaim {
    int64_t time;
    int node;
};

/* Where a job goes, spot or on-demand (--spot-policy): the placement's
 * own order (none), spot first (always-spot), on-demand first
 * (always-ondemand: a job too wide for the on-demand nodes alone still
 * gets spot ones), spot first until a job was interrupted N times
 * (max-reclaims=N, as the scheduler's spot_max_reclaims), or by expected
 * cost (expected-cost: scheduler/policy/spotcost.h, as the scheduler). */
enum sim_spot_policy {
    SIM_SPOT_NONE = 0,
    SIM_SPOT_ALWAYS,
    SIM_SPOT_ONDEMAND,
    SIM_SPOT_MAX_RECLAIMS,
    SIM_SPOT_COST,
};

/* "none", "always-spot", "always-ondemand", "max-reclaims=N",
 * "expected-cost" into *p (and N).  0, or -1 with err. */
int sim_spot_policy_parse (const char *s, enum sim_spot_policy *p, int *max,
                           struct hpcq_error *err);

struct sim_scenario {
    char name[48];       /* "on-demand", "aws 5-10%", "rate 3%", "trace" */
    int interrupts;      /* 0: nothing is interrupted, all nodes on-demand */
    int spot_nodes;      /* the first N nodes are spot nodes */
    double reclaim_rate; /* per spot node per month (fraction, above) */
    double failure_rate; /* per node per month, no notice */
    const struct sim_reclaim *trace; /* instead of reclaim_rate, or NULL */
    int ntrace;
    double trace_rate;     /* the trace's reclaims per spot node per second
                                 * (what Young/Daly reckons with) */
    int64_t notice;        /* seconds between a reclaim's notice and the reclaim */
    int64_t replace;       /* seconds a node taken away stays gone */
    double ckpt_cost;      /* seconds per checkpoint, and per restart */
    double price_ondemand; /* per node-hour */
    double price_spot;
    uint64_t seed;
    enum sim_spot_policy spot_policy;
    int spot_max_reclaims; /* max-reclaims=N */
};

/* The AWS Spot Instance Advisor buckets, in order ("<5%", "5-10%", ...):
 * their number, and bucket i's name and the fraction its scenario uses. */
int sim_aws_buckets (void);
const char *sim_aws_bucket_name (int i);
double sim_aws_bucket_rate (int i);

/* "none", "notice", "fixed=SEC" (or [[HH:]MM:]SS), "young-daly".  0, or -1
 * with err. */
int sim_ckpt_parse (const char *s, struct sim_ckpt *ck, struct hpcq_error *err);

/* A rate per month: "0.05", "5%".  0, or -1 with err naming what. */
int sim_rate_parse (const char *s, const char *what, double *rate,
                    struct hpcq_error *err);

/* The Poisson rate per second of a fraction p interrupted per month. */
double sim_rate_per_second (double p);

/* A seeded generator (splitmix64): the same seed, the same reclaims. */
struct sim_rng {
    uint64_t s;
};
void sim_rng_seed (struct sim_rng *r, uint64_t seed);
/* Seconds to the next event of a Poisson process of rate per second
 * (rate <= 0: INT64_MAX), at least 1. */
int64_t sim_rng_exp (struct sim_rng *r, double rate);

/* One attempt of a job: work seconds of work left, restart seconds spent
 * first (reading a checkpoint), a checkpoint every interval seconds of
 * work (0: none), each costing cost seconds; the last stretch needs none. */
struct sim_attempt {
    double work, restart, interval, cost;
};

/* How long the attempt takes without interruption. */
double sim_attempt_duration (const struct sim_attempt *a);

/* Where the attempt is after elapsed seconds: *done the work computed,
 * *saved the part of it in a completed checkpoint, *overhead the seconds
 * spent restarting and in completed checkpoints. */
void sim_attempt_progress (const struct sim_attempt *a, double elapsed, double *done,
                           double *saved, double *overhead);

/* The checkpoint interval policy ck gives a job of checkpoint cost cost
 * whose work is lost at rate lossy_rate per second (the sum over its
 * nodes): 0 for none and notice, the interval for fixed, Young/Daly for
 * young-daly (0 when nothing would lose its work). */
double sim_ckpt_interval (const struct sim_ckpt *ck, double cost, double lossy_rate);

/* 1 if policy ck checkpoints at a reclaim notice of notice seconds. */
int sim_ckpt_at_notice (const struct sim_ckpt *ck, double cost, int64_t notice);

#endif
