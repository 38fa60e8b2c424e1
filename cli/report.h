/* report.h - hpcq-report's numbers: usage over a time window, grouped.
 *
 * Read from the scheduler's database (read-only), so the report covers
 * every job, also those no longer in the scheduler's memory.  What counts:
 *  - core-, GPU- and MIG-instance-hours: each attempt's cores, whole GPUs
 *    and MIG instances times the part of its run inside the window
 *    (a running attempt counts up to now);
 *  - jobs: jobs (and array subjobs; not the arrays themselves) that ended
 *    in the window or were still running at its end (running, of them);
 *    deleted: those of them a qdel ended; failures: the others that ran
 *    and ended with a non-zero exit status;
 *  - wait: submission to first start, for jobs first started in the window;
 *  - requeues: attempts the server ended and queued again in the window;
 *    preemptions: the preemptions table's rows in the window (any method);
 *    reclaims: attempts a spot reclaim ended in the window (their reason
 *    starts "reclaimed:", requeued or, if not rerunnable, failed);
 *  - cost: each ended attempt's stored cost (its nodes' price_per_hour for
 *    the share it held), spread evenly over its run, the part inside the
 *    window; cost_spot the part on spot nodes; cost_ondemand what the same
 *    would have cost with the spot nodes at their on-demand price
 *    (ondemand_price_per_hour); saved = cost_ondemand - cost.  A running
 *    attempt's cost is stored, and counted, when it ends;
 *  - checkpoints completed in the window, their seconds (signal to report)
 *    and their cost: those seconds at the cost per second of the attempt
 *    they were taken in (its cost over its unsuspended run).
 */
#ifndef HPCQ_CLI_REPORT_H
#define HPCQ_CLI_REPORT_H

#include <stdint.h>
#include "common/hash.h"

#include "common/error.h"

#define REPORT_MAX_PROFILES 32
#define REPORT_MAX_DAYS 3660

enum report_by { BY_USER, BY_GROUP, BY_ACCOUNT, BY_QUEUE, BY_JOB };

struct report_row {
    char key[192];
    int64_t jobs, running, deleted, failures, requeues, preemptions, reclaims,
        checkpoints;
    double core_s, gpu_s;
    /* What ended attempts reported of their GPUs (issue 26 part 3): energy,
     * and utilisation x GPU-seconds over the GPU-seconds reported, for the
     * mean (report_gpu_util). */
    double gpu_energy_j, gpu_util_s, gpu_used_s;
    double cost, cost_spot, cost_ondemand; /* saved: cost_ondemand - cost */
    double ckpt_s, ckpt_cost;
    double mig_s[REPORT_MAX_PROFILES];
    double *waits; /* seconds, one per job first started */
    int nwaits, capwaits;
    UT_hash_handle hh;
};

struct report {
    enum report_by by;
    int64_t from, to, now;
    struct report_row *rows; /* by key */
    struct report_row total;
    char profiles[REPORT_MAX_PROFILES][16];
    int nprofiles;
    /* Per local day from the window's first: core-, GPU- and
     * MIG-instance-seconds, and cost. */
    int ndays;
    int64_t day0; /* local midnight of the first day */
    double day_core_s[REPORT_MAX_DAYS];
    double day_gpu_s[REPORT_MAX_DAYS], day_mig_s[REPORT_MAX_DAYS];
    double day_cost[REPORT_MAX_DAYS];
};

/* Fill r from the database at path over [from, to).  -1 with err. */
int report_run (struct report *r, const char *db_path, struct hpcq_error *err);
/* A row's mean GPU utilisation (%), 0 when none was reported. */
double report_gpu_util (const struct report_row *row);
void report_release (struct report *r);

/* Mean and 95th percentile (nearest rank) of a row's waits; 0 if none. */
double report_wait_mean (const struct report_row *row);
double report_wait_p95 (struct report_row *row);

/* Local midnight at or before t. */
int64_t report_midnight (int64_t t);

/* The rows in key order (caller frees the array, not the rows). */
struct report_row **report_sorted (struct report *r, int *n);

/* The chart of core- and GPU-hours and cost per day (--png), cost in
 * currency (NULL: none named).  -1 with err. */
int report_png (const struct report *r, const char *path, const char *currency,
                struct hpcq_error *err);

#endif
