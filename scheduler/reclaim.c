/* reclaim.c - see reclaim.h
 *
 * The jobs on a reclaimed node are kept in a list until each leaves
 * (requeued here, or its attempt ended some other way); a timer looks at
 * the deadlines ten times a second.
 *
 * The checkpoint module (ckpt.h) does the checkpoint's work: a job that
 * takes checkpoint signals where it runs (its -c, or -c u on a spot node)
 * gets its signal at the notice, and is requeued once its worker reports
 * the checkpoint, or at the deadline without one; the new attempt restarts
 * from it (lifecycle_requeue_from_checkpoint).  A reclaim is an
 * interruption of the node's class, which Young/Daly's interval for the
 * jobs on that class takes into account (nodeclass_interrupted).
 *
 * Each notice is a row of reclaim_notices until its node comes back after
 * the reclaim: a restarted scheduler takes them up again once its jobs are
 * loaded (restore), without counting the interruption again.  A job's
 * checkpoint is asked once its node's worker is connected (after a restart
 * it may not be yet).
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/util.h"
#include "db/db_job.h"
#include "db/db_node.h"
#include "scheduler/ckpt.h"
#include "scheduler/jobs.h"
#include "scheduler/lifecycle.h"
#include "scheduler/web/metrics_count.h"
#include "scheduler/node_state.h"
#include "scheduler/nodeclass.h"
#include "scheduler/nodes.h"
#include "scheduler/policy/place.h"
#include "scheduler/reclaim.h"
#include "scheduler/spot_choice.h"
#include "scheduler/sched.h"

#define RECLAIM_TICK_MS 100
#define RECLAIM_MAX_NOTICE 86400 /* seconds ahead a notice may be */

/* A job on a reclaimed node, until it leaves. */
struct rjob {
    struct job *job;
    int attempt;
    struct rnode *rn;
    int64_t requeue_ms; /* requeued then at the latest */
    int ask;            /* a checkpoint is to be asked once its node is linked */
    int asked;          /* a checkpoint was asked of it */
    LIST_ENTRY (rjob) link;
};

/* A node with a notice. */
struct rnode {
    struct node *n;
    int64_t deadline_ms; /* util_now_ms clock */
    char source[96];
    int taken; /* down: the provider took it */
    LIST_ENTRY (rnode) link;
};

struct reclaim {
    struct server *srv;
    struct loop_timer *tick;
    int restored; /* the stored notices are taken up (after the jobs load) */
    LIST_HEAD (, rjob) jobs;
    LIST_HEAD (, rnode) nodes;
};

static const struct handler reclaim_handlers[];

static struct rnode *rnode_of (struct reclaim *rc, const struct node *n)
{
    struct rnode *rn;

    LIST_FOREACH (rn, &rc->nodes, link)
    if (rn->n == n)
        return rn;
    return NULL;
}

static struct rjob *rjob_of (struct reclaim *rc, const struct job *job)
{
    struct rjob *rj;

    LIST_FOREACH (rj, &rc->jobs, link)
    if (rj->job == job)
        return rj;
    return NULL;
}

static void rjob_free (struct rjob *rj)
{
    LIST_REMOVE (rj, link);
    free (rj);
}

static void reclaim_event (struct reclaim *rc, const char *type, const char *detail)
{
    if (db_event_add (rc->srv->db, 0, util_wall_secs (), type, "scheduler", detail) < 0)
        log_error ("record %s", type);
}

/* 1 if job holds part of n. */
static int job_on (const struct job *job, const struct node *n)
{
    for (int s = 0; job->alloc && s < job->alloc->n; s++)
        if (job->alloc->slot[s].node == n)
            return 1;
    return 0;
}

/* A job requeued by a reclaim starts elsewhere at once if it fits (the
 * reclaimed node drains, so it is not a candidate), else it goes ahead of
 * every other waiting job (job->restart_first) until it starts. */
static void restart_now (struct reclaim *rc, struct job *job)
{
    struct server *srv = rc->srv;

    job->restart_first = 1;
    server_request_pass (srv);
    if (job->rec.state != 'Q')
        return;
    spot_choice_now (srv->spot_choice, job);
    if (sched_start_now (srv, job, NULL, "restarts at once on") < 0)
        log_error ("job %s: restart", job->id);
}

/* how: what came of its checkpoint ("checkpoint reported", or why none). */
static void requeue (struct reclaim *rc, struct rjob *rj, const char *how)
{
    struct job *job = rj->job;
    char why[300];
    int reported = strcmp (how, "checkpoint reported") == 0;

    snprintf (why, sizeof (why), "reclaimed: node %s (%s); %s", rj->rn->n->name,
              rj->rn->source, how);
    rjob_free (rj);
    spot_choice_reclaimed (rc->srv->spot_choice, NULL, job);
    if (lifecycle_requeue_from_checkpoint (rc->srv, job, why, "scheduler") < 0) {
        log_error ("job %s: requeue after a reclaim", job->id);
        return;
    }
    metrics_reclaimed (rc->srv->metrics, job, reported ? 0 : 1);
    restart_now (rc, job);
}

/* The checkpoint asked at a notice is in (or will not come): the reclaim
 * requeues the job, unless its attempt ended some other way first. */
static void checkpointed (struct server *srv, struct job *job,
                          enum ckpt_outcome outcome, void *arg)
{
    struct rjob *rj = rjob_of (srv->reclaim, job);
    int reported = outcome == CKPT_REPORTED;

    (void)arg;
    if (outcome != CKPT_GONE && rj && rj->attempt == job->rec.run_count
        && job->rec.state == 'R')
        requeue (srv->reclaim, rj,
                 reported ? "checkpoint reported" : "no checkpoint reported in time");
}

/* How long after a node is taken (at the deadline at the latest) its
 * hello or failure is still the reclaim's: half a fence time, 1 s at
 * least. */
static int64_t window_ms (const struct server *srv)
{
    return srv->fence_ms / 2 > 1000 ? srv->fence_ms / 2 : 1000;
}

/* The provider has taken n (its link dropped, or the deadline came):
 * down, and what still runs there is lost with it. */
static void taken (struct reclaim *rc, struct rnode *rn, const char *how)
{
    struct server *srv = rc->srv;
    struct node *n = rn->n;
    struct job *job, *next;
    char detail[256];

    rn->taken = 1;
    /* Taken early (its worker gone): a boot may come before the deadline. */
    if (util_now_ms () + window_ms (srv) < n->reclaim_until_ms)
        n->reclaim_until_ms = util_now_ms () + window_ms (srv);
    /* "reclaimed:" starts the reason its jobs' attempts end with, as for
     * those requeued before (hpcq-report counts reclaims by it). */
    snprintf (detail, sizeof (detail), "reclaimed: %s: %s (%s)", n->name, how,
              rn->source);
    metrics_reclaim_notice (srv->metrics, n, 1);
    log_msg (LOG_WARNING, "node %s reclaimed: %s (%s)", n->name, how, rn->source);
    (void)nodes_set_state (srv, n, NODE_DOWN, NODE_EV_RECLAIMED, how);
    snprintf (n->comment, sizeof (n->comment), "reclaimed (%s)", rn->source);
    if (db_notice_taken (srv->db, n->name) < 0)
        log_error ("node %s: record its reclaim", n->name);
    for (job = LIST_FIRST (jobs_running (srv->jobs)); job; job = next) {
        next = LIST_NEXT (job, r_link);
        if (!job_on (job, n))
            continue;
        if (rjob_of (rc, job))
            rjob_free (rjob_of (rc, job));
        spot_choice_reclaimed (srv->spot_choice, n, job);
        if (lifecycle_node_lost (srv, job, detail) < 0) {
            log_error ("job %s: handle node loss", job->id);
            continue;
        }
        metrics_reclaimed (srv->metrics, job, 2);
        if (job->rec.state == 'Q')
            restart_now (rc, job);
    }
    if (n->conn) {
        conn_set_aux (n->conn, NULL);
        conn_close (n->conn);
        node_set_link (n, NULL);
    }
    reclaim_event (rc, "node_reclaimed", detail);
    server_request_pass (srv);
}

static void restore (struct reclaim *rc);
static void back (struct reclaim *rc, struct rnode *rn);
static void rjob_ask (struct reclaim *rc, struct rjob *rj);

static void reclaim_tick (struct loop *l, void *arg)
{
    struct reclaim *rc = arg;
    int64_t now = util_now_ms ();
    struct rjob *rj, *rjn;
    struct rnode *rn, *rnn;

    if (!rc->restored && !jobs_loading (rc->srv->jobs))
        restore (rc);

    for (rj = LIST_FIRST (&rc->jobs); rj; rj = rjn) {
        rjn = LIST_NEXT (rj, link);
        if (rj->job->rec.state != 'R' || rj->job->rec.run_count != rj->attempt)
            rjob_free (rj); /* it ended, or left, otherwise */
        else if (rj->ask && now < rj->requeue_ms)
            rjob_ask (rc, rj);
        else if (now >= rj->requeue_ms)
            /* The checkpoint request expires at the same time: whichever
             * of the two runs first, the reason is the same. */
            requeue (rc, rj,
                     rj->asked ? "no checkpoint reported in time"
                               : "the notice time is nearly up");
    }
    for (rn = LIST_FIRST (&rc->nodes); rn; rn = rnn) {
        struct node *n = rn->n;
        rnn = LIST_NEXT (rn, link);
        if (rn->taken) {
            /* Up through its window: a later boot.  Gone again: down, as
             * part of the same reclaim (no interruption more). */
            if (n->state == NODE_UP && n->conn && now >= n->reclaim_until_ms)
                back (rc, rn);
            else if (n->state == NODE_UP && !n->conn
                     && now - n->last_heard_ms > rc->srv->node_timeout_ms)
                (void)nodes_set_state (rc->srv, n, NODE_DOWN, NODE_EV_RECLAIMED,
                                       "its instance died after its reclaim");
            continue;
        }
        /* A link that went may be a worker that died on a live host:
         * its jobs are known dead only once its fence has passed. */
        if (!rn->n->conn && now - rn->n->last_heard_ms > rc->srv->node_timeout_ms)
            taken (rc, rn, "its worker is gone");
        else if (now >= rn->deadline_ms)
            taken (rc, rn, "the notice time is up");
    }
}

/* Its checkpoint, asked once its node's worker can pass the signal on. */
static void rjob_ask (struct reclaim *rc, struct rjob *rj)
{
    struct node *n = rj->rn->n;

    if (!n->conn || n->state != NODE_UP)
        return;
    rj->ask = 0;
    rj->asked =
        ckpt_request (rc->srv, rj->job, "reclaim", rj->requeue_ms, checkpointed, NULL)
        == 0;
}

/* n drains and its jobs are listed, to leave by deadline (wall seconds);
 * the rnode, or NULL if an earlier notice stands.  *k: its jobs. */
static struct rnode *notice_apply (struct reclaim *rc, struct node *n, int64_t deadline,
                                   const char *source, int *k)
{
    struct server *srv = rc->srv;
    int64_t now = util_now_ms (), left = (deadline - util_wall_secs ()) * 1000;
    int64_t margin = left / 4 > 10000 ? 10000 : left / 4 < 1000 ? 1000 : left / 4;
    struct rnode *rn = rnode_of (rc, n);
    struct job *job;

    *k = 0;
    if (rn && !rn->taken && now + left >= rn->deadline_ms)
        return NULL; /* told already, as soon or sooner */
    if (!rn) {
        rn = xzalloc (sizeof (*rn));
        rn->n = n;
        LIST_INSERT_HEAD (&rc->nodes, rn, link);
    }
    rn->taken = 0;
    rn->deadline_ms = now + left;
    snprintf (rn->source, sizeof (rn->source), "%s", source);
    n->drain |= NODE_DRAIN_RECLAIM;
    /* The instance dies at the deadline, give or take: a hello or a
     * failure until half a fence time after it is this reclaim's (a
     * worker that reconnects as its instance goes), not a boot or another
     * interruption. */
    n->reclaim_until_ms = rn->deadline_ms + window_ms (srv);
    LIST_FOREACH (job, jobs_running (srv->jobs), r_link)
    {
        struct rjob *rj;
        if (job->rec.state != 'R' || !job_on (job, n) || rjob_of (rc, job))
            continue;
        rj = xzalloc (sizeof (*rj));
        rj->job = job;
        rj->attempt = job->rec.run_count;
        rj->rn = rn;
        rj->requeue_ms = rn->deadline_ms - margin;
        LIST_INSERT_HEAD (&rc->jobs, rj, link);
        (*k)++;
        /* Asked for a checkpoint now; without one it leaves at its time. */
        rj->ask = ckpt_job_checkpoints (srv, job);
        rjob_ask (rc, rj);
    }
    return rn;
}

int reclaim_notice (struct reclaim *rc, struct node *n, int64_t deadline,
                    const char *source)
{
    struct server *srv = rc->srv;
    char detail[256];
    int k;

    if (!notice_apply (rc, n, deadline, source, &k))
        return 0;
    if (db_notice_put (srv->db, n->name, deadline, source, util_wall_secs ()) < 0)
        return -1;
    metrics_reclaim_notice (srv->metrics, n, 0);
    snprintf (detail, sizeof (detail), "%s: %s, taken in %.1f s; %d job%s", n->name,
              source, (double)(deadline - util_wall_secs ()), k, k == 1 ? "" : "s");
    log_msg (LOG_WARNING, "reclaim notice for node %s", detail);
    reclaim_event (rc, "node_reclaim_notice", detail);
    if (nodeclass_interrupted (srv->nodeclass, n, "reclaim", detail) < 0)
        log_error ("node %s: record its reclaim", n->name);
    spot_choice_reclaimed (srv->spot_choice, n, NULL);
    server_request_pass (srv);
    return 0;
}

/* A stored notice, after a restart: in force again, its interruption
 * counted already.  One whose deadline passed while the scheduler was
 * away: the node is gone, and its jobs with it. */
static int restore_one (const char *node, int64_t deadline, const char *source,
                        int was_taken, void *arg)
{
    struct reclaim *rc = arg;
    struct node *n = nodes_lookup (rc->srv->nodes, node);
    struct rnode *rn;
    int k;

    if (!n || !(rn = notice_apply (rc, n, deadline, source, &k)))
        return 0;
    if (was_taken) {
        rn->taken = 1; /* down before the restart; back only by a boot */
        (void)nodes_set_state (rc->srv, n, NODE_DOWN, NODE_EV_RECLAIMED,
                               "reclaimed before the scheduler restarted");
        snprintf (n->comment, sizeof (n->comment), "reclaimed (%s)", rn->source);
    } else if (deadline <= util_wall_secs ())
        taken (rc, rn, "the notice time was up while the scheduler was away");
    else
        log_msg (LOG_WARNING,
                 "reclaim notice for node %s (%s) restored: taken in %lld s; "
                 "%d job%s",
                 node, source, (long long)(deadline - util_wall_secs ()), k,
                 k == 1 ? "" : "s");
    return 0;
}

static void restore (struct reclaim *rc)
{
    rc->restored = 1;
    if (db_notice_foreach (rc->srv->db, restore_one, rc) < 0)
        log_error ("read the stored reclaim notices");
    server_request_pass (rc->srv);
}

/* A later boot: n takes jobs again (rn is freed). */
static void back (struct reclaim *rc, struct rnode *rn)
{
    struct node *n = rn->n;

    log_msg (LOG_INFO, "node %s is back after its reclaim", n->name);
    if (db_notice_delete (rc->srv->db, n->name) < 0)
        log_error ("node %s: forget its reclaim notice", n->name);
    n->drain &= ~NODE_DRAIN_RECLAIM;
    n->comment[0] = '\0';
    LIST_REMOVE (rn, link);
    free (rn);
}

void reclaim_node_hello (struct reclaim *rc, struct node *n)
{
    struct rnode *rn = rc ? rnode_of (rc, n) : NULL;

    if (!rn || !rn->taken)
        return; /* no notice, or a link that blinked: still draining */
    /* The instance saying hello as it dies at the deadline is no boot:
     * only one still there when the reclaim's window is over is. */
    if (util_now_ms () < n->reclaim_until_ms) {
        log_msg (LOG_INFO,
                 "node %s: hello within its reclaim's window: still reclaimed",
                 n->name);
        return;
    }
    back (rc, rn);
}

/* node.notice {provider, action, deadline}: the node's worker read its
 * provider's notice. */
static void handle_notice (struct server *srv, struct conn *c, struct wire_msg *msg)
{
    struct node *n = conn_aux (c);
    const char *provider, *action;
    json_int_t deadline;
    int64_t now = util_wall_secs ();
    char source[96];

    if (!n) {
        server_reply_error (c, msg, EPROTO, "node.notice before node.hello");
        return;
    }
    if (json_unpack (msg->body, "{s:s s:s s:I}", "provider", &provider, "action",
                     &action, "deadline", &deadline)
            < 0
        || deadline > now + RECLAIM_MAX_NOTICE) {
        server_reply_error (c, msg, EPROTO, "node.notice: malformed request");
        return;
    }
    if (deadline < now) {
        server_reply_error (c, msg, EINVAL, "node.notice: deadline %lld is in the past",
                            (long long)deadline);
        return;
    }
    snprintf (source, sizeof (source), "%.16s %.24s", provider, action);
    if (reclaim_notice (srv->reclaim, n, deadline, source) < 0) {
        server_reply_error (c, msg, EIO, "node.notice: %s", strerror (errno));
        return;
    }
    server_reply_after_commit (srv, c, msg, NULL);
}

/* node.reclaim {names, notice}: pbsnodes --reclaim, operators only. */
static void handle_reclaim (struct server *srv, struct conn *c, struct wire_msg *msg)
{
    json_t *names, *v;
    json_int_t notice = 120;
    char who[64], source[96];
    size_t i;

    if (json_unpack (msg->body, "{s:o s?I}", "names", &names, "notice", &notice) < 0
        || !json_is_array (names) || json_array_size (names) == 0 || notice < 0
        || notice > RECLAIM_MAX_NOTICE) {
        server_reply_error (c, msg, EPROTO, "node.reclaim: malformed request");
        return;
    }
    if (!server_is_operator (srv, conn_peer_uid (c))) {
        server_reply_error (c, msg, EPERM, "Unauthorized Request");
        return;
    }
    json_array_foreach (names, i, v)
    {
        const char *name = json_string_value (v);
        struct node *n = name ? nodes_lookup (srv->nodes, name) : NULL;
        if (!n || n->ncpus <= 0) {
            server_reply_error (c, msg, ENOENT, "Unknown node %s", name ? name : "?");
            return;
        }
        if (n->state != NODE_UP) {
            server_reply_error (c, msg, EAGAIN, "node %s is not up", name);
            return;
        }
    }
    server_user_name (conn_peer_uid (c), who, sizeof (who));
    snprintf (source, sizeof (source), "pbsnodes --reclaim by %s", who);
    json_array_foreach (names, i, v) (void)
        reclaim_notice (srv->reclaim, nodes_lookup (srv->nodes, json_string_value (v)),
                        util_wall_secs () + notice, source);
    server_reply_after_commit (srv, c, msg, NULL);
}

static const struct handler reclaim_handlers[] = {
    { "node.notice", handle_notice, ROLE_NODE },
    { "node.reclaim", handle_reclaim, ROLE_ANY },
    { NULL, NULL, 0 },
};

struct reclaim *reclaim_create (struct server *srv, struct hpcq_error *err)
{
    struct reclaim *rc = xzalloc (sizeof (*rc));

    rc->srv = srv;
    LIST_INIT (&rc->jobs);
    LIST_INIT (&rc->nodes);
    if (!(rc->tick = loop_timer_add (srv->loop, RECLAIM_TICK_MS, RECLAIM_TICK_MS,
                                     reclaim_tick, rc))
        || server_register (srv, reclaim_handlers) < 0) {
        errprintf (err, "cannot create the reclaim module: %s", strerror (errno));
        reclaim_destroy (rc);
        return NULL;
    }
    return rc;
}

void reclaim_destroy (struct reclaim *rc)
{
    struct rjob *rj;
    struct rnode *rn;

    if (!rc)
        return;
    loop_timer_remove (rc->tick);
    while ((rj = LIST_FIRST (&rc->jobs)))
        rjob_free (rj);
    while ((rn = LIST_FIRST (&rc->nodes))) {
        LIST_REMOVE (rn, link);
        free (rn);
    }
    free (rc);
}
