/* policy.c - what the scheduling policies share: the registry the
 * scheduler picks one from (config sched_policy) and the priority order. */
#include <config.h>
#include <stdlib.h>
#include <string.h>

#include "scheduler/policy/policy.h"

/* A job's place in the priority order, copied out of the job: the sort
 * compares these side by side instead of reaching into 100,000 job
 * records scattered over the heap.  24 bytes, so qsort moves them
 * directly. */
struct prio_key {
    double prio;
    int64_t seq;
    int priority;
    int pos; /* in the array sorted */
};

static void prio_key_of (const struct job *j, int pos, struct prio_key *k)
{
    *k = (struct prio_key){ j->prio, j->rec.seq, j->rec.priority, pos };
}

static int cmp_priority (const void *a, const void *b)
{
    const struct prio_key *x = a, *y = b;

    if (x->prio != y->prio)
        return x->prio > y->prio ? -1 : 1;
    /* Equal effective priority (or none computed, as in a simulator that
     * does not rank): qsub -p decides, then submission order. */
    if (x->priority != y->priority)
        return x->priority > y->priority ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The same order on the jobs themselves: where memory is short. */
static int cmp_job_priority (const void *a, const void *b)
{
    struct prio_key x, y;

    prio_key_of (*(struct job *const *)a, 0, &x);
    prio_key_of (*(struct job *const *)b, 0, &y);
    return cmp_priority (&x, &y);
}

void policy_sort_priority (struct job **jobs, int n)
{
    struct prio_key *k = malloc ((n > 0 ? n : 1) * sizeof (*k));
    struct job **was = malloc ((n > 0 ? n : 1) * sizeof (*was));

    if (!k || !was) {
        qsort (jobs, n, sizeof (*jobs), cmp_job_priority);
        goto out;
    }
    for (int i = 0; i < n; i++)
        prio_key_of (jobs[i], i, &k[i]);
    memcpy (was, jobs, n * sizeof (*jobs));
    qsort (k, n, sizeof (*k), cmp_priority);
    for (int i = 0; i < n; i++)
        jobs[i] = was[k[i].pos];
out:
    free (k);
    free (was);
}

const struct policy_ops *policy_lookup (const char *name)
{
    static const struct policy_ops *all[] = { &policy_fifo, &policy_easy,
                                              &policy_conservative, NULL };

    for (int i = 0; all[i]; i++)
        if (strcmp (all[i]->name, name) == 0)
            return all[i];
    return NULL;
}
