/* job-flood - many trivial jobs through a real scheduler, as fast as it
 * takes them: for the benchmarks of memory over a long history and of
 * the cost of scraping /metrics (bench/history-memory.sh,
 * bench/metrics-scrape.sh).
 *
 *   job-flood submit SOCKET N [held]
 *       N jobs over the Unix socket, pipelined (up to 512 unanswered):
 *       a queue to scrape.  held: submitted held (they never run).
 *   job-flood run SOCKET WORKER_ADDR TOTAL ACTIVE PID [EVERY_S]
 *       plays a worker (node "flood", 100000 cores) that "runs" each job
 *       it is sent by answering job.started and job.finished at once, and
 *       a user who keeps ACTIVE jobs submitted and not finished, until
 *       TOTAL have finished.  Every EVERY_S seconds (default 10) one line:
 *       seconds, jobs finished, jobs/s, and the scheduler's (PID) resident
 *       memory now and at its peak (VmRSS, VmHWM from /proc).
 *
 * The scheduler, its database, group commit, lifecycle, accounting and
 * history are the real ones; only the worker's fork and exec are skipped.
 * The worker played sends no MUNGE credential: run the scheduler with
 * auth = none (hpcq-local --auth none); bench/auth-cost.sh has what
 * authentication costs.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <uuid/uuid.h>

#include "common/client.h"
#include "common/conn.h"
#include "common/jobspec.h"
#include "common/loop.h"
#include "common/util.h"

#define WINDOW 512

struct flood {
    struct loop *loop;
    struct conn *user, *worker;
    json_t *spec;
    int64_t total, active, submitted, acked, finished;
    int held;
    int64_t next_id;
    pid_t pid;
    int every_s;
    int64_t t0_ms, last_report_ms;
    int failed;
};

static void die (const char *what)
{
    fprintf (stderr, "job-flood: %s: %s\n", what, strerror (errno));
    exit (1);
}

/* "VmRSS:   123 kB": kB of the line named key, -1 if none. */
static long proc_kb (pid_t pid, const char *key)
{
    char path[64], *text, *p;
    long kb = -1;

    snprintf (path, sizeof (path), "/proc/%d/status", (int)pid);
    if (!(text = util_read_file (path, 1 << 16, NULL)))
        return -1;
    if ((p = strstr (text, key)))
        kb = strtol (p + strlen (key) + 1, NULL, 10);
    free (text);
    return kb;
}

static void report (struct flood *f, int last)
{
    int64_t now = util_now_ms ();
    double secs = (now - f->t0_ms) / 1000.0;

    if (!last && now - f->last_report_ms < f->every_s * 1000)
        return;
    f->last_report_ms = now;
    printf ("%8.1f s %10lld finished %8.0f jobs/s  rss %7ld MiB  peak %7ld MiB\n", secs,
            (long long)f->finished, secs > 0 ? f->finished / secs : 0,
            proc_kb (f->pid, "VmRSS:") / 1024, proc_kb (f->pid, "VmHWM:") / 1024);
    fflush (stdout);
}

static void submit_more (struct flood *f)
{
    while (f->submitted < f->total && f->submitted - f->acked < WINDOW
           && (f->held || f->submitted - f->finished < f->active)) {
        struct wire_msg m;
        char uuid[UUID_STR_LEN];
        uuid_t u;
        /* As qsub does: a uuid of the client's (a retry finds its job). */
        uuid_generate (u);
        uuid_unparse_lower (u, uuid);
        wire_request_init (&m, "job.submit", ++f->next_id,
                           getenv ("FLOOD_NO_UUID")
                               ? json_pack ("{s:O}", "spec", f->spec)
                               : json_pack ("{s:O s:s}", "spec", f->spec, "uuid",
                                            uuid));
        if (conn_send (f->user, &m) < 0)
            die ("send");
        wire_msg_release (&m);
        f->submitted++;
    }
}

static void user_msg (struct conn *c, struct wire_msg *msg, void *arg)
{
    struct flood *f = arg;

    if (!msg->is_reply)
        return;
    if (msg->errnum) {
        fprintf (stderr, "job-flood: submit refused: %s\n",
                 msg->errstr ? msg->errstr : "?");
        f->failed = 1;
        loop_stop (f->loop);
        return;
    }
    f->acked++;
    if (f->held && f->acked == f->total)
        loop_stop (f->loop);
    submit_more (f);
}

static void send_job (struct flood *f, const char *type, json_t *body)
{
    struct wire_msg m;

    wire_request_init (&m, type, ++f->next_id, body);
    if (conn_send (f->worker, &m) < 0)
        die ("send");
    wire_msg_release (&m);
}

/* The worker's side: every launch starts and ends at once. */
static void worker_msg (struct conn *c, struct wire_msg *msg, void *arg)
{
    struct flood *f = arg;
    json_int_t seq;
    int attempt;

    if (msg->is_reply) {
        if (msg->errnum) {
            fprintf (stderr, "job-flood: %s refused: %s\n", msg->type,
                     msg->errstr ? msg->errstr : "?");
            f->failed = 1;
            loop_stop (f->loop);
        } else if (strcmp (msg->type, "job.finished") == 0) {
            f->finished++;
            report (f, 0);
            if (f->finished == f->total)
                loop_stop (f->loop);
            submit_more (f);
        }
        return;
    }
    if (strcmp (msg->type, "job.launch") != 0
        || json_unpack (msg->body, "{s:I s:i}", "seq", &seq, "attempt", &attempt) < 0) {
        (void)conn_reply (c, msg, 0, NULL, NULL);
        return;
    }
    (void)conn_reply (c, msg, 0, NULL, NULL);
    send_job (f, "job.started",
              json_pack ("{s:I s:i s:i}", "seq", seq, "attempt", attempt, "session_id",
                         1));
    send_job (f, "job.finished",
              json_pack ("{s:I s:i s:i s:i s:i s:i}", "seq", seq, "attempt", attempt,
                         "exit_status", 0, "cput", 0, "walltime", 0, "maxrss", 0));
}

static void closed (struct conn *c, void *arg)
{
    /* Nothing to go on with: the conn is the loop's to free, not ours. */
    fprintf (stderr, "job-flood: the scheduler closed a connection\n");
    exit (1);
}

static json_t *trivial_spec (void)
{
    struct hpcq_jobspec spec;
    json_t *o;

    jobspec_init (&spec);
    spec.name = xstrdup ("flood");
    spec.script = xstrdup ("true\n");
    spec.workdir = xstrdup ("/tmp");
    spec.submit_host = xstrdup ("bench");
    if (resource_finalize (&spec.res, NULL) < 0 || !(o = jobspec_to_json (&spec)))
        die ("spec");
    jobspec_release (&spec);
    return o;
}

static struct conn *dial (struct flood *f, const char *addr, conn_msg_f fn)
{
    struct hpcq_error err;
    struct conn *c;
    int fd = client_dial (addr, &err);

    if (fd < 0) {
        fprintf (stderr, "job-flood: %s\n", err.text);
        exit (1);
    }
    if (!(c = conn_create (f->loop, fd, fn, closed, f)))
        die ("conn");
    return c;
}

static void hello (struct flood *f)
{
    send_job (f, "node.hello",
              json_pack ("{s:s s:i s:I s:[] s:s s:[] s:[]}", "name", "flood", "ncpus",
                         100000, "mem", (json_int_t)1 << 50, "gpus", "labels", "",
                         "running", "finished"));
}

int main (int argc, char **argv)
{
    struct flood f = { .every_s = 10 };

    signal (SIGPIPE, SIG_IGN);
    if (argc < 4 || (strcmp (argv[1], "submit") && strcmp (argv[1], "run"))
        || (!strcmp (argv[1], "run") && argc < 7)) {
        fprintf (
            stderr,
            "Usage: job-flood submit SOCKET N [held]\n"
            "       job-flood run SOCKET WORKER_ADDR TOTAL ACTIVE PID [EVERY_S]\n");
        return 2;
    }
    if (!(f.loop = loop_create ()))
        die ("loop");
    f.spec = trivial_spec ();
    f.t0_ms = f.last_report_ms = util_now_ms ();
    f.user = dial (&f, argv[2], user_msg);
    if (!strcmp (argv[1], "submit")) {
        f.total = atoll (argv[3]);
        f.held = 1;
        if (argc > 4 && !strcmp (argv[4], "held"))
            json_object_set_new (f.spec, "hold", json_true ());
    } else {
        f.total = atoll (argv[4]);
        f.active = atoll (argv[5]);
        f.pid = (pid_t)atoi (argv[6]);
        if (argc > 7)
            f.every_s = atoi (argv[7]);
        f.worker = dial (&f, argv[3], worker_msg);
        hello (&f);
        report (&f, 1);
    }
    submit_more (&f);
    if (loop_run (f.loop) < 0)
        die ("loop");
    if (f.pid)
        report (&f, 1);
    conn_destroy (f.user);
    conn_destroy (f.worker);
    json_decref (f.spec);
    loop_destroy (f.loop);
    return f.failed;
}
