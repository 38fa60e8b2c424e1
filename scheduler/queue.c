/* queue.c - see queue.h
 *
 * What qmgr sets and qstat -Q -f shows is queue_attr.c's; the resource
 * lists' text is queue_limits.c's.
 */
#include <config.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/log.h"
#include "common/util.h"
#include "scheduler/jobs.h"
#include "scheduler/queue.h"

struct queues {
    struct server *srv;
    struct queue **v; /* by name */
    int n;
};

/* --- the set of queues --- */

static struct queue *queue_new (const struct db_queue *rec, struct hpcq_error *err)
{
    struct queue *q = xzalloc (sizeof (*q));

    q->rec = *rec;
    if (queue_limits_from_text (rec->resources_max, &q->max, err) < 0
        || queue_limits_from_text (rec->resources_default, &q->dflt, err) < 0) {
        free (q);
        return NULL;
    }
    return q;
}

static void queue_free (struct queue *q)
{
    if (q) {
        free (q->users);
        free (q);
    }
}

static int queue_cmp (const void *a, const void *b)
{
    return strcmp ((*(struct queue *const *)a)->rec.name,
                   (*(struct queue *const *)b)->rec.name);
}

void queue_add (struct queues *qs, struct queue *q)
{
    qs->v = xrealloc (qs->v, (qs->n + 1) * sizeof (*qs->v));
    qs->v[qs->n++] = q;
    qsort (qs->v, qs->n, sizeof (*qs->v), queue_cmp);
}

static int load_one (const struct db_queue *rec, void *arg)
{
    struct queues *qs = arg;
    struct hpcq_error err;
    struct queue *q = queue_new (rec, &err);

    if (!q) {
        log_msg (LOG_ERR, "queue %s: stored attributes unreadable: %s", rec->name,
                 err.text);
        return -1;
    }
    queue_add (qs, q);
    return 0;
}

struct queues *queue_create_all (struct server *srv, struct hpcq_error *err)
{
    struct queues *qs = xzalloc (sizeof (*qs));

    qs->srv = srv;
    if (db_queue_foreach (srv->db, load_one, qs) < 0) {
        errprintf (err, "cannot load queues from the database");
        queue_destroy_all (qs);
        return NULL;
    }
    return qs;
}

void queue_destroy_all (struct queues *qs)
{
    if (!qs)
        return;
    for (int i = 0; i < qs->n; i++)
        queue_free (qs->v[i]);
    free (qs->v);
    free (qs);
}

void queue_remove (struct queues *qs, struct queue *q)
{
    for (int i = 0; i < qs->n; i++) {
        if (qs->v[i] == q) {
            memmove (&qs->v[i], &qs->v[i + 1], (qs->n - i - 1) * sizeof (*qs->v));
            qs->n--;
            break;
        }
    }
    queue_free (q);
}

struct queue *queue_lookup (struct queues *qs, const char *name)
{
    for (int i = 0; name && i < qs->n; i++)
        if (strcmp (qs->v[i]->rec.name, name) == 0)
            return qs->v[i];
    return NULL;
}

struct queue **queue_all (struct queues *qs, int *n)
{
    *n = qs->n;
    return qs->v;
}

/* --- admission --- */

/* Defaults fill what a job did not ask for.  Walltime -1 and mem or GPUs
 * of 0 are unambiguous; a job of one chunk (nothing, or only job-wide
 * -l ncpus/mem/ngpus) also takes the default ncpus when it asked for one
 * cpu, which is what asking for nothing gives.  Select statements of
 * several chunks keep their own shape. */
static void apply_defaults (const struct queue *q, struct hpcq_resources *res)
{
    struct hpcq_chunk *c = res->chunk;
    int single = res->nchunks == 1 && c->count == 1;

    if (res->walltime < 0)
        res->walltime = q->dflt.walltime >= 0 ? q->dflt.walltime : q->max.walltime;
    if (!single)
        return;
    if (q->dflt.ncpus > 0 && c->ncpus == 1)
        c->ncpus = q->dflt.ncpus;
    if (q->dflt.mem >= 0 && c->mem == 0)
        c->mem = q->dflt.mem;
    if (q->dflt.ngpus >= 0 && c->ngpus == 0)
        c->ngpus = q->dflt.ngpus;
}

static int exceeds (const struct queue *q, const char *what, const char *have,
                    const char *max, struct hpcq_error *err)
{
    errno = E2BIG;
    return errprintf (err,
                      "Job exceeds queue resource limits: %s=%s > "
                      "resources_max.%s=%s (queue %s)",
                      what, have, what, max, q->rec.name);
}

static int check_max (const struct queue *q, const struct hpcq_resources *res,
                      struct hpcq_error *err)
{
    char have[64], max[64];

    if (q->max.walltime >= 0 && res->walltime > q->max.walltime) {
        resource_format_walltime (res->walltime, have, sizeof (have));
        queue_limits_format (&q->max, 0, max, sizeof (max));
        return exceeds (q, "walltime", have, max, err);
    }
    if (q->max.mem >= 0 && resource_total_mem (res) > q->max.mem) {
        resource_format_size (resource_total_mem (res), have, sizeof (have));
        queue_limits_format (&q->max, 1, max, sizeof (max));
        return exceeds (q, "mem", have, max, err);
    }
    if (q->max.ncpus >= 0 && resource_total_ncpus (res) > q->max.ncpus) {
        snprintf (have, sizeof (have), "%d", resource_total_ncpus (res));
        queue_limits_format (&q->max, 2, max, sizeof (max));
        return exceeds (q, "ncpus", have, max, err);
    }
    if (q->max.ngpus >= 0 && resource_total_ngpus (res) > q->max.ngpus) {
        snprintf (have, sizeof (have), "%d", resource_total_ngpus (res));
        queue_limits_format (&q->max, 3, max, sizeof (max));
        return exceeds (q, "ngpus", have, max, err);
    }
    return 0;
}

int queue_admit (struct queues *qs, const char *name, struct hpcq_resources *res,
                 struct hpcq_error *err)
{
    struct queue *q = queue_lookup (qs, name);

    if (!q) {
        errno = ENOENT;
        return errprintf (err, "Unknown queue '%s'", name);
    }
    if (!q->rec.enabled) {
        errno = EAGAIN;
        return errprintf (err, "Queue '%s' is not enabled", name);
    }
    apply_defaults (q, res);
    return check_max (q, res, err);
}

/* --- the scheduling pass --- */

static struct queue_count *user_count (struct queue *q, int64_t uid, int add)
{
    for (int i = 0; i < q->nusers; i++)
        if (q->users[i].uid == uid)
            return &q->users[i];
    if (!add)
        return NULL;
    if (q->nusers == q->users_cap) {
        int cap = q->users_cap ? q->users_cap * 2 : 8;
        q->users = xrealloc (q->users, cap * sizeof (*q->users));
        q->users_cap = cap;
    }
    q->users[q->nusers] = (struct queue_count){ uid, 0 };
    return &q->users[q->nusers++];
}

void queue_note_start (struct queues *qs, const struct job *job)
{
    struct queue *q = queue_lookup (qs, job->rec.queue);

    if (!q)
        return;
    q->nrun++;
    user_count (q, job->rec.uid, 1)->n++;
}

void queue_pass_begin (struct queues *qs, struct job_list *running)
{
    struct job *j;

    for (int i = 0; i < qs->n; i++) {
        qs->v[i]->nrun = 0;
        qs->v[i]->nusers = 0;
    }
    LIST_FOREACH (j, running, r_link)
    queue_note_start (qs, j);
}

/* Tell the job's owner why it waits (qstat -f comment), PBS style; 0. */
static int wait_reason (struct job *job, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));

static int wait_reason (struct job *job, const char *fmt, ...)
{
    char buf[256];
    va_list ap;

    va_start (ap, fmt);
    vsnprintf (buf, sizeof (buf), fmt, ap);
    va_end (ap);
    /* Every pass asks again: change the comment only when the reason does. */
    if (!job->rec.comment || strcmp (job->rec.comment, buf) != 0)
        job_set_comment (job, "%s", buf);
    return 0;
}

/* 1: spot nodes first, 0: on-demand nodes first, -1: no preference. */
static int queue_prefers_spot (const struct db_queue *r)
{
    if (!r->node_preference[0])
        return -1;
    return strcmp (r->node_preference, "spot") == 0;
}

int queue_may_start (struct queues *qs, struct job *job)
{
    struct queue *q = queue_lookup (qs, job->rec.queue);
    struct queue_count *uc;

    job->node_labels = NULL;
    if (!q)
        return 0; /* cannot happen: jobs of a queue keep it */
    job->node_labels = q->rec.node_labels[0] ? q->rec.node_labels : NULL;
    job->spec.res.prefer_spot = queue_prefers_spot (&q->rec);
    if (!q->rec.started)
        return wait_reason (job, "Not Running: queue %s is not started", q->rec.name);
    /* PBS Pro's words for these limits (OpenPBS src/scheduler/job_info.c:
     * QUEUE_JOB_LIMIT_REACHED, QUEUE_USER_LIMIT_REACHED). */
    if (q->rec.max_run > 0 && q->nrun >= q->rec.max_run)
        return wait_reason (job, "Not Running: Queue %s job limit has been reached.",
                            q->rec.name);
    uc = user_count (q, job->rec.uid, 0);
    if (q->rec.max_run_user > 0 && uc && uc->n >= q->rec.max_run_user)
        return wait_reason (job,
                            "Not Running: User has reached queue %s running job limit.",
                            q->rec.name);
    return 1;
}
