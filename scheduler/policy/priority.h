/* priority.h - the arithmetic of job priority and fair-share.
 *
 * A job's effective priority is a weighted sum of four factors: its
 * queue's priority, its own (qsub -p), its age (time queued, as a fraction
 * of max_age, capped at 1) and its owner's fair-share factor.  The factor
 * follows Slurm's classic formula F = 2^(-U/S): U is the user's share of
 * all decayed usage, S the share each user is due (1/N of N users), so a
 * user without usage gets 1, one who used exactly their share 0.5.  Usage
 * decays exponentially with a half-life, so last month's burst fades.
 *
 * Pure functions, no state: the daemon (scheduler/fairshare.c) and a
 * simulator share them, and the unit test checks them by hand.
 */
#ifndef HPCQ_SCHEDULER_POLICY_PRIORITY_H
#define HPCQ_SCHEDULER_POLICY_PRIORITY_H

#include <stdint.h>

struct priority_weights {
    double queue;     /* per point of queue priority */
    double job;       /* per point of qsub -p */
    double age;       /* for a job max_age old (or older) */
    double fairshare; /* for a fair-share factor of 1 */
    int64_t max_age;  /* seconds; age counts up to this */
};

/* Each factor's contribution (weight times factor) and their sum, so that
 * qstat -f can show why a job waits. */
struct priority_factors {
    double queue, job, age, fairshare;
    double total;
    double usage;     /* the owner's decayed usage used for fairshare */
    double fs_factor; /* the owner's fair-share factor, 0..1 */
};

/* usage decayed over elapsed seconds: usage * 2^(-elapsed/halflife).
 * halflife <= 0 means no decay; negative elapsed counts as 0. */
double priority_decay (double usage, int64_t elapsed, int64_t halflife);

/* What a finished run costs: cpu-seconds, each GPU counting gpu_weight
 * cpus: (ncpus + gpu_weight * ngpus) * walltime. */
double priority_run_usage (int ncpus, int ngpus, int64_t walltime, double gpu_weight);

/* 2^(-(usage/total) / (1/nusers)); 1 when there is no usage at all. */
double priority_fairshare_factor (double usage, double total, int nusers);

/* Added to the priority of a job a spot reclaim requeued: above any sum
 * of the factors (each weight times at most 1024). */
#define PRIORITY_RESTART_FIRST 1e15

/* Fill f from the factors; returns f->total. */
double priority_compute (const struct priority_weights *w, int queue_priority,
                         int job_priority, int64_t age, double fs_factor,
                         struct priority_factors *f);

#endif
