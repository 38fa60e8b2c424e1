/* priority.c - see priority.h */
#include <config.h>
#include <math.h>

#include "scheduler/policy/priority.h"

double priority_decay (double usage, int64_t elapsed, int64_t halflife)
{
    if (halflife <= 0 || elapsed <= 0)
        return usage;
    return usage * exp2 (-(double)elapsed / (double)halflife);
}

double priority_run_usage (int ncpus, int ngpus, int64_t walltime, double gpu_weight)
{
    if (walltime <= 0)
        return 0;
    return ((double)ncpus + gpu_weight * (double)ngpus) * (double)walltime;
}

double priority_fairshare_factor (double usage, double total, int nusers)
{
    double share;

    if (total <= 0 || usage <= 0 || nusers <= 0)
        return 1.0;
    share = 1.0 / nusers;
    return exp2 (-(usage / total) / share);
}

double priority_compute (const struct priority_weights *w, int queue_priority,
                         int job_priority, int64_t age, double fs_factor,
                         struct priority_factors *f)
{
    double age_factor = 0;

    if (age > 0 && w->max_age > 0)
        age_factor = age >= w->max_age ? 1.0 : (double)age / (double)w->max_age;
    f->queue = w->queue * queue_priority;
    f->job = w->job * job_priority;
    f->age = w->age * age_factor;
    f->fairshare = w->fairshare * fs_factor;
    f->fs_factor = fs_factor;
    f->total = f->queue + f->job + f->age + f->fairshare;
    return f->total;
}
