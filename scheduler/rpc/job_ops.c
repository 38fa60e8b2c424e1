/* job_ops.c - see job_ops.h
 *
 * Wording and error numbers follow PBS Pro's commands (OpenPBS src/cmds
 * and src/lib/Liblog/pbs_messages.c), so scripts that parse them work:
 * "Unknown Job Id", "Request invalid for state of job", "job is not
 * rerunnable", "Unknown/illegal signal name".
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/tm.h"
#include "common/util.h"
#include "scheduler/ckpt.h"
#include "scheduler/clients.h"
#include "scheduler/job_attr.h"
#include "scheduler/rpc/job_ops.h"
#include "scheduler/rpc/rpc_target.h"
#include "scheduler/rpc/job_select.h"
#include "scheduler/jobs.h"
#include "scheduler/lifecycle.h"
#include "scheduler/nodes.h"
#include "scheduler/policy/place.h"
#include "scheduler/queue.h"
#include "scheduler/sched.h"

/* One connection may wait on this many jobs, all of them on this many:
 * a client cannot hold the scheduler's memory without bound. */
#define WAITS_PER_CONN 1024
#define WAITS_MAX 65536

/* A job.wait not answered yet: the request's type and id, to reply to. */
struct waiter {
    struct conn *conn;
    struct wire_msg req; /* type and id only */
    struct job *job;
    struct waiter *next;
};

struct job_ops {
    struct server *srv;
    struct waiter *waiters;
    int nwaiters;
};

static const struct handler job_ops_handlers[];

static void who_of (struct conn *c, char *buf, int len)
{
    server_user_name (conn_peer_uid (c), buf, len);
}

static int state_error (struct conn *c, struct wire_msg *msg, const struct job *job)
{
    server_reply_error (c, msg, EBUSY, "Request invalid for state of job %s", job->id);
    return -1;
}

/* ---- job.wait ---------------------------------------------------------- */

static json_t *wait_result (const struct job *job)
{
    json_t *o =
        json_pack ("{s:s s:i s:s}", "jobid", job->id, "run_count", job->rec.run_count,
                   "comment", job->rec.comment ? job->rec.comment : "");

    if (o && job->rec.has_exit)
        json_object_set_new (o, "exit_status", json_integer (job->rec.exit_status));
    return o;
}

static int waits_of (const struct job_ops *ops, const struct conn *c)
{
    int n = 0;

    for (const struct waiter *w = ops->waiters; w; w = w->next)
        n += w->conn == c;
    return n;
}

static void job_wait (struct server *srv, struct conn *c, struct wire_msg *msg)
{
    struct job_ops *ops = srv->job_ops;
    struct job *job = rpc_target_job (srv, c, msg);
    struct waiter *w;

    if (!job)
        return;
    if (job->rec.state == 'F') {
        /* Its end may have come in this very turn: answer once durable. */
        server_reply_after_commit (srv, c, msg, wait_result (job));
        return;
    }
    if (ops->nwaiters >= WAITS_MAX || waits_of (ops, c) >= WAITS_PER_CONN) {
        server_reply_error (c, msg, EAGAIN, "too many jobs waited on; try again later");
        return;
    }
    w = xzalloc (sizeof (*w));
    w->conn = c;
    w->job = job;
    w->req.version = msg->version;
    snprintf (w->req.type, sizeof (w->req.type), "%s", msg->type);
    w->req.id = msg->id;
    w->next = ops->waiters;
    ops->waiters = w;
    ops->nwaiters++;
    /* Its answer comes when the job ends: no idle timeout meanwhile. */
    clients_set_persistent (srv->clients, c);
}

/* After the commit: answer the waits whose jobs have finished. */
static void job_ops_before_sleep (struct loop *l, void *arg)
{
    struct job_ops *ops = arg;
    struct waiter **wp = &ops->waiters;

    while (*wp) {
        struct waiter *w = *wp;
        if (w->job->rec.state != 'F') {
            wp = &w->next;
            continue;
        }
        if (conn_reply (w->conn, &w->req, 0, NULL, wait_result (w->job)) < 0)
            log_error ("reply to %s", conn_peer_name (w->conn));
        *wp = w->next;
        free (w);
        ops->nwaiters--;
    }
}

int job_ops_waited (const struct job_ops *ops, const struct job *job)
{
    for (const struct waiter *w = ops ? ops->waiters : NULL; w; w = w->next)
        if (w->job == job)
            return 1;
    return 0;
}

void job_ops_conn_closed (struct job_ops *ops, struct conn *c)
{
    struct waiter **wp;

    if (!ops)
        return;
    for (wp = &ops->waiters; *wp;) {
        struct waiter *w = *wp;
        if (w->conn != c) {
            wp = &w->next;
            continue;
        }
        *wp = w->next;
        free (w);
        ops->nwaiters--;
    }
}

/* ---- job.sig: qsig ----------------------------------------------------- */

/* The signal asked for, as a number in name.  PBS's special names
 * (suspend, resume and their admin- forms) are 0 with the name kept. */
static int sig_request (struct conn *c, struct wire_msg *msg, char *name, size_t len)
{
    const char *sig;
    int signo;

    if (json_unpack (msg->body, "{s:s}", "signal", &sig) < 0) {
        server_reply_error (c, msg, EPROTO, "job.sig: missing signal");
        return -1;
    }
    if (!strcasecmp (sig, "suspend") || !strcasecmp (sig, "admin-suspend")) {
        snprintf (name, len, "suspend");
        return 0;
    }
    if (!strcasecmp (sig, "resume") || !strcasecmp (sig, "admin-resume")) {
        snprintf (name, len, "resume");
        return 0;
    }
    if ((signo = jobspec_signal_number (sig)) <= 0) {
        server_reply_error (c, msg, ERANGE, "Unknown/illegal signal name %s", sig);
        return -1;
    }
    snprintf (name, len, "%d", signo);
    return 0;
}

/* qsig -s suspend / resume (operators, as in PBS): the job stops on
 * every host and lends its resources, or takes them back and goes on.
 * 1 if done, 0 if not in a state for it, -1 after an error reply. */
static int sig_suspend (struct server *srv, struct conn *c, struct wire_msg *msg,
                        struct job *j, const char *what, const char *who)
{
    char why[128];

    if (!server_is_operator (srv, conn_peer_uid (c))) {
        server_reply_error (c, msg, EPERM, "Unauthorized Request  %s", j->id);
        return -1;
    }
    if (!strcmp (what, "suspend")) {
        if (j->rec.state != 'R' || !j->alloc)
            return 0;
        snprintf (why, sizeof (why), "qsig -s suspend by %s", who);
        if (lifecycle_suspend (srv, j, why, who) < 0)
            goto fail;
        return 1;
    }
    if (j->rec.state != 'S')
        return 0;
    if (lifecycle_resume (srv, j, who) < 0) {
        if (errno == EBUSY) {
            server_reply_error (c, msg, EAGAIN,
                                "Resources temporarily unavailable %s: "
                                "its nodes are in use",
                                j->id);
            return -1;
        }
        goto fail;
    }
    return 1;
fail:
    server_reply_error (c, msg, errno ? errno : EIO, "cannot record %s of %s", what,
                        j->id);
    return -1;
}

static void job_sig (struct server *srv, struct conn *c, struct wire_msg *msg)
{
    struct job *job = rpc_target_job (srv, c, msg);
    char signo[16], who[64];
    int sent = 0;

    if (!job || sig_request (c, msg, signo, sizeof (signo)) < 0)
        return;
    who_of (c, who, sizeof (who));
    /* An array: every subjob that runs (each is split out). */
    for (int i = 0; i < (job->arr ? job->arr->nsub : 1); i++) {
        struct job *j = job->arr ? job->arr->sub[i] : job;
        if (!strcmp (signo, "suspend") || !strcmp (signo, "resume")) {
            int rc = sig_suspend (srv, c, msg, j, signo, who);
            if (rc < 0)
                return;
            sent += rc;
            continue;
        }
        if (j->rec.state != 'R' || !j->alloc)
            continue;
        job_signal_worker (j, signo, "qsig");
        log_msg (LOG_INFO, "job %s (%s): signal %s from %s", j->id, j->rec.owner, signo,
                 who);
        sent++;
    }
    if (!sent) {
        state_error (c, msg, job);
        return;
    }
    server_reply_after_commit (srv, c, msg, NULL);
}

/* ---- job.rerun: qrerun ------------------------------------------------- */

static void job_rerun (struct server *srv, struct conn *c, struct wire_msg *msg)
{
    struct job *job = rpc_target_job (srv, c, msg);
    char who[64], why[128];
    int force = 0;

    if (!job)
        return;
    (void)json_unpack (msg->body, "{s?b}", "force", &force);
    if (job->is_array || (job->rec.state != 'R' && job->rec.state != 'S')
        || !job->alloc) {
        state_error (c, msg, job);
        return;
    }
    if (!job->spec.rerunnable) {
        server_reply_error (c, msg, ENOTSUP, "job is not rerunnable %s", job->id);
        return;
    }
    who_of (c, who, sizeof (who));
    snprintf (why, sizeof (why), "Job rerun by %s", who);
    /* A job that checkpoints is asked for one first and requeued once it
     * is reported (or checkpoint_grace is over): its next attempt goes on
     * from there.  -W force, or a suspended job: PBS's plain requeue. */
    if (!force && job->rec.state == 'R' && ckpt_job_checkpoints (srv, job)) {
        if (ckpt_request (srv, job, why, util_now_ms () + ckpt_grace_ms (srv),
                          ckpt_requeue_done, "rerun (qrerun)")
            < 0) {
            server_reply_error (c, msg, errno ? errno : EIO,
                                "cannot ask %s for a checkpoint", job->id);
            return;
        }
        server_reply_after_commit (srv, c, msg, json_pack ("{s:b}", "checkpoint", 1));
        return;
    }
    /* The running copy is killed at once (its result is of no interest)
     * and the job waits for its next attempt. */
    job_signal_nodes (job, "KILL", "stale");
    if (lifecycle_requeue (srv, job, why, who) < 0) {
        server_reply_error (c, msg, errno ? errno : EIO, "cannot record rerun of %s",
                            job->id);
        return;
    }
    server_reply_after_commit (srv, c, msg, NULL);
}

/* ---- job.run: qrun ----------------------------------------------------- */

/* The request with one chunk per instance, each on the next host of
 * "h1+h2" (one host: all there); qrun -H's vnode form "(h1:ncpus=2)"
 * names its host first.  out gets a chunk list of its own (the caller
 * releases it, also on failure).  -1 with err. */
static int run_on_hosts (const struct hpcq_resources *res, const char *hosts,
                         struct hpcq_resources *out, struct hpcq_error *err)
{
    char *list = strdup (hosts), *p = list, *h, **names;
    int nh = 0, k = 0, rc = -1;

    *out = *res;
    out->chunk = NULL; /* its own list, not the job's */
    out->nchunks = 0;
    /* As many hosts as the list names: a job may span any number. */
    names = calloc (strlen (hosts) / 2 + 1, sizeof (*names));
    if (!list || !names) {
        errprintf_code (err, ENOMEM, "out of memory");
        goto out;
    }
    while ((h = strsep (&p, "+"))) {
        h += strspn (h, "(");
        h[strcspn (h, ":)")] = '\0';
        if (resource_check_word ("host", h, err) < 0)
            goto out;
        names[nh++] = h;
    }
    snprintf (out->place, sizeof (out->place), "free");
    for (int i = 0; i < res->nchunks; i++)
        for (int n = 0; n < res->chunk[i].count; n++, k++) {
            struct hpcq_chunk *c = resource_add_chunk (out, err);
            if (!c)
                goto out;
            *c = res->chunk[i];
            c->count = 1;
            if (!(c->host = resource_intern (names[nh == 1 ? 0 : k % nh]))) {
                errprintf_code (err, ENOSPC, "too many different host names");
                goto out;
            }
        }
    if (nh != 1 && nh != k)
        errprintf_code (err, EINVAL, "qrun -H: %d hosts for %d chunks", nh, k);
    else
        rc = 0;
out:
    free (names);
    free (list);
    return rc;
}

static void job_run (struct server *srv, struct conn *c, struct wire_msg *msg)
{
    struct job *job = rpc_target_job (srv, c, msg);
    struct hpcq_resources on;
    struct hpcq_error err;
    struct alloc *a = NULL;
    const char *hosts = NULL;
    struct node **nodes;
    int n, rc;

    if (!job)
        return;
    if (!server_is_operator (srv, conn_peer_uid (c))) {
        server_reply_error (c, msg, EPERM, "Unauthorized Request  %s", job->id);
        return;
    }
    if (job->is_array || job->rec.state != 'Q') {
        state_error (c, msg, job);
        return;
    }
    (void)json_unpack (msg->body, "{s?s}", "hosts", &hosts);
    nodes = nodes_all (srv->nodes, &n);
    if (hosts && run_on_hosts (&job->spec.res, hosts, &on, &err) < 0) {
        resource_release (&on);
        server_reply_error (c, msg, EINVAL, "%s", err.text);
        return;
    }
    /* The queue's limits and the policy's order are what qrun overrides;
     * the resources must still be free. */
    if (hosts) {
        a = place_alloc (nodes, n, &on, NULL, job->rec.seq, 0);
        resource_release (&on);
        if (!a)
            goto busy;
    }
    rc = sched_start_now (srv, job, a, "run by qrun on");
    if (rc == 1)
        goto busy;
    if (rc < 0) {
        server_reply_error (c, msg, errno ? errno : EIO, "cannot record start of %s",
                            job->id);
        return;
    }
    server_reply_after_commit (srv, c, msg, NULL);
    return;
busy:
    server_reply_error (c, msg, EAGAIN, "Resources temporarily unavailable %s",
                        job->id);
}

/* ---- job.order: qorder ------------------------------------------------- */

static void job_order (struct server *srv, struct conn *c, struct wire_msg *msg)
{
    struct job *a = rpc_target_job (srv, c, msg), *b;
    const char *id2;
    char who[64], da[200], db[200];
    int64_t ctime;
    int prio;

    if (!a)
        return;
    if (json_unpack (msg->body, "{s:s}", "id2", &id2) < 0) {
        server_reply_error (c, msg, EPROTO, "job.order: missing second job id");
        return;
    }
    if (!(b = jobs_find (srv->jobs, id2))) {
        server_reply_error (c, msg, ENOENT, "Unknown Job Id %s", id2);
        return;
    }
    if (!server_may_act (srv, conn_peer_uid (c), b->rec.uid)) {
        server_reply_error (c, msg, EPERM, "Unauthorized Request  %s", b->id);
        return;
    }
    if (a->rec.state != 'Q' && a->rec.state != 'H') {
        state_error (c, msg, a);
        return;
    }
    if (b->rec.state != 'Q' && b->rec.state != 'H') {
        state_error (c, msg, b);
        return;
    }
    if (strcmp (a->rec.queue, b->rec.queue) != 0) {
        server_reply_error (c, msg, EINVAL,
                            "Request invalid for state of job %s or %s: "
                            "they are in different queues (qmove one first)",
                            a->id, b->id);
        return;
    }
    /* A queued job's place comes from its Priority and how long it has
     * waited (qtime): exchanging both exchanges the places. */
    prio = a->rec.priority, a->rec.priority = b->rec.priority, b->rec.priority = prio;
    ctime = a->rec.ctime, a->rec.ctime = b->rec.ctime, b->rec.ctime = ctime;
    who_of (c, who, sizeof (who));
    snprintf (da, sizeof (da), "qorder with %s", b->id);
    snprintf (db, sizeof (db), "qorder with %s", a->id);
    if (lifecycle_change (srv, a, a->rec.state, JOB_EV_ALTERED, who, da) < 0
        || lifecycle_change (srv, b, b->rec.state, JOB_EV_ALTERED, who, db) < 0) {
        server_reply_error (c, msg, errno ? errno : EIO, "cannot record order of %s",
                            a->id);
        return;
    }
    server_request_pass (srv);
    server_reply_after_commit (srv, c, msg, NULL);
}

/* ---- job.msg: qmsg ----------------------------------------------------- */

#define QMSG_MAX 256 /* PBS's MAX_MSG_STRING_LEN */

static void job_msg (struct server *srv, struct conn *c, struct wire_msg *msg)
{
    struct job *job = rpc_target_job (srv, c, msg);
    const char *text, *to = "E";
    struct wire_msg m;

    if (!job)
        return;
    if (json_unpack (msg->body, "{s:s s?s}", "text", &text, "to", &to) < 0
        || strspn (to, "OE") != strlen (to) || !to[0]) {
        server_reply_error (c, msg, EPROTO, "job.msg: malformed request");
        return;
    }
    if (strlen (text) > QMSG_MAX || strchr (text, '\n')) {
        server_reply_error (c, msg, EINVAL,
                            "message too long or not one line (at most %d "
                            "characters)",
                            QMSG_MAX);
        return;
    }
    if (job->is_array || job->rec.state != 'R' || !job->alloc) {
        state_error (c, msg, job);
        return;
    }
    wire_request_init (&m, "job.message", job->rec.seq,
                       json_pack ("{s:I s:i s:s s:s}", "seq", (json_int_t)job->rec.seq,
                                  "attempt", job->rec.run_count, "text", text, "to",
                                  to));
    if (nodes_send (job->alloc->slot[0].node, &m) < 0)
        server_reply_error (c, msg, EAGAIN, "cannot reach node %s of job %s",
                            job->alloc->slot[0].node_name, job->id);
    else
        (void)conn_reply (c, msg, 0, NULL, NULL);
    wire_msg_release (&m);
}

/* ---- job.print: printjob ----------------------------------------------- */

static void job_print (struct server *srv, struct conn *c, struct wire_msg *msg)
{
    struct job *job = rpc_target_job (srv, c, msg);

    if (!job)
        return;
    if (!server_is_manager (srv, conn_peer_uid (c))) {
        server_reply_error (c, msg, EPERM, "Unauthorized Request  %s", job->id);
        return;
    }
    const char *script = job->spec.script ? job->spec.script : "";
    json_t *o = json_pack ("{s:s s:o s:s s:I}", "jobid", job->id, "attributes",
                           job_attr_json (srv, job), "uuid", job->rec.uuid, "seq",
                           (json_int_t)job->rec.seq);

    /* A script that is not UTF-8 goes as base64, as in its jobspec. */
    if (o && util_utf8_invalid (script) >= 0)
        json_object_set_new (o, "script_base64",
                             tm_data_json (script, strlen (script)));
    else if (o)
        json_object_set_new (o, "script", json_string (script));
    (void)conn_reply (c, msg, 0, NULL, o);
}

static const struct handler job_ops_handlers[] = {
    { "job.wait", job_wait, ROLE_ANY },   { "job.sig", job_sig, ROLE_ANY },
    { "job.rerun", job_rerun, ROLE_ANY }, { "job.run", job_run, ROLE_ANY },
    { "job.order", job_order, ROLE_ANY }, { "job.msg", job_msg, ROLE_ANY },
    { "job.print", job_print, ROLE_ANY }, { NULL, NULL, 0 },
};

struct job_ops *job_ops_create (struct server *srv)
{
    struct job_ops *ops = calloc (1, sizeof (*ops));

    if (!ops)
        return NULL;
    ops->srv = srv;
    if (server_register (srv, job_ops_handlers) < 0 || job_select_register (srv) < 0
        || loop_before_sleep (srv->loop, job_ops_before_sleep, ops) < 0) {
        free (ops);
        return NULL;
    }
    return ops;
}

void job_ops_destroy (struct job_ops *ops)
{
    if (!ops)
        return;
    loop_before_sleep_remove (ops->srv->loop, job_ops_before_sleep, ops);
    while (ops->waiters) {
        struct waiter *w = ops->waiters;
        ops->waiters = w->next;
        free (w);
    }
    free (ops);
}
