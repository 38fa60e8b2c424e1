/* tm.c - see tm.h */
#include <config.h>
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "common/admit.h"
#include "common/auth.h"
#include "common/conn.h"
#include "common/link.h"
#include "common/log.h"
#include "common/tm.h"
#include "common/util.h"
#include "worker/launch.h"
#include "worker/rtask.h"
#include "worker/tasks.h"
#include "worker/tm.h"
#include "worker/worker.h"

/* A worker's link.open must be done within this. */
#define TM_OPEN_MS 10000
#define TM_ENV_MAX 4096
/* Connections on the Unix socket of a uid with no job on this host: it
 * may learn that it has none, not hold descriptors. */
#define TM_STRANGER_MAX 4

struct tm_sess;

/* What the task manager knows of a job on this host. */
struct tm_job {
    struct tm *tm;
    int mother; /* 1: its script runs here */
    int64_t seq;
    int attempt;
    char jobid[128];
    char owner[64];
    struct privsep_cred cred; /* its owner (a copy, ours) */
    struct cgroup_job *cg;    /* mother: the task's (borrowed); sister: ours */
    int64_t mem;              /* its memory on each host (the first chunk's) */
    json_t *hosts;            /* its hosts, each once, node file order */
    int64_t cput, mem_used;   /* what its ended remote processes used */
    int freeing;
    LIST_HEAD (, tm_sess) sessions;
    LIST_ENTRY (tm_job) link;
};

enum peer_kind {
    PEER_CLIENT = 1, /* a job's process, on the Unix socket */
    PEER_IN,         /* another worker, on the TCP port */
    PEER_OUT,        /* ours, to another worker */
};

/* One connection. */
struct tm_peer {
    struct tm *tm;
    struct conn *conn;
    enum peer_kind kind;
    int open;            /* TCP: link.open done */
    int64_t deadline_ms; /* link.open, or a client's tm.spawn, by then */
    int asked;           /* a client sent its tm.spawn */
    int closing;
    int counted;  /* 1: key counts in tm->per_uid or per_addr */
    uint64_t key; /* its uid (Unix) or address (TCP) */
    int64_t since_ms;
    char host[64];        /* PEER_OUT: the worker dialed */
    struct tm_sess *sess; /* the process it carries */
    LIST_ENTRY (tm_peer) link;
};

/* One process: run here (rt) or relayed (out). */
struct tm_sess {
    struct tm_job *job;
    struct tm_peer *caller; /* NULL once gone */
    int64_t spawn_id;       /* the caller's tm.spawn, until answered */
    struct rtask *rt;
    struct tm_peer *out;
    json_t *spawn; /* for out, once its link is open */
    char host[64];
    int exited;
    int detach; /* pbsdsh -o: lives on without its caller */
    LIST_ENTRY (tm_sess) link;
};

struct tm {
    struct worker *w;
    struct auth *auth; /* borrowed; NULL with auth = none */
    char sock_path[108];
    int port;      /* 0: no TCP */
    int keepalive; /* seconds (tm_keepalive) */
    int unix_fd, tcp_fd;
    struct admit *admit;
    struct admit_counts *per_uid;  /* Unix connections per uid */
    struct admit_counts *per_addr; /* unopened TCP links per address */
    int64_t max_per_user, unopened_per_addr, unopened_max;
    int nunopened;
    /* Refusals rate-limited by kind, so that a storm of one (a flood of
     * TCP links from an address) does not silence the other (a uid over
     * its cap on the Unix socket) for as long as it lasts. */
    struct admit_ratelog late_log, refuse_log, link_log;
    struct loop_timer *tick;
    int64_t next_id;
    LIST_HEAD (, tm_job) jobs;
    LIST_HEAD (, tm_peer) peers;
};

static void peer_msg (struct conn *c, struct wire_msg *msg, void *arg);
static void peer_link_done (struct conn *c, int ok, uid_t uid, const char *why,
                            void *arg);
static void peer_close (struct conn *c, void *arg);
static void tm_keepalive (struct tm *tm, int fd);

/* ---- jobs ---- */

static struct tm_job *job_find (struct tm *tm, const char *jobid)
{
    struct tm_job *j;

    LIST_FOREACH (j, &tm->jobs, link)
    if (strcmp (j->jobid, jobid) == 0)
        return j;
    return NULL;
}

static struct tm_job *job_find_seq (struct tm *tm, int64_t seq, int attempt)
{
    struct tm_job *j;

    LIST_FOREACH (j, &tm->jobs, link)
    if (j->seq == seq && j->attempt == attempt)
        return j;
    return NULL;
}

static void sess_free (struct tm_sess *s);

static void job_free (struct tm_job *j)
{
    j->freeing = 1;
    while (!LIST_EMPTY (&j->sessions))
        sess_free (LIST_FIRST (&j->sessions));
    LIST_REMOVE (j, link);
    if (!j->mother && j->cg)
        tasks_cgroup_release (j->tm->w->tasks, j->cg);
    privsep_cred_release (&j->cred);
    json_decref (j->hosts);
    free (j);
}

static int job_has_host (const struct tm_job *j, const char *host)
{
    size_t i;
    json_t *v;

    json_array_foreach (j->hosts, i,
                        v) if (strcmp (json_string_value (v), host) == 0) return (int)i
        + 1;
    return 0;
}

void tm_job_start (struct tm *tm, const struct launch_req *req, struct task *t)
{
    struct tm_job *j;

    if (!tm)
        return;
    j = xzalloc (sizeof (*j));
    j->tm = tm;
    j->mother = 1;
    j->seq = req->seq;
    j->attempt = req->attempt;
    snprintf (j->jobid, sizeof (j->jobid), "%s", req->jobid);
    snprintf (j->owner, sizeof (j->owner), "%s", req->owner);
    privsep_cred_copy (&j->cred, &t->cred);
    j->cg = t->cg;
    j->mem = req->mem;
    j->hosts = json_array ();
    LIST_INIT (&j->sessions);
    for (int i = 0; i < req->nnodefile; i++)
        if (!job_has_host (j, req->nodefile[i]))
            json_array_append_new (j->hosts, json_string (req->nodefile[i]));
    LIST_INSERT_HEAD (&tm->jobs, j, link);
}

void tm_job_end (struct tm *tm, int64_t seq, int attempt, int64_t *cput, int64_t *mem)
{
    struct tm_job *j;

    if (!tm || !(j = job_find_seq (tm, seq, attempt)) || !j->mother)
        return;
    *cput += j->cput;
    *mem += j->mem_used; /* summed over hosts, as resources_used.mem */
    job_free (j);
}

/* A sister's share of a job, made by the first process a mother superior
 * asks for.  NULL with err. */
static struct tm_job *job_sister (struct tm *tm, json_t *body, struct hpcq_error *err)
{
    json_int_t seq, uid, mem = 0;
    const char *jobid, *owner;
    json_t *hosts;
    int attempt;
    struct tm_job *j;
    struct cgroups *cgs = tasks_cgroups (tm->w->tasks);
    char name[64];

    if (json_unpack (body, "{s:I s:i s:s s:s s:I s?I s:o}", "seq", &seq, "attempt",
                     &attempt, "jobid", &jobid, "owner", &owner, "uid", &uid, "mem",
                     &mem, "hosts", &hosts)
            < 0
        || !json_is_array (hosts))
        return errprintf (err, "tm.spawn: malformed job"), NULL;
    if ((j = job_find_seq (tm, seq, attempt)))
        return j->mother ? (errprintf (err, "job %s runs its script here", jobid), NULL)
                         : j;
    if (uid == 0
        && !util_user_listed (config_get (tm->w->cfg, "acl_roots", NULL), owner))
        return errprintf (err,
                          "Bad UID for job execution: uid 0 (%s) is not in "
                          "acl_roots on %s",
                          owner, tm->w->name),
               NULL;
    j = xzalloc (sizeof (*j));
    j->tm = tm;
    j->seq = seq;
    j->attempt = attempt;
    j->mem = mem;
    snprintf (j->jobid, sizeof (j->jobid), "%s", jobid);
    snprintf (j->owner, sizeof (j->owner), "%s", owner);
    j->hosts = json_incref (hosts);
    LIST_INIT (&j->sessions);
    LIST_INSERT_HEAD (&tm->jobs, j, link);
    if (privsep_cred_lookup ((uid_t)uid, &j->cred, err) < 0) {
        if (geteuid () == 0) {
            job_free (j);
            return NULL;
        }
        /* A worker that is not root runs everything as itself. */
        j->cred.uid = geteuid ();
        j->cred.gid = getegid ();
    }
    if (cgs) {
        struct cgroup_limits lim = { mem, NULL, tasks_pids_max (tm->w->tasks), NULL };
        snprintf (name, sizeof (name), "job_%lld.%d", (long long)seq, attempt);
        if (!(j->cg = cgroup_job_create (cgs, name, &lim, err))) {
            job_free (j);
            return NULL;
        }
    }
    log_msg (LOG_INFO, "job %s: a sister here for its mother superior", j->jobid);
    return j;
}

/* ---- sending ---- */

static void peer_send (struct tm_peer *p, const char *type, json_t *body)
{
    struct wire_msg m;

    if (!p) {
        json_decref (body);
        return;
    }
    wire_request_init (&m, type, ++p->tm->next_id, body);
    if (conn_send (p->conn, &m) < 0)
        log_error ("tm: send %s", type);
    wire_msg_release (&m);
}

/* The answer to the caller's tm.spawn. */
static void sess_answer (struct tm_sess *s, int errnum, const char *errstr)
{
    struct wire_msg req = { .version = WIRE_VERSION, .id = s->spawn_id };

    if (!s->caller || !s->spawn_id)
        return;
    snprintf (req.type, sizeof (req.type), "tm.spawn");
    (void)conn_reply (s->caller->conn, &req, errnum, errstr, NULL);
    s->spawn_id = 0;
}

/* ---- sessions ---- */

static void peer_detach (struct tm_peer *p, int flush)
{
    if (!p)
        return;
    p->sess = NULL;
    p->closing = 1; /* the tick leaves it to flush */
    if (flush)
        conn_close_after_flush (p->conn);
    else
        conn_close (p->conn);
}

/* The process is over (or must be): its connections go, it is killed. */
static void sess_free (struct tm_sess *s)
{
    struct tm_job *j = s->job;

    LIST_REMOVE (s, link);
    rtask_destroy (s->rt);
    peer_detach (s->out, 0);
    peer_detach (s->caller, 1);
    json_decref (s->spawn);
    free (s);
    /* A sister keeps a job while it has processes of it. */
    if (!j->mother && !j->freeing && LIST_EMPTY (&j->sessions))
        job_free (j);
}

static struct tm_sess *sess_new (struct tm_job *j, struct tm_peer *caller, int64_t id,
                                 const char *host)
{
    struct tm_sess *s = xzalloc (sizeof (*s));

    s->job = j;
    s->caller = caller;
    s->spawn_id = id;
    snprintf (s->host, sizeof (s->host), "%s", host);
    caller->sess = s;
    LIST_INSERT_HEAD (&j->sessions, s, link);
    return s;
}

static void sess_exit (struct tm_sess *s, int status, int64_t cput, int64_t mem,
                       const char *error)
{
    json_t *body = json_pack ("{s:i s:I s:I}", "status", status, "cput",
                              (json_int_t)cput, "mem", (json_int_t)mem);

    if (error && body)
        json_object_set_new (body, "error", json_string (error));
    s->exited = 1;
    s->job->cput += cput;
    s->job->mem_used += mem;
    peer_send (s->caller, "tm.exit", body);
    sess_free (s);
}

static void rt_output (struct rtask *rt, int fd, const char *buf, size_t len, void *arg)
{
    struct tm_sess *s = arg;

    if (!s->caller) { /* detached: the output goes nowhere */
        rtask_ack (rt, len);
        return;
    }
    peer_send (s->caller, "tm.output",
               json_pack ("{s:i s:o}", "fd", fd, "data", tm_data_json (buf, len)));
}

static void rt_input_ack (struct rtask *rt, size_t n, void *arg)
{
    struct tm_sess *s = arg;

    (void)rt;
    peer_send (s->caller, "tm.ack",
               json_pack ("{s:i s:I}", "fd", 0, "n", (json_int_t)n));
}

static void rt_exited (struct rtask *rt, int status, int64_t cput, int64_t mem,
                       void *arg)
{
    (void)rt;
    sess_exit (arg, status, cput, mem, NULL);
}

static const struct rtask_ops rt_ops = { rt_output, rt_input_ack, rt_exited };

/* env (a JSON array of "K=V") with ours set over it. */
static char **sess_env (struct tm_sess *s, json_t *env, int vnode)
{
    char **envp = xzalloc (TM_ENV_MAX * sizeof (char *));
    int n = 0;
    size_t i;
    json_t *v;
    struct tm *tm = s->job->tm;
    char set[4][256];

    snprintf (set[0], sizeof (set[0]), "HPCQ_NODE=%s", tm->w->name);
    snprintf (set[1], sizeof (set[1]), "PBS_NODENUM=%d",
              job_has_host (s->job, tm->w->name) - 1);
    snprintf (set[2], sizeof (set[2]), "PBS_VNODENUM=%d", vnode);
    snprintf (set[3], sizeof (set[3]), "%s=%s", TM_SOCKET_ENV, tm->sock_path);
    json_array_foreach (env, i, v)
    {
        const char *kv = json_string_value (v), *eq = kv ? strchr (kv, '=') : NULL;
        int ours = 0;
        if (!eq || n >= TM_ENV_MAX - 8)
            continue;
        for (int k = 0; k < 4; k++)
            if (strncmp (kv, set[k], eq - kv + 1) == 0)
                ours = 1;
        if (!ours)
            envp[n++] = xstrdup (kv);
    }
    for (int k = 0; k < 4; k++)
        envp[n++] = xstrdup (set[k]);
    envp[n] = NULL;
    return envp;
}

/* Start the process here.  -1 with err. */
static int sess_run (struct tm_sess *s, json_t *body, struct hpcq_error *err)
{
    struct rtask_spec spec = { 0 };
    json_t *argv_j, *env = NULL;
    const char *cwd = NULL;
    int argc, vnode = 0, shell = 0, want_stdin = 0;
    char **argv, **envp;

    if (json_unpack (body, "{s:o s?o s?s s?b s?b s?i}", "argv", &argv_j, "env", &env,
                     "cwd", &cwd, "shell", &shell, "stdin", &want_stdin, "vnode",
                     &vnode)
            < 0
        || !(argv = tm_argv_decode (argv_j, &argc)))
        return errprintf (err, "tm.spawn: malformed request");
    envp = sess_env (s, env, vnode);
    spec.argv = argv;
    spec.shell = shell;
    spec.envp = envp;
    spec.cwd = cwd;
    spec.cred = &s->job->cred;
    spec.cg = s->job->cg;
    spec.want_stdin = want_stdin;
    s->rt = rtask_start (s->job->tm->w->loop, &spec, &rt_ops, s, err);
    tm_argv_free (argv);
    tm_argv_free (envp);
    if (!s->rt)
        return -1;
    log_msg (LOG_DEBUG, "job %s: process %d started for pbsdsh/pbs_tmrsh",
             s->job->jobid, (int)rtask_pid (s->rt));
    return 0;
}

/* ---- links between workers ---- */

static struct tm_peer *peer_new (struct tm *tm, int fd, enum peer_kind kind)
{
    struct tm_peer *p = xzalloc (sizeof (*p));

    p->tm = tm;
    p->kind = kind;
    if (!(p->conn = conn_create (tm->w->loop, fd, peer_msg, peer_close, p))) {
        free (p);
        return NULL;
    }
    p->since_ms = util_now_ms ();
    p->deadline_ms = p->since_ms + TM_OPEN_MS;
    LIST_INSERT_HEAD (&tm->peers, p, link);
    return p;
}

/* p no longer counts against its uid or address (it closed, or its link
 * proved to be another worker's). */
static void peer_uncount (struct tm_peer *p)
{
    if (!p->counted)
        return;
    p->counted = 0;
    if (p->kind == PEER_IN) {
        admit_counts_give (p->tm->per_addr, p->key);
        p->tm->nunopened--;
    } else
        admit_counts_give (p->tm->per_uid, p->key);
}

/* Connect to host's worker without waiting: a host that lost its network
 * would otherwise hold the loop for the kernel's SYN retries.  The
 * connection's writes wait for it to complete (conn waits for POLLOUT);
 * one that fails closes it, and an unopened link past TM_OPEN_MS goes.
 * -1 with err (name unknown, no socket). */
static int tm_dial (struct tm *tm, const char *host, struct hpcq_error *err)
{
    struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM };
    struct addrinfo *res;
    char port[16];
    int fd, rc;

    snprintf (port, sizeof (port), "%d", tm->port);
    if ((rc = getaddrinfo (host, port, &hints, &res)) != 0)
        return errprintf (err, "cannot resolve %s: %s", host, gai_strerror (rc));
    fd = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd >= 0 && connect (fd, res->ai_addr, res->ai_addrlen) < 0
        && errno != EINPROGRESS) {
        errprintf (err, "cannot reach %s:%d: %s", host, tm->port, strerror (errno));
        close (fd);
        fd = -1;
    } else if (fd < 0)
        errprintf (err, "socket: %s", strerror (errno));
    freeaddrinfo (res);
    return fd;
}

/* Relay s to the worker of its host.  -1 with err. */
static int sess_relay (struct tm_sess *s, json_t *body, struct hpcq_error *err)
{
    struct tm *tm = s->job->tm;
    struct tm_job *j = s->job;
    int fd;

    if (tm->port <= 0)
        return errprintf (err,
                          "no remote launch from %s: tm_port is not set (hosts of "
                          "their own only)",
                          tm->w->name);
    if ((fd = tm_dial (tm, s->host, err)) < 0)
        return -1;
    tm_keepalive (tm, fd);
    if (!(s->out = peer_new (tm, fd, PEER_OUT)))
        return errprintf (err, "cannot reach %s: %s", s->host, strerror (errno));
    s->out->sess = s;
    snprintf (s->out->host, sizeof (s->out->host), "%s", s->host);
    s->spawn = json_deep_copy (body);
    json_object_set_new (s->spawn, "seq", json_integer (j->seq));
    json_object_set_new (s->spawn, "attempt", json_integer (j->attempt));
    json_object_set_new (s->spawn, "jobid", json_string (j->jobid));
    json_object_set_new (s->spawn, "owner", json_string (j->owner));
    json_object_set_new (s->spawn, "uid", json_integer (j->cred.uid));
    json_object_set_new (s->spawn, "mem", json_integer (j->mem));
    json_object_set_new (s->spawn, "hosts", json_incref (j->hosts));
    if (!tm->auth) {
        s->out->open = 1;
        peer_send (s->out, "tm.spawn", json_incref (s->spawn));
        return 0;
    }
    if (link_open (s->out->conn, &(struct link_opts){ .q = tm->w->authq,
                                                      .dir = AUTH_TO_TM,
                                                      .service_only = 1,
                                                      .done = peer_link_done,
                                                      .arg = s->out })
        < 0)
        return errprintf (err, "no random numbers");
    return 0;
}

/* A link between workers is open (common/link.h): the other end proved
 * itself root or the cluster's service user, and every frame from now on
 * is sealed.  Its session lives as long as the one process it carries
 * (no session_lifetime: closing it would end that process). */
static void peer_link_done (struct conn *c, int ok, uid_t uid, const char *why,
                            void *arg)
{
    struct tm_peer *p = arg;

    if (ok < 0) {
        admit_ratelog (&p->tm->link_log, LOG_ERR, "tm: refusing %s: %s",
                       conn_peer_name (c), why);
        p->closing = 1;
        conn_close (c);
        return;
    }
    p->open = 1;
    peer_uncount (p); /* another worker's link, no longer an unopened one */
    if (p->kind == PEER_OUT && p->sess)
        peer_send (p, "tm.spawn", json_incref (p->sess->spawn));
}

/* PEER_IN: its first message, link.open from another worker. */
static int peer_accept_open (struct tm_peer *p, struct wire_msg *msg,
                             struct hpcq_error *err)
{
    if (msg->is_reply || strcmp (msg->type, "link.open") != 0)
        return errprintf (err, "%s before link.open", msg->type);
    if (!p->tm->auth)
        return errprintf (err, "a remote launch needs MUNGE (auth = none here)");
    link_accept (p->conn, msg, NULL,
                 &(struct link_opts){ .q = p->tm->w->authq,
                                      .dir = AUTH_TO_TM,
                                      .service_only = 1,
                                      .done = peer_link_done,
                                      .arg = p });
    return 0;
}

/* ---- requests ---- */

/* tm.spawn from a job's process (PEER_CLIENT) or a worker (PEER_IN). */
static void peer_spawn (struct tm_peer *p, struct wire_msg *msg)
{
    struct tm *tm = p->tm;
    struct hpcq_error err = { 0 };
    const char *jobid = "", *host = NULL;
    struct tm_job *j;
    struct tm_sess *s;

    if (p->sess || p->asked) {
        (void)conn_reply (p->conn, msg, EBUSY, "one process per connection", NULL);
        return;
    }
    p->asked = 1;
    (void)json_unpack (msg->body, "{s?s s?s}", "jobid", &jobid, "host", &host);
    if (!host || !*host)
        host = tm->w->name;
    if (p->kind == PEER_IN) {
        if (strcmp (host, tm->w->name) != 0) {
            (void)conn_reply (p->conn, msg, EINVAL, "not this host", NULL);
            return;
        }
        if (!(j = job_sister (tm, msg->body, &err))) {
            (void)conn_reply (p->conn, msg, EPERM, err.text, NULL);
            return;
        }
    } else {
        uid_t uid = conn_peer_uid (p->conn);
        if (!(j = job_find (tm, jobid))) {
            (void)conn_reply (p->conn, msg, ENOENT,
                              "Unknown Job Id (it does not run "
                              "on this host)",
                              NULL);
            return;
        }
        if (uid != 0 && uid != j->cred.uid) {
            (void)conn_reply (p->conn, msg, EPERM,
                              "Unauthorized Request: not the job's "
                              "owner",
                              NULL);
            return;
        }
        if (!job_has_host (j, host)) {
            errprintf (&err, "%s is not a host of job %s", host, j->jobid);
            (void)conn_reply (p->conn, msg, EINVAL, err.text, NULL);
            return;
        }
    }
    s = sess_new (j, p, msg->id, host);
    /* Only the job's own process may leave one behind; a mother superior's
     * link that goes takes its processes on this host with it. */
    if (p->kind == PEER_CLIENT)
        (void)json_unpack (msg->body, "{s?b}", "detach", &s->detach);
    if ((strcmp (host, tm->w->name) == 0 ? sess_run (s, msg->body, &err)
                                         : sess_relay (s, msg->body, &err))
        < 0) {
        sess_answer (s, EIO, err.text);
        sess_free (s);
        return;
    }
    if (s->rt)
        sess_answer (s, 0, NULL);
}

/* From the caller: to the process, here or relayed. */
static void peer_stream (struct tm_peer *p, struct wire_msg *msg)
{
    struct tm_sess *s = p->sess;
    int fd = 1, signo = 0, eof = 0;
    json_int_t n = 0;
    json_t *data = NULL;
    char *buf;
    size_t len;

    if (!s)
        return;
    if (s->out) {
        if (s->out->open)
            peer_send (s->out, msg->type, json_incref (msg->body));
        return;
    }
    if (!s->rt)
        return;
    if (strcmp (msg->type, "tm.ack") == 0
        && json_unpack (msg->body, "{s?i s:I}", "fd", &fd, "n", &n) == 0 && n > 0)
        rtask_ack (s->rt, (size_t)n);
    else if (strcmp (msg->type, "tm.signal") == 0
             && json_unpack (msg->body, "{s:i}", "signo", &signo) == 0 && signo > 0
             && signo < 65)
        rtask_signal (s->rt, signo);
    else if (strcmp (msg->type, "tm.stdin") == 0
             && json_unpack (msg->body, "{s?o s?b}", "data", &data, "eof", &eof) == 0) {
        if (data && tm_data_decode (data, &buf, &len) == 0) {
            if (len && rtask_write (s->rt, buf, len) < 0 && errno == ENOBUFS)
                log_msg (LOG_WARNING, "job %s: a caller broke the stdin window",
                         s->job->jobid);
            free (buf);
        }
        if (eof)
            rtask_close_input (s->rt);
    }
}

/* Output of a detached process behind a sister: consumed here. */
static void tm_ack_for (struct tm_sess *s, json_t *body)
{
    json_t *data;
    char *buf;
    size_t len;
    int fd;

    if (json_unpack (body, "{s:i s:o}", "fd", &fd, "data", &data) < 0
        || tm_data_decode (data, &buf, &len) < 0)
        return;
    free (buf);
    peer_send (s->out, "tm.ack",
               json_pack ("{s:i s:I}", "fd", fd, "n", (json_int_t)len));
}

/* From a sister's worker: to the caller. */
static void peer_from_sister (struct tm_peer *p, struct wire_msg *msg)
{
    struct tm_sess *s = p->sess;
    json_int_t cput = 0, mem = 0;
    const char *error = NULL;
    int status = 255;

    if (!s)
        return;
    if (msg->is_reply) {
        if (strcmp (msg->type, "tm.spawn") != 0)
            return;
        sess_answer (s, msg->errnum, msg->errstr);
        if (msg->errnum)
            sess_free (s);
        return;
    }
    if (strcmp (msg->type, "tm.exit") == 0) {
        (void)json_unpack (msg->body, "{s?i s?I s?I s?s}", "status", &status, "cput",
                           &cput, "mem", &mem, "error", &error);
        sess_exit (s, status, cput, mem, error);
    } else if (strcmp (msg->type, "tm.output") == 0 && !s->caller)
        tm_ack_for (s, msg->body);
    else if (strcmp (msg->type, "tm.output") == 0 || strcmp (msg->type, "tm.ack") == 0)
        peer_send (s->caller, msg->type, json_incref (msg->body));
}

static void peer_msg (struct conn *c, struct wire_msg *msg, void *arg)
{
    struct tm_peer *p = arg;
    struct hpcq_error err;

    /* A link between workers: its frames are sealed once it is open
     * (conn closes it on any that is not); before, only link.open. */
    if (p->kind == PEER_IN && !p->open) {
        if (peer_accept_open (p, msg, &err) < 0) {
            admit_ratelog (&p->tm->link_log, LOG_ERR, "tm: refusing %s: %s",
                           conn_peer_name (c), err.text);
            conn_close (c);
        }
        return;
    }
    if (p->kind == PEER_OUT)
        peer_from_sister (p, msg);
    else if (msg->is_reply)
        return;
    else if (strcmp (msg->type, "tm.spawn") == 0)
        peer_spawn (p, msg);
    else if (strncmp (msg->type, "tm.", 3) == 0)
        peer_stream (p, msg);
    else
        (void)conn_reply (c, msg, ENOSYS, "unknown request", NULL);
}

static void peer_close (struct conn *c, void *arg)
{
    struct tm_peer *p = arg;
    struct tm_sess *s = p->sess;
    char why[256];

    (void)c;
    LIST_REMOVE (p, link);
    peer_uncount (p);
    p->sess = NULL;
    if (s && p == s->caller) {
        /* The caller went: so does its process, unless detached. */
        s->caller = NULL;
        s->spawn_id = 0;
        if (!s->detach)
            sess_free (s);
    } else if (s && p == s->out && s->spawn_id) {
        /* It never started there: the spawn fails, the job goes on. */
        s->out = NULL;
        snprintf (why, sizeof (why),
                  "cannot start a process on %s: its worker did not answer", s->host);
        sess_answer (s, EHOSTUNREACH, why);
        sess_free (s);
    } else if (s && p == s->out) {
        s->out = NULL;
        snprintf (why, sizeof (why),
                  "lost host %s: its worker closed the connection "
                  "before the process ended",
                  s->host);
        log_msg (LOG_ERR, "job %s: %s", s->job->jobid, why);
        if (s->job->mother)
            tasks_host_failed (s->job->tm->w->tasks, s->job->seq, s->job->attempt,
                               s->host);
        sess_exit (s, 255, 0, 0, why);
    }
    free (p);
}

/* ---- listening ---- */

/* A worker link that goes silent (its host lost its network) is found
 * out by TCP keepalive within about tm_keepalive seconds: idle that long,
 * then three probes a third of it apart. */
static void tm_keepalive (struct tm *tm, int fd)
{
    int one = 1, idle = tm->keepalive, intvl = tm->keepalive / 3 + 1, cnt = 3;
    unsigned int user_ms = (unsigned int)tm->keepalive * 2000;

    (void)setsockopt (fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof (one));
    (void)setsockopt (fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof (one));
    (void)setsockopt (fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof (idle));
    (void)setsockopt (fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof (intvl));
    (void)setsockopt (fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof (cnt));
    /* Data unacknowledged that long also ends it (keepalive waits for
     * an idle link). */
    (void)setsockopt (fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &user_ms, sizeof (user_ms));
}

static int tm_uid_has_job (struct tm *tm, uid_t uid)
{
    struct tm_job *j;

    LIST_FOREACH (j, &tm->jobs, link)
    if (j->cred.uid == uid)
        return 1;
    return 0;
}

/* Room for one more unopened link: past tm_unopened_max, the oldest
 * goes (a worker's link opens within milliseconds; a flood's does not). */
static void tm_make_room (struct tm *tm)
{
    struct tm_peer *p, *oldest = NULL;

    if (tm->nunopened < tm->unopened_max)
        return;
    LIST_FOREACH (p, &tm->peers, link)
    if (p->kind == PEER_IN && p->counted && !p->closing
        && (!oldest || p->since_ms < oldest->since_ms))
        oldest = p;
    if (!oldest)
        return;
    admit_ratelog (&tm->link_log, LOG_WARNING,
                   "tm: dropping %s: %d links not yet opened (tm_unopened_max); the "
                   "oldest makes room",
                   conn_peer_name (oldest->conn), tm->nunopened);
    peer_uncount (oldest);
    oldest->closing = 1;
    conn_close (oldest->conn);
}

/* Who may hold how many: a uid with a job here tm_max_user_connections,
 * another TM_STRANGER_MAX, root and the worker's own user any; an
 * address tm_unopened_per_addr links until each opens. */
static int64_t tm_cap (struct tm *tm, const struct admit_peer *who)
{
    if (who->tcp)
        return tm->unopened_per_addr;
    if (who->uid == 0 || who->uid == geteuid ())
        return -1;
    return tm_uid_has_job (tm, who->uid) ? tm->max_per_user : TM_STRANGER_MAX;
}

static void tm_accepted (int fd, const struct admit_peer *who, void *arg)
{
    struct tm *tm = arg;
    int64_t cap = tm_cap (tm, who);
    struct tm_peer *p;
    char text[256];

    if (who->tcp) {
        tm_keepalive (tm, fd);
        tm_make_room (tm);
    }
    if (!(p = peer_new (tm, fd, who->tcp ? PEER_IN : PEER_CLIENT))) {
        log_error ("tm: accept");
        return;
    }
    p->key = who->key;
    if (cap < 0)
        return;
    if (admit_counts_take (who->tcp ? tm->per_addr : tm->per_uid, who->key, cap) < 0) {
        if (who->tcp)
            snprintf (text, sizeof (text),
                      "too many links from %s not yet opened (tm_unopened_per_addr "
                      "is %lld)",
                      who->name, (long long)cap);
        else
            snprintf (text, sizeof (text),
                      "too many connections to the task manager: uid %u holds %lld "
                      "(tm_max_user_connections, or fewer without a job here)",
                      (unsigned)who->uid, (long long)cap);
        admit_ratelog (who->tcp ? &tm->link_log : &tm->refuse_log, LOG_WARNING,
                       "tm: refusing %s: %s", who->name, text);
        p->closing = 1;
        if (who->tcp)
            conn_close (p->conn);
        else
            conn_refuse (p->conn, EUSERS, text);
        return;
    }
    p->counted = 1;
    if (who->tcp)
        tm->nunopened++;
}

/* Unopened worker links are dropped after TM_OPEN_MS. */
static void tm_tick (struct loop *l, void *arg)
{
    struct tm *tm = arg;
    struct tm_peer *p;
    int64_t now = util_now_ms ();

    (void)l;
    /* Closing one may close others (its session's): start over each time. */
restart:
    LIST_FOREACH (p, &tm->peers, link)
    {
        if (p->closing || now <= p->deadline_ms)
            continue;
        if (p->kind != PEER_CLIENT && !p->open)
            admit_ratelog (&tm->late_log, LOG_WARNING,
                           "tm: %s did not open its link in time",
                           conn_peer_name (p->conn));
        else if (p->kind == PEER_OUT || p->sess)
            continue; /* else a caller that asked for nothing in time */
        p->closing = 1;
        conn_close (p->conn);
        goto restart;
    }
}

/* The socket's directory must be the worker's own and closed to others, so
 * nobody can put a socket of theirs in its place. */
static int tm_listen_unix (struct tm *tm, const char *path, struct hpcq_error *err)
{
    struct sockaddr_un sun = { .sun_family = AF_UNIX };
    char dir[sizeof (sun.sun_path)], *slash;
    struct stat st;

    if (strlen (path) >= sizeof (sun.sun_path) || path[0] != '/')
        return errprintf (err, "tm_socket: want an absolute path under %zu bytes: %s",
                          sizeof (sun.sun_path), path);
    snprintf (dir, sizeof (dir), "%s", path);
    slash = strrchr (dir, '/');
    *(slash == dir ? slash + 1 : slash) = '\0';
    (void)util_mkdir_mode (dir, 0755);
    if (stat (dir, &st) < 0 || st.st_uid != geteuid () || (st.st_mode & 022))
        return errprintf (err,
                          "tm_socket: %s must be a directory of uid %u, writable "
                          "by nobody else",
                          dir, (unsigned)geteuid ());
    /* Jobs' users must reach the socket (the worker's umask is 077). */
    if ((st.st_mode & 0055) != 0055 && chmod (dir, st.st_mode | 0055) < 0)
        return errprintf (err, "tm_socket: chmod %s: %s", dir, strerror (errno));
    strcpy (sun.sun_path, path);
    (void)unlink (path);
    if ((tm->unix_fd = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0))
            < 0
        || bind (tm->unix_fd, (struct sockaddr *)&sun, sizeof (sun)) < 0
        || chmod (path, 0777) < 0 || listen (tm->unix_fd, 512) < 0)
        return errprintf (err, "tm_socket: cannot listen on %s: %s", path,
                          strerror (errno));
    snprintf (tm->sock_path, sizeof (tm->sock_path), "%s", path);
    return 0;
}

static int tm_listen_tcp (struct tm *tm, struct hpcq_error *err)
{
    struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons (tm->port) };
    int one = 1;

    sin.sin_addr.s_addr = htonl (INADDR_ANY);
    if ((tm->tcp_fd = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0))
        < 0)
        return errprintf (err, "socket: %s", strerror (errno));
    (void)setsockopt (tm->tcp_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof (one));
    if (bind (tm->tcp_fd, (struct sockaddr *)&sin, sizeof (sin)) < 0
        || listen (tm->tcp_fd, 512) < 0)
        return errprintf (err, "tm_port: cannot listen on port %d: %s", tm->port,
                          strerror (errno));
    return 0;
}

struct tm *tm_create (struct worker *w, struct hpcq_error *err)
{
    const char *path = config_get (w->cfg, "tm_socket", NULL);
    struct tm *tm;
    int64_t port, keepalive;

    err->text[0] = '\0';
    if (!path || !*path)
        return NULL;
    tm = xzalloc (sizeof (*tm));
    if (config_get_int (w->cfg, "tm_port", 0, 0, 65535, &port, err) < 0
        || config_get_int (w->cfg, "tm_keepalive", 10, 1, 3600, &keepalive, err) < 0
        || config_get_int (w->cfg, "tm_max_user_connections", 512, 1, 1000000,
                           &tm->max_per_user, err)
               < 0
        || config_get_int (w->cfg, "tm_unopened_per_addr", 64, 1, 1000000,
                           &tm->unopened_per_addr, err)
               < 0
        || config_get_int (w->cfg, "tm_unopened_max", 256, 1, 1000000,
                           &tm->unopened_max, err)
               < 0) {
        free (tm);
        return NULL;
    }
    tm->w = w;
    tm->auth = w->auth;
    tm->port = (int)port;
    tm->keepalive = (int)keepalive;
    tm->unix_fd = tm->tcp_fd = -1;
    LIST_INIT (&tm->jobs);
    LIST_INIT (&tm->peers);
    tm->per_uid = admit_counts_create ();
    tm->per_addr = admit_counts_create ();
    tm->admit = admit_create (w->loop, "tm", tm_accepted, tm);
    if (tm_listen_unix (tm, path, err) < 0 || (tm->port && tm_listen_tcp (tm, err) < 0))
        goto error;
    if (admit_listen (tm->admit, tm->unix_fd) < 0
        || (tm->tcp_fd >= 0 && admit_listen (tm->admit, tm->tcp_fd) < 0)
        || !(tm->tick = loop_timer_add (w->loop, 1000, 1000, tm_tick, tm))) {
        errprintf (err, "tm: %s", strerror (errno));
        goto error;
    }
    log_msg (LOG_INFO, "task manager on %s%s", tm->sock_path,
             tm->port ? ", and TCP for the other workers" : "");
    return tm;
error:
    tm_destroy (tm);
    return NULL;
}

void tm_destroy (struct tm *tm)
{
    if (!tm)
        return;
    while (!LIST_EMPTY (&tm->jobs))
        job_free (LIST_FIRST (&tm->jobs));
    while (!LIST_EMPTY (&tm->peers)) {
        struct tm_peer *p = LIST_FIRST (&tm->peers);
        LIST_REMOVE (p, link);
        conn_destroy (p->conn);
        free (p);
    }
    admit_destroy (tm->admit);
    admit_counts_destroy (tm->per_uid);
    admit_counts_destroy (tm->per_addr);
    loop_timer_remove (tm->tick);
    if (tm->unix_fd >= 0) {
        close (tm->unix_fd);
        (void)unlink (tm->sock_path);
    }
    if (tm->tcp_fd >= 0)
        close (tm->tcp_fd);
    free (tm);
}

const char *tm_socket_path (const struct tm *tm)
{
    return tm ? tm->sock_path : NULL;
}

int tm_reaped (struct tm *tm, pid_t pid, int wstatus, const struct rusage *ru)
{
    struct tm_job *j, *jn;
    struct tm_sess *s, *sn;

    if (!tm)
        return 0;
    /* rtask_reaped may end the session, and a sister's job with it. */
    for (j = LIST_FIRST (&tm->jobs); j; j = jn) {
        jn = LIST_NEXT (j, link);
        for (s = LIST_FIRST (&j->sessions); s; s = sn) {
            sn = LIST_NEXT (s, link);
            if (s->rt && rtask_pid (s->rt) == pid) {
                (void)rtask_reaped (s->rt, pid, wstatus, ru);
                return 1;
            }
        }
    }
    return 0;
}
