/* worker.c - see worker.h */
#include <config.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/auth.h"
#include "common/authq.h"
#include "common/client.h"
#include "common/link.h"
#include "common/log.h"
#include "common/resource.h"
#include "common/util.h"
#include "worker/checkpoint.h"
#include "worker/ckpt_remove.h"
#include "worker/container.h"
#include "worker/fence.h"
#include "worker/gpumon.h"
#include "worker/health.h"
#include "worker/launch.h"
#include "worker/notice.h"
#include "worker/tasks.h"
#include "worker/usage.h"
#include "worker/tm.h"
#include "worker/topo.h"
#include "worker/worker.h"

/* qmsg: a line into the job's error (E) and/or output (O) file, written
 * as the job's owner. */
static void worker_message (struct worker *w, struct conn *c, struct wire_msg *msg)
{
    const char *text, *to;
    json_int_t seq;
    int attempt;
    struct task *t;

    if (json_unpack (msg->body, "{s:I s:i s:s s:s}", "seq", &seq, "attempt", &attempt,
                     "text", &text, "to", &to)
        < 0) {
        (void)conn_reply (c, msg, EPROTO, "job.message: malformed request", NULL);
        return;
    }
    (void)conn_reply (c, msg, 0, NULL, NULL);
    if ((t = tasks_find (w->tasks, seq, attempt)))
        tasks_message (w->tasks, t, to, text);
}

static void worker_link_msg (struct conn *c, struct wire_msg *msg, void *arg);
static void worker_link_close (struct conn *c, void *arg);

/* What matters is sent again with the hello when it could not go. */
int64_t worker_send (struct worker *w, const char *type, json_t *body)
{
    struct wire_msg m;
    int64_t id = w->next_id++;

    wire_request_init (&m, type, id, body);
    if (!w->link || w->opening || conn_send (w->link, &m) < 0)
        id = 0;
    wire_msg_release (&m);
    return id;
}

int64_t worker_notify (struct worker *w, const char *type, json_t *body)
{
    return worker_send (w, type, body);
}

void worker_child_exited (struct worker *w, pid_t pid, int status)
{
    if (fence_exited (w->fence, pid))
        return;
    (void)health_child_exited (w->health, pid, status);
}

void worker_report (struct worker *w, struct task *t)
{
    if (t->report_id == REPORT_NONE_WANTED) {
        tasks_remove (w->tasks, t);
        return;
    }
    /* While the hello is unanswered the result rides with the next one. */
    if (!w->link || w->hello_id)
        return;
    t->report_id = worker_send (w, "job.finished", task_result_json (t));
}

/* The InfiniBand ports, from sysfs.  test_ib_sysfs_root is a test hook
 * (a fake tree in a test's folder): it comes only from the worker's own
 * configuration, which its administrator writes, never from a job. */
static void worker_ib_scan (struct worker *w)
{
    w->nib =
        ib_scan (config_get (w->cfg, "test_ib_sysfs_root", "/sys"), w->ib, IB_PORT_MAX);
    ib_usable_list (w->ib, w->nib, w->ucx_devices, sizeof (w->ucx_devices));
}

/* Mark what the hello carries so its acknowledgement can retire them. */
static void worker_hello (struct worker *w)
{
    for (struct task *t = tasks_first (w->tasks); t; t = tasks_next (t))
        if (t->done)
            t->report_id = REPORT_IN_HELLO;
    worker_ib_scan (w);
    json_t *body =
        json_pack ("{s:s s:i s:I s:o s:s s:o s:o}", "name", w->name, "ncpus", w->ncpus,
                   "mem", (json_int_t)w->mem, "gpus", gpu_to_json (w->gpus, w->ngpus),
                   "labels", w->labels, "running", tasks_running_json (w->tasks),
                   "finished", tasks_finished_json (w->tasks));
    if (body)
        json_object_set_new (body, "ib", ib_to_json (w->ib, w->nib));
    if (body && w->container_helper[0])
        json_object_set_new (body, "oci", json_true ());
    if (body && w->topo) {
        struct topoinfo info;
        topo_info (w->topo, &info);
        json_object_set_new (body, "topology", topoinfo_to_json (&info));
    }
    w->hello_id = worker_send (w, "node.hello", body);
    fence_sent (w->fence, w->hello_id, util_now_ms ());
}

/* Over a Unix socket the kernel says who listens (SO_PEERCRED, at the time
 * it listened): the hello goes only to a service uid, and nothing else on
 * the link needs a credential. */
static void worker_local_link (struct worker *w)
{
    uid_t uid = conn_peer_uid (w->link);

    if (!auth_is_service (w->auth, uid)) {
        log_msg (LOG_ERR,
                 "refusing the scheduler at %s: it runs as uid %d, not root or "
                 "the cluster's service user; closing the link",
                 w->server, (int)uid);
        conn_close (w->link);
        return;
    }
    worker_hello (w);
}

/* The link's handshake (common/link.h) is over: the scheduler proved
 * itself a service uid, and every frame from now on is sealed. */
static void worker_link_done (struct conn *c, int ok, uid_t uid, const char *why,
                              void *arg)
{
    struct worker *w = arg;

    if (ok < 0) {
        log_msg (LOG_ERR, "refusing the scheduler at %s: %s; closing the link",
                 w->server, why);
        conn_close (c);
        return;
    }
    w->opening = 0;
    log_msg (LOG_INFO, "scheduler at %s authenticated (uid %u)", w->server,
             (unsigned)uid);
    worker_hello (w);
}

struct server_pick {
    struct worker *w;
    int i;
};

static int server_pick_one (const char *addr, void *arg)
{
    struct server_pick *p = arg;

    if (p->i++ < p->w->server_next)
        return -1;
    snprintf (p->w->server, sizeof (p->w->server), "%s", addr);
    return 0;
}

/* The next address of the list into w->server; 1 if the list starts
 * again from its first. */
static int worker_next_server (struct worker *w)
{
    struct server_pick p = { w, 0 };

    if (client_each_address (w->servers, server_pick_one, &p) == 0) {
        w->server_next++;
        return 0;
    }
    w->server_next = 0;
    p.i = 0;
    (void)client_each_address (w->servers, server_pick_one, &p);
    w->server_next = 1;
    return 1;
}

static void worker_connect (struct worker *w)
{
    struct hpcq_error err;
    int fd, again = worker_next_server (w);

    /* A list is walked quickly: a follower refuses at once. */
    w->next_connect_ms =
        util_now_ms () + (again || !strchr (w->servers, ',') ? 1000 : 50);
    if ((fd = client_dial (w->server, &err)) < 0) {
        log_msg (LOG_DEBUG, "%s", err.text);
        return;
    }
    /* Connected: the same address first next time. */
    w->server_next--;
    if (!(w->link = conn_create (w->loop, fd, worker_link_msg, worker_link_close, w))) {
        log_error ("scheduler link");
        return;
    }
    log_msg (LOG_INFO, "connected to scheduler at %s", w->server);
    if (!w->auth)
        worker_hello (w);
    else if (conn_is_local (w->link))
        worker_local_link (w);
    else {
        struct link_opts o = { .q = w->authq,
                               .dir = AUTH_TO_SCHEDULER,
                               .lifetime_ms = w->session_ms,
                               .service_only = 1,
                               .done = worker_link_done,
                               .arg = w };
        w->opening = 1;
        if (link_open (w->link, &o) < 0) {
            log_error ("link.open: no random numbers");
            conn_close (w->link);
        }
    }
}

static void worker_link_close (struct conn *c, void *arg)
{
    struct worker *w = arg;

    log_msg (LOG_WARNING, "lost the scheduler at %s; jobs keep running (%d tasks)",
             w->server, tasks_count (w->tasks));
    w->link = NULL;
    w->hello_id = 0;
    w->opening = 0;
    checkpoint_link_down (w->ckpt);
    /* Results in flight are re-sent with the next hello. */
    for (struct task *t = tasks_first (w->tasks); t; t = tasks_next (t))
        if (t->report_id != REPORT_NONE_WANTED)
            t->report_id = 0;
}

/* The hello is durable on the scheduler: the results it carried are known.
 * Its answer says how long the node's lease is (fence.h). */
static void worker_hello_acked (struct worker *w, struct wire_msg *msg)
{
    struct task *t = tasks_first (w->tasks), *next;
    json_int_t fence_ms = 0;

    (void)json_unpack (msg->body, "{s?I}", "fence_ms", &fence_ms);
    fence_set_time (w->fence, fence_ms);
    (void)fence_answered (w->fence, w->hello_id);
    if (fence_ms > 0 && w->heartbeat_ms * 2 > fence_ms)
        log_msg (LOG_WARNING,
                 "heartbeat_interval %lld s is more than half the scheduler's fence "
                 "time (%.1f s): a late heartbeat kills this node's jobs",
                 (long long)w->heartbeat_ms / 1000, fence_ms / 1000.0);
    w->hello_id = 0;
    notice_link_up (w->notice);
    for (; t; t = next) {
        next = tasks_next (t);
        if (t->done && t->report_id == REPORT_IN_HELLO)
            tasks_remove (w->tasks, t);
        else if (t->done)
            worker_report (w, t);
    }
    health_link_up (w->health);
    checkpoint_link_up (w->ckpt);
}

static void worker_handle_reply (struct worker *w, struct wire_msg *msg)
{
    struct task *t;

    if (notice_reply (w->notice, msg))
        return;
    if (msg->errnum) {
        log_msg (LOG_ERR, "scheduler refused %s: %s", msg->type,
                 msg->errstr ? msg->errstr : "?");
        if (strcmp (msg->type, "node.hello") == 0)
            conn_close (w->link);
        return;
    }
    if (w->hello_id && msg->id == w->hello_id)
        worker_hello_acked (w, msg);
    else if (fence_answered (w->fence, msg->id))
        return; /* a heartbeat's */
    else if (checkpoint_reply (w->ckpt, msg))
        return;
    else if (strcmp (msg->type, "job.finished") == 0
             && (t = tasks_find_report (w->tasks, msg->id)))
        tasks_remove (w->tasks, t);
}

static void worker_launch (struct worker *w, struct conn *c, struct wire_msg *msg)
{
    struct launch_req req;
    struct hpcq_error err;

    if (launch_msg_decode (msg->body, &req, &err) < 0) {
        (void)conn_reply (c, msg, EPROTO, err.text, NULL);
        launch_msg_release (&req);
        return;
    }
    (void)conn_reply (c, msg, 0, NULL, NULL);
    /* A repeated launch is already running or done. */
    if (!tasks_find (w->tasks, req.seq, req.attempt))
        tasks_launch (w->tasks, &req);
    launch_msg_release (&req);
}

void worker_job_started (struct worker *w, const struct task *t)
{
    json_t *body = json_pack ("{s:I s:i s:i}", "seq", (json_int_t)t->seq, "attempt",
                              t->attempt, "session_id", (int)t->pid);

    /* The cores it was given, for the record; where the node has a
     * topology, also its threads and memory nodes as the topology numbers
     * them, and its GPUs (qstat -f's exec_binding). */
    if (body && t->cpus[0])
        json_object_set_new (body, "cpus", json_string (t->cpus));
    if (body && t->threads[0]) {
        char gpus[128] = "";
        size_t o = 0;
        for (int i = 0; i < t->ngpus && o < sizeof (gpus); i++)
            o += (size_t)snprintf (gpus + o, sizeof (gpus) - o, "%s%d", i ? "," : "",
                                   t->gpus[i]);
        json_object_set_new (body, "threads", json_string (t->threads));
        json_object_set_new (body, "mems", json_string (t->mems));
        json_object_set_new (body, "gpus", json_string (gpus));
    }
    (void)worker_send (w, "job.started", body);
}

static void worker_signal (struct worker *w, struct conn *c, struct wire_msg *msg)
{
    const char *sig, *reason = "";
    json_int_t seq;
    int attempt;
    struct task *t;

    if (json_unpack (msg->body, "{s:I s:i s:s s?s}", "seq", &seq, "attempt", &attempt,
                     "signal", &sig, "reason", &reason)
        < 0) {
        (void)conn_reply (c, msg, EPROTO, "job.signal: malformed request", NULL);
        return;
    }
    (void)conn_reply (c, msg, 0, NULL, NULL);
    if (!(t = tasks_find (w->tasks, seq, attempt)) || t->done)
        return;
    log_msg (LOG_INFO, "job %s: %s requested (%s)", t->jobid, sig, reason);
    if (strcmp (reason, "suspend") == 0 || strcmp (reason, "resume") == 0) {
        /* Preemption's S: every process of the job stops, or goes on. */
        tasks_suspend (w->tasks, t, strcmp (reason, "suspend") == 0);
        return;
    }
    if (strcmp (reason, "checkpoint") == 0) {
        int signo = jobspec_signal_number (sig);
        if (signo > 0)
            (void)checkpoint_signal (w->ckpt, t, signo);
        return;
    }
    if (strcmp (reason, "qsig") == 0) {
        /* A user's signal to the job's processes (qsig), nothing more. */
        int signo = jobspec_signal_number (sig);
        if (signo > 0)
            tasks_signal (w->tasks, t, signo);
        return;
    }
    if (strcmp (reason, "stale") == 0) {
        /* This copy was requeued elsewhere: it must go, and its result is
         * of no interest to anybody. */
        tasks_kill (w->tasks, t, KILL_STALE, 1);
        t->report_id = REPORT_NONE_WANTED;
    } else
        tasks_kill (w->tasks, t, KILL_DELETED, strcmp (sig, "KILL") == 0);
}

static void worker_ckpt_remove (struct worker *w, struct conn *c, struct wire_msg *msg)
{
    ckpt_remove_msg (w->ckrm, c, msg);
}

/* The scheduler's requests, by type. */
static const struct worker_handler {
    const char *type;
    void (*fn) (struct worker *w, struct conn *c, struct wire_msg *msg);
} worker_handlers[] = {
    { "job.launch", worker_launch },
    { "job.signal", worker_signal },
    { "job.message", worker_message },
    { "ckpt.remove", worker_ckpt_remove },
};

static void worker_dispatch (struct worker *w, struct conn *c, struct wire_msg *msg)
{
    for (size_t i = 0; i < ARRAY_SIZE (worker_handlers); i++)
        if (strcmp (msg->type, worker_handlers[i].type) == 0) {
            worker_handlers[i].fn (w, c, msg);
            return;
        }
    (void)conn_reply (c, msg, ENOSYS, "unknown request", NULL);
}

static void worker_link_msg (struct conn *c, struct wire_msg *msg, void *arg)
{
    struct worker *w = arg;

    /* Over TCP with MUNGE every frame here was sealed by the link's
     * session (common/session.h); conn closed the link on any other. */
    if (msg->is_reply)
        worker_handle_reply (w, msg);
    else
        worker_dispatch (w, c, msg);
}

void worker_fence_check (struct worker *w)
{
    char why[256];

    if (fence_lapsed (w->fence, util_now_ms (), why, sizeof (why)))
        tasks_fence (w->tasks, why);
}

static void worker_tick (struct loop *l, void *arg)
{
    struct worker *w = arg;
    int64_t now = util_now_ms ();

    worker_fence_check (w);
    if (!w->link) {
        if (now >= w->next_connect_ms)
            worker_connect (w);
        return;
    }
    if (now - w->last_beat_ms >= w->heartbeat_ms) {
        json_t *usage = checkpoint_usage_json (w->ckpt);
        w->last_beat_ms = now;
        fence_sent (w->fence,
                    worker_send (w, "node.heartbeat",
                                 usage ? json_pack ("{s:o}", "jobs", usage) : NULL),
                    now);
    }
    if (now - w->last_usage_ms >= w->usage_ms) {
        json_t *used = usage_json (w->tasks);
        w->last_usage_ms = now;
        if (used)
            (void)worker_send (w, "node.usage", json_pack ("{s:o}", "jobs", used));
    }
}

/* Every telemetry_interval: what NVML says of the real GPUs. */
static void worker_telemetry (struct loop *l, void *arg)
{
    struct worker *w = arg;
    const struct gpu_sample *s;
    int n;

    /* Jobs are charged their GPUs' readings whether or not the scheduler
     * is there to get them now. */
    gpumon_sample (w->gpumon);
    s = gpumon_samples (w->gpumon, &n);
    tasks_gpu_read (w->tasks, s, n);
    if (!w->link || w->hello_id)
        return;
    (void)worker_send (w, "node.telemetry", gpumon_json (s, n));
}

/* GPU telemetry (real GPUs only) and the health check. */
static int worker_monitor (struct worker *w, struct hpcq_error *err)
{
    int64_t every;

    if (config_get_int (w->cfg, "telemetry_interval", 10, 1, 3600, &every, err) < 0)
        return -1;
    if ((w->gpumon = gpumon_create (w->gpus, w->ngpus))
        && !(w->telemetry = loop_timer_add (w->loop, every * 1000, every * 1000,
                                            worker_telemetry, w)))
        return errprintf (err, "event loop: %s", strerror (errno));
    return health_create (w, &w->health, err);
}

/* The node's topology: topology_xml's file (a test's or a simulation's:
 * an unreadable one is an error), else this machine's, without which jobs
 * still run, on the lowest free cores. */
static int worker_topology (struct worker *w, struct hpcq_error *err)
{
    const char *xml = config_get (w->cfg, "topology_xml", NULL);
    struct hpcq_error terr;

    if (!(w->topo = topo_load (xml, xml && xml[0] ? err : &terr))) {
        if (xml && xml[0])
            return -1;
        log_msg (LOG_WARNING, "no topology: %s; cores are not placed near GPUs",
                 terr.text);
        return 0;
    }
    topo_match_gpus (w->topo, w->gpus, w->ngpus);
    for (int g = 0; g < w->ngpus; g++)
        log_msg (LOG_DEBUG, "GPU %d%s%s: NUMA node %d", g,
                 w->gpus[g].pci_busid[0] ? " at " : "", w->gpus[g].pci_busid,
                 topo_gpu_numa (w->topo, g));
    return 0;
}

static int worker_settings (struct worker *w, struct hpcq_error *err)
{
    const char *s;
    int64_t v, sim, beat, delay;
    char host[64];

    util_short_hostname (host, sizeof (host));
    snprintf (w->name, sizeof (w->name), "%s", config_get (w->cfg, "node_name", host));
    if (!(s = config_get (w->cfg, "server", NULL)))
        return errprintf (err, "server is not set (config file or --server HOST:PORT)");
    if (strlen (s) >= sizeof (w->servers))
        return errprintf (err, "server: list too long (%zu bytes at most)",
                          sizeof (w->servers) - 1);
    snprintf (w->servers, sizeof (w->servers), "%s", s);
    snprintf (w->server, sizeof (w->server), "%.*s", (int)strcspn (s, ","), s);
    if (config_get_int (w->cfg, "ncpus", sysconf (_SC_NPROCESSORS_ONLN), 1, 1 << 20, &v,
                        err)
        < 0)
        return -1;
    w->ncpus = (int)v;
    w->mem = (int64_t)sysconf (_SC_PHYS_PAGES) * sysconf (_SC_PAGESIZE);
    if ((s = config_get (w->cfg, "mem", NULL))
        && resource_parse_size (s, &w->mem, err) < 0)
        return -1;
    if (config_get_int (w->cfg, "gpus", 0, 0, GPU_MAX, &sim, err) < 0
        || config_get_int (w->cfg, "heartbeat_interval", 5, 1, 3600, &beat, err) < 0
        || config_get_int (w->cfg, "kill_delay", 10, 0, 3600, &delay, err) < 0
        || config_get_int (w->cfg, "usage_interval", 30, 1, 3600, &v, err) < 0)
        return -1;
    w->usage_ms = v * 1000;
    w->heartbeat_ms = beat * 1000;
    w->kill_delay_ms = delay * 1000;
    {
        int64_t gmem = 80LL << 30;
        if ((s = config_get (w->cfg, "gpu_mem", NULL))
            && resource_parse_size (s, &gmem, err) < 0)
            return -1;
        w->ngpus =
            gpu_discover (w->gpus, (int)sim,
                          config_get (w->cfg, "gpu_model", "Simulated-GPU"), gmem);
    }
    if ((s = config_get (w->cfg, "mig_layout", NULL))
        && gpu_mig_layout (w->gpus, w->ngpus, s, w->name, err) < 0)
        return -1;
    snprintf (w->labels, sizeof (w->labels), "%s", config_get (w->cfg, "labels", ""));
    if (worker_topology (w, err) < 0
        || container_setup (w->cfg, w->container_helper, sizeof (w->container_helper),
                            err)
               < 0)
        return -1;
    w->mount_allow = config_get (w->cfg, "container_mount_allow", "");
    worker_ib_scan (w);
    snprintf (w->spool, sizeof (w->spool), "%s",
              config_get (w->cfg, "spool_dir", "/var/spool/hpcq"));
    return 0;
}

struct worker *worker_create (struct loop *loop, struct config *cfg,
                              struct hpcq_error *err)
{
    struct worker *w = xzalloc (sizeof (*w));

    w->loop = loop;
    w->cfg = cfg;
    w->next_id = 1;
    /* Every setting is checked (their errors come first) before munged is. */
    if (worker_settings (w, err) < 0 || worker_monitor (w, err) < 0
        || auth_from_config (cfg, "hpcq-worker", &w->auth, err) < 0
        || (w->auth && !(w->authq = authq_create (loop, w->auth, err)))
        || link_lifetime_from_config (cfg, &w->session_ms, err) < 0
        || !(w->notice = notice_create (w, err)))
        goto error;
    if (!(w->tasks = tasks_create (w, err)) || !(w->ckpt = checkpoint_create (w, err))
        || !(w->ckrm = ckpt_remove_create (w))
        || !(w->fence =
                 fence_create (tasks_spool (w->tasks), tasks_cgroups (w->tasks), err)))
        goto error;
    if (!(w->tm = tm_create (w, err)) && err->text[0])
        goto error;
    if (!(w->tick = loop_timer_add (loop, 0, 200, worker_tick, w))) {
        errprintf (err, "cannot create worker: %s", strerror (errno));
        goto error;
    }
    log_msg (LOG_INFO,
             "node %s: %d cpus, %lld bytes, %d gpus; scheduler %s; "
             "authentication %s",
             w->name, w->ncpus, (long long)w->mem, w->ngpus, w->server,
             w->auth ? "munge" : "OFF");
    return w;
error:
    worker_destroy (w);
    return NULL;
}

void worker_destroy (struct worker *w)
{
    if (!w)
        return;
    notice_destroy (w->notice);
    loop_timer_remove (w->tick);
    loop_timer_remove (w->telemetry);
    health_destroy (w->health);
    gpumon_destroy (w->gpumon);
    topo_destroy (w->topo);
    conn_destroy (w->link);
    tm_destroy (w->tm);
    checkpoint_destroy (w->ckpt);
    ckpt_remove_destroy (w->ckrm);
    tasks_destroy (w->tasks);
    fence_destroy (w->fence); /* after its jobs, killed as the worker stops */
    authq_destroy (w->authq);
    auth_destroy (w->auth);
    free (w);
}
