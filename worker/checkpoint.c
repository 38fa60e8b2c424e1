/* checkpoint.c - see checkpoint.h */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "common/admit.h"
#include "common/ckptreport.h"
#include "common/log.h"
#include "common/util.h"
#include "worker/checkpoint.h"
#include "worker/privsep.h"
#include "worker/tasks.h"
#include "worker/worker.h"

#define CHECKPOINT_MAX_CONNS 256
/* Per uid: a job's owner reports one checkpoint at a time (a few, with
 * several jobs here); a uid with no running job here has nothing to say. */
#define CHECKPOINT_PER_OWNER 16
#define CHECKPOINT_PER_STRANGER 2
#define CHECKPOINT_CONN_TIMEOUT_MS 5000
/* Reports held while the scheduler is away; the oldest go first. */
#define CHECKPOINT_MAX_REPORTS 1024

struct report {
    int64_t seq;
    int attempt;
    json_t *body;    /* the job.checkpoint body */
    int64_t sent_id; /* in flight with this wire id, 0 if not sent */
};

struct checkpoint {
    struct worker *w;
    char path[108];
    int fd;
    struct admit *admit;
    struct admit_counts *per_uid;
    struct admit_ratelog refuse_log, report_log; /* connections; bad reports */
    struct loop_timer *sweep;
    struct conn *conns[CHECKPOINT_MAX_CONNS];
    int64_t conn_since[CHECKPOINT_MAX_CONNS];
    uid_t conn_uid[CHECKPOINT_MAX_CONNS];
    int nconns;
    struct report *reports;
    int nreports;
};

const char *checkpoint_socket (const struct checkpoint *cp)
{
    return cp->path;
}

/* ---- reports to the scheduler ------------------------------------------ */

static void report_send (struct checkpoint *cp, struct report *r)
{
    if (!cp->w->link || cp->w->hello_id)
        return;
    r->sent_id = worker_send (cp->w, "job.checkpoint", json_incref (r->body));
}

static void report_drop (struct checkpoint *cp, int i)
{
    json_decref (cp->reports[i].body);
    memmove (&cp->reports[i], &cp->reports[i + 1],
             (cp->nreports - i - 1) * sizeof (*cp->reports));
    cp->nreports--;
}

void checkpoint_link_up (struct checkpoint *cp)
{
    for (int i = 0; i < cp->nreports; i++)
        if (!cp->reports[i].sent_id)
            report_send (cp, &cp->reports[i]);
}

void checkpoint_link_down (struct checkpoint *cp)
{
    for (int i = 0; i < cp->nreports; i++)
        cp->reports[i].sent_id = 0;
}

int checkpoint_reply (struct checkpoint *cp, const struct wire_msg *msg)
{
    if (strcmp (msg->type, "job.checkpoint") != 0
        && strcmp (msg->type, "ckpt.removed") != 0)
        return 0;
    for (int i = 0; i < cp->nreports; i++)
        if (cp->reports[i].sent_id == msg->id) {
            if (msg->errnum)
                log_msg (LOG_WARNING, "scheduler refused a checkpoint report: %s",
                         msg->errstr ? msg->errstr : "?");
            report_drop (cp, i);
            break;
        }
    return 1;
}

static void report_add (struct checkpoint *cp, const struct task *t, json_t *body)
{
    struct report *r;

    if (cp->nreports == CHECKPOINT_MAX_REPORTS) {
        log_msg (LOG_WARNING,
                 "checkpoint reports: %d waiting for the scheduler; "
                 "dropping the oldest",
                 cp->nreports);
        report_drop (cp, 0);
    }
    cp->reports = xrealloc (cp->reports, (cp->nreports + 1) * sizeof (*cp->reports));
    r = &cp->reports[cp->nreports++];
    r->seq = t->seq;
    r->attempt = t->attempt;
    r->body = body;
    r->sent_id = 0;
    report_send (cp, r);
}

/* ---- the jobs' socket -------------------------------------------------- */

static void conn_forget (struct checkpoint *cp, struct conn *c)
{
    for (int i = 0; i < cp->nconns; i++)
        if (cp->conns[i] == c) {
            if (cp->conn_uid[i] != 0)
                admit_counts_give (cp->per_uid, cp->conn_uid[i]);
            cp->conns[i] = cp->conns[--cp->nconns];
            cp->conn_since[i] = cp->conn_since[cp->nconns];
            cp->conn_uid[i] = cp->conn_uid[cp->nconns];
            return;
        }
}

static void sock_close (struct conn *c, void *arg)
{
    conn_forget (arg, c);
}

/* The job the report names, if the peer may speak for it. */
static struct task *sock_task (struct checkpoint *cp, struct conn *c,
                               struct wire_msg *msg)
{
    const char *jobid;
    int attempt;
    struct task *t;
    uid_t peer = conn_peer_uid (c);

    if (json_unpack (msg->body, "{s:s s:i}", "jobid", &jobid, "attempt", &attempt)
        < 0) {
        (void)conn_reply (c, msg, EPROTO, "ckpt.done: malformed request", NULL);
        return NULL;
    }
    if (!(t = tasks_find_jobid (cp->w->tasks, jobid, attempt)) || t->done) {
        (void)conn_reply (c, msg, ENOENT,
                          "no running job here with that id and attempt", NULL);
        return NULL;
    }
    if (peer != 0 && peer != t->cred.uid) {
        log_msg (LOG_WARNING,
                 "uid %u reported a checkpoint of job %s (owner uid %lld): "
                 "refused",
                 (unsigned)peer, t->jobid, (long long)t->cred.uid);
        (void)conn_reply (c, msg, EPERM,
                          "only the job's owner may report its checkpoints", NULL);
        return NULL;
    }
    return t;
}

static void sock_msg (struct conn *c, struct wire_msg *msg, void *arg)
{
    struct checkpoint *cp = arg;
    json_int_t gen = 0, bytes = -1;
    double secs = -1;
    struct hpcq_error err = { 0 };
    struct task *t;
    json_t *body;

    if (msg->is_reply || strcmp (msg->type, "ckpt.done") != 0) {
        (void)conn_reply (c, msg, ENOSYS, "unknown request", NULL);
        conn_close_after_flush (c);
        return;
    }
    if (!(t = sock_task (cp, c, msg))) {
        conn_close_after_flush (c);
        return;
    }
    if (json_unpack (msg->body, "{s?I s?I s?F}", "generation", &gen, "bytes", &bytes,
                     "seconds", &secs)
            < 0
        || ckptreport_check (gen, bytes, secs, &err) < 0) {
        if (!err.text[0])
            snprintf (err.text, sizeof (err.text), "bad generation, bytes or seconds");
        admit_ratelog (&cp->report_log, LOG_WARNING,
                       "job %s: checkpoint report refused: %s", t->jobid, err.text);
        (void)conn_reply (c, msg, EINVAL, err.text, NULL);
        conn_close_after_flush (c);
        return;
    }
    body = json_pack ("{s:I s:i}", "seq", (json_int_t)t->seq, "attempt", t->attempt);
    if (gen > 0)
        json_object_set_new (body, "generation", json_integer (gen));
    if (bytes >= 0)
        json_object_set_new (body, "bytes", json_integer (bytes));
    if (secs >= 0)
        json_object_set_new (body, "seconds", json_real (secs));
    log_msg (LOG_INFO, "job %s: checkpoint %lld reported (%lld bytes)", t->jobid,
             (long long)gen, (long long)bytes);
    report_add (cp, t, body);
    (void)conn_reply (c, msg, 0, NULL, NULL);
    conn_close_after_flush (c);
}

static int64_t sock_cap (struct checkpoint *cp, uid_t uid)
{
    for (struct task *t = tasks_first (cp->w->tasks); t; t = tasks_next (t))
        if (!t->done && t->cred.uid == uid)
            return CHECKPOINT_PER_OWNER;
    return CHECKPOINT_PER_STRANGER;
}

/* Any local user may connect: at most CHECKPOINT_MAX_CONNS at once, and a
 * uid (root aside) at most its share, so nobody holds the jobs' socket. */
static void sock_accepted (int fd, const struct admit_peer *who, void *arg)
{
    struct checkpoint *cp = arg;
    int64_t cap = who->uid == 0 ? 0 : sock_cap (cp, who->uid);
    struct conn *c;
    char text[200];

    if (!(c = conn_create (cp->w->loop, fd, sock_msg, sock_close, cp)))
        return;
    if (cp->nconns == CHECKPOINT_MAX_CONNS
        || (cap && admit_counts_take (cp->per_uid, who->uid, cap) < 0)) {
        if (cp->nconns == CHECKPOINT_MAX_CONNS)
            snprintf (text, sizeof (text),
                      "the checkpoint socket is busy (%d connections); try again",
                      CHECKPOINT_MAX_CONNS);
        else
            snprintf (text, sizeof (text),
                      "too many connections to the checkpoint socket from your uid "
                      "(%lld at most)",
                      (long long)cap);
        admit_ratelog (&cp->refuse_log, LOG_WARNING,
                       "checkpoint socket: refusing %s: %s", who->name, text);
        conn_refuse (c, EUSERS, text);
        return;
    }
    cp->conns[cp->nconns] = c;
    cp->conn_uid[cp->nconns] = cap ? who->uid : 0;
    cp->conn_since[cp->nconns++] = util_now_ms ();
}

/* Connections that said nothing whole in time go. */
static void sock_sweep (struct loop *l, void *arg)
{
    struct checkpoint *cp = arg;
    int64_t now = util_now_ms ();

    for (int i = cp->nconns - 1; i >= 0; i--)
        if (now - cp->conn_since[i] > CHECKPOINT_CONN_TIMEOUT_MS)
            conn_close (cp->conns[i]);
}

static int sock_open (struct checkpoint *cp, const char *spool, struct hpcq_error *err)
{
    struct sockaddr_un sun = { .sun_family = AF_UNIX };

    if (snprintf (cp->path, sizeof (cp->path), "%s/ckpt.sock", spool)
        >= (int)sizeof (cp->path))
        return errprintf (err, "spool path too long for a socket: %s", spool);
    snprintf (sun.sun_path, sizeof (sun.sun_path), "%s", cp->path);
    if ((cp->fd = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0)) < 0)
        return errprintf (err, "socket: %s", strerror (errno));
    (void)unlink (cp->path);
    /* Any local user may connect: SO_PEERCRED says who, and only a job's
     * owner may report for it. */
    if (bind (cp->fd, (struct sockaddr *)&sun, sizeof (sun)) < 0
        || chmod (cp->path, 0666) < 0 || listen (cp->fd, 64) < 0)
        return errprintf (err, "cannot listen on %s: %s", cp->path, strerror (errno));
    if (admit_listen (cp->admit, cp->fd) < 0
        || !(cp->sweep = loop_timer_add (cp->w->loop, 1000, 1000, sock_sweep, cp)))
        return errprintf (err, "event loop: %s", strerror (errno));
    return 0;
}

/* ---- CPU time ---------------------------------------------------------- */

long checkpoint_session_cpu (pid_t sid)
{
    DIR *d = opendir ("/proc");
    struct dirent *de;
    long ticks = 0, hz = sysconf (_SC_CLK_TCK);
    int found = 0;

    if (!d)
        return -1;
    while ((de = readdir (d))) {
        long long v[18];
        /* utime, stime, and the children's it waited for (14-17). */
        if (de->d_name[0] < '1' || de->d_name[0] > '9'
            || util_proc_stat (atoi (de->d_name), v, 17) < 0 || v[6] != sid)
            continue;
        ticks += v[14] + v[15] + v[16] + v[17];
        found = 1;
    }
    closedir (d);
    return found ? ticks / (hz > 0 ? hz : 100) : -1;
}

/* 1 if process pid catches or blocks signo (its SigCgt or SigBlk mask in
 * /proc/PID/status). */
static int handles_signal (int pid, int signo)
{
    char path[64], *text, *line;
    int yes = 0;

    snprintf (path, sizeof (path), "/proc/%d/status", pid);
    if (!(text = util_read_file (path, 1 << 16, NULL)))
        return 0;
    for (line = text; line && !yes;
         line = strchr (line, '\n') ? strchr (line, '\n') + 1 : NULL)
        if (!strncmp (line, "SigCgt:", 7) || !strncmp (line, "SigBlk:", 7))
            yes = (strtoull (line + 7, NULL, 16) >> (signo - 1)) & 1;
    free (text);
    return yes;
}

int checkpoint_signal (struct checkpoint *cp, const struct task *t, int signo)
{
    DIR *d = opendir ("/proc");
    struct dirent *de;
    int n = 0;

    if (!d)
        return 0;
    while ((de = readdir (d))) {
        long long v[7];
        int pid = atoi (de->d_name);
        if (pid <= 0 || util_proc_stat (pid, v, 6) < 0 || v[6] != t->pid
            || !handles_signal (pid, signo))
            continue;
        if (kill (pid, signo) == 0)
            n++;
    }
    closedir (d);
    if (n == 0)
        log_msg (LOG_WARNING,
                 "job %s: no process of it catches signal %d: the "
                 "checkpoint request goes unanswered",
                 t->jobid, signo);
    return n;
}

json_t *checkpoint_usage_json (struct checkpoint *cp)
{
    json_t *a = NULL;

    for (struct task *t = tasks_first (cp->w->tasks); t; t = tasks_next (t)) {
        long cpu;
        if (t->done || !t->ckpt_cpu || (cpu = checkpoint_session_cpu (t->pid)) < 0)
            continue;
        if (!a)
            a = json_array ();
        json_array_append_new (a, json_pack ("{s:I s:i s:I}", "seq", (json_int_t)t->seq,
                                             "attempt", t->attempt, "cput",
                                             (json_int_t)cpu));
    }
    return a;
}

/* ---- life -------------------------------------------------------------- */

struct checkpoint *checkpoint_create (struct worker *w, struct hpcq_error *err)
{
    struct checkpoint *cp = xzalloc (sizeof (*cp));

    cp->w = w;
    cp->fd = -1;
    cp->per_uid = admit_counts_create ();
    cp->admit = admit_create (w->loop, "checkpoint socket", sock_accepted, cp);
    if (sock_open (cp, w->spool, err) < 0) {
        checkpoint_destroy (cp);
        return NULL;
    }
    return cp;
}

void checkpoint_destroy (struct checkpoint *cp)
{
    if (!cp)
        return;
    for (int i = 0; i < cp->nconns; i++)
        conn_destroy (cp->conns[i]);
    loop_timer_remove (cp->sweep);
    admit_destroy (cp->admit);
    admit_counts_destroy (cp->per_uid);
    if (cp->fd >= 0) {
        close (cp->fd);
        (void)unlink (cp->path);
    }
    for (int i = 0; i < cp->nreports; i++)
        json_decref (cp->reports[i].body);
    free (cp->reports);
    free (cp);
}
