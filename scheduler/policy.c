/* policy.c - what the scheduling policies share: the registry the
 * scheduler picks one from (config sched_policy) and the priority order. */
#include <config.h>
#include <stdlib.h>
#include <string.h>

#include "scheduler/policy.h"

static int cmp_priority (const void *a, const void *b)
{
    const struct job *x = *(struct job *const *)a, *y = *(struct job *const *)b;

    if (x->prio != y->prio)
        return x->prio > y->prio ? -1 : 1;
    /* Equal effective priority (or none computed, as in a simulator that
     * does not rank): qsub -p decides, then submission order. */
    if (x->rec.priority != y->rec.priority)
        return x->rec.priority > y->rec.priority ? -1 : 1;
    return x->rec.seq < y->rec.seq ? -1 : x->rec.seq > y->rec.seq;
}

void policy_sort_priority (struct job **jobs, int n)
{
    qsort (jobs, n, sizeof (*jobs), cmp_priority);
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
