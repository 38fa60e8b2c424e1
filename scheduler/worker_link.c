/* worker_link.c - see worker_link.h */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/ckptreport.h"
#include "common/log.h"
#include "common/util.h"
#include "db/db_node.h"
#include "scheduler/ckpt.h"
#include "scheduler/jobs.h"
#include "scheduler/lifecycle.h"
#include "scheduler/node_state.h"
#include "scheduler/nodeclass.h"
#include "scheduler/nodes.h"
#include "scheduler/power.h"
#include "scheduler/reclaim.h"
#include "scheduler/sched.h"
#include "scheduler/worker_link.h"

struct worker_link {
    struct server *srv;
    struct loop_timer *check;
};

static const struct handler node_handlers[];

/* 1 (and job in *out) if job has a slot on n. */
static int node_job_on (struct job *job, const struct node *n, struct job **out)
{
    for (int s = 0; job->alloc && s < job->alloc->n; s++)
        if (job->alloc->slot[s].node == n) {
            *out = job;
            return 1;
        }
    return 0;
}

/* Every job the scheduler believes runs on node n. */
static int node_jobs (struct server *srv, struct node *n, struct job **out, int max)
{
    struct job *job;
    int k = 0;

    /* The running list: every job holding an allocation, array subjobs
     * too; then the suspended ones, whose processes are there, stopped. */
    LIST_FOREACH (job, jobs_running (srv->jobs), r_link)
    {
        if (k == max)
            break;
        if (!job->alloc || (job->rec.state != 'R' && job->rec.state != 'E'))
            continue;
        k += node_job_on (job, n, out + k);
    }
    LIST_FOREACH (job, jobs_suspended (srv->jobs), s_link)
    {
        if (k == max)
            break;
        k += node_job_on (job, n, out + k);
    }
    return k;
}

/* A copy of a job attempt that must not run on n (requeued, or given up). */
static void node_kill_stale (struct node *n, int64_t seq, int attempt)
{
    struct wire_msg m;

    wire_request_init (&m, "job.signal", 0,
                       json_pack ("{s:I s:i s:s s:s}", "seq", (json_int_t)seq,
                                  "attempt", attempt, "signal", "KILL", "reason",
                                  "stale"));
    log_msg (LOG_WARNING, "node %s runs stale job %lld attempt %d: killing it", n->name,
             (long long)seq, attempt);
    (void)nodes_send (n, &m);
    wire_msg_release (&m);
}

static void node_mark_down (struct server *srv, struct node *n, const char *why)
{
    struct job *jobs[1024];
    int k = node_jobs (srv, n, jobs, 1024);
    char reason[256];

    log_msg (LOG_WARNING, "node %s is down: %s (%d jobs affected)", n->name, why, k);
    /* A node that was up and stopped answering was interrupted (the
     * Young/Daly interval learns from it); one that never came back after
     * a scheduler restart was down already. */
    if (n->state == NODE_UP
        && nodeclass_interrupted (srv->nodeclass, n, "failure", why) < 0)
        log_error ("node %s: record interruption", n->name);
    (void)nodes_set_state (srv, n, NODE_DOWN, NODE_EV_TIMEOUT, why);
    snprintf (reason, sizeof (reason), "node %s %s", n->name, why);
    for (int i = 0; i < k; i++) {
        /* A job whose script runs on another node (its mother superior)
         * is stopped there: the attempt is over on every host. */
        struct node *mother = jobs[i]->alloc->slot[0].node;
        if (mother != n && mother->conn)
            node_kill_stale (mother, jobs[i]->rec.seq, jobs[i]->rec.run_count);
        if (lifecycle_node_lost (srv, jobs[i], reason) < 0)
            log_error ("job %s: handle node loss", jobs[i]->id);
    }
    if (n->conn) {
        conn_set_aux (n->conn, NULL);
        conn_close (n->conn);
        node_set_link (n, NULL);
    }
}

static void node_check_timer (struct loop *l, void *arg)
{
    struct worker_link *wl = arg;
    struct server *srv = wl->srv;
    int64_t now = util_now_ms ();
    int nn;

    /* After a restart, give workers one timeout to come back before their
     * jobs are given up on. */
    if (now - srv->started_ms < srv->node_timeout_ms)
        return;
    if (jobs_load_wait (srv->jobs) < 0) /* its jobs, fully loaded */
        return;
    (void)nodes_all (srv->nodes, &nn);
    for (int i = 0; i < nn; i++) {
        struct node *n = nodes_all (srv->nodes, &nn)[i];
        /* A cloud node powered off, resuming or suspending is power.c's. */
        if (n->state == NODE_DOWN || n->power != NODE_POWER_ON)
            continue;
        /* A node with a reclaim notice is reclaim.c's: taken at its
         * deadline, or node_timeout after its link went (one
         * interruption, not a reclaim and then a failure). */
        if (n->drain & NODE_DRAIN_RECLAIM)
            continue;
        if (now - n->last_heard_ms > srv->node_timeout_ms)
            node_mark_down (srv, n,
                            n->state == NODE_UNKNOWN
                                ? "did not return after a scheduler restart"
                                : "stopped sending heartbeats");
    }
}

static void node_record (struct server *srv, struct node *n, json_t *gpus)
{
    char *gtext = json_dumps (gpus, JSON_COMPACT);
    struct db_node rec = {
        .ncpus = n->ncpus,
        .mem = n->mem,
        .gpus = gtext,
        .labels = n->labels,
        .state = node_state_name (n->state),
        .last_seen = util_wall_secs (),
    };

    snprintf (rec.name, sizeof (rec.name), "%s", n->name);
    if (db_node_upsert (srv->db, &rec) < 0)
        log_error ("node %s: record", n->name);
    free (gtext);
}

/* A job the worker reports as running: keep it if it is ours, else kill it. */
static void node_reconcile_running (struct server *srv, struct node *n, json_t *running)
{
    json_t *r;
    size_t i;

    json_array_foreach (running, i, r)
    {
        json_int_t seq;
        int attempt;
        struct job *job;
        if (json_unpack (r, "{s:I s:i}", "seq", &seq, "attempt", &attempt) < 0)
            continue;
        job = jobs_lookup (srv->jobs, seq);
        if (job
            && (job->rec.state == 'R' || job->rec.state == 'E' || job->rec.state == 'S')
            && job->rec.run_count == attempt && job->alloc
            && job->alloc->slot[0].node == n) {
            job->launch_pending = 0;
            log_msg (LOG_INFO, "job %s (%s) still running on %s", job->id,
                     job->rec.owner, n->name);
            if (job->rec.state == 'E')
                job_signal_worker (job, "TERM", "deleted"); /* qdel while away */
            continue;
        }
        /* Requeued elsewhere or deleted while the node was away: the copy
         * must not run on, or the job would run twice. */
        node_kill_stale (n, seq, attempt);
    }
}

static void node_finished (struct server *srv, struct node *n, json_t *body);

/* Jobs we think run on n that the worker neither runs nor finished. */
static void node_reconcile_missing (struct server *srv, struct node *n, json_t *running,
                                    json_t *finished)
{
    struct job *jobs[1024];
    int k = node_jobs (srv, n, jobs, 1024);

    for (int i = 0; i < k; i++) {
        struct job *job = jobs[i];
        int found = 0;
        json_t *r;
        size_t j;
        if (job->alloc->slot[0].node != n)
            continue; /* sister node: the mother superior reports it */
        json_array_foreach (running, j,
                            r) if (json_integer_value (json_object_get (r, "seq"))
                                   == job->rec.seq) found = 1;
        json_array_foreach (finished, j,
                            r) if (json_integer_value (json_object_get (r, "seq"))
                                   == job->rec.seq) found = 1;
        if (found)
            continue;
        if (job->rec.session_id == 0 && job->rec.state == 'R') {
            /* Started here but never reported started by the worker: the
             * launch was lost (e.g. the scheduler died between commit and
             * send).  This attempt never ran, so send it again. */
            log_msg (LOG_INFO, "job %s: launch was lost, sending it again", job->id);
            sched_launch (srv, job);
        } else
            lifecycle_node_lost (srv, job, "its node restarted and lost it");
    }
}

/* Check the whole hello before it touches any node: a malformed one must
 * neither create a node nor disturb the worker that owns the name. */
static int node_hello_parse (struct node *n, json_t *body, json_t **gpus,
                             json_t **running, json_t **finished)
{
    const char *labels = "";
    json_int_t mem;
    json_t *ib = NULL, *topo = NULL;

    if (json_unpack (body, "{s:i s:I s:o s?s s:o s:o s?o s?o s?b}", "ncpus", &n->ncpus,
                     "mem", &mem, "gpus", gpus, "labels", &labels, "running", running,
                     "finished", finished, "ib", &ib, "topology", &topo, "oci", &n->oci)
            < 0
        || n->ncpus < 1 || mem < 0 || !json_is_array (*running)
        || !json_is_array (*finished) || gpu_from_json (*gpus, n->gpu, &n->ngpus) < 0
        || ib_from_json (ib, n->ib, IB_PORT_MAX, &n->nib) < 0
        || topoinfo_from_json (topo, &n->topo) < 0)
        return -1;
    n->mem = mem;
    snprintf (n->labels, sizeof (n->labels), "%s", labels);
    return 0;
}

/* Copy what the worker reported into the node record, keeping the
 * scheduler's own bookkeeping (usage, GPU owners). */
static void node_take_resources (struct node *n, const struct node *rep)
{
    n->ncpus = rep->ncpus;
    n->mem = rep->mem;
    snprintf (n->labels, sizeof (n->labels), "%s", rep->labels);
    for (int g = 0; g < rep->ngpus; g++) {
        struct gpu old = g < n->ngpus ? n->gpu[g] : (struct gpu){ .nmig = 0 };
        n->gpu[g] = rep->gpu[g];
        n->gpu[g].used_by = old.used_by;
        for (int i = 0; i < n->gpu[g].nmig && i < old.nmig; i++)
            n->gpu[g].mig[i].used_by = old.mig[i].used_by;
    }
    n->ngpus = rep->ngpus;
    memcpy (n->ib, rep->ib, sizeof (n->ib));
    n->nib = rep->nib;
    n->topo = rep->topo;
    n->oci = rep->oci;
    place_node_sync (n);
}

/* The peer's host, without the port ("10.0.0.7:40312" -> "10.0.0.7"),
 * or "local" for the Unix socket. */
static void node_peer_host (struct conn *c, char *buf, size_t len)
{
    const char *name = conn_peer_name (c), *colon = strrchr (name, ':');
    size_t n = colon ? (size_t)(colon - name) : strlen (name);

    if (conn_is_local (c))
        snprintf (buf, len, "local");
    else
        snprintf (buf, len, "%.*s", (int)(n < len ? n : len - 1), name);
}

/* A node name belongs to the worker whose link holds it: a second claimant
 * is refused while that link lives (it used to evict it, which let anyone
 * who could say hello take over a node and its jobs' results).  A worker
 * that restarts gets its name back once its old link is gone: at once if
 * the old process died (its socket closes), else after node_timeout.
 * -1 if refused (answered). */
static int node_claim (struct server *srv, struct conn *c, struct wire_msg *msg,
                       const char *name)
{
    struct node *n = nodes_lookup (srv->nodes, name), *held = conn_aux (c);
    char host[64];

    if (held && strcmp (held->name, name) != 0) {
        server_reply_error (c, msg, EPROTO,
                            "node.hello: this link speaks for node %s, "
                            "not %s",
                            held->name, name);
        return -1;
    }
    node_peer_host (c, host, sizeof (host));
    if (n && n->conn && n->conn != c) {
        log_msg (LOG_WARNING,
                 "node %s: refused a second claimant at %s (uid %d): the "
                 "worker at %s holds the name",
                 name, conn_peer_name (c), (int)conn_peer_uid (c),
                 conn_peer_name (n->conn));
        server_reply_error (c, msg, EEXIST,
                            "node.hello: node %s is held by a live "
                            "worker at %s; not evicting it",
                            name, conn_peer_name (n->conn));
        conn_close_after_flush (c);
        return -1;
    }
    if (n && n->holder[0] && strcmp (n->holder, host) != 0)
        log_msg (LOG_WARNING, "node %s: registers from %s (uid %d), last time from %s",
                 name, host, (int)conn_peer_uid (c), n->holder);
    return 0;
}

static void node_hello (struct server *srv, struct conn *c, struct wire_msg *msg)
{
    json_t *gpus, *running, *finished, *f;
    const char *name;
    struct node *n, rep = { .ngpus = 0 };
    size_t i;

    if (json_unpack (msg->body, "{s:s}", "name", &name) < 0 || !*name
        || strlen (name) >= sizeof (n->name)) {
        server_reply_error (c, msg, EPROTO, "node.hello: missing or bad name");
        return;
    }
    if (node_hello_parse (&rep, msg->body, &gpus, &running, &finished) < 0) {
        server_reply_error (c, msg, EPROTO, "node.hello: malformed resources");
        return;
    }
    if (node_claim (srv, c, msg, name) < 0)
        return;
    n = nodes_get (srv->nodes, name);
    node_take_resources (n, &rep);
    node_set_link (n, c);
    node_peer_host (c, n->holder, sizeof (n->holder));
    conn_set_aux (c, n);
    (void)nodes_set_state (srv, n, NODE_UP, NODE_EV_HELLO, n->holder);
    power_node_hello (srv->power, n);
    reclaim_node_hello (srv->reclaim, n);
    n->last_heard_ms = util_now_ms ();
    node_record (srv, n, gpus);
    log_msg (LOG_INFO, "node %s up: %d cpus, %lld bytes, %d gpus, %zu running", n->name,
             n->ncpus, (long long)n->mem, n->ngpus, json_array_size (running));
    node_reconcile_running (srv, n, running);
    json_array_foreach (finished, i, f) node_finished (srv, n, f);
    node_reconcile_missing (srv, n, running, finished);
    server_request_pass (srv);
    server_reply_after_commit (srv, c, msg,
                               json_pack ("{s:s s:I}", "server", srv->name, "fence_ms",
                                          (json_int_t)srv->fence_ms));
}

static struct node *node_of (struct server *srv, struct conn *c,
                             const struct wire_msg *msg)
{
    struct node *n = conn_aux (c);
    if (!n)
        server_reply_error (c, msg, EPROTO, "%s before node.hello", msg->type);
    else
        n->last_heard_ms = util_now_ms ();
    return n;
}

static void node_heartbeat (struct server *srv, struct conn *c, struct wire_msg *msg)
{
    struct node *n = node_of (srv, c, msg);
    json_t *jobs;

    if (!n)
        return;
    /* Heard from: a node a mother superior reported failed is placed again. */
    n->reachable = n->conn != NULL;
    /* The CPU time of jobs that checkpoint on CPU time (-c c=MIN). */
    if ((jobs = json_object_get (msg->body, "jobs")) && json_is_array (jobs))
        ckpt_note_usage (srv, n, jobs);
    (void)conn_reply (c, msg, 0, NULL, NULL);
}

/* A running job's GPU figures from its node.usage entry e: kept (a
 * malformed report is dropped, the last good one stays). */
static void node_usage_gpus (struct job *job, json_t *e)
{
    struct gpu_live l;

    if (gpu_live_from_json (e, &l) <= 0)
        return;
    if (!job->gpu_live)
        job->gpu_live = xzalloc (sizeof (*job->gpu_live));
    *job->gpu_live = l;
}

/* node.usage: {jobs: [{seq, attempt, cput, mem?, GPU figures?}]}, what
 * the jobs whose mother superior this node is used so far
 * (worker/usage.h).  Kept in memory only: qstat, the API and the per-job
 * GPU metrics show it while the job runs. */
static void node_usage (struct server *srv, struct conn *c, struct wire_msg *msg)
{
    struct node *n = node_of (srv, c, msg);
    json_t *jobs, *e;
    size_t i;

    if (!n)
        return;
    jobs = json_object_get (msg->body, "jobs");
    json_array_foreach (jobs, i, e)
    {
        json_int_t seq, cput, mem = -1;
        int attempt;
        struct job *job;
        if (json_unpack (e, "{s:I s:i s:I s?I}", "seq", &seq, "attempt", &attempt,
                         "cput", &cput, "mem", &mem)
            < 0)
            continue;
        job = jobs_lookup (srv->jobs, seq);
        if (job && job->alloc && job->rec.run_count == attempt
            && job->alloc->slot[0].node == n && job->rec.state != 'F') {
            job->used_cput = cput;
            job->used_mem = mem;
            node_usage_gpus (job, e);
        }
    }
    (void)conn_reply (c, msg, 0, NULL, NULL);
}

/* The job on this node, in the attempt the worker speaks of, or NULL. */
static struct job *node_job (struct server *srv, struct node *n, json_t *body,
                             int *attempt)
{
    json_int_t seq;
    struct job *job;

    if (json_unpack (body, "{s:I s:i}", "seq", &seq, "attempt", attempt) < 0)
        return NULL;
    job = jobs_lookup (srv->jobs, seq);
    if (!job || !job->alloc || job->rec.run_count != *attempt
        || job->alloc->slot[0].node != n
        || (job->rec.state != 'R' && job->rec.state != 'E' && job->rec.state != 'S'))
        return NULL;
    return job;
}

/* The cores, memory nodes and GPUs the worker bound the job to, for
 * qstat -f's exec_binding.  Only lists of numbers are taken from it. */
static void node_job_binding (const struct node *n, struct job *job, json_t *body)
{
    const char *cpus = NULL, *mems = "", *gpus = "";
    size_t len;

    if (json_unpack (body, "{s:s s?s s?s}", "threads", &cpus, "mems", &mems, "gpus",
                     &gpus)
            < 0
        || strspn (cpus, "0123456789,-") != strlen (cpus)
        || strspn (mems, "0123456789,-") != strlen (mems)
        || strspn (gpus, "0123456789,-") != strlen (gpus)
        || strlen (cpus) + strlen (mems) + strlen (gpus) > 1024)
        return;
    free (job->binding);
    len = strlen (n->name) + strlen (cpus) + strlen (mems) + strlen (gpus) + 32;
    job->binding = xzalloc (len);
    snprintf (job->binding, len, "%s:cpus=%s%s%s%s%s", n->name, cpus,
              mems[0] ? ":mems=" : "", mems, gpus[0] ? ":gpus=" : "", gpus);
}

static void node_job_started (struct server *srv, struct conn *c, struct wire_msg *msg)
{
    struct node *n = node_of (srv, c, msg);
    struct job *job;
    json_int_t sid = 0;
    int attempt;

    if (!n)
        return;
    if ((job = node_job (srv, n, msg->body, &attempt))) {
        (void)json_unpack (msg->body, "{s?I}", "session_id", &sid);
        node_job_binding (n, job, msg->body);
        job->launch_pending = 0;
        job->rec.session_id = sid;
        if (jobs_write (srv->jobs, job) < 0)
            log_error ("job %s: record session", job->id);
    }
    server_reply_after_commit (srv, c, msg, NULL);
}

static void node_finished (struct server *srv, struct node *n, json_t *body)
{
    json_int_t cput = 0, wall = 0, maxrss = 0;
    const char *reason = NULL, *failed;
    int exit_status, attempt;
    struct job *job = node_job (srv, n, body, &attempt);

    if (!job) {
        log_msg (LOG_DEBUG, "node %s: result for a job not running there", n->name);
        return;
    }
    if (json_unpack (body, "{s:i s?I s?I s?I s?s}", "exit_status", &exit_status, "cput",
                     &cput, "walltime", &wall, "maxrss", &maxrss, "reason", &reason)
        < 0) {
        log_msg (LOG_WARNING, "node %s: malformed job.finished", n->name);
        return;
    }
    /* Out-of-bounds GPU figures are dropped, not the result. */
    if ((job->has_gpu_used = gpu_usage_from_json (body, &job->gpu_used)) < 0) {
        log_msg (LOG_WARNING,
                 "job %s: node %s reported GPU usage out of bounds: ignored", job->id,
                 n->name);
        job->has_gpu_used = 0;
    }
    if (!reason && job->rec.state == 'E' && job->rec.comment)
        reason = job->rec.comment; /* e.g. "Job deleted by alice" */
    /* Its mother superior lost another of its hosts (worker/tm.h): as a
     * node loss, requeued if rerunnable, the failed host named. */
    if (json_unpack (body, "{s:s}", "host_failed", &failed) == 0
        && job->rec.state == 'R') {
        /* Not placed again until heard from (its heartbeat; its link
         * closes if it is gone), so the new attempt goes elsewhere. */
        struct node *bad = nodes_lookup (srv->nodes, failed);
        if (bad)
            bad->reachable = 0;
        if (lifecycle_node_lost (srv, job, reason ? reason : "a host failed") < 0)
            log_error ("job %s: handle host failure", job->id);
        return;
    }
    /* Its app found none of its checkpoints usable (ckpt.h). */
    if (exit_status == CKPT_EXIT_INVALID && job->rec.state == 'R') {
        char why[300];
        int rc = ckpt_corrupt (srv, job, why, sizeof (why));
        if (rc < 0)
            log_error ("job %s: handle its unusable checkpoints", job->id);
        if (rc != 0)
            return;
        if (why[0])
            reason = why;
    }
    /* Killed by its node's fence (worker/fence.h): the node was cut off,
     * not the job at fault; as a node loss (a -r n job fails). */
    if (json_is_true (json_object_get (body, "fenced")) && job->rec.state == 'R') {
        if (lifecycle_node_lost (srv, job, reason ? reason : "fenced") < 0)
            log_error ("job %s: handle a fenced job", job->id);
        return;
    }
    if (lifecycle_end (srv, job, exit_status, reason, cput, wall, maxrss, n->name) < 0)
        log_error ("job %s: record result", job->id);
}

static void node_job_finished (struct server *srv, struct conn *c, struct wire_msg *msg)
{
    struct node *n = node_of (srv, c, msg);

    if (!n)
        return;
    node_finished (srv, n, msg->body);
    /* The worker forgets the result only once it is durable here. */
    server_reply_after_commit (srv, c, msg, NULL);
}

static const struct handler node_handlers[] = {
    { "node.hello", node_hello, ROLE_NODE },
    { "node.heartbeat", node_heartbeat, ROLE_NODE },
    { "node.usage", node_usage, ROLE_NODE },
    { "job.started", node_job_started, ROLE_NODE },
    { "job.finished", node_job_finished, ROLE_NODE },
    { NULL, NULL, 0 },
};

struct worker_link *worker_link_create (struct server *srv)
{
    struct worker_link *wl = calloc (1, sizeof (*wl));

    if (!wl)
        return NULL;
    wl->srv = srv;
    if (!(wl->check = loop_timer_add (srv->loop, 500, 500, node_check_timer, wl))
        || server_register (srv, node_handlers) < 0) {
        worker_link_destroy (wl);
        return NULL;
    }
    return wl;
}

void worker_link_destroy (struct worker_link *wl)
{
    if (!wl)
        return;
    loop_timer_remove (wl->check);
    free (wl);
}
