/* job_counts.c - see job_counts.h */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hash.h"
#include "common/util.h"
#include "scheduler/array.h"
#include "scheduler/job_counts.h"
#include "scheduler/job.h"

const char job_counts_states[] = "QHWRES";
const char *const job_counts_state_names[JOB_COUNTS_NSTATES] = {
    "queued", "held", "waiting", "running", "exiting", "suspended"
};

struct queue_count {
    char name[64];
    int n[JOB_COUNTS_NSTATES];
    UT_hash_handle hh;
};

struct user_count {
    char name[64];
    int running, queued;
    UT_hash_handle hh;
};

struct job_counts {
    struct queue_count *queues; /* kept while the scheduler runs: few */
    struct user_count *users;   /* only those with running or queued jobs */
};

struct job_counts *job_counts_create (void)
{
    return xzalloc (sizeof (struct job_counts));
}

void job_counts_destroy (struct job_counts *c)
{
    if (!c)
        return;
    HASH_FREE_ALL (c->queues, free);
    HASH_FREE_ALL (c->users, free);
    free (c);
}

static void user_add (struct job_counts *c, const char *owner, char state, int n)
{
    struct user_count *u;

    HASH_FIND_STR (c->users, owner, u);
    if (!u) {
        u = xzalloc (sizeof (*u));
        snprintf (u->name, sizeof (u->name), "%s", owner);
        HASH_ADD_STR (c->users, name, u);
    }
    if (state == 'R')
        u->running += n;
    else
        u->queued += n;
    if (u->running == 0 && u->queued == 0) { /* gone: memory follows the users */
        HASH_DEL (c->users, u);
        free (u);
    }
}

void job_counts_add (struct job_counts *c, const char *queue, const char *owner,
                     char state, int n)
{
    const char *p = state ? strchr (job_counts_states, state) : NULL;
    struct queue_count *q;

    if (!c || !p || n == 0)
        return;
    HASH_FIND_STR (c->queues, queue, q);
    if (!q) {
        q = xzalloc (sizeof (*q));
        snprintf (q->name, sizeof (q->name), "%s", queue);
        HASH_ADD_STR (c->queues, name, q);
    }
    q->n[p - job_counts_states] += n;
    if (state == 'R' || state == 'Q')
        user_add (c, owner, state, n);
}

/* The state an array's untouched subjobs are in while it is in st
 * (array_untouched_state's rule for a state it had before). */
static char untouched_in (char st)
{
    return st == 'E' || st == 'F' ? 'F' : st;
}

static void count_as (struct job_counts *c, const struct job *job, char state, int sign)
{
    if (!job->is_array)
        job_counts_add (c, job->rec.queue, job->rec.owner, state, sign);
    else if (job->arr)
        job_counts_add (c, job->rec.queue, job->rec.owner, untouched_in (state),
                        sign * job->arr->untouched);
}

void job_counts_job (struct job_counts *c, const struct job *job, int sign)
{
    count_as (c, job, job->rec.state, sign);
}

void job_counts_moved (struct job_counts *c, const struct job *job, char old)
{
    count_as (c, job, old, -1);
    count_as (c, job, job->rec.state, 1);
}

int job_counts_get (const struct job_counts *c, const char *queue, char state)
{
    const char *p = state ? strchr (job_counts_states, state) : NULL;
    struct queue_count *q;

    if (!p)
        return 0;
    HASH_FIND_STR (c->queues, queue, q);
    return q ? q->n[p - job_counts_states] : 0;
}

void job_counts_users (const struct job_counts *c,
                       void (*cb) (const char *user, int running, int queued,
                                   void *arg),
                       void *arg)
{
    struct user_count *u, *ut;

    HASH_ITER (hh, c->users, u, ut)
    cb (u->name, u->running, u->queued, arg);
}

/* Every count of a is in b (zero where b has none). */
static int covered (const struct job_counts *a, const struct job_counts *b, char *diff,
                    size_t len)
{
    struct queue_count *q, *qt, *o;
    struct user_count *u, *ut, *v;

    HASH_ITER (hh, a->queues, q, qt)
    {
        HASH_FIND_STR (b->queues, q->name, o);
        for (int s = 0; s < JOB_COUNTS_NSTATES; s++)
            if (q->n[s] != (o ? o->n[s] : 0)) {
                if (diff)
                    snprintf (diff, len, "queue %s state %c: %d against %d", q->name,
                              job_counts_states[s], q->n[s], o ? o->n[s] : 0);
                return 0;
            }
    }
    HASH_ITER (hh, a->users, u, ut)
    {
        HASH_FIND_STR (b->users, u->name, v);
        if (!v || v->running != u->running || v->queued != u->queued) {
            if (diff)
                snprintf (diff, len, "user %s: %d running %d queued against %d %d",
                          u->name, u->running, u->queued, v ? v->running : 0,
                          v ? v->queued : 0);
            return 0;
        }
    }
    return 1;
}

int job_counts_equal (const struct job_counts *a, const struct job_counts *b,
                      char *diff, size_t len)
{
    return covered (a, b, diff, len) && covered (b, a, diff, len);
}
