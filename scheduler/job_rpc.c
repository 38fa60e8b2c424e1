/* job_rpc.c - see job_rpc.h
 *
 * Each handler unpacks its request once, acts on the in-memory jobs (which
 * write through to the open transaction) and replies after the commit.
 * Queries are answered straight from memory: workflow engines poll often.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uuid/uuid.h>

#include "common/directive.h"
#include "common/arrayspec.h"
#include "common/log.h"
#include "common/util.h"
#include "scheduler/depend.h"
#include "scheduler/cost.h"
#include "scheduler/job_attr.h"
#include "scheduler/job_rpc.h"
#include "scheduler/jobs.h"
#include "scheduler/lifecycle.h"
#include "scheduler/nodes.h"
#include "scheduler/queue.h"
#include "scheduler/sched.h"

static struct job *job_new (struct server *srv, struct conn *c,
                            struct hpcq_jobspec *spec)
{
    struct job *job = xzalloc (sizeof (*job));
    uuid_t u;

    job->spec = *spec;      /* takes over what spec points to */
    jobspec_init (spec);
    job->rec.seq = jobs_next_seq (srv->jobs);
    uuid_generate (u);
    uuid_unparse_lower (u, job->rec.uuid);
    job->rec.uid = conn_peer_uid (c);
    server_user_name ((uid_t)job->rec.uid, job->rec.owner, sizeof (job->rec.owner));
    snprintf (job->rec.name, sizeof (job->rec.name), "%s", job->spec.name);
    snprintf (job->rec.queue, sizeof (job->rec.queue), "%s",
              job->spec.queue ? job->spec.queue : srv->default_queue);
    job->rec.state = JOB_STATE_NEW;     /* lifecycle_submit decides */
    snprintf (job->rec.hold_types, sizeof (job->rec.hold_types), "%s",
              job->spec.hold ? "u" : "n");
    job->rec.priority = job->spec.priority;
    job->rec.ctime = job->rec.mtime = util_wall_secs ();
    job->is_array = job->spec.array != NULL;
    return job;
}

/* The queue admits the request (filling in its resources_default) and
 * some node could hold it. */
/* A range qsub let through may still be more than this server takes. */
static int submit_check_array (struct server *srv, const char *range,
                               struct hpcq_error *err)
{
    struct arrayspec a;
    int n;

    if (arrayspec_parse (range, &a, err) < 0) {
        errno = EINVAL;
        return -1;
    }
    n = a.n;
    arrayspec_release (&a);
    if (n > srv->max_array_size) {
        errno = E2BIG;
        return errprintf (err, "Array job exceeds server or queue size limit: %d subjobs, "
                          "max_array_size is %lld", n, (long long)srv->max_array_size);
    }
    return 0;
}

static int submit_check (struct server *srv, struct hpcq_jobspec *spec,
                         struct hpcq_error *err)
{
    const char *queue = spec->queue ? spec->queue : srv->default_queue;
    struct queue *q;

    if (spec->array && submit_check_array (srv, spec->array, err) < 0)
        return -1;
    if (queue_admit (srv->queues, queue, &spec->res, err) < 0)
        return -1;
    q = queue_lookup (srv->queues, queue);
    return sched_feasible (srv, &spec->res, q ? q->rec.node_labels : NULL, err);
}

static void job_submit (struct server *srv, struct conn *c, struct wire_msg *msg)
{
    struct hpcq_jobspec spec;
    struct hpcq_error err;
    struct job *job;
    json_t *o;

    jobspec_init (&spec);
    if (!(o = json_object_get (msg->body, "spec"))
        || jobspec_from_json (o, &spec, &err) < 0) {
        server_reply_error (c, msg, EPROTO, "%s", o ? err.text : "missing job spec");
        goto out;
    }
    /* A job runs as its submitter: root's jobs only by acl_roots (PBS's
     * words). */
    if (!server_may_run_as (srv, conn_peer_uid (c))) {
        server_reply_error (c, msg, EPERM, "Bad UID for job execution");
        goto out;
    }
    if (submit_check (srv, &spec, &err) < 0) {
        server_reply_error (c, msg, errno, "%s", err.text);
        goto out;
    }
    job = job_new (srv, c, &spec);
    if (depend_attach (srv, job, &err) < 0) {
        server_reply_error (c, msg, errno, "%s", err.text);
        db_job_release (&job->rec);
        jobspec_release (&job->spec);
        free (job);
        goto out;
    }
    o = jobspec_to_json (&job->spec);
    job->rec.spec = o ? json_dumps (o, JSON_COMPACT) : NULL;
    json_decref (o);
    if (!job->rec.spec || lifecycle_submit (srv, job) < 0) {
        server_reply_error (c, msg, errno ? errno : ENOMEM, "cannot store job");
        db_job_release (&job->rec);
        jobspec_release (&job->spec);
        free (job);
        goto out;
    }
    if (job->is_array && jobs_add_subjobs (srv->jobs, job) < 0) {
        /* The batch is rolled back at commit failure; say so now. */
        server_reply_error (c, msg, errno ? errno : ENOMEM, "cannot store the subjobs of %s",
                            job->id);
        goto out;
    }
    job_drop_spec_text (job);
    log_msg (LOG_DEBUG, "job %s (%s) submitted", job->id, job->rec.owner);
    srv->stat_submitted++;
    server_request_pass (srv);
    server_reply_after_commit (srv, c, msg, json_pack ("{s:s s:s}", "jobid", job->id,
                                                       "uuid", job->rec.uuid));
out:
    jobspec_release (&spec);
}

/* What job.stat returns for one job, if the filters let it through. */
static int stat_wanted (const struct job *job, const char *user, int history)
{
    if (job->rec.state == 'F' && !history)
        return 0;
    if (user && strcmp (job->rec.owner, user) != 0)
        return 0;
    return 1;
}

/* Jobs per reply message: a status of many thousand jobs is streamed in
 * several messages (each well under WIRE_MAX_MSG), "more":true on all but
 * the last. */
#define STAT_CHUNK 500
#define STAT_CHUNK_ROWS 5000     /* table rows: under 100 bytes each */

struct stat_req {
    json_t *ids;
    const char *user;
    int history;
    int table;          /* only the qstat table's columns, as rows */
    int subjobs;        /* qstat -t: arrays' subjobs after each array */
};

/* sel with each array's subjobs after it (qstat -t).  New array or NULL. */
static struct job **stat_expand (struct job **sel, int *nsel)
{
    int n = 0, k = 0;
    struct job **out;

    for (int i = 0; i < *nsel; i++)
        n += 1 + (sel[i]->is_array ? sel[i]->nsub : 0);
    if (!(out = calloc (n ? n : 1, sizeof (*out))))
        return NULL;
    for (int i = 0; i < *nsel; i++) {
        out[k++] = sel[i];
        for (int j = 0; sel[i]->is_array && j < sel[i]->nsub; j++)
            out[k++] = sel[i]->sub[j];
    }
    *nsel = k;
    return out;
}

static void stat_ids (struct server *srv, const struct stat_req *r,
                      struct job **sel, int *nsel, json_t *unknown, json_t *finished)
{
    json_t *v;
    size_t i;

    json_array_foreach (r->ids, i, v) {
        const char *id = json_string_value (v);
        struct job *job = jobs_find (srv->jobs, id);
        if (!job)
            json_array_append_new (unknown, json_string (id ? id : "?"));
        else if (job->rec.state == 'F' && !r->history)
            json_array_append_new (finished, json_string (job->id));
        else
            sel[(*nsel)++] = job;
    }
}

/* A chunk of the qstat table: one line per job (job_attr_row). */
static json_t *stat_rows (struct job **sel, int from, int to)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream (&text, &len);
    json_t *rows = NULL;
    int rc = f ? 0 : -1;

    for (int i = from; rc == 0 && i < to; i++)
        rc = job_attr_row (f, sel[i]);
    if (f && fclose (f) == 0 && rc == 0)
        rows = json_stringn (text, len);
    free (text);
    return rows;
}

static void stat_send (struct server *srv, struct conn *c, const struct wire_msg *msg,
                       const struct stat_req *r, struct job **sel, int nsel,
                       json_t *unknown, json_t *finished)
{
    int i = 0, chunk = r->table ? STAT_CHUNK_ROWS : STAT_CHUNK;

    do {
        int end = i + chunk < nsel ? i + chunk : nsel, last = end == nsel;
        json_t *jobs, *body;
        if (r->table)
            jobs = stat_rows (sel, i, end);
        else {
            jobs = json_object ();
            for (int k = i; jobs && k < end; k++)
                json_object_set_new (jobs, sel[k]->id, job_attr_json (srv, sel[k]));
        }
        i = end;
        body = json_pack ("{s:s s:I s:O s:O s:b}", "server", srv->name, "timestamp",
                          (json_int_t)util_wall_secs (), "unknown", unknown,
                          "finished", finished, "more", !last);
        if (body && r->table)
            json_object_set_new (body, "columns",
                                 json_pack ("[ssssss]", JOB_ATTR_ROW_COLUMNS));
        if (body && jobs)
            json_object_set_new (body, r->table ? "rows" : "jobs", jobs);
        else {
            json_decref (jobs);
            json_decref (body);
            body = NULL;
        }
        if (!body) {
            server_reply_error (c, msg, ENOMEM, "job.stat: out of memory");
            return;
        }
        (void)conn_reply (c, msg, 0, NULL, body);
    } while (i < nsel);
}

static void job_stat (struct server *srv, struct conn *c, struct wire_msg *msg)
{
    struct stat_req r = { 0 };
    json_t *unknown, *finished;
    struct job **all, **sel;
    int n, nsel = 0;

    if (json_unpack (msg->body, "{s?o s?s s?b s?b s?b}", "ids", &r.ids, "user", &r.user,
                     "history", &r.history, "table", &r.table, "subjobs",
                     &r.subjobs) < 0
        || (r.ids && !json_is_array (r.ids))) {
        server_reply_error (c, msg, EPROTO, "job.stat: malformed request");
        return;
    }
    all = jobs_all (srv->jobs, &n);
    if (r.ids && json_array_size (r.ids) > (size_t)n)
        n = (int)json_array_size (r.ids);
    sel = calloc (n ? n : 1, sizeof (*sel));
    unknown = json_array ();
    finished = json_array ();
    if (!sel || !unknown || !finished)
        server_reply_error (c, msg, ENOMEM, "job.stat: out of memory");
    else {
        if (r.ids && json_array_size (r.ids) > 0)
            stat_ids (srv, &r, sel, &nsel, unknown, finished);
        else
            for (int i = 0; i < n; i++)
                if (stat_wanted (all[i], r.user, r.history))
                    sel[nsel++] = all[i];
        if (r.subjobs) {
            struct job **ex = stat_expand (sel, &nsel);
            free (sel);
            sel = ex;
        }
        if (sel)
            stat_send (srv, c, msg, &r, sel, nsel, unknown, finished);
        else
            server_reply_error (c, msg, ENOMEM, "job.stat: out of memory");
    }
    free (sel);
    json_decref (unknown);
    json_decref (finished);
}

/* The job named in a request that the caller may act on, or NULL after
 * replying with the reason (PBS wording). */
struct job *job_rpc_target (struct server *srv, struct conn *c, struct wire_msg *msg)
{
    const char *id;
    struct job *job;

    if (json_unpack (msg->body, "{s:s}", "id", &id) < 0) {
        server_reply_error (c, msg, EPROTO, "%s: missing job id", msg->type);
        return NULL;
    }
    if (!(job = jobs_find (srv->jobs, id))) {
        server_reply_error (c, msg, ENOENT, "Unknown Job Id %s", id);
        return NULL;
    }
    if (!server_may_act (srv, conn_peer_uid (c), job->rec.uid)) {
        server_reply_error (c, msg, EPERM, "Unauthorized Request  %s", job->id);
        return NULL;
    }
    return job;
}

/* Delete one job that is not an array; -1 with errno if it cannot be. */
static int delete_one (struct server *srv, struct job *job, const char *who)
{
    switch (job->rec.state) {
    case 'F':
        return 0;
    case 'R':
    case 'E':
    case 'S':   /* suspended: the worker lets it go on, to die */
        job_set_comment (job, "Job deleted by %s", who);
        if (lifecycle_change (srv, job, 'E', JOB_EV_DELETED, who, "running") < 0)
            return -1;
        job_signal_worker (job, "TERM", "deleted");
        job->kill_sent = 1;
        return 0;
    default:
        job_set_comment (job, "Job deleted by %s before it ran", who);
        job->rec.etime = util_wall_secs ();
        return lifecycle_change (srv, job, 'F', JOB_EV_DELETED, who, "queued");
    }
}

/* qdel NUM[]: every subjob goes; the array ends when the last has. */
static void array_delete (struct server *srv, struct conn *c, struct wire_msg *msg,
                          struct job *array, const char *who)
{
    if (array->rec.state == 'F') {
        server_reply_error (c, msg, EINVAL, "Job has finished %s", array->id);
        return;
    }
    for (int i = 0; i < array->nsub; i++) {
        if (delete_one (srv, array->sub[i], who) < 0) {
            server_reply_error (c, msg, errno, "cannot record deletion of %s",
                                array->sub[i]->id);
            return;
        }
    }
    log_msg (LOG_INFO, "job array %s (%s) deleted by %s", array->id, array->rec.owner, who);
    server_reply_after_commit (srv, c, msg, NULL);
}

static void job_delete (struct server *srv, struct conn *c, struct wire_msg *msg)
{
    struct job *job = job_rpc_target (srv, c, msg);
    char who[64];

    if (!job)
        return;
    server_user_name (conn_peer_uid (c), who, sizeof (who));
    if (job->is_array) {
        array_delete (srv, c, msg, job, who);
        return;
    }
    if (job->rec.state == 'F') {
        server_reply_error (c, msg, EINVAL, "Job has finished %s", job->id);
        return;
    }
    if (delete_one (srv, job, who) < 0) {
        server_reply_error (c, msg, errno, "cannot record deletion of %s", job->id);
        return;
    }
    log_msg (LOG_INFO, "job %s (%s) deleted by %s", job->id, job->rec.owner, who);
    server_reply_after_commit (srv, c, msg, NULL);
}

/* Holds, releases and changes apply to whole jobs; arrays and their
 * subjobs take only qdel for now. */
static int refuse_arrays (struct conn *c, struct wire_msg *msg, struct job *job)
{
    if (!job->is_array && !job->parent)
        return 0;
    server_reply_error (c, msg, EINVAL, "%s is not supported for job arrays yet (%s)",
                        msg->type, job->id);
    return -1;
}

/* Hold types as a set: u (user), o (operator), s (system: dependencies,
 * managers).  Hold_Types shows them in that order, "n" for none. */
static const char hold_letters[] = "uos";

static int holds_parse (const char *s)
{
    int mask = 0;

    for (; s && *s; s++) {
        const char *p = strchr (hold_letters, *s);
        if (*s == 'n' && mask == 0 && s[1] == '\0')
            return 0;
        if (!p || !*p)
            return -1;
        mask |= 1 << (p - hold_letters);
    }
    return mask;
}

/* The holds a job has (a stored value hpcq did not write counts as none). */
static int holds_of (const struct job *job)
{
    int mask = holds_parse (job->rec.hold_types);

    return mask > 0 ? mask : 0;
}

static void holds_format (int mask, char *buf, size_t len)
{
    size_t k = 0;

    for (int i = 0; hold_letters[i] && k + 1 < len; i++)
        if (mask & (1 << i))
            buf[k++] = hold_letters[i];
    if (k == 0 && len > 1)
        buf[k++] = 'n';
    buf[k] = '\0';
}

/* The hold types a qhold/qrls asks for (default u), if the caller may
 * place or lift each: o needs an operator, s a manager.  -1 after
 * replying. */
static int hold_request (struct server *srv, struct conn *c, struct wire_msg *msg,
                         struct job *job)
{
    const char *types = "u";
    int mask;

    if (json_unpack (msg->body, "{s?s}", "hold_types", &types) < 0
        || (mask = holds_parse (types)) <= 0) {
        server_reply_error (c, msg, EINVAL, "illegal hold type '%s' (u, o, s or a "
                            "combination)", types);
        return -1;
    }
    if (((mask & 2) && !server_is_operator (srv, conn_peer_uid (c)))
        || ((mask & 4) && !server_is_manager (srv, conn_peer_uid (c)))) {
        server_reply_error (c, msg, EPERM, "Unauthorized Request  %s", job->id);
        return -1;
    }
    return mask;
}

static void job_hold (struct server *srv, struct conn *c, struct wire_msg *msg)
{
    struct job *job = job_rpc_target (srv, c, msg);
    char who[64];
    int mask;

    if (!job || refuse_arrays (c, msg, job) < 0
        || (mask = hold_request (srv, c, msg, job)) < 0)
        return;
    if (job->rec.state != 'Q' && job->rec.state != 'H') {
        /* Holding a running job needs checkpoint support (a later issue). */
        server_reply_error (c, msg, EBUSY, "Request invalid for state of job %s",
                            job->id);
        return;
    }
    server_user_name (conn_peer_uid (c), who, sizeof (who));
    holds_format (mask | holds_of (job), job->rec.hold_types,
                  sizeof (job->rec.hold_types));
    job_set_comment (job, "Job held by %s", who);
    if (lifecycle_change (srv, job, 'H', JOB_EV_HELD, who, job->rec.hold_types) < 0) {
        server_reply_error (c, msg, errno, "cannot record hold of %s", job->id);
        return;
    }
    server_reply_after_commit (srv, c, msg, NULL);
}

static void job_release (struct server *srv, struct conn *c, struct wire_msg *msg)
{
    struct job *job = job_rpc_target (srv, c, msg);
    char who[64];
    int mask, left;

    if (!job || refuse_arrays (c, msg, job) < 0
        || (mask = hold_request (srv, c, msg, job)) < 0)
        return;
    if (job->rec.state != 'H') {
        /* PBS accepts qrls of a job without holds and does nothing. */
        if (job->rec.state == 'Q')
            (void)conn_reply (c, msg, 0, NULL, NULL);
        else
            server_reply_error (c, msg, EBUSY, "Request invalid for state of job %s",
                                job->id);
        return;
    }
    server_user_name (conn_peer_uid (c), who, sizeof (who));
    /* Only the types asked for go; a dependency's system hold stays unless
     * a manager lifts it. */
    left = holds_of (job) & ~mask;
    holds_format (left, job->rec.hold_types, sizeof (job->rec.hold_types));
    if (left)
        job_set_comment (job, "Job held: hold types %s remain", job->rec.hold_types);
    else
        job_set_comment (job, "Job released by %s", who);
    if (lifecycle_change (srv, job, left ? 'H' : 'Q', JOB_EV_RELEASED, who,
                          job->rec.hold_types) < 0) {
        server_reply_error (c, msg, errno, "cannot record release of %s", job->id);
        return;
    }
    server_request_pass (srv);
    server_reply_after_commit (srv, c, msg, NULL);
}

/* The options qalter may change: what decides where and how a job runs,
 * not what it is (its script, directory or dependencies). */
#define ALTER_OPTIONS "NlpqoejAmMr"

/* A copy of spec through its JSON form, so a failed change leaves the
 * job's request untouched. */
static int spec_copy (const struct hpcq_jobspec *from, struct hpcq_jobspec *to,
                      struct hpcq_error *err)
{
    json_t *o = jobspec_to_json (from);
    int rc = o ? jobspec_from_json (o, to, err) : errprintf (err, "out of memory");

    json_decref (o);
    return rc;
}

static int alter_apply (struct server *srv, json_t *opts, struct hpcq_jobspec *spec,
                        struct hpcq_error *err)
{
    const char *letter, *arg;
    json_t *o;
    size_t i;

    if (!json_is_array (opts) || json_array_size (opts) == 0) {
        errno = EPROTO;
        return errprintf (err, "job.alter: no options");
    }
    json_array_foreach (opts, i, o) {
        if (json_unpack (o, "[ss]", &letter, &arg) < 0 || strlen (letter) != 1
            || !strchr (ALTER_OPTIONS, letter[0])) {
            errno = EINVAL;
            return errprintf (err, "cannot alter that attribute (qalter takes -%s)",
                              "N -l -p -q -o -e -j -A -m -M -r");
        }
        if (directive_apply (spec, letter[0], arg, err) < 0)
            return -1;
    }
    if (resource_finalize (&spec->res, err) < 0)
        return -1;
    return submit_check (srv, spec, err);
}

static void job_alter (struct server *srv, struct conn *c, struct wire_msg *msg)
{
    struct job *job = job_rpc_target (srv, c, msg);
    struct hpcq_jobspec spec;
    struct hpcq_error err;
    char who[64], *text;
    json_t *o;

    if (!job || refuse_arrays (c, msg, job) < 0)
        return;
    if (job->rec.state != 'Q' && job->rec.state != 'H') {
        server_reply_error (c, msg, EBUSY, "Request invalid for state of job %s", job->id);
        return;
    }
    jobspec_init (&spec);
    if (spec_copy (&job->spec, &spec, &err) < 0
        || alter_apply (srv, json_object_get (msg->body, "options"), &spec, &err) < 0
        || !(o = jobspec_to_json (&spec))) {
        server_reply_error (c, msg, errno ? errno : EINVAL, "%s", err.text);
        jobspec_release (&spec);
        return;
    }
    text = json_dumps (o, JSON_COMPACT);
    json_decref (o);
    jobspec_release (&job->spec);
    job->spec = spec;
    free (job->rec.spec);
    job->rec.spec = text;
    snprintf (job->rec.name, sizeof (job->rec.name), "%s", spec.name);
    snprintf (job->rec.queue, sizeof (job->rec.queue), "%s",
              spec.queue ? spec.queue : srv->default_queue);
    job->rec.priority = spec.priority;
    server_user_name (conn_peer_uid (c), who, sizeof (who));
    if (!text || lifecycle_change (srv, job, job->rec.state, JOB_EV_ALTERED, who,
                                   NULL) < 0) {
        server_reply_error (c, msg, errno ? errno : ENOMEM, "cannot record change of %s",
                            job->id);
        return;
    }
    job_drop_spec_text (job);
    server_request_pass (srv);
    server_reply_after_commit (srv, c, msg, NULL);
}

static json_t *state_counts (struct server *srv, const char *queue)
{
    static const char states[] = "QHWTRE";
    static const char *names[] = { "Queued", "Held", "Waiting", "Transit",
                                   "Running", "Exiting" };
    json_t *o = json_object ();
    struct job **all;
    int n, total = 0, count[6] = { 0 };

    all = jobs_all (srv->jobs, &n);
    for (int i = 0; i < n; i++) {
        const char *p = strchr (states, all[i]->rec.state);
        if (!p || (queue && strcmp (all[i]->rec.queue, queue) != 0))
            continue;
        count[p - states]++;
        total++;
    }
    for (int i = 0; i < 6; i++)
        json_object_set_new (o, names[i], json_integer (count[i]));
    json_object_set_new (o, "total_jobs", json_integer (total));
    return o;
}

static void server_stat (struct server *srv, struct conn *c, struct wire_msg *msg)
{
    int nnodes;

    (void)nodes_all (srv->nodes, &nnodes);
    (void)conn_reply (c, msg, 0, NULL,
                      json_pack ("{s:s s:s s:s s:o s:i s:s s:I s:I}", "server",
                                 srv->name, "server_state", "Active", "default_queue",
                                 srv->default_queue, "state_count",
                                 state_counts (srv, NULL), "nodes", nnodes,
                                 "pbs_version", PACKAGE_VERSION, "hpcq_commits",
                                 (json_int_t)srv->stat_commits, "hpcq_jobs_submitted",
                                 (json_int_t)srv->stat_submitted));
}

static void queue_stat (struct server *srv, struct conn *c, struct wire_msg *msg)
{
    json_t *queues = json_object ();
    int n;
    struct queue **all = queue_all (srv->queues, &n);

    for (int i = 0; i < n; i++) {
        json_t *o = queue_attrs_json (all[i]);
        json_object_set_new (o, "state_count", state_counts (srv, all[i]->rec.name));
        json_object_set_new (o, "resources_used", cost_queue_json (srv, all[i]->rec.name));
        json_object_set_new (queues, all[i]->rec.name, o);
    }
    (void)conn_reply (c, msg, 0, NULL, json_pack ("{s:s s:o}", "server", srv->name,
                                                  "queues", queues));
}

static const struct handler job_handlers[] = {
    { "job.submit", job_submit, ROLE_ANY },
    { "job.stat", job_stat, ROLE_ANY },
    { "job.delete", job_delete, ROLE_ANY },
    { "job.hold", job_hold, ROLE_ANY },
    { "job.release", job_release, ROLE_ANY },
    { "job.alter", job_alter, ROLE_ANY },
    { "server.stat", server_stat, ROLE_ANY },
    { "queue.stat", queue_stat, ROLE_ANY },
    { NULL, NULL, 0 },
};

int job_rpc_register (struct server *srv)
{
    return server_register (srv, job_handlers);
}
