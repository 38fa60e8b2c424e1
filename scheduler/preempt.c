/* preempt.c - see preempt.h
 *
 * Settings and words are PBS Pro's (its scheduler's preempt_prio,
 * preempt_queue_prio, preempt_order; the preempt_targets resource), read
 * from OpenPBS's documentation of preemption; preempt_min_runtime is ours
 * (Slurm calls it PreemptExemptTime).  PBS's percentage ranges in
 * preempt_order ("SCR 80 SC 50 S") and its other preemption levels
 * (starving_jobs, fairshare, soft limits) are refused, not ignored.
 *
 * The victims are chosen on compact usage records (place.h: struct
 * node_use), so trying a set of victims costs no change to any node.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/log.h"
#include "common/resource.h"
#include "common/util.h"
#include "db/db_ckpt.h"
#include "scheduler/ckpt.h"
#include "scheduler/jobs.h"
#include "scheduler/lifecycle.h"
#include "scheduler/web/metrics_count.h"
#include "scheduler/nodes.h"
#include "scheduler/policy/place.h"
#include "scheduler/preempt.h"
#include "scheduler/preempt_check.h"
#include "scheduler/queue.h"

/* Bounds on the victim search per waiting job and pass (each try is one
 * placement over all nodes). */
#define PREEMPT_MAX_CANDIDATES 1024
#define PREEMPT_MAX_SINGLES 256

struct preempt {
    struct server *srv;
    int queue_prio;    /* preempt_queue_prio */
    int express_level; /* levels from preempt_prio, 0 the highest */
    int normal_level;
    char order[8];       /* preempt_order */
    int64_t min_runtime; /* preempt_min_runtime, seconds */
};

/* ---- settings ---------------------------------------------------------- */

/* preempt_prio: levels separated by commas, kinds in one level joined by
 * '+'; kinds express_queue and normal_jobs. */
static int parse_prio (struct preempt *p, const char *value, struct hpcq_error *err)
{
    char *copy = xstrdup (value), *rest = copy, *level;
    int n = 0, rc = 0;

    p->express_level = p->normal_level = -1;
    while (rc == 0 && (level = strsep (&rest, ","))) {
        char *kind;
        while ((kind = strsep (&level, "+")) && rc == 0) {
            kind += strspn (kind, " ");
            kind[strcspn (kind, " ")] = '\0';
            if (!strcmp (kind, "express_queue") && p->express_level < 0)
                p->express_level = n;
            else if (!strcmp (kind, "normal_jobs") && p->normal_level < 0)
                p->normal_level = n;
            else
                rc = errprintf (err,
                                "invalid preempt_prio '%s': '%s' is not supported or "
                                "given twice (express_queue, normal_jobs)",
                                value, kind);
        }
        n++;
    }
    free (copy);
    if (rc < 0)
        return -1;
    /* Normal jobs not named are the lowest level; express jobs not named
     * are normal ones. */
    if (p->normal_level < 0)
        p->normal_level = n;
    if (p->express_level < 0)
        p->express_level = p->normal_level;
    return 0;
}

static int preempt_settings (struct preempt *p, struct config *cfg,
                             struct hpcq_error *err)
{
    const char *order = config_get (cfg, "preempt_order", "SCR");
    const char *mr = config_get (cfg, "preempt_min_runtime", NULL);
    int64_t qp;

    if (parse_prio (p, config_get (cfg, "preempt_prio", "express_queue, normal_jobs"),
                    err)
            < 0
        || config_get_int (cfg, "preempt_queue_prio", 150, -1024, 1024, &qp, err) < 0)
        return -1;
    p->queue_prio = (int)qp;
    if (preempt_check_order (order, err) < 0)
        return errprintf (err,
                          "invalid preempt_order '%s' (a sequence of S, C, R and D, "
                          "each at most once, such as SCR)",
                          order);
    snprintf (p->order, sizeof (p->order), "%s", order);
    if (mr
        && (resource_parse_walltime (mr, &p->min_runtime, NULL) < 0
            || p->min_runtime < 0))
        return errprintf (err, "invalid preempt_min_runtime '%s' (HH:MM:SS or seconds)",
                          mr);
    return 0;
}

/* ---- levels, targets, methods ------------------------------------------ */

static const struct queue *job_queue (struct preempt *p, const struct job *job)
{
    return queue_lookup (p->srv->queues, job->rec.queue);
}

/* 0 is the highest. */
static int job_level (struct preempt *p, const struct job *job)
{
    const struct queue *q = job_queue (p, job);

    return q && q->rec.priority >= p->queue_prio ? p->express_level : p->normal_level;
}

/* May jobs of queue `from` preempt jobs of queue `to`? */
static int target_ok (const struct queue *from, const char *to)
{
    const char *t = from ? from->rec.preempt_targets : "";
    size_t len = strlen (to);

    if (!t[0])
        return 1;
    if (!strcasecmp (t, "NONE"))
        return 0;
    for (const char *s = t; (s = strcasestr (s, "queue=")); s += 6)
        if (!strncmp (s + 6, to, len) && (s[6 + len] == ',' || s[6 + len] == '\0'))
            return 1;
    return 0;
}

static const char *job_order (struct preempt *p, const struct job *job)
{
    const struct queue *q = job_queue (p, job);

    return q && q->rec.preempt_order[0] ? q->rec.preempt_order : p->order;
}

static int method_applies (struct preempt *p, const struct job *v, char m)
{
    switch (m) {
    case 'C': return ckpt_job_checkpoints (p->srv, v);
    case 'R': return v->spec.rerunnable;
    default: return 1; /* S and D apply to any running job */
    }
}

static int any_method (struct preempt *p, const struct job *v)
{
    for (const char *m = job_order (p, v); *m; m++)
        if (method_applies (p, v, *m))
            return 1;
    return 0;
}

/* ---- acting ------------------------------------------------------------ */

static void record (struct preempt *p, struct job *v, const struct job *by, char m,
                    const char *reason)
{
    struct job_ckpt *jc = ckpt_job_state (v);

    jc->preempt_count++;
    metrics_preempted (p->srv->metrics, v, m);
    snprintf (jc->preempt_reason, sizeof (jc->preempt_reason), "%s", reason);
    if (db_preempt_add (p->srv->db, v->rec.seq, v->rec.run_count, util_wall_secs (), m,
                        by ? by->rec.seq : 0, reason)
        < 0)
        log_error ("job %s: record preemption", v->id);
    log_msg (LOG_INFO, "job %s (%s) preempted: %s", v->id, v->rec.owner, reason);
}

/* Preempt v for `by` by the first method of its queue's order that
 * applies.  1 if its resources are free now (S, R), 0 if they will be
 * (C, D), -1 if no method worked. */
static int preempt_one (struct preempt *p, struct job *v, struct job *by)
{
    struct server *srv = p->srv;
    char reason[256];

    for (const char *m = job_order (p, v); *m; m++) {
        if (!method_applies (p, v, *m))
            continue;
        snprintf (reason, sizeof (reason), "preempted by %s (queue %s): %s", by->id,
                  by->rec.queue,
                  *m == 'S'   ? "suspended"
                  : *m == 'C' ? "checkpoint, then requeue"
                  : *m == 'R' ? "requeued"
                              : "deleted");
        switch (*m) {
        case 'S':
            if (lifecycle_suspend (srv, v, reason, "scheduler") < 0)
                continue;
            v->ck->auto_resume = 1;
            record (p, v, by, 'S', reason);
            return 1;
        case 'C':
            ckpt_job_state (v)->preempting = 1;
            if (ckpt_request (srv, v, reason, util_now_ms () + ckpt_grace_ms (srv),
                              ckpt_requeue_done, "preempted (C)")
                < 0) {
                v->ck->preempting = 0;
                continue;
            }
            record (p, v, by, 'C', reason);
            return 0;
        case 'R':
            job_signal_worker (v, "KILL", "stale");
            if (lifecycle_requeue (srv, v, reason, "scheduler") < 0)
                continue;
            record (p, v, by, 'R', reason);
            return 1;
        case 'D':
            job_set_comment (v, "Job deleted: %s", reason);
            if (lifecycle_change (srv, v, 'E', JOB_EV_DELETED, "scheduler", reason) < 0)
                continue;
            job_signal_worker (v, "TERM", "deleted");
            v->kill_sent = 1;
            ckpt_job_state (v)->preempting = 1;
            record (p, v, by, 'D', reason);
            return 0;
        }
    }
    return -1;
}

/* ---- choosing ---------------------------------------------------------- */

/* What the pass supposes: each node's usage, with the victims on their way
 * out taken off and the preemptors already served put on. */
struct pass {
    struct preempt *p;
    struct node **nodes;
    int nn;
    struct node_use *use;
    int64_t now;
};

static void use_apply (struct node_use *use, const struct alloc *a, int64_t seq,
                       int sign)
{
    for (int i = 0; i < a->n; i++)
        if (a->slot[i].node)
            node_use_apply (&use[a->slot[i].node->pidx], &a->slot[i], seq, sign);
}

static struct alloc *fit (struct pass *ps, const struct node_use *use,
                          const struct job *job)
{
    return place_alloc_use (ps->nodes, use, NULL, ps->nn, &job->spec.res,
                            job->node_labels);
}

/* Victims first: lowest level, then lowest queue and job priority, then
 * the most recently started. */
static int victim_cmp (const void *a, const void *b, void *arg)
{
    struct preempt *p = arg;
    const struct job *x = *(struct job *const *)a, *y = *(struct job *const *)b;
    const struct queue *qx = job_queue (p, x), *qy = job_queue (p, y);
    int lx = job_level (p, x), ly = job_level (p, y);
    int px = qx ? qx->rec.priority : 0, py = qy ? qy->rec.priority : 0;

    if (lx != ly)
        return ly - lx;
    if (px != py)
        return px - py;
    if (x->rec.priority != y->rec.priority)
        return x->rec.priority - y->rec.priority;
    return x->rec.stime > y->rec.stime ? -1 : x->rec.stime < y->rec.stime;
}

static int candidates (struct pass *ps, const struct job *by, struct job ***out)
{
    struct preempt *p = ps->p;
    const struct queue *q = job_queue (p, by);
    int level = job_level (p, by), n = 0, cap = 0;
    struct job **v = NULL;

    struct job *j;

    LIST_FOREACH (j, jobs_running (p->srv->jobs), r_link)
    {
        if (j->rec.state != 'R' || !j->alloc || (j->ck && j->ck->preempting)
            || job_level (p, j) <= level || !target_ok (q, j->rec.queue)
            || ps->now - j->rec.stime < p->min_runtime || !any_method (p, j))
            continue;
        if (n == cap)
            v = xrealloc (v, (cap = cap ? 2 * cap : 16) * sizeof (*v));
        v[n++] = j;
    }
    if (n > 1)
        qsort_r (v, n, sizeof (*v), victim_cmp, p);
    /* The lowest in priority are enough to choose from, and the search
     * stays bounded on a big cluster. */
    if (n > PREEMPT_MAX_CANDIDATES)
        n = PREEMPT_MAX_CANDIDATES;
    *out = v;
    return n;
}

/* Does by fit once victims v[0..n) but skip are gone? */
static int fits_without (struct pass *ps, const struct job *by, struct job **v, int n,
                         const char *skip, struct node_use *tmp)
{
    struct alloc *a;

    memcpy (tmp, ps->use, ps->nn * sizeof (*tmp));
    for (int i = 0; i < n; i++)
        if (!skip[i])
            use_apply (tmp, v[i]->alloc, v[i]->rec.seq, -1);
    a = fit (ps, tmp, by);
    free (a);
    return a != NULL;
}

/* 1 if by fits under usage tmp. */
static int fits (struct pass *ps, const struct job *by, const struct node_use *tmp)
{
    struct alloc *a = fit (ps, tmp, by);

    free (a);
    return a != NULL;
}

/* The fewest, lowest-priority victims that let `by` fit: one alone if one
 * will do (the lowest in priority of those that would, among the first
 * PREEMPT_MAX_SINGLES); else the shortest prefix of the candidates that
 * does, less those it can spare (tried from the highest priority down).
 * Their number (marked in skip 0), or 0. */
static int choose (struct pass *ps, const struct job *by, struct job **v, int n,
                   char *skip)
{
    struct node_use *tmp = xzalloc (ps->nn * sizeof (*tmp));
    size_t size = ps->nn * sizeof (*tmp);
    int k = 0, chosen = 0;

    memset (skip, 1, n);
    for (int i = 0; i < n && i < PREEMPT_MAX_SINGLES; i++) {
        memcpy (tmp, ps->use, size);
        use_apply (tmp, v[i]->alloc, v[i]->rec.seq, -1);
        if (fits (ps, by, tmp)) {
            skip[i] = 0;
            free (tmp);
            return 1;
        }
    }
    memcpy (tmp, ps->use, size);
    while (k < n && !chosen) {
        use_apply (tmp, v[k]->alloc, v[k]->rec.seq, -1);
        skip[k++] = 0;
        chosen = fits (ps, by, tmp) ? k : 0;
    }
    for (int i = chosen - 1; i >= 0 && chosen > 1; i--) {
        skip[i] = 1;
        if (fits_without (ps, by, v, k, skip, tmp))
            chosen--;
        else
            skip[i] = 0;
    }
    free (tmp);
    return chosen;
}

/* by waits: preempt for it if that lets it start.  1 if resources were
 * freed at once. */
static int serve (struct pass *ps, struct job *by)
{
    struct job **v;
    struct alloc *a;
    int n, chosen, freed = 0;
    char *skip;

    /* It fits already (counting victims on their way out): hold its place
     * so that no later job takes it for its own preemption. */
    if ((a = fit (ps, ps->use, by))) {
        use_apply (ps->use, a, by->rec.seq, 1);
        free (a);
        return 0;
    }
    if ((n = candidates (ps, by, &v)) == 0)
        return 0;
    skip = xzalloc (n);
    if ((chosen = choose (ps, by, v, n, skip)) > 0) {
        log_msg (LOG_INFO, "job %s (%s): preempting %d job%s to start", by->id,
                 by->rec.owner, chosen, chosen == 1 ? "" : "s");
        for (int i = 0; i < n; i++) {
            int rc;
            if (skip[i])
                continue;
            use_apply (ps->use, v[i]->alloc, v[i]->rec.seq, -1);
            if ((rc = preempt_one (ps->p, v[i], by)) < 0)
                log_msg (LOG_WARNING, "job %s: no preemption method worked", v[i]->id);
            freed |= rc > 0;
        }
        if ((a = fit (ps, ps->use, by))) {
            use_apply (ps->use, a, by->rec.seq, 1);
            free (a);
        }
    }
    free (skip);
    free (v);
    return freed;
}

/* The lowest level (largest number) of any running job. */
static int lowest_running (struct preempt *p)
{
    int lowest = -1;

    struct job *j;

    LIST_FOREACH (j, jobs_running (p->srv->jobs), r_link)
    if (j->rec.state == 'R' && job_level (p, j) > lowest)
        lowest = job_level (p, j);
    return lowest;
}

int preempt_pass (struct preempt *p, struct job **jobs, int n)
{
    struct pass ps = { .p = p, .now = util_wall_secs () };
    int lowest = lowest_running (p), freed = 0, waiting = 0;
    struct job *j;

    for (int i = 0; i < n; i++)
        waiting |= jobs[i]->rec.state == 'Q' && job_level (p, jobs[i]) < lowest;
    if (!waiting)
        return 0;
    ps.nodes = nodes_all (p->srv->nodes, &ps.nn);
    ps.use = xzalloc ((ps.nn ? ps.nn : 1) * sizeof (*ps.use));
    for (int i = 0; i < ps.nn; i++) {
        ps.nodes[i]->pidx = i;
        node_use_of (ps.nodes[i], &ps.use[i]);
    }
    /* Victims already on their way out (C waiting for its checkpoint, D
     * for its end) count as gone. */
    LIST_FOREACH (j, jobs_running (p->srv->jobs), r_link)
    if (j->alloc && j->ck && j->ck->preempting && !j->ck->released)
        use_apply (ps.use, j->alloc, j->rec.seq, -1);
    for (int i = 0; i < n; i++)
        if (jobs[i]->rec.state == 'Q' && job_level (p, jobs[i]) < lowest)
            freed |= serve (&ps, jobs[i]);
    free (ps.use);
    return freed;
}

/* ---- resuming ---------------------------------------------------------- */

void preempt_resume_pass (struct preempt *p)
{
    struct server *srv = p->srv;
    int highest_waiting = 1 << 30;

    struct job *j, *next;

    if (LIST_EMPTY (jobs_suspended (srv->jobs)))
        return;
    TAILQ_FOREACH (j, jobs_queued (srv->jobs), q_link)
    if (job_level (p, j) < highest_waiting)
        highest_waiting = job_level (p, j);
    /* A job resumed leaves the list: its successor is taken first. */
    for (j = LIST_FIRST (jobs_suspended (srv->jobs)); j; j = next) {
        next = LIST_NEXT (j, s_link);
        /* Only what preemption suspended (qsig -s resume for the rest); not
         * while a job of a higher level waits: the resources may be its. */
        if (!j->ck || !j->ck->auto_resume || highest_waiting < job_level (p, j)
            || !lifecycle_resume_fits (j))
            continue;
        if (lifecycle_resume (srv, j, "scheduler") < 0)
            log_error ("job %s: resume", j->id);
    }
}

/* ---- life -------------------------------------------------------------- */

struct preempt *preempt_create (struct server *srv, struct hpcq_error *err)
{
    struct preempt *p = xzalloc (sizeof (*p));

    p->srv = srv;
    if (preempt_settings (p, srv->cfg, err) < 0) {
        free (p);
        return NULL;
    }
    return p;
}

void preempt_destroy (struct preempt *p)
{
    free (p);
}
