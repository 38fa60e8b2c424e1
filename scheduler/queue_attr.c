/* queue_attr.c - see queue_attr.h
 *
 * Attribute names, values and messages follow PBS Pro's qmgr, so that an
 * administrator's scripts (and `qmgr -c "print server"` output) carry
 * over.  A change is applied to a copy, checked whole, written to the
 * database and only then made the queue's: a bad request changes nothing.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <ctype.h>
#include <errno.h>
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
#include "scheduler/queue_attr.h"

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
        for (int i = 0; queue_limits_names[i]; i++) {
            char v[64];
            if (queue_limits_format (ls[k], i, v, sizeof (v)))
                json_object_set_new (r, queue_limits_names[i],
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
        int which = queue_limits_index (dot + 1);
        if (which < 0) {
            errno = EINVAL;
            return errprintf (err, "Unknown resource %s (walltime, ncpus, mem, ngpus)",
                              dot + 1);
        }
        if (!value)
            return queue_limits_unset (l, which), 0;
        return queue_limits_set (l, which, value, err);
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
static int attrs_apply (struct queue *q, json_t *attrs, int unset,
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
    if (queue_limits_to_text (&q->max, q->rec.resources_max,
                              sizeof (q->rec.resources_max))
            < 0
        || queue_limits_to_text (&q->dflt, q->rec.resources_default,
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
    queue_remove (srv->queues, q);
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
        copy.max = copy.dflt = queue_limits_none;
    } else
        copy = *q;
    copy.users = NULL;
    if (attrs_apply (&copy, attrs, strcmp (op, "unset") == 0, err) < 0)
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
        queue_add (srv->queues, q);
    } else {
        copy.users = q->users;
        copy.nusers = q->nusers;
        copy.users_cap = q->users_cap;
        *q = copy;
    }
    return 0;
}

void queue_attr_manage (struct server *srv, struct conn *c, struct wire_msg *msg)
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
