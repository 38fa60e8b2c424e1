/* queue.c - see queue.h
 *
 * Attribute names, values and messages follow PBS Pro's qmgr, so that an
 * administrator's scripts (and `qmgr -c "print server"` output) carry
 * over.  A change is applied to a copy, checked whole, written to the
 * database and only then made the queue's: a bad request changes nothing.
 */
#include <config.h>
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/log.h"
#include "common/util.h"
#include "scheduler/jobs.h"
#include "scheduler/limits.h"
#include "scheduler/preempt_check.h"
#include "scheduler/queue.h"

struct queues {
    struct server *srv;
    struct queue **v; /* by name */
    int n;
};

static const struct queue_limits no_limits = { -1, -1, -1, -1 };

/* --- resource lists: "walltime=24:00:00,ncpus=8,mem=4gb,ngpus=1" --- */

static const char *limit_names[] = { "walltime", "mem", "ncpus", "ngpus", NULL };

static int limit_index (const char *name)
{
    for (int i = 0; limit_names[i]; i++)
        if (strcasecmp (name, limit_names[i]) == 0)
            return i;
    return -1;
}

static int limit_set (struct queue_limits *l, int which, const char *value,
                      struct hpcq_error *err)
{
    int64_t v;

    switch (which) {
    case 0:
        if (resource_parse_walltime (value, &l->walltime, err) < 0)
            return -1;
        return 0;
    case 1:
        if (resource_parse_size (value, &l->mem, err) < 0)
            return -1;
        return 0;
    default:
        if (util_parse_i64 (value, 0, 1000000, &v) < 0) {
            return errprintf (err, "Illegal attribute or resource value: %s=%s",
                              limit_names[which], value);
        }
        if (which == 2)
            l->ncpus = (int)v;
        else
            l->ngpus = (int)v;
        return 0;
    }
}

static void limit_unset (struct queue_limits *l, int which)
{
    switch (which) {
    case 0: l->walltime = -1; break;
    case 1: l->mem = -1; break;
    case 2: l->ncpus = -1; break;
    default: l->ngpus = -1; break;
    }
}

/* One limit as text into buf; 0 if it is not set. */
static int limit_format (const struct queue_limits *l, int which, char *buf, int len)
{
    switch (which) {
    case 0:
        if (l->walltime < 0)
            return 0;
        resource_format_walltime (l->walltime, buf, len);
        return 1;
    case 1:
        if (l->mem < 0)
            return 0;
        resource_format_size (l->mem, buf, len);
        return 1;
    case 2:
        if (l->ncpus < 0)
            return 0;
        snprintf (buf, len, "%d", l->ncpus);
        return 1;
    default:
        if (l->ngpus < 0)
            return 0;
        snprintf (buf, len, "%d", l->ngpus);
        return 1;
    }
}

static int limits_to_text (const struct queue_limits *l, char *buf, size_t len)
{
    size_t used = 0;

    buf[0] = '\0';
    for (int i = 0; limit_names[i]; i++) {
        char v[64];
        if (!limit_format (l, i, v, sizeof (v)))
            continue;
        used += snprintf (buf + used, len - used, "%s%s=%s", used ? "," : "",
                          limit_names[i], v);
        if (used >= len) {
            errno = ENOSPC;
            return -1;
        }
    }
    return 0;
}

static int limits_from_text (const char *text, struct queue_limits *l,
                             struct hpcq_error *err)
{
    char *copy = xstrdup (text), *save = NULL, *item;
    int rc = 0;

    *l = no_limits;
    for (item = strtok_r (copy, ",", &save); item && rc == 0;
         item = strtok_r (NULL, ",", &save)) {
        char *eq = strchr (item, '=');
        int which;
        if (!eq) {
            errno = EINVAL;
            rc = errprintf (err, "malformed resource list '%s'", text);
            break;
        }
        *eq = '\0';
        if ((which = limit_index (item)) < 0) {
            errno = EINVAL;
            rc = errprintf (err, "Unknown resource %s", item);
            break;
        }
        rc = limit_set (l, which, eq + 1, err);
    }
    free (copy);
    return rc;
}

/* --- the set of queues --- */

static struct queue *queue_new (const struct db_queue *rec, struct hpcq_error *err)
{
    struct queue *q = xzalloc (sizeof (*q));

    q->rec = *rec;
    if (limits_from_text (rec->resources_max, &q->max, err) < 0
        || limits_from_text (rec->resources_default, &q->dflt, err) < 0) {
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

static void queues_add (struct queues *qs, struct queue *q)
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
    queues_add (qs, q);
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
        limit_format (&q->max, 0, max, sizeof (max));
        return exceeds (q, "walltime", have, max, err);
    }
    if (q->max.mem >= 0 && resource_total_mem (res) > q->max.mem) {
        resource_format_size (resource_total_mem (res), have, sizeof (have));
        limit_format (&q->max, 1, max, sizeof (max));
        return exceeds (q, "mem", have, max, err);
    }
    if (q->max.ncpus >= 0 && resource_total_ncpus (res) > q->max.ncpus) {
        snprintf (have, sizeof (have), "%d", resource_total_ncpus (res));
        limit_format (&q->max, 2, max, sizeof (max));
        return exceeds (q, "ncpus", have, max, err);
    }
    if (q->max.ngpus >= 0 && resource_total_ngpus (res) > q->max.ngpus) {
        snprintf (have, sizeof (have), "%d", resource_total_ngpus (res));
        limit_format (&q->max, 3, max, sizeof (max));
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

/* --- attributes --- */

json_t *queue_attrs_json (const struct queue *q)
{
    json_t *o = json_object ();
    static const char *kinds[] = { "resources_max", "resources_default" };
    const struct queue_limits *ls[] = { &q->max, &q->dflt };

    json_object_set_new (o, "queue_type", json_string ("Execution"));
    json_object_set_new (o, "Priority", json_integer (q->rec.priority));
    for (int k = 0; k < 2; k++) {
        json_t *r = json_object ();
        for (int i = 0; limit_names[i]; i++) {
            char v[64];
            if (limit_format (ls[k], i, v, sizeof (v)))
                json_object_set_new (r, limit_names[i],
                                     i >= 2 ? json_integer (atoi (v))
                                            : json_string (v));
        }
        if (json_object_size (r) > 0)
            json_object_set_new (o, kinds[k], r);
        else
            json_decref (r);
    }
    if (q->rec.max_run > 0)
        json_object_set_new (o, "max_run", json_integer (q->rec.max_run));
    if (q->rec.max_run_user > 0)
        json_object_set_new (o, "max_run_user", json_integer (q->rec.max_run_user));
    if (q->rec.node_labels[0])
        json_object_set_new (o, "node_labels", json_string (q->rec.node_labels));
    if (q->rec.preempt_order[0])
        json_object_set_new (o, "preempt_order", json_string (q->rec.preempt_order));
    if (q->rec.preempt_targets[0])
        json_object_set_new (o, "preempt_targets",
                             json_string (q->rec.preempt_targets));
    if (q->rec.node_preference[0])
        json_object_set_new (o, "node_preference",
                             json_string (q->rec.node_preference));
    json_object_set_new (o, "enabled", json_string (q->rec.enabled ? "True" : "False"));
    json_object_set_new (o, "started", json_string (q->rec.started ? "True" : "False"));
    return o;
}

static int parse_bool (const char *name, const char *v, int *out,
                       struct hpcq_error *err)
{
    if (util_parse_bool (v, out) == 0)
        return 0;
    errno = EINVAL;
    return errprintf (err, "Illegal attribute or resource value: %s=%s (true or false)",
                      name, v);
}

static int parse_int (const char *name, const char *v, int min, int max, int *out,
                      struct hpcq_error *err)
{
    if (util_parse_int (v, min, max, out) < 0)
        return errprintf (err,
                          "Illegal attribute or resource value: %s=%s "
                          "(%d to %d)",
                          name, v, min, max);
    return 0;
}

/* Labels as place.c matches them: comma-separated names or name=value. */
static int parse_labels (const char *v, char *out, size_t len, struct hpcq_error *err)
{
    if (strlen (v) >= len) {
        errno = EINVAL;
        return errprintf (err, "Illegal attribute or resource value: node_labels "
                               "too long");
    }
    for (const char *p = v; *p; p++) {
        if (!isalnum ((unsigned char)*p) && !strchr ("_-.=,:", *p)) {
            errno = EINVAL;
            return errprintf (err,
                              "Illegal attribute or resource value: node_labels=%s", v);
        }
    }
    snprintf (out, len, "%s", v);
    return 0;
}

/* A text attribute that check() must accept; NULL unsets it. */
static int set_checked (char *out, size_t len, const char *name, const char *value,
                        int (*check) (const char *value, struct hpcq_error *err),
                        struct hpcq_error *err)
{
    if (!value) {
        out[0] = '\0';
        return 0;
    }
    if (strlen (value) >= len) {
        errno = EINVAL;
        return errprintf (err, "Illegal attribute or resource value: %s too long",
                          name);
    }
    if (check (value, err) < 0)
        return -1;
    snprintf (out, len, "%s", value);
    return 0;
}

/* node_preference: the kind of node a queue's jobs take first.  Cloud
 * users keep cheap batch work on spot nodes and urgent work on on-demand
 * ones without forbidding either (-l spot= forbids). */
static int check_node_preference (const char *value, struct hpcq_error *err)
{
    if (strcmp (value, "spot") == 0 || strcmp (value, "on_demand") == 0)
        return 0;
    errno = EINVAL;
    return errprintf (err,
                      "Illegal attribute or resource value: node_preference=%s "
                      "(spot or on_demand)",
                      value);
}

/* Set (value) or unset (NULL) one attribute of q.  0 or -1 with err. */
static int queue_attr (struct queue *q, const char *name, const char *value,
                       struct hpcq_error *err)
{
    struct db_queue *r = &q->rec;
    const char *dot = strchr (name, '.');

    if (dot
        && (strncasecmp (name, "resources_max.", 14) == 0
            || strncasecmp (name, "resources_default.", 18) == 0)) {
        struct queue_limits *l =
            name[10] == 'm' || name[10] == 'M' ? &q->max : &q->dflt;
        int which = limit_index (dot + 1);
        if (which < 0) {
            errno = EINVAL;
            return errprintf (err, "Unknown resource %s (walltime, ncpus, mem, ngpus)",
                              dot + 1);
        }
        if (!value)
            return limit_unset (l, which), 0;
        return limit_set (l, which, value, err);
    }
    if (strcasecmp (name, "queue_type") == 0) {
        if (value && strncasecmp (value, "execution", strlen (value)) != 0) {
            errno = EINVAL;
            return errprintf (err,
                              "Illegal attribute or resource value: queue_type=%s "
                              "(only execution queues)",
                              value);
        }
        return 0;
    }
    if (strcasecmp (name, "priority") == 0)
        return value ? parse_int (name, value, -1024, 1023, &r->priority, err)
                     : (r->priority = 0, 0);
    if (strcasecmp (name, "enabled") == 0)
        return value ? parse_bool (name, value, &r->enabled, err) : (r->enabled = 0, 0);
    if (strcasecmp (name, "started") == 0)
        return value ? parse_bool (name, value, &r->started, err) : (r->started = 0, 0);
    if (strcasecmp (name, "max_run") == 0)
        return value ? parse_int (name, value, 1, 1000000, &r->max_run, err)
                     : (r->max_run = 0, 0);
    if (strcasecmp (name, "max_run_user") == 0
        || strcasecmp (name, "max_user_run") == 0)
        return value ? parse_int (name, value, 1, 1000000, &r->max_run_user, err)
                     : (r->max_run_user = 0, 0);
    if (strcasecmp (name, "node_labels") == 0)
        return value
                   ? parse_labels (value, r->node_labels, sizeof (r->node_labels), err)
                   : (r->node_labels[0] = '\0', 0);
    if (strcasecmp (name, "preempt_order") == 0)
        return set_checked (r->preempt_order, sizeof (r->preempt_order), name, value,
                            preempt_check_order, err);
    if (strcasecmp (name, "preempt_targets") == 0)
        return set_checked (r->preempt_targets, sizeof (r->preempt_targets), name,
                            value, preempt_check_targets, err);
    if (strcasecmp (name, "node_preference") == 0)
        return set_checked (r->node_preference, sizeof (r->node_preference), name,
                            value, check_node_preference, err);
    errno = EINVAL;
    return errprintf (err, "Unknown attribute %s", name);
}

/* --- queue.manage --- */

static int valid_name (const char *name)
{
    size_t len = strlen (name);

    if (len == 0 || len >= sizeof (((struct db_queue *)0)->name)
        || !isalpha ((unsigned char)name[0]))
        return 0;
    for (const char *p = name; *p; p++)
        if (!isalnum ((unsigned char)*p) && *p != '_' && *p != '-')
            return 0;
    return 1;
}

/* Apply attrs ([[name, value-or-null], ...]) to the copy q. */
static int apply_attrs (struct queue *q, json_t *attrs, int unset,
                        struct hpcq_error *err)
{
    json_t *a;
    size_t i;

    json_array_foreach (attrs, i, a)
    {
        const char *name = json_string_value (json_array_get (a, 0));
        const char *value = json_string_value (json_array_get (a, 1));
        int rc;
        if (!json_is_array (a) || !name || (!unset && !value)) {
            errno = EPROTO;
            return errprintf (err, "queue.manage: malformed attribute");
        }
        /* max_queued and max_queued_res.RES belong to limits.c: checked
         * here, set once the queue is stored (queue_set_limits). */
        if ((rc = limits_check_value (name, unset ? NULL : value, err)) != 0) {
            if (rc < 0)
                return -1;
            continue;
        }
        if (queue_attr (q, name, unset ? NULL : value, err) < 0)
            return -1;
    }
    if (limits_to_text (&q->max, q->rec.resources_max, sizeof (q->rec.resources_max))
            < 0
        || limits_to_text (&q->dflt, q->rec.resources_default,
                           sizeof (q->rec.resources_default))
               < 0) {
        errno = EINVAL;
        return errprintf (err, "resource list too long");
    }
    return 0;
}

static int count_jobs (struct server *srv, const char *queue)
{
    struct job **all;
    int n, count = 0;

    all = jobs_all (srv->jobs, &n);
    for (int i = 0; i < n; i++)
        if (strcmp (all[i]->rec.queue, queue) == 0)
            count++;
    return count;
}

static int manage_delete (struct server *srv, struct queue *q, struct hpcq_error *err)
{
    struct queues *qs = srv->queues;
    int njobs = count_jobs (srv, q->rec.name);

    if (strcmp (q->rec.name, srv->default_queue) == 0) {
        errno = EBUSY;
        return errprintf (err, "Cannot delete the default queue (default_queue in the "
                               "scheduler's config)");
    }
    if (njobs > 0) {
        errno = EBUSY;
        return errprintf (err,
                          "Cannot delete busy queue: it holds %d job%s (finished "
                          "ones included)",
                          njobs, njobs == 1 ? "" : "s");
    }
    if (db_queue_delete (srv->db, q->rec.name) < 0)
        return errprintf (err, "cannot delete queue: %s", strerror (errno));
    limits_drop_scope (srv->limits, q->rec.name);
    for (int i = 0; i < qs->n; i++) {
        if (qs->v[i] == q) {
            memmove (&qs->v[i], &qs->v[i + 1], (qs->n - i - 1) * sizeof (*qs->v));
            qs->n--;
            break;
        }
    }
    queue_free (q);
    return 0;
}

/* The limit attributes of a checked request ([name, value(, "+"|"-")]). */
static int queue_set_limits (struct server *srv, const char *queue, json_t *attrs,
                             int unset, struct hpcq_error *err)
{
    json_t *a;
    size_t i;

    json_array_foreach (attrs, i, a)
    {
        const char *name = json_string_value (json_array_get (a, 0));
        const char *value = unset ? NULL : json_string_value (json_array_get (a, 1));
        const char *op = json_string_value (json_array_get (a, 2));
        if (limits_check_value (name, value, NULL) == 1
            && limits_set (srv->limits, queue, name, value, op ? op[0] : '=', err) < 0)
            return -1;
    }
    return 0;
}

/* Create, set or unset: on a copy, stored, then made the queue. */
static int manage_change (struct server *srv, const char *op, const char *name,
                          struct queue *q, json_t *attrs, struct hpcq_error *err)
{
    int create = strcmp (op, "create") == 0;
    struct queue copy;

    if (create) {
        /* PBS: a new queue is an execution queue, neither enabled nor
         * started until the administrator says so. */
        memset (&copy, 0, sizeof (copy));
        snprintf (copy.rec.name, sizeof (copy.rec.name), "%s", name);
        snprintf (copy.rec.queue_type, sizeof (copy.rec.queue_type), "execution");
        copy.max = copy.dflt = no_limits;
    } else
        copy = *q;
    copy.users = NULL;
    if (apply_attrs (&copy, attrs, strcmp (op, "unset") == 0, err) < 0)
        return -1;
    if ((create ? db_queue_insert (srv->db, &copy.rec)
                : db_queue_update (srv->db, &copy.rec))
        < 0)
        return errprintf (err, "cannot store queue: %s", strerror (errno));
    if (queue_set_limits (srv, name, attrs, strcmp (op, "unset") == 0, err) < 0)
        return -1;
    if (create) {
        q = xzalloc (sizeof (*q));
        *q = copy;
        queues_add (srv->queues, q);
    } else {
        copy.users = q->users;
        copy.nusers = q->nusers;
        copy.users_cap = q->users_cap;
        *q = copy;
    }
    return 0;
}

void queue_manage (struct server *srv, struct conn *c, struct wire_msg *msg)
{
    const char *op, *name;
    json_t *attrs = NULL;
    struct hpcq_error err;
    struct queue *q;
    char who[64];
    int rc;

    if (json_unpack (msg->body, "{s:s s:s s?o}", "op", &op, "queue", &name, "attrs",
                     &attrs)
            < 0
        || (attrs && !json_is_array (attrs))) {
        server_reply_error (c, msg, EPROTO, "queue.manage: malformed request");
        return;
    }
    if (!server_is_manager (srv, conn_peer_uid (c))) {
        server_reply_error (c, msg, EPERM, "Unauthorized Request");
        return;
    }
    q = queue_lookup (srv->queues, name);
    if (strcmp (op, "create") == 0 && q) {
        server_reply_error (c, msg, EEXIST, "Queue %s already exists", name);
        return;
    }
    if (strcmp (op, "create") == 0 && !valid_name (name)) {
        server_reply_error (c, msg, EINVAL,
                            "Illegal queue name '%s' (a letter, then "
                            "letters, digits, _ or -; at most 63)",
                            name);
        return;
    }
    if (strcmp (op, "create") != 0 && !q) {
        server_reply_error (c, msg, ENOENT, "Unknown queue");
        return;
    }
    if (strcmp (op, "delete") == 0)
        rc = manage_delete (srv, q, &err);
    else if (!strcmp (op, "create") || !strcmp (op, "set") || !strcmp (op, "unset"))
        rc = manage_change (srv, op, name, q, attrs, &err);
    else {
        server_reply_error (c, msg, EPROTO, "queue.manage: unknown operation '%s'", op);
        return;
    }
    if (rc < 0) {
        server_reply_error (c, msg, errno ? errno : EINVAL, "%s", err.text);
        return;
    }
    server_user_name (conn_peer_uid (c), who, sizeof (who));
    log_msg (LOG_INFO, "queue %s: %s by %s", name, op, who);
    server_request_pass (srv);
    server_reply_after_commit (srv, c, msg, NULL);
}
