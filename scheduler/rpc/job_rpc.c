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
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uuid/uuid.h>

#include "common/directive.h"
#include "common/arrayspec.h"
#include "common/log.h"
#include "common/strpool.h"
#include "common/util.h"
#include "db/db_job.h"
#include "scheduler/depend.h"
#include "scheduler/cost.h"
#include "scheduler/job_attr.h"
#include "scheduler/rpc/job_ops.h"
#include "scheduler/rpc/job_rpc.h"
#include "scheduler/rpc/job_stat.h"
#include "scheduler/rpc/rpc_target.h"
#include "scheduler/rpc/server_rpc.h"
#include "scheduler/jobs.h"
#include "scheduler/lifecycle.h"
#include "scheduler/limits.h"
#include "scheduler/nodes.h"
#include "scheduler/queue.h"
#include "scheduler/sched.h"
#include "scheduler/server_attr.h"

static struct job *job_new (struct server *srv, struct conn *c,
                            struct hpcq_jobspec *spec, const char *uuid)
{
    struct job *job = xzalloc (sizeof (*job));
    char owner[64];
    uuid_t u;

    job->spec = *spec; /* takes over what spec points to */
    jobspec_init (spec);
    jobspec_pool (&job->spec); /* the texts jobs repeat, kept once */
    job->rec.seq = jobs_next_seq (srv->jobs);
    if (!uuid || uuid_parse (uuid, u) < 0)
        uuid_generate (u);
    uuid_unparse_lower (u, job->rec.uuid);
    job->rec.uid = conn_peer_uid (c);
    server_user_name ((uid_t)job->rec.uid, owner, sizeof (owner));
    job->rec.owner = strpool_get (owner);
    job->rec.name = strpool_ref (job->spec.name);
    job->rec.queue =
        strpool_get (job->spec.queue ? job->spec.queue : srv->default_queue);
    job->rec.state = JOB_STATE_NEW; /* lifecycle_submit decides */
    snprintf (job->rec.hold_types, sizeof (job->rec.hold_types), "%s",
              job->spec.hold ? "u" : "n");
    if (job->spec.hold) /* qstat -s says why it waits, as for qhold */
        job_set_comment (job, "Job held by %s on submission (qsub -h)", owner);
    job->rec.priority = job->spec.priority;
    job->rec.ctime = job->rec.mtime = util_wall_secs ();
    job->is_array = job->spec.array != NULL;
    return job;
}

/* A range qsub let through may still be more than this server takes.
 * The number of subjobs, or -1. */
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
        return errprintf (err,
                          "Array job exceeds server or queue size limit: %d subjobs, "
                          "max_array_size is %lld",
                          n, (long long)srv->max_array_size);
    }
    return n;
}

/* The queue admits the request (filling in its resources_default), some
 * node could hold it, and the owner (uid) may queue that much more
 * (max_queued: an array counts as its subjobs). */
static int submit_check (struct server *srv, uid_t uid, struct hpcq_jobspec *spec,
                         struct hpcq_error *err)
{
    struct limits_req lr = { .uid = uid, .res = &spec->res, .n = 1 };
    struct queue *q;
    char user[64];

    lr.queue = spec->queue ? spec->queue : srv->default_queue;
    if (spec->account && jobspec_check_account (spec->account, err) < 0)
        return -1;
    if (spec->array && (lr.n = submit_check_array (srv, spec->array, err)) < 0)
        return -1;
    if (queue_admit (srv->queues, lr.queue, &spec->res, err) < 0)
        return -1;
    q = queue_lookup (srv->queues, lr.queue);
    if (sched_feasible (srv, &spec->res, q ? q->rec.node_labels : NULL, err) < 0)
        return -1;
    server_user_name (uid, user, sizeof (user));
    lr.user = user;
    return limits_admit (srv->limits, &lr, err);
}

/* The request as stored, if it is small enough for every message that
 * will carry it (JOBSPEC_TEXT_MAX).  New string, or NULL with err. */
static char *spec_text (struct server *srv, const struct hpcq_jobspec *spec,
                        struct hpcq_error *err)
{
    json_t *o = jobspec_to_json (spec);
    char *text = o ? json_dumps (o, JSON_COMPACT) : NULL;
    size_t len;

    json_decref (o);
    if (!text) {
        errprintf_code (err, ENOMEM, "cannot store job: out of memory");
        return NULL;
    }
    if ((len = strlen (text)) > (size_t)srv->max_spec_size) {
        errprintf_code (err, E2BIG,
                        "job request too large: %zu bytes (script, "
                        "environment and options together), max_spec_size is %lld",
                        len, (long long)srv->max_spec_size);
        free (text);
        return NULL;
    }
    return text;
}

static void job_discard (struct job *job)
{
    db_job_release (&job->rec);
    jobspec_release (&job->spec);
    free (job);
}

static int uuid_canonical (const char *s)
{
    char back[UUID_STR_LEN];
    uuid_t u;

    if (uuid_parse (s, u) < 0)
        return 0;
    uuid_unparse_lower (u, back);
    return strcmp (back, s) == 0;
}

/* A retry of a submission whose reply was lost (the leader died, a
 * connection broke): the client's uuid names the job it made already, and
 * the answer is that job, once its entry is durable.  1 if answered. */
static int submit_retried (struct server *srv, struct conn *c, struct wire_msg *msg,
                           const char *uuid)
{
    struct job *job;
    int64_t seq;

    if (!uuid || (seq = db_job_seq_by_uuid (srv->db, uuid)) == 0)
        return 0;
    if (seq < 0) {
        server_reply_error (c, msg, EIO, "cannot look up job uuid %s", uuid);
        return 1;
    }
    if (!(job = jobs_lookup (srv->jobs, seq))
        || job->rec.uid != (int64_t)conn_peer_uid (c)) {
        server_reply_error (c, msg, EEXIST, "a job with uuid %s exists", uuid);
        return 1;
    }
    log_msg (LOG_INFO, "job %s: submission retried (uuid %s)", job->id, uuid);
    server_reply_after_commit (srv, c, msg,
                               json_pack ("{s:s s:s}", "jobid", job->id, "uuid",
                                          job->rec.uuid));
    return 1;
}

static void job_submit (struct server *srv, struct conn *c, struct wire_msg *msg)
{
    struct hpcq_jobspec spec;
    struct hpcq_error err;
    struct job *job;
    const char *uuid = NULL;
    json_t *o;

    jobspec_init (&spec);
    /* Checked before any limit: a retry is not a new submission. */
    if (json_unpack (msg->body, "{s?s}", "uuid", &uuid) < 0) {
        server_reply_error (c, msg, EPROTO, "uuid: not a string");
        return;
    }
    if (uuid && !uuid_canonical (uuid)) {
        server_reply_error (c, msg, EPROTO, "uuid '%.64s' is not a lower-case UUID",
                            uuid);
        return;
    }
    if (submit_retried (srv, c, msg, uuid))
        return;
    if (limits_rate (srv->limits, conn_peer_uid (c), &err) < 0) {
        server_reply_error (c, msg, EAGAIN, "%s", err.text);
        return;
    }
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
    if (submit_check (srv, conn_peer_uid (c), &spec, &err) < 0) {
        server_reply_error (c, msg, errno, "%s", err.text);
        goto out;
    }
    job = job_new (srv, c, &spec, uuid);
    if (!(job->rec.spec = spec_text (srv, &job->spec, &err))
        || depend_attach (srv, job, &err) < 0) {
        server_reply_error (c, msg, errno, "%s", err.text);
        job_discard (job);
        goto out;
    }
    if (lifecycle_submit (srv, job) < 0) {
        server_reply_error (c, msg, errno ? errno : ENOMEM, "cannot store job");
        job_discard (job);
        goto out;
    }
    if (job->is_array && jobs_add_subjobs (srv->jobs, job) < 0) {
        /* The batch is rolled back at commit failure; say so now. */
        server_reply_error (c, msg, errno ? errno : ENOMEM,
                            "cannot store the subjobs of %s", job->id);
        goto out;
    }
    limits_account_new (srv->limits, job);
    job_drop_spec_text (job);
    log_msg (LOG_DEBUG, "job %s (%s) submitted", job->id, job->rec.owner);
    srv->stat_submitted++;
    server_request_pass (srv);
    server_reply_after_commit (srv, c, msg,
                               json_pack ("{s:s s:s}", "jobid", job->id, "uuid",
                                          job->rec.uuid));
out:
    jobspec_release (&spec);
}

/* Delete one job that is not an array; -1 with errno if it cannot be. */
static int delete_one (struct server *srv, struct job *job, const char *who)
{
    switch (job->rec.state) {
    case 'F': return 0;
    case 'R':
    case 'E':
    case 'S': /* suspended: the worker lets it go on, to die */
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

/* qdel NUM[]: the untouched subjobs go with the array, which is E until
 * the ones that run have ended; the split-out ones are deleted one by one.
 * The array ends when the last has. */
static void array_delete (struct server *srv, struct conn *c, struct wire_msg *msg,
                          struct job *array, const char *who)
{
    struct job_array *a = array->arr;

    if (array->rec.state == 'F') {
        server_reply_error (c, msg, EINVAL, "Job has finished %s", array->id);
        return;
    }
    job_set_comment (array, "Job deleted by %s", who);
    if (lifecycle_change (srv, array, 'E', JOB_EV_DELETED, who, "array") < 0) {
        server_reply_error (c, msg, errno, "cannot record deletion of %s", array->id);
        return;
    }
    for (int i = 0; i < a->nsub; i++) {
        if (delete_one (srv, a->sub[i], who) < 0) {
            server_reply_error (c, msg, errno, "cannot record deletion of %s",
                                a->sub[i]->id);
            return;
        }
    }
    lifecycle_array_update (srv, array);
    log_msg (LOG_INFO, "job array %s (%s) deleted by %s", array->id, array->rec.owner,
             who);
    server_reply_after_commit (srv, c, msg, NULL);
}

/* jobs_purge keeps every job but the one purged. */
static int keep_others (const struct job *job, void *arg)
{
    return job != arg;
}

/* qdel -x of a finished job: its history goes (PBS Pro's qdel -x), so
 * qstat -x no longer shows it, now or after a restart; tracejob, the
 * accounting log and hpcq-report keep it. */
static void purge_history (struct server *srv, struct conn *c, struct wire_msg *msg,
                           struct job *job, const char *who)
{
    int waited = job_ops_waited (srv->job_ops, job);

    for (int i = 0; job->arr && i < job->arr->nsub && !waited; i++)
        waited = job_ops_waited (srv->job_ops, job->arr->sub[i]);
    if (job->parent) {
        server_reply_error (c, msg, EINVAL,
                            "%s is a subjob: qdel -x purges the whole array %s",
                            job->id, job->parent->id);
        return;
    }
    if (waited) {
        server_reply_error (c, msg, EBUSY, "%s is still waited on (qsub -W block)",
                            job->id);
        return;
    }
    if (db_job_purge (srv->db, job->rec.seq) < 0) {
        server_reply_error (c, msg, errno, "cannot purge %s", job->id);
        return;
    }
    log_msg (LOG_INFO, "job %s (%s): history purged by %s", job->id, job->rec.owner,
             who);
    (void)jobs_purge (srv->jobs, INT64_MAX, keep_others, job);
    server_reply_after_commit (srv, c, msg, NULL);
}

static void job_delete (struct server *srv, struct conn *c, struct wire_msg *msg)
{
    struct job *job = rpc_target_job (srv, c, msg);
    char who[64];

    if (!job)
        return;
    server_user_name (conn_peer_uid (c), who, sizeof (who));
    if (job->rec.state == 'F'
        && json_is_true (json_object_get (msg->body, "history"))) {
        purge_history (srv, c, msg, job, who);
        return;
    }
    if (job->is_array) {
        array_delete (srv, c, msg, job, who);
        return;
    }
    if (job->rec.state == 'F') {
        server_reply_error (c, msg, EINVAL, "Job has finished %s (qdel -x purges it)",
                            job->id);
        return;
    }
    if (delete_one (srv, job, who) < 0) {
        server_reply_error (c, msg, errno, "cannot record deletion of %s", job->id);
        return;
    }
    log_msg (LOG_INFO, "job %s (%s) deleted by %s", job->id, job->rec.owner, who);
    server_reply_after_commit (srv, c, msg, NULL);
}

/* A whole array cannot be altered (its subjobs share its request); each
 * of its subjobs can. */
static int refuse_arrays (struct conn *c, struct wire_msg *msg, struct job *job)
{
    if (!job->is_array)
        return 0;
    server_reply_error (c, msg, EINVAL,
                        "%s is not supported for whole job arrays; "
                        "name a subjob (%s)",
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
        server_reply_error (c, msg, EINVAL,
                            "illegal hold type '%s' (u, o, s or a "
                            "combination)",
                            types);
        return -1;
    }
    if (((mask & 2) && !server_is_operator (srv, conn_peer_uid (c)))
        || ((mask & 4) && !server_is_manager (srv, conn_peer_uid (c)))) {
        server_reply_error (c, msg, EPERM, "Unauthorized Request  %s", job->id);
        return -1;
    }
    return mask;
}

/* Add the holds in mask to a queued or held job. */
static int hold_one (struct server *srv, struct job *job, int mask, const char *who)
{
    holds_format (mask | holds_of (job), job->rec.hold_types,
                  sizeof (job->rec.hold_types));
    job_set_comment (job, "Job held by %s", who);
    return lifecycle_change (srv, job, 'H', JOB_EV_HELD, who, job->rec.hold_types);
}

/* Lift the holds in mask from a held job: queued unless others stay. */
static int release_one (struct server *srv, struct job *job, int mask, const char *who)
{
    /* Only the types asked for go; a dependency's system hold stays unless
     * a manager lifts it. */
    int left = holds_of (job) & ~mask;

    holds_format (left, job->rec.hold_types, sizeof (job->rec.hold_types));
    if (left)
        job_set_comment (job, "Job held: hold types %s remain", job->rec.hold_types);
    else
        job_set_comment (job, "Job released by %s", who);
    return lifecycle_change (srv, job, left ? 'H' : lifecycle_ready_state (job),
                             JOB_EV_RELEASED, who, job->rec.hold_types);
}

/* An array's hold or release reaches its split-out subjobs that have not
 * started (the untouched ones follow the array's state). */
static int array_holds_follow (struct server *srv, struct job *array, int mask,
                               int hold, const char *who)
{
    struct job_array *a = array->arr;

    for (int i = 0; a && i < a->nsub; i++) {
        struct job *sj = a->sub[i];
        if (hold && (sj->rec.state == 'Q' || sj->rec.state == 'H')
            && hold_one (srv, sj, mask, who) < 0)
            return -1;
        if (!hold && sj->rec.state == 'H' && release_one (srv, sj, mask, who) < 0)
            return -1;
    }
    return 0;
}

static void job_hold (struct server *srv, struct conn *c, struct wire_msg *msg)
{
    struct job *job = rpc_target_job (srv, c, msg);
    char who[64];
    int mask;

    if (!job || (mask = hold_request (srv, c, msg, job)) < 0)
        return;
    if (job->rec.state != 'Q' && job->rec.state != 'H') {
        /* Holding a running job needs checkpoint support (a later issue). */
        server_reply_error (c, msg, EBUSY, "Request invalid for state of job %s",
                            job->id);
        return;
    }
    server_user_name (conn_peer_uid (c), who, sizeof (who));
    if (hold_one (srv, job, mask, who) < 0
        || array_holds_follow (srv, job, mask, 1, who) < 0) {
        server_reply_error (c, msg, errno, "cannot record hold of %s", job->id);
        return;
    }
    server_reply_after_commit (srv, c, msg, NULL);
}

static void job_release (struct server *srv, struct conn *c, struct wire_msg *msg)
{
    struct job *job = rpc_target_job (srv, c, msg);
    char who[64];
    int mask;

    if (!job || (mask = hold_request (srv, c, msg, job)) < 0)
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
    if (release_one (srv, job, mask, who) < 0
        || array_holds_follow (srv, job, mask, 0, who) < 0) {
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

static int alter_apply (struct server *srv, const struct job *job, json_t *opts,
                        struct hpcq_jobspec *spec, struct hpcq_error *err)
{
    const char *letter, *arg;
    json_t *o;
    size_t i;

    if (!json_is_array (opts) || json_array_size (opts) == 0) {
        errno = EPROTO;
        return errprintf (err, "job.alter: no options");
    }
    json_array_foreach (opts, i, o)
    {
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
    return submit_check (srv, (uid_t)job->rec.uid, spec, err);
}

static void job_alter (struct server *srv, struct conn *c, struct wire_msg *msg)
{
    struct job *job = rpc_target_job (srv, c, msg);
    struct hpcq_jobspec spec;
    struct hpcq_error err;
    char who[64], *text;

    if (!job || refuse_arrays (c, msg, job) < 0)
        return;
    if (job->rec.state != 'Q' && job->rec.state != 'H') {
        server_reply_error (c, msg, EBUSY, "Request invalid for state of job %s",
                            job->id);
        return;
    }
    jobspec_init (&spec);
    /* The job's own share does not count against its new request. */
    limits_account (srv->limits, job, -1);
    if (spec_copy (&job->spec, &spec, &err) < 0
        || alter_apply (srv, job, json_object_get (msg->body, "options"), &spec, &err)
               < 0
        || !(text = spec_text (srv, &spec, &err))) {
        server_reply_error (c, msg, errno ? errno : EINVAL, "%s", err.text);
        limits_account (srv->limits, job, 1);
        jobspec_release (&spec);
        return;
    }
    /* A subjob's request was its array's until now: from here on it has
     * one of its own, stored in its row. */
    if (!job->parent || job->own_spec)
        jobspec_release (&job->spec);
    job->own_spec = job->parent != NULL;
    jobspec_pool (&spec);
    job->spec = spec;
    free (job->rec.spec);
    job->rec.spec = text;
    strpool_put (job->rec.name);
    strpool_put (job->rec.queue);
    job->rec.name = strpool_ref (spec.name);
    job->rec.queue = strpool_get (spec.queue ? spec.queue : srv->default_queue);
    job->rec.priority = spec.priority;
    limits_account (srv->limits, job, 1);
    server_user_name (conn_peer_uid (c), who, sizeof (who));
    if (lifecycle_change (srv, job, job->rec.state, JOB_EV_ALTERED, who, NULL) < 0) {
        server_reply_error (c, msg, errno ? errno : ENOMEM,
                            "cannot record change of %s", job->id);
        return;
    }
    job_drop_spec_text (job);
    server_request_pass (srv);
    server_reply_after_commit (srv, c, msg, NULL);
}

static const struct handler job_handlers[] = {
    { "job.submit", job_submit, ROLE_ANY }, { "job.delete", job_delete, ROLE_ANY },
    { "job.hold", job_hold, ROLE_ANY },     { "job.release", job_release, ROLE_ANY },
    { "job.alter", job_alter, ROLE_ANY },   { NULL, NULL, 0 },
};

int job_rpc_register (struct server *srv)
{
    return server_register (srv, job_handlers) < 0 || job_stat_register (srv) < 0
               ? -1
               : server_rpc_register (srv);
}
