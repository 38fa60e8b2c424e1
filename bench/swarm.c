/* swarm.c - thousands of worker nodes in one process, for measuring the
 * scheduler under a real cluster's load.
 *
 * Each simulated node is a real connection to the scheduler speaking the
 * worker's protocol (common/wire.h, common/conn.h): node.hello with its
 * resources, node.heartbeat at its interval (each node at its own phase, as
 * workers started at different times), job.launch answered and followed by
 * job.started, and job.finished once the job's simulated run time is over.
 * Nothing is executed: a job "runs" for the seconds of the first `sleep N`
 * in its script, else for --run-ms.  A node whose link is lost reconnects
 * after a second, as hpcq-worker does, and reports its jobs in the hello.
 *
 * With --munge each node authenticates as hpcq-worker does with auth =
 * munge (worker/worker.c, common/link.h): its link opens with link.open,
 * a nonce and a MUNGE credential of its own; the scheduler's answer must
 * carry a credential of a service uid (root, ours, or --service-user's)
 * bound to both nonces, before the node says anything else; from then on
 * every frame either way is sealed with the link's session key
 * (common/session.h), and one that fails the check closes the link.  So
 * each of the N nodes is its own identity to the scheduler: its own name,
 * its own link and session key.  The credentials come from the munged at
 * --munge-socket, live --munge-ttl seconds (the worker's munge_ttl), and
 * are made and checked by one thread (common/authq.h), as in a worker.
 *
 *   swarm --server ADDR --nodes N [--prefix NAME] [--ncpus C] [--mem BYTES]
 *         [--heartbeat S] [--run-ms MS] [--ramp N] [--launch-log FILE]
 *         [--report-ms MS] [--duration S]
 *         [--munge [--munge-socket PATH] [--munge-ttl S] [--service-user U]]
 *
 * ADDR is what a worker's `server` setting takes ("unix:PATH", PATH or
 * HOST:PORT).  --ramp caps the links opened but not yet greeted (the
 * scheduler caps unidentified TCP peers).  Every --report-ms a line of
 * counters goes to standard output; "ready N" once all N nodes are up; a
 * summary at the end (SIGINT, SIGTERM or --duration).  --launch-log writes
 * "JOBID EPOCH_SECONDS" for every launch received, for start latencies.
 *
 * The heartbeat round trip is timed per heartbeat: a heartbeat whose answer
 * takes longer than half the interval counts as late, one still unanswered
 * when the next is due as missed.  Results: bench/RESULTS.md (bench/swarm.sh).
 */
#include <config.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/auth.h"
#include "common/authq.h"
#include "common/link.h"
#include "common/client.h"
#include "common/conn.h"
#include "common/log.h"
#include "common/loop.h"
#include "common/util.h"
#include "common/wire.h"

/* LINK_OPEN: link.open sent (--munge), waiting for the scheduler's
 * signed answer; LINK_HELLO: node.hello sent. */
enum link_state { LINK_DOWN, LINK_OPEN, LINK_HELLO, LINK_UP };

/* A job the node "runs": it ends at due_ms; once done, its result waits
 * for the scheduler's acknowledgement (report_id) or the next hello. */
struct sjob {
    int64_t seq;
    int attempt;
    int done;
    int exit_status;
    int64_t start_ms;
    int64_t report_id; /* job.finished in flight; -1: carried by the hello */
};

struct snode {
    struct swarm *sw;
    int idx;
    char name[32];
    struct conn *link;
    enum link_state state;
    int64_t next_id;
    int opening; /* link.open in flight (--munge) */
    int64_t hello_id;
    double hello_sent_ms; /* when the link was opened */
    int64_t hb_id;        /* heartbeat in flight, 0 if none */
    double hb_sent_ms;
    struct sjob *jobs;
    int njobs, jobs_cap;
};

/* Timed events, kept in a binary heap by due time. */
enum ev_kind { EV_HEARTBEAT, EV_FINISH, EV_CONNECT };
struct event {
    int64_t due_ms;
    int kind;
    int node;
    int64_t seq;
    int attempt;
};

struct stats {
    int64_t launched, started_sent, finished_sent, finished_acked;
    int64_t hb_sent, hb_answered, hb_late, hb_missed;
    int64_t links_lost, reconnects, refused, lost_jobs;
    int64_t auth_refused; /* scheduler messages whose credential failed */
    int64_t creds_made, creds_checked;
    double auth_ms; /* time spent waiting for munged, both ways */
    double hb_rtt_max_ms, hello_rtt_max_ms;
};

struct swarm {
    struct loop *loop;
    const char *server;
    const char *prefix;
    int nnodes, ncpus;
    int64_t mem;
    int64_t heartbeat_ms;
    int64_t run_ms;
    int ramp;
    int64_t report_ms;
    int64_t duration_ms;
    FILE *launch_log;
    struct config *auth_cfg; /* --munge: what a worker's config would say */
    struct auth *auth;       /* NULL: auth = none */
    struct authq *authq;     /* munged, off the loop */

    struct snode *nodes;
    int up, greeting; /* links up; links opened but not yet greeted */
    int next_to_open; /* nodes [next_to_open, n) not yet opened once */
    int ready_said;

    struct event *heap;
    int nheap, heap_cap;

    struct stats st;
    double *rtt; /* heartbeat round trips since the last report, ms */
    int nrtt, rtt_cap;
    double *rtt_all; /* every heartbeat round trip, for the summary */
    int nrtt_all, rtt_all_cap;
    int64_t t0_ms;
    int64_t last_report_ms;
    struct stats last;
};

/* ---------------------------------------------------------------- heap */

static void heap_push (struct swarm *sw, struct event ev)
{
    int i;

    if (sw->nheap == sw->heap_cap) {
        sw->heap_cap = sw->heap_cap ? sw->heap_cap * 2 : 1024;
        sw->heap = xrealloc (sw->heap, sw->heap_cap * sizeof (*sw->heap));
    }
    i = sw->nheap++;
    while (i > 0 && sw->heap[(i - 1) / 2].due_ms > ev.due_ms) {
        sw->heap[i] = sw->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    sw->heap[i] = ev;
}

static struct event heap_pop (struct swarm *sw)
{
    struct event top = sw->heap[0], last = sw->heap[--sw->nheap];
    int i = 0;

    for (;;) {
        int c = 2 * i + 1;
        if (c >= sw->nheap)
            break;
        if (c + 1 < sw->nheap && sw->heap[c + 1].due_ms < sw->heap[c].due_ms)
            c++;
        if (sw->heap[c].due_ms >= last.due_ms)
            break;
        sw->heap[i] = sw->heap[c];
        i = c;
    }
    if (sw->nheap > 0)
        sw->heap[i] = last;
    return top;
}

/* A monotonic clock in milliseconds, to the microsecond: round trips on
 * loopback take a fraction of a millisecond. */
static double now_ms (void)
{
    struct timespec ts;

    clock_gettime (CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void rtt_add (double **v, int *n, int *cap, double ms)
{
    if (*n == *cap) {
        *cap = *cap ? *cap * 2 : 4096;
        *v = xrealloc (*v, *cap * sizeof (**v));
    }
    (*v)[(*n)++] = ms;
}

static int cmp_double (const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double percentile (double *v, int n, double p)
{
    int i;

    if (n == 0)
        return 0;
    qsort (v, n, sizeof (*v), cmp_double);
    i = (int)ceil (p * n) - 1;
    return v[i < 0 ? 0 : i >= n ? n - 1 : i];
}

/* ---------------------------------------------------------------- links */

static void node_link_msg (struct conn *c, struct wire_msg *msg, void *arg);
static void node_link_close (struct conn *c, void *arg);

static int64_t node_send (struct snode *n, const char *type, json_t *body)
{
    struct wire_msg m;
    int64_t id = n->next_id++;

    wire_request_init (&m, type, id, body);
    if (!n->link || n->opening || conn_send (n->link, &m) < 0)
        id = 0;
    wire_msg_release (&m);
    return id;
}

static struct sjob *node_job (struct snode *n, int64_t seq, int attempt)
{
    for (int i = 0; i < n->njobs; i++)
        if (n->jobs[i].seq == seq && n->jobs[i].attempt == attempt)
            return &n->jobs[i];
    return NULL;
}

static void node_job_remove (struct snode *n, struct sjob *j)
{
    *j = n->jobs[--n->njobs];
}

static json_t *job_result (const struct sjob *j, int64_t now)
{
    return json_pack ("{s:I s:i s:i s:I s:I s:I}", "seq", (json_int_t)j->seq, "attempt",
                      j->attempt, "exit_status", j->exit_status, "cput", (json_int_t)0,
                      "walltime", (json_int_t)((now - j->start_ms) / 1000), "maxrss",
                      (json_int_t)0);
}

static void node_hello (struct snode *n)
{
    json_t *running = json_array (), *finished = json_array ();
    int64_t now = util_now_ms ();

    for (int i = 0; i < n->njobs; i++) {
        struct sjob *j = &n->jobs[i];
        if (j->done) {
            json_array_append_new (finished, job_result (j, now));
            j->report_id = -1;
        } else
            json_array_append_new (running, json_pack ("{s:I s:i s:i}", "seq",
                                                       (json_int_t)j->seq, "attempt",
                                                       j->attempt, "pid", 1));
    }
    n->state = LINK_HELLO;
    n->hello_id = node_send (n, "node.hello",
                             json_pack ("{s:s s:i s:I s:[] s:s s:o s:o}", "name",
                                        n->name, "ncpus", n->sw->ncpus, "mem",
                                        (json_int_t)n->sw->mem, "gpus", "labels", "",
                                        "running", running, "finished", finished));
}

static void node_link_done (struct conn *c, int ok, uid_t uid, const char *why,
                            void *arg)
{
    struct snode *n = arg;
    struct swarm *sw = n->sw;

    /* One credential made and one checked by each end of a link. */
    sw->st.auth_ms += (now_ms () - n->hello_sent_ms) / 2;
    sw->st.creds_made++;
    sw->st.creds_checked++;
    if (ok < 0) {
        /* A worker acts on nothing it cannot trace to the scheduler. */
        log_msg (LOG_ERR, "%s: refusing the scheduler: %s; closing the link", n->name,
                 why);
        sw->st.auth_refused++;
        conn_close (c);
        return;
    }
    n->opening = 0;
    node_hello (n);
}

/* --munge: the link opens as a worker's does (common/link.h), munged
 * asked off the loop; then every frame either way is sealed. */
static void node_open (struct snode *n)
{
    struct link_opts o = { .q = n->sw->authq,
                           .dir = AUTH_TO_SCHEDULER,
                           .service_only = 1,
                           .done = node_link_done,
                           .arg = n };

    n->state = LINK_OPEN;
    n->opening = 1;
    if (link_open (n->link, &o) < 0) {
        log_msg (LOG_ERR, "%s: link.open: no random numbers", n->name);
        conn_close (n->link);
    }
}

static void node_connect (struct snode *n)
{
    struct swarm *sw = n->sw;
    struct hpcq_error err;
    int fd;

    if ((fd = client_dial (sw->server, &err)) < 0
        || !(n->link = conn_create (sw->loop, fd, node_link_msg, node_link_close, n))) {
        if (fd < 0)
            log_msg (LOG_DEBUG, "%s: %s", n->name, err.text);
        sw->st.refused++;
        heap_push (sw,
                   (struct event){ util_now_ms () + 1000, EV_CONNECT, n->idx, 0, 0 });
        return;
    }
    sw->greeting++;
    n->hello_sent_ms = now_ms ();
    if (!sw->auth)
        node_hello (n);
    else
        node_open (n);
}

/* Open links for nodes never opened, up to --ramp awaiting their hello. */
static void swarm_ramp (struct swarm *sw)
{
    while (sw->next_to_open < sw->nnodes && sw->greeting < sw->ramp)
        node_connect (&sw->nodes[sw->next_to_open++]);
}

static void node_link_close (struct conn *c, void *arg)
{
    struct snode *n = arg;
    struct swarm *sw = n->sw;

    if (n->state == LINK_UP)
        sw->up--;
    else if (n->state == LINK_HELLO || n->state == LINK_OPEN)
        sw->greeting--;
    n->state = LINK_DOWN;
    n->link = NULL;
    n->hb_id = 0;
    n->opening = 0;
    sw->st.links_lost++;
    for (int i = 0; i < n->njobs; i++)
        if (n->jobs[i].done)
            n->jobs[i].report_id = 0; /* goes again with the next hello */
    heap_push (sw, (struct event){ util_now_ms () + 1000, EV_CONNECT, n->idx, 0, 0 });
    swarm_ramp (sw);
}

static void node_up (struct snode *n)
{
    struct swarm *sw = n->sw;
    int64_t now = util_now_ms ();
    double rtt = now_ms () - n->hello_sent_ms;

    if (rtt > sw->st.hello_rtt_max_ms)
        sw->st.hello_rtt_max_ms = rtt;
    n->state = LINK_UP;
    n->hello_id = 0;
    sw->greeting--;
    sw->up++;
    /* The results the hello carried are durable there now. */
    for (int i = 0; i < n->njobs;) {
        if (n->jobs[i].done && n->jobs[i].report_id == -1)
            node_job_remove (n, &n->jobs[i]);
        else
            i++;
    }
    /* Each node beats at its own phase, as workers started apart do. */
    heap_push (sw, (struct event){ now + (int64_t)(drand48 () * sw->heartbeat_ms),
                                   EV_HEARTBEAT, n->idx, 0, 0 });
    swarm_ramp (sw);
    if (sw->up == sw->nnodes && !sw->ready_said) {
        sw->ready_said = 1;
        printf ("ready %d %.3f\n", sw->up, (now - sw->t0_ms) / 1000.0);
        fflush (stdout);
    }
}

static void node_reply (struct snode *n, struct wire_msg *msg)
{
    struct swarm *sw = n->sw;

    if (msg->errnum) {
        log_msg (LOG_ERR, "%s: scheduler refused %s: %s", n->name, msg->type,
                 msg->errstr ? msg->errstr : "?");
        if (msg->id == n->hello_id)
            conn_close (n->link);
        return;
    }
    if (n->hello_id && msg->id == n->hello_id)
        node_up (n);
    else if (n->hb_id && msg->id == n->hb_id) {
        double rtt = now_ms () - n->hb_sent_ms;
        sw->st.hb_answered++;
        if (rtt > sw->heartbeat_ms / 2)
            sw->st.hb_late++;
        if (rtt > sw->st.hb_rtt_max_ms)
            sw->st.hb_rtt_max_ms = rtt;
        rtt_add (&sw->rtt, &sw->nrtt, &sw->rtt_cap, rtt);
        rtt_add (&sw->rtt_all, &sw->nrtt_all, &sw->rtt_all_cap, rtt);
        n->hb_id = 0;
    } else if (strcmp (msg->type, "job.finished") == 0) {
        for (int i = 0; i < n->njobs; i++) {
            if (n->jobs[i].done && n->jobs[i].report_id == msg->id) {
                node_job_remove (n, &n->jobs[i]);
                sw->st.finished_acked++;
                break;
            }
        }
    }
}

/* The job's run time: the first "sleep N" of its script, else --run-ms. */
static int64_t job_run_ms (struct swarm *sw, json_t *spec)
{
    const char *script = NULL, *p;
    double secs;

    if (json_unpack (spec, "{s:s}", "script", &script) == 0
        && (p = strstr (script, "sleep ")) && sscanf (p + 6, "%lf", &secs) == 1
        && secs >= 0 && secs < 1e7)
        return (int64_t)(secs * 1000);
    return sw->run_ms;
}

static void node_launch (struct snode *n, struct conn *c, struct wire_msg *msg)
{
    struct swarm *sw = n->sw;
    json_int_t seq;
    int attempt;
    const char *jobid;
    json_t *spec = NULL;
    int64_t now = util_now_ms ();
    struct sjob *j;

    if (json_unpack (msg->body, "{s:I s:i s:s s?o}", "seq", &seq, "attempt", &attempt,
                     "jobid", &jobid, "spec", &spec)
        < 0) {
        (void)conn_reply (c, msg, EPROTO, "job.launch: malformed request", NULL);
        return;
    }
    (void)conn_reply (c, msg, 0, NULL, NULL);
    if (node_job (n, seq, attempt))
        return; /* a repeated launch */
    sw->st.launched++;
    if (sw->launch_log) {
        struct timespec ts;
        clock_gettime (CLOCK_REALTIME, &ts);
        fprintf (sw->launch_log, "%s %lld.%06ld\n", jobid, (long long)ts.tv_sec,
                 ts.tv_nsec / 1000);
    }
    if (n->njobs == n->jobs_cap) {
        n->jobs_cap = n->jobs_cap ? n->jobs_cap * 2 : 4;
        n->jobs = xrealloc (n->jobs, n->jobs_cap * sizeof (*n->jobs));
    }
    j = &n->jobs[n->njobs++];
    *j = (struct sjob){ .seq = seq, .attempt = attempt, .start_ms = now };
    if (node_send (n, "job.started",
                   json_pack ("{s:I s:i s:i}", "seq", seq, "attempt", attempt,
                              "session_id", 100000 + n->idx)))
        sw->st.started_sent++;
    heap_push (sw, (struct event){ now + job_run_ms (sw, spec), EV_FINISH, n->idx, seq,
                                   attempt });
}

static void node_job_end (struct snode *n, struct sjob *j, int exit_status)
{
    struct swarm *sw = n->sw;

    j->done = 1;
    j->exit_status = exit_status;
    if (n->state != LINK_UP)
        return; /* the next hello carries it */
    if ((j->report_id = node_send (n, "job.finished", job_result (j, util_now_ms ()))))
        sw->st.finished_sent++;
}

/* qdel of a running job: it ends now, as killed by the signal. */
static void node_signal (struct snode *n, struct conn *c, struct wire_msg *msg)
{
    json_int_t seq;
    int attempt;
    const char *sig;
    struct sjob *j;

    if (json_unpack (msg->body, "{s:I s:i s:s}", "seq", &seq, "attempt", &attempt,
                     "signal", &sig)
        < 0) {
        (void)conn_reply (c, msg, EPROTO, "job.signal: malformed request", NULL);
        return;
    }
    (void)conn_reply (c, msg, 0, NULL, NULL);
    if ((j = node_job (n, seq, attempt)) && !j->done)
        node_job_end (n, j, 128 + (strcmp (sig, "KILL") == 0 ? SIGKILL : SIGTERM));
}

static void node_link_msg (struct conn *c, struct wire_msg *msg, void *arg)
{
    struct snode *n = arg;

    if (msg->is_reply)
        node_reply (n, msg);
    else if (strcmp (msg->type, "job.launch") == 0)
        node_launch (n, c, msg);
    else if (strcmp (msg->type, "job.signal") == 0)
        node_signal (n, c, msg);
    else
        (void)conn_reply (c, msg, 0, NULL, NULL); /* job.message: nothing to write */
}

/* ---------------------------------------------------------------- events */

static void ev_heartbeat (struct swarm *sw, struct snode *n, int64_t now)
{
    if (n->state != LINK_UP)
        return; /* a new one starts when the link is up again */
    if (n->hb_id)
        sw->st.hb_missed++; /* the last one is still unanswered */
    if ((n->hb_id = node_send (n, "node.heartbeat", NULL))) {
        n->hb_sent_ms = now_ms ();
        sw->st.hb_sent++;
    }
    heap_push (sw,
               (struct event){ now + sw->heartbeat_ms, EV_HEARTBEAT, n->idx, 0, 0 });
}

static void ev_finish (struct swarm *sw, struct snode *n, const struct event *ev)
{
    struct sjob *j = node_job (n, ev->seq, ev->attempt);

    if (j && !j->done)
        node_job_end (n, j, 0);
    (void)sw;
}

static void ev_connect (struct swarm *sw, struct snode *n)
{
    if (n->state != LINK_DOWN || n->link)
        return;
    sw->st.reconnects++;
    node_connect (n);
}

static void swarm_report (struct swarm *sw, int64_t now, FILE *f)
{
    struct stats *s = &sw->st, *l = &sw->last;
    double dt = (now - sw->last_report_ms) / 1000.0;

    fprintf (
        f,
        "t=%.1f up=%d launched=%lld finished=%lld running=%lld launch_per_s=%.0f "
        "finish_per_s=%.0f hb=%lld hb_rtt_p99_ms=%.1f hb_rtt_max_ms=%.1f hb_late=%lld "
        "hb_missed=%lld lost=%lld\n",
        (now - sw->t0_ms) / 1000.0, sw->up, (long long)s->launched,
        (long long)s->finished_sent, (long long)(s->launched - s->finished_sent),
        dt > 0 ? (s->launched - l->launched) / dt : 0,
        dt > 0 ? (s->finished_sent - l->finished_sent) / dt : 0, (long long)s->hb_sent,
        percentile (sw->rtt, sw->nrtt, 0.99), s->hb_rtt_max_ms, (long long)s->hb_late,
        (long long)s->hb_missed, (long long)s->links_lost);
    fflush (f);
    sw->nrtt = 0;
    sw->last = *s;
    sw->last_report_ms = now;
}

static void swarm_summary (struct swarm *sw)
{
    struct stats *s = &sw->st;
    int64_t now = util_now_ms ();
    int in_flight = 0; /* heartbeats sent, their answers not yet back */

    for (int i = 0; i < sw->nnodes; i++)
        in_flight += sw->nodes[i].hb_id != 0;
    printf ("summary nodes=%d up=%d seconds=%.1f launched=%lld finished=%lld "
            "finished_acked=%lld heartbeats=%lld answered=%lld hb_rtt_p50_ms=%.2f "
            "hb_rtt_p99_ms=%.2f hb_rtt_max_ms=%.1f hb_late=%lld hb_missed=%lld "
            "links_lost=%lld reconnects=%lld refused=%lld hello_rtt_max_ms=%.1f "
            "auth=%s auth_refused=%lld creds_made=%lld creds_checked=%lld "
            "auth_ms_per_cred=%.3f hb_in_flight=%d\n",
            sw->nnodes, sw->up, (now - sw->t0_ms) / 1000.0, (long long)s->launched,
            (long long)s->finished_sent, (long long)s->finished_acked,
            (long long)s->hb_sent, (long long)s->hb_answered,
            percentile (sw->rtt_all, sw->nrtt_all, 0.5),
            percentile (sw->rtt_all, sw->nrtt_all, 0.99), s->hb_rtt_max_ms,
            (long long)s->hb_late, (long long)s->hb_missed, (long long)s->links_lost,
            (long long)s->reconnects, (long long)s->refused, s->hello_rtt_max_ms,
            sw->auth ? "munge" : "none", (long long)s->auth_refused,
            (long long)s->creds_made, (long long)s->creds_checked,
            s->creds_made + s->creds_checked
                ? s->auth_ms / (double)(s->creds_made + s->creds_checked)
                : 0.0,
            in_flight);
    fflush (stdout);
}

/* Every few milliseconds: due events, the report, the end. */
static void swarm_tick (struct loop *l, void *arg)
{
    struct swarm *sw = arg;
    int64_t now = util_now_ms ();

    while (sw->nheap > 0 && sw->heap[0].due_ms <= now) {
        struct event ev = heap_pop (sw);
        struct snode *n = &sw->nodes[ev.node];
        if (ev.kind == EV_HEARTBEAT)
            ev_heartbeat (sw, n, now);
        else if (ev.kind == EV_FINISH)
            ev_finish (sw, n, &ev);
        else
            ev_connect (sw, n);
    }
    if (sw->report_ms && now - sw->last_report_ms >= sw->report_ms)
        swarm_report (sw, now, stdout);
    if (sw->duration_ms && now - sw->t0_ms >= sw->duration_ms)
        loop_stop (l);
}

static void on_signal (struct loop *l, int signo, void *arg)
{
    (void)signo;
    (void)arg;
    loop_stop (l);
}

/* ---------------------------------------------------------------- main */

static void usage (int code)
{
    fprintf (
        code ? stderr : stdout,
        "Usage: swarm --server ADDR --nodes N [--prefix NAME] [--ncpus C] "
        "[--mem BYTES]\n"
        "             [--heartbeat S] [--run-ms MS] [--ramp N] [--launch-log FILE]\n"
        "             [--report-ms MS] [--duration S]\n"
        "             [--munge [--munge-socket PATH] [--munge-ttl S] "
        "[--service-user U]]\n");
    exit (code);
}

static long arg_long (const char *opt, const char *s, long min, long max)
{
    long v;

    if (util_parse_long (s, min, max, &v) < 0) {
        fprintf (stderr, "swarm: invalid %s '%s'\n", opt, s);
        exit (2);
    }
    return v;
}

static void parse_args (struct swarm *sw, int argc, char **argv)
{
    static const struct option opts[] = {
        { "server", required_argument, NULL, 's' },
        { "nodes", required_argument, NULL, 'n' },
        { "prefix", required_argument, NULL, 'p' },
        { "ncpus", required_argument, NULL, 'c' },
        { "mem", required_argument, NULL, 'm' },
        { "heartbeat", required_argument, NULL, 'b' },
        { "run-ms", required_argument, NULL, 'r' },
        { "ramp", required_argument, NULL, 'R' },
        { "launch-log", required_argument, NULL, 'L' },
        { "report-ms", required_argument, NULL, 'T' },
        { "duration", required_argument, NULL, 'd' },
        { "munge", no_argument, NULL, 'M' },
        { "munge-socket", required_argument, NULL, 'S' },
        { "munge-ttl", required_argument, NULL, 't' },
        { "service-user", required_argument, NULL, 'u' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    int ch, munge = 0;

    sw->auth_cfg = config_create ();
    while ((ch = getopt_long (argc, argv, "h", opts, NULL)) != -1) {
        switch (ch) {
        case 's': sw->server = optarg; break;
        case 'n': sw->nnodes = (int)arg_long ("--nodes", optarg, 1, 1000000); break;
        case 'p': sw->prefix = optarg; break;
        case 'c': sw->ncpus = (int)arg_long ("--ncpus", optarg, 1, 1 << 20); break;
        case 'm': sw->mem = arg_long ("--mem", optarg, 1, LONG_MAX); break;
        case 'b':
            sw->heartbeat_ms = arg_long ("--heartbeat", optarg, 1, 3600) * 1000;
            break;
        case 'r': sw->run_ms = arg_long ("--run-ms", optarg, 0, 86400000); break;
        case 'R': sw->ramp = (int)arg_long ("--ramp", optarg, 1, 1000000); break;
        case 'T': sw->report_ms = arg_long ("--report-ms", optarg, 0, 3600000); break;
        case 'd':
            sw->duration_ms = arg_long ("--duration", optarg, 0, 86400 * 30) * 1000;
            break;
        case 'L':
            if (!(sw->launch_log = fopen (optarg, "w"))) {
                fprintf (stderr, "swarm: %s: %s\n", optarg, strerror (errno));
                exit (1);
            }
            setvbuf (sw->launch_log, NULL, _IOLBF, 0); /* read as it grows */
            break;
        /* The keys a worker's config would carry (auth_from_config). */
        case 'M': munge = 1; break;
        case 'S': (void)config_set (sw->auth_cfg, "munge_socket", optarg); break;
        case 't': (void)config_set (sw->auth_cfg, "munge_ttl", optarg); break;
        case 'u': (void)config_set (sw->auth_cfg, "service_user", optarg); break;
        case 'h': usage (0); break;
        default: usage (2);
        }
    }
    if (!sw->server || !sw->nnodes || optind != argc)
        usage (2);
    (void)config_set (sw->auth_cfg, "auth", munge ? "munge" : "none");
}

/* The nodes' authentication, as hpcq-worker's (with auth = none it warns
 * as the worker does).  One context serves every node: a libmunge context
 * holds only options, and each credential is its own munged request. */
static void swarm_auth (struct swarm *sw)
{
    struct hpcq_error err;

    if (auth_from_config (sw->auth_cfg, "swarm", &sw->auth, &err) < 0
        || (sw->auth && !(sw->authq = authq_create (sw->loop, sw->auth, &err)))) {
        fprintf (stderr, "swarm: %s\n", err.text);
        exit (1);
    }
}

int main (int argc, char **argv)
{
    struct swarm sw = { .prefix = "swarm",
                        .ncpus = 1,
                        .mem = INT64_C (4) << 30,
                        .heartbeat_ms = 30000,
                        .run_ms = 1000,
                        .ramp = 200,
                        .report_ms = 1000 };
    static const int signals[] = { SIGINT, SIGTERM };
    struct loop_timer *tick;

    parse_args (&sw, argc, argv);
    log_init ("swarm", LOG_WARNING, NULL);
    signal (SIGPIPE, SIG_IGN);
    srand48 (getpid ());
    if (!(sw.loop = loop_create ())
        || loop_signals (sw.loop, signals, ARRAY_SIZE (signals), on_signal, NULL) < 0) {
        perror ("swarm: loop");
        return 1;
    }
    swarm_auth (&sw);
    sw.nodes = xzalloc ((size_t)sw.nnodes * sizeof (*sw.nodes));
    for (int i = 0; i < sw.nnodes; i++) {
        struct snode *n = &sw.nodes[i];
        n->sw = &sw;
        n->idx = i;
        n->next_id = 1;
        snprintf (n->name, sizeof (n->name), "%s%05d", sw.prefix, i);
    }
    sw.t0_ms = sw.last_report_ms = util_now_ms ();
    if (!(tick = loop_timer_add (sw.loop, 5, 5, swarm_tick, &sw))) {
        perror ("swarm: timer");
        return 1;
    }
    swarm_ramp (&sw);
    (void)loop_run (sw.loop);
    swarm_summary (&sw);
    for (int i = 0; i < sw.nnodes; i++) {
        conn_destroy (sw.nodes[i].link);
        free (sw.nodes[i].jobs);
    }
    loop_timer_remove (tick);
    authq_destroy (sw.authq);
    loop_destroy (sw.loop);
    auth_destroy (sw.auth);
    config_destroy (sw.auth_cfg);
    if (sw.launch_log)
        fclose (sw.launch_log);
    free (sw.nodes);
    free (sw.heap);
    free (sw.rtt);
    free (sw.rtt_all);
    return 0;
}
