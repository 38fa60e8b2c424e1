/* subsystems.c - see subsystems.h
 *
 * The order matters and is commented where it does: settings that can be
 * refused come before the database is touched, the accounting log and
 * the history window before anything can change a job, the jobs loaded
 * before the handlers that read them are registered, the sockets last.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "scheduler/accounting.h"
#include "scheduler/ckpt.h"
#include "scheduler/cost.h"
#include "scheduler/deferred.h"
#include "scheduler/depend.h"
#include "scheduler/fairshare.h"
#include "scheduler/history.h"
#include "scheduler/jobs.h"
#include "scheduler/limits.h"
#include "scheduler/node_admin.h"
#include "scheduler/node_health.h"
#include "scheduler/nodeclass.h"
#include "scheduler/nodes.h"
#include "scheduler/power.h"
#include "scheduler/preempt.h"
#include "scheduler/queue.h"
#include "scheduler/reclaim.h"
#include "scheduler/spot_choice.h"
#include "scheduler/rpc/job_ops.h"
#include "scheduler/rpc/job_rpc.h"
#include "scheduler/rpc/job_step.h"
#include "scheduler/rpc/job_trace.h"
#include "scheduler/rpc/queue_rpc.h"
#include "scheduler/sched.h"
#include "scheduler/server_attr.h"
#include "scheduler/subsystems.h"
#include "scheduler/telemetry.h"
#include "scheduler/web/api.h"
#include "scheduler/web/http.h"
#include "scheduler/web/metrics.h"
#include "scheduler/web/statuspage.h"
#include "scheduler/worker_link.h"

static void hook_before_commit (struct server *srv)
{
    sched_run (srv->sched);
}

static void hook_after_commit (struct server *srv, int batch, double secs)
{
    if (batch)
        metrics_commit_observed (srv->metrics, secs);
    accounting_after_commit (srv->accounting);
}

/* Right after a restart: what needs the parsed requests waits for them (a
 * second or so at 100,000 jobs). */
static int hook_wait_loaded (struct server *srv)
{
    return jobs_loading (srv->jobs) ? jobs_load_wait (srv->jobs) : 0;
}

static void hook_conn_closed (struct server *srv, struct conn *c)
{
    job_ops_conn_closed (srv->job_ops, c);
    if (conn_aux (c)) {
        struct node *n = conn_aux (c);
        log_msg (LOG_WARNING, "node %s: connection lost", n->name);
        node_set_link (n, NULL);
    }
}

static const char *hook_http_address (struct server *srv)
{
    return srv->http ? http_address (srv->http) : NULL;
}

static const struct server_hooks hooks = {
    .before_commit = hook_before_commit,
    .after_commit = hook_after_commit,
    .wait_loaded = hook_wait_loaded,
    .conn_closed = hook_conn_closed,
    .http_address = hook_http_address,
};

/* Jobs reloaded while held for dependencies wait on them again. */
static void server_attach_depends (struct server *srv)
{
    struct hpcq_error err;
    struct job **all;
    int n;

    all = jobs_all (srv->jobs, &n);
    for (int i = 0; i < n; i++)
        if (all[i]->rec.state == 'H' && depend_waiting (all[i])
            && depend_attach (srv, all[i], &err) < 0)
            log_msg (LOG_ERR, "job %s: %s", all[i]->id, err.text);
    depend_update (srv);
}

/* The stored requests are parsed: what needs them may run. */
static void server_jobs_loaded (struct jobs *js, int rc, void *arg)
{
    struct server *srv = arg;

    if (rc < 0)
        server_load_failed ();
    server_attach_depends (srv);
    limits_recount (srv->limits); /* counting reads the requests */
    server_request_pass (srv);
}

struct server *subsystems_create (struct loop *loop, struct config *cfg,
                                  struct replica *replica, struct hpcq_error *err)
{
    struct server *srv = server_new (loop, cfg, &hooks, err);

    if (!srv)
        return NULL;
    srv->replica = replica;
    /* A bad power setting is refused before the database is touched. */
    if (!(srv->power = power_create (srv, err)) || server_open (srv, err) < 0)
        goto error;
    /* Before anything can change a job: the accounting log catches up with
     * its outbox, and the history window decides what is loaded. */
    srv->metrics = metrics_create (srv);
    if (!(srv->accounting = accounting_create (srv, err))
        || !(srv->history = history_create (srv, err))
        || !(srv->deferred = deferred_create (srv, err)))
        goto error;
    if (!(srv->nodes = nodes_create (srv)) || !(srv->wlink = worker_link_create (srv))
        || !(srv->jobs = jobs_create (srv)) || !(srv->depend = depend_create ())) {
        errprintf (err, "cannot create subsystems: %s", strerror (errno));
        goto error;
    }
    if (!(srv->sched = sched_create (srv, err))
        || !(srv->limits = limits_create (srv, err))
        || !(srv->attrs = server_attr_create (srv, err)))
        goto error;
    if (!(srv->queues = queue_create_all (srv, err))
        || !(srv->fairshare = fairshare_create (srv, err))
        || !(srv->nodeclass = nodeclass_create (srv, err))
        || !(srv->ckpt = ckpt_create (srv, err))
        || !(srv->preempt = preempt_create (srv, err)))
        goto error;
    if (!queue_lookup (srv->queues, srv->default_queue)) {
        errprintf (err, "default_queue '%s' does not exist", srv->default_queue);
        goto error;
    }
    /* Readers of the database (hpcq-report) name jobs as we do. */
    if (db_server_set (srv->db, "server_name", srv->name) < 0
        || nodes_load (srv->nodes) < 0
        || jobs_load (srv->jobs, history_cutoff (srv->history), server_jobs_loaded, srv)
               < 0
        || ckpt_load (srv->ckpt) < 0 || !(srv->cost = cost_create (srv))
        || db_commit (srv->db) < 0) {
        errprintf (err, "cannot load jobs from the database");
        goto error;
    }
    if (job_rpc_register (srv) < 0 || queue_rpc_register (srv) < 0
        || node_admin_register (srv) < 0 || server_attr_register (srv) < 0
        || server_hook_loop (srv) < 0 || !(srv->job_ops = job_ops_create (srv))
        || job_trace_register (srv) < 0 || job_step_register (srv) < 0
        || !(srv->telemetry = telemetry_create (srv))
        || !(srv->node_health = node_health_create (srv))) {
        errprintf (err, "cannot register handlers");
        goto error;
    }
    /* Elastic cloud nodes, once the jobs say which nodes run some; spot
     * reclaims. */
    if (power_start (srv->power, err) < 0 || !(srv->reclaim = reclaim_create (srv, err))
        || !(srv->spot_choice = spot_choice_create (srv, err)))
        goto error;
    if (http_create (srv, &srv->http, err) < 0)
        goto error;
    if (metrics_configure (srv->metrics, srv->cfg, err) < 0)
        goto error;
    if (metrics_register (srv->metrics, srv->http) < 0
        || api_register (srv, srv->http) < 0 || statuspage_register (srv->http) < 0) {
        errprintf (err, "cannot register the HTTP paths");
        goto error;
    }
    /* After every setting is checked (their errors come first), before
     * anyone can connect. */
    if (server_start (srv, err) < 0)
        goto error;
    return srv;
error:
    subsystems_destroy (srv);
    return NULL;
}

void subsystems_destroy (struct server *srv)
{
    if (!srv)
        return;
    int saved = errno;
    int committed = server_commit_now (srv);

    http_destroy (srv->http);
    /* Only what is durable may be sent, or written to the accounting log. */
    server_flush_pending (srv, committed);
    if (committed)
        accounting_after_commit (srv->accounting);
    accounting_destroy (srv->accounting);
    server_stop_clients (srv);
    spot_choice_destroy (srv->spot_choice);
    reclaim_destroy (srv->reclaim);
    power_destroy (srv->power);
    server_close_sockets (srv);
    job_ops_destroy (srv->job_ops);
    cost_destroy (srv->cost);
    preempt_destroy (srv->preempt);
    ckpt_destroy (srv->ckpt);
    nodeclass_destroy (srv->nodeclass);
    node_health_destroy (srv->node_health);
    telemetry_destroy (srv->telemetry);
    history_destroy (srv->history);
    deferred_destroy (srv->deferred);
    metrics_destroy (srv->metrics);
    sched_destroy (srv->sched);
    server_attr_destroy (srv->attrs);
    limits_destroy (srv->limits);
    depend_destroy (srv->depend);
    jobs_destroy (srv->jobs);
    fairshare_destroy (srv->fairshare);
    queue_destroy_all (srv->queues);
    worker_link_destroy (srv->wlink);
    nodes_destroy (srv->nodes);
    server_free (srv);
    errno = saved;
}
