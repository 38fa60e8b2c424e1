/* tmclient.c - see tmclient.h */
#include <config.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/tmclient.h"
#include "common/client.h"
#include "common/conn.h"
#include "common/tm.h"
#include "common/util.h"

extern char **environ;

struct tmc {
    struct loop *loop;
    struct conn *conn;
    tmc_started_f started;
    tmc_done_f done;
    tmc_output_f output;
    tmc_started_f taken;
    void *arg;
    int forward_stdin;
    struct loop_watch *in_watch;
    size_t in_flight; /* stdin sent, not yet taken by the process */
    int in_eof;
    int finished;
    int accepted;
    unsigned char *q; /* tmc_write's bytes not yet sent */
    size_t qlen;
};

static void tmc_finish (struct tmc *t, int status, const char *error)
{
    if (t->finished)
        return;
    t->finished = 1;
    loop_fd_remove (t->in_watch);
    t->in_watch = NULL;
    t->done (t, status, error, t->arg);
}

static void tmc_send (struct tmc *t, const char *type, json_t *body)
{
    struct wire_msg m;

    wire_request_init (&m, type, 0, body);
    (void)conn_send (t->conn, &m);
    wire_msg_release (&m);
}

static void tmc_stdin_io (struct loop *l, int fd, int revents, void *arg);

/* Read standard input while the window has room. */
static void tmc_stdin_watch (struct tmc *t)
{
    int want =
        t->forward_stdin && !t->in_eof && !t->finished && t->in_flight < TM_WINDOW;

    if (want && !t->in_watch)
        t->in_watch = loop_fd_add (t->loop, 0, LOOP_READ, tmc_stdin_io, t);
    else if (!want && t->in_watch) {
        loop_fd_remove (t->in_watch);
        t->in_watch = NULL;
    }
}

static void tmc_stdin_io (struct loop *l, int fd, int revents, void *arg)
{
    struct tmc *t = arg;
    char buf[TM_CHUNK];
    ssize_t n;

    (void)l;
    (void)revents;
    if ((n = tm_read_window (fd, buf, t->in_flight)) < 0)
        return;
    if (n == 0) {
        t->in_eof = 1;
        tmc_send (t, "tm.stdin", json_pack ("{s:b}", "eof", 1));
    } else {
        t->in_flight += n;
        tmc_send (t, "tm.stdin", json_pack ("{s:o}", "data", tm_data_json (buf, n)));
    }
    tmc_stdin_watch (t);
}

/* tmc_write's bytes, as the window allows once the spawn is accepted. */
static void tmc_flush (struct tmc *t)
{
    while (t->qlen && t->accepted && !t->finished && t->in_flight < TM_WINDOW) {
        size_t n = t->qlen;
        if (n > TM_CHUNK)
            n = TM_CHUNK;
        if (n > TM_WINDOW - t->in_flight)
            n = TM_WINDOW - t->in_flight;
        tmc_send (t, "tm.stdin", json_pack ("{s:o}", "data", tm_data_json (t->q, n)));
        t->in_flight += n;
        memmove (t->q, t->q + n, t->qlen - n);
        t->qlen -= n;
    }
}

void tmc_write (struct tmc *t, const void *buf, size_t len)
{
    if (t->finished || !len)
        return;
    t->q = xrealloc (t->q, t->qlen + len);
    memcpy (t->q + t->qlen, buf, len);
    t->qlen += len;
    tmc_flush (t);
}

size_t tmc_queued (const struct tmc *t)
{
    return t->qlen;
}

/* Its output goes to ours as it comes (a slow reader of ours holds the
 * process back through the window, never our memory). */
static void tmc_output (struct tmc *t, json_t *body)
{
    json_t *data;
    char *buf;
    size_t len;
    int fd;

    if (json_unpack (body, "{s:i s:o}", "fd", &fd, "data", &data) < 0
        || (fd != 1 && fd != 2) || tm_data_decode (data, &buf, &len) < 0)
        return;
    if (t->output)
        t->output (t, fd, buf, len, t->arg);
    else
        (void)util_write_all (fd, buf, len);
    free (buf);
    tmc_send (t, "tm.ack", json_pack ("{s:i s:I}", "fd", fd, "n", (json_int_t)len));
}

static void tmc_msg (struct conn *c, struct wire_msg *msg, void *arg)
{
    struct tmc *t = arg;
    json_int_t n;
    int status = -1, fd;
    const char *error = NULL;

    (void)c;
    if (msg->is_reply && strcmp (msg->type, "tm.spawn") == 0) {
        if (msg->errnum)
            tmc_finish (t, -1, msg->errstr ? msg->errstr : strerror (msg->errnum));
        else {
            t->accepted = 1;
            if (t->started)
                t->started (t, t->arg);
            tmc_stdin_watch (t);
            tmc_flush (t);
        }
    } else if (strcmp (msg->type, "tm.output") == 0)
        tmc_output (t, msg->body);
    else if (strcmp (msg->type, "tm.ack") == 0
             && json_unpack (msg->body, "{s:i s:I}", "fd", &fd, "n", &n) == 0
             && fd == 0) {
        t->in_flight = (size_t)n > t->in_flight ? 0 : t->in_flight - n;
        tmc_stdin_watch (t);
        tmc_flush (t);
        if (t->taken)
            t->taken (t, t->arg);
    } else if (strcmp (msg->type, "tm.exit") == 0) {
        (void)json_unpack (msg->body, "{s:i s?s}", "status", &status, "error", &error);
        tmc_finish (t, error ? -1 : status, error);
    }
}

static void tmc_close (struct conn *c, void *arg)
{
    struct tmc *t = arg;

    (void)c;
    t->conn = NULL;
    tmc_finish (t, -1, "the worker closed the connection");
}

static json_t *tmc_strings (char **v)
{
    json_t *a = json_array ();

    for (int i = 0; a && v && v[i]; i++)
        json_array_append_new (a, json_string (v[i]));
    return a;
}

struct tmc *tmc_spawn (struct loop *loop, const struct tmc_spawn *s,
                       tmc_started_f started, tmc_done_f done, void *arg,
                       struct hpcq_error *err)
{
    const char *sock = getenv (TM_SOCKET_ENV), *jobid = getenv ("PBS_JOBID");
    char cwd[4096];
    struct tmc *t;
    struct wire_msg m;
    json_t *body;
    int fd;

    if (!jobid || !*jobid)
        return errprintf (err, "not in a job (PBS_JOBID is not set)"), NULL;
    if (!sock || !*sock)
        return errprintf (err, "no task manager on this host (%s is not set)",
                          TM_SOCKET_ENV),
               NULL;
    if ((fd = client_dial (sock, err)) < 0)
        return NULL;
    t = xzalloc (sizeof (*t));
    t->loop = loop;
    t->started = started;
    t->done = done;
    t->arg = arg;
    t->output = s->output;
    t->taken = s->taken;
    t->forward_stdin = s->forward_stdin;
    if (!(t->conn = conn_create (loop, fd, tmc_msg, tmc_close, t))) {
        free (t);
        return errprintf (err, "cannot talk to the worker: %s", strerror (errno)), NULL;
    }
    body = json_pack ("{s:s s:s s:i s:o s:o s:b s:b s:b}", "jobid", jobid, "host",
                      s->host ? s->host : "", "vnode", s->vnode, "argv",
                      tmc_strings (s->argv), "env",
                      tmc_strings (s->env ? s->env : environ), "shell", s->shell,
                      "stdin", s->forward_stdin || s->write_stdin, "detach", s->detach);
    if (body && getcwd (cwd, sizeof (cwd)))
        json_object_set_new (body, "cwd", json_string (cwd));
    wire_request_init (&m, "tm.spawn", 1, body);
    if (conn_send (t->conn, &m) < 0) {
        errprintf (err, "tm.spawn: %s", strerror (errno));
        wire_msg_release (&m);
        tmc_destroy (t);
        return NULL;
    }
    wire_msg_release (&m);
    return t;
}

void tmc_signal (struct tmc *t, int signo)
{
    if (t->conn && !t->finished)
        tmc_send (t, "tm.signal", json_pack ("{s:i}", "signo", signo));
}

void tmc_destroy (struct tmc *t)
{
    if (!t)
        return;
    t->finished = 1;
    loop_fd_remove (t->in_watch);
    conn_destroy (t->conn);
    free (t->q);
    free (t);
}
