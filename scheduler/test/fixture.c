/* fixture.c - see fixture.h */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <ftw.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "common/conn.h"
#include "common/directive.h"
#include "common/jobspec.h"
#include "common/log.h"
#include "common/util.h"
#include "scheduler/jobs.h"
#include "scheduler/subsystems.h"
#include "scheduler/test/fixture.h"

/* A connection to the server and what came back on it. */
struct fx_peer {
    struct conn *c;         /* NULL once closed */
    struct wire_msg **msgs; /* received, oldest first, not yet taken */
    int n;
    int64_t next_id;
    struct fx_peer *next;
};

static void fx_die (const char *what)
{
    fprintf (stderr, "fixture: %s: %s\n", what, strerror (errno));
    abort ();
}

static void fx_peer_msg (struct conn *c, struct wire_msg *msg, void *arg)
{
    struct fx_peer *p = arg;
    struct wire_msg *m = xzalloc (sizeof (*m));

    *m = *msg;
    memset (msg, 0, sizeof (*msg)); /* ours now */
    p->msgs = xrealloc (p->msgs, (p->n + 1) * sizeof (*p->msgs));
    p->msgs[p->n++] = m;
}

static void fx_peer_close (struct conn *c, void *arg)
{
    struct fx_peer *p = arg;
    p->c = NULL;
}

static void fx_stop (struct loop *l, void *arg)
{
    loop_stop (l);
}

void fixture_turn (struct fixture *f)
{
    if (!loop_timer_add (f->loop, 5, 0, fx_stop, NULL) || loop_run (f->loop) < 0)
        fx_die ("loop");
}

static void fx_server_create (struct fixture *f)
{
    struct hpcq_error err;

    if (!(f->srv = subsystems_create (f->loop, f->cfg, NULL, &err))) {
        fprintf (stderr, "fixture: subsystems_create: %s\n", err.text);
        abort ();
    }
    /* The tests read jobs' requests at once: wait for the restart's
     * parsing threads, as any request that reads them does. */
    if (jobs_load_wait (f->srv->jobs) < 0)
        fx_die ("jobs_load_wait");
}

void fixture_start (struct fixture *f, const char *const *settings)
{
    char path[256];

    memset (f, 0, sizeof (*f));
    snprintf (f->dir, sizeof (f->dir), "%s/hpcq-fixture.XXXXXX",
              getenv ("TMPDIR") ? getenv ("TMPDIR") : "/tmp");
    if (!mkdtemp (f->dir))
        fx_die ("mkdtemp");
    snprintf (f->log, sizeof (f->log), "%s/scheduler.log", f->dir);
    if (log_init ("hpcq-scheduler", LOG_INFO, f->log) < 0)
        fx_die ("log_init");
    snprintf (path, sizeof (path), "%s/state", f->dir);
    if (!(f->cfg = config_create ()) || config_set (f->cfg, "state_dir", path) < 0
        || config_set (f->cfg, "listen", "127.0.0.1:0") < 0
        || config_set (f->cfg, "server_name", "fx") < 0
        /* Peers use the Unix socket, where the kernel says who they are;
         * nothing goes over TCP, so no munged is needed (the server warns
         * on standard error that authentication is off). */
        || config_set (f->cfg, "auth", "none") < 0)
        fx_die ("config");
    /* As hpcq-local does: run as root (CI), the tests submit as root. */
    if (getuid () == 0 && config_set (f->cfg, "acl_roots", "root") < 0)
        fx_die ("config");
    for (int i = 0; settings && settings[i] && settings[i + 1]; i += 2)
        if (config_set (f->cfg, settings[i], settings[i + 1]) < 0)
            fx_die ("config");
    if (!(f->loop = loop_create ()))
        fx_die ("loop_create");
    fx_server_create (f);
}

static void fx_peers_close (struct fixture *f)
{
    for (struct fx_peer *p = f->peers; p; p = p->next) {
        if (p->c)
            conn_destroy (p->c);
        p->c = NULL;
    }
}

void fixture_restart (struct fixture *f)
{
    fx_peers_close (f);
    subsystems_destroy (f->srv);
    /* A new loop, as a new process has: the old one keeps the old
     * server's before-sleep hook. */
    loop_destroy (f->loop);
    if (!(f->loop = loop_create ()))
        fx_die ("loop_create");
    fx_server_create (f);
}

static int fx_rm (const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    return remove (path);
}

void fixture_stop (struct fixture *f)
{
    fx_peers_close (f);
    subsystems_destroy (f->srv);
    while (f->peers) {
        struct fx_peer *p = f->peers;
        f->peers = p->next;
        for (int i = 0; i < p->n; i++)
            fixture_msg_free (p->msgs[i]);
        free (p->msgs);
        free (p);
    }
    loop_destroy (f->loop);
    config_destroy (f->cfg);
    log_fini ();
    (void)nftw (f->dir, fx_rm, 16, FTW_DEPTH | FTW_PHYS);
}

struct fx_peer *fixture_user (struct fixture *f)
{
    struct sockaddr_un sun = { .sun_family = AF_UNIX };
    struct fx_peer *p = xzalloc (sizeof (*p));
    int fd = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

    snprintf (sun.sun_path, sizeof (sun.sun_path), "%s", f->srv->socket_path);
    if (fd < 0 || connect (fd, (struct sockaddr *)&sun, sizeof (sun)) < 0)
        fx_die ("connect");
    if (!(p->c = conn_create (f->loop, fd, fx_peer_msg, fx_peer_close, p)))
        fx_die ("conn_create");
    p->next = f->peers;
    f->peers = p;
    return p;
}

struct fx_peer *fixture_worker (struct fixture *f, const char *name, int ncpus,
                                int64_t mem)
{
    struct fx_peer *p = fixture_user (f);
    char err[256];

    if (fixture_rpc (f, p, "node.hello",
                     json_pack ("{s:s s:i s:I s:[] s:s s:[] s:[]}", "name", name,
                                "ncpus", ncpus, "mem", (json_int_t)mem, "gpus",
                                "labels", "", "running", "finished"),
                     NULL, err, sizeof (err))
        != 0) {
        fprintf (stderr, "fixture: node.hello: %s\n", err);
        abort ();
    }
    return p;
}

/* Take the oldest message on p that matches; NULL if none. */
static struct wire_msg *fx_take (struct fx_peer *p, int reply, int64_t id,
                                 const char *type)
{
    for (int i = 0; i < p->n; i++) {
        struct wire_msg *m = p->msgs[i];
        if (reply ? (m->is_reply && m->id == id)
                  : (!m->is_reply && !strcmp (m->type, type))) {
            memmove (&p->msgs[i], &p->msgs[i + 1], (p->n - i - 1) * sizeof (*p->msgs));
            p->n--;
            return m;
        }
    }
    return NULL;
}

/* Turn the loop until a matching message arrives or ms pass. */
static struct wire_msg *fx_wait (struct fixture *f, struct fx_peer *p, int reply,
                                 int64_t id, const char *type, int ms)
{
    int64_t deadline = util_now_ms () + ms;
    struct wire_msg *m;

    while (!(m = fx_take (p, reply, id, type)) && p->c && util_now_ms () < deadline)
        fixture_turn (f);
    return m ? m : fx_take (p, reply, id, type);
}

int fixture_rpc (struct fixture *f, struct fx_peer *p, const char *type, json_t *body,
                 json_t **reply, char *errstr, size_t len)
{
    struct wire_msg req, *m;
    int64_t id = ++p->next_id;
    int errnum;

    wire_request_init (&req, type, id, body);
    if (!p->c || conn_send (p->c, &req) < 0)
        fx_die ("send");
    wire_msg_release (&req);
    if (!(m = fx_wait (f, p, 1, id, NULL, 5000))) {
        fprintf (stderr, "fixture: no reply to %s\n", type);
        abort ();
    }
    errnum = m->errnum;
    if (errstr)
        snprintf (errstr, len, "%s", m->errstr ? m->errstr : "");
    if (reply)
        *reply = json_incref (m->body);
    fixture_msg_free (m);
    return errnum;
}

struct wire_msg *fixture_next (struct fixture *f, struct fx_peer *p, const char *type)
{
    return fx_wait (f, p, 0, 0, type, 1000);
}

struct wire_msg *fixture_next_ms (struct fixture *f, struct fx_peer *p,
                                  const char *type, int ms)
{
    return fx_wait (f, p, 0, 0, type, ms);
}

void fixture_turns (struct fixture *f, int ms)
{
    int64_t deadline = util_now_ms () + ms;

    while (util_now_ms () < deadline)
        fixture_turn (f);
}

int fixture_connected (struct fx_peer *p)
{
    return p->c != NULL;
}

void fixture_disconnect (struct fx_peer *p)
{
    conn_destroy (p->c);
    p->c = NULL;
}

void fixture_msg_free (struct wire_msg *m)
{
    if (m) {
        wire_msg_release (m);
        free (m);
    }
}

/* opts as qsub takes them, into spec. */
static int fx_spec (struct hpcq_jobspec *spec, const char *const *opts,
                    struct hpcq_error *err)
{
    spec->script = xstrdup ("sleep 1\n");
    spec->name = xstrdup ("fx");
    spec->workdir = xstrdup ("/tmp");
    for (int i = 0; opts && opts[i]; i++) {
        int letter = opts[i][0] == '-' ? opts[i][1] : 0;
        const char *p = letter ? strchr (directive_optstring, letter) : NULL;
        const char *arg = p && p[1] == ':' ? opts[++i] : NULL;
        if (directive_apply (spec, letter, arg, err) < 0)
            return -1;
        if (p && p[1] == ':' && !arg)
            break;
    }
    return resource_finalize (&spec->res, err);
}

int64_t fixture_submit (struct fixture *f, struct fx_peer *p, const char *const *opts)
{
    struct hpcq_jobspec spec;
    struct hpcq_error err;
    json_t *reply = NULL;
    const char *jobid;
    int64_t seq = -1;
    int errnum;

    jobspec_init (&spec);
    if (fx_spec (&spec, opts, &err) < 0) {
        fprintf (stderr, "fixture: bad options: %s\n", err.text);
        abort ();
    }
    errnum = fixture_rpc (f, p, "job.submit",
                          json_pack ("{s:o}", "spec", jobspec_to_json (&spec)), &reply,
                          NULL, 0);
    jobspec_release (&spec);
    if (errnum == 0 && json_unpack (reply, "{s:s}", "jobid", &jobid) == 0)
        seq = atoll (jobid);
    json_decref (reply);
    errno = errnum;
    return seq;
}

/* Run sql on a second connection, committed state only. */
static sqlite3_stmt *fx_query (struct fixture *f, sqlite3 **h, const char *sql)
{
    char path[256];
    sqlite3_stmt *st = NULL;

    fixture_turn (f); /* the open batch commits in the before-sleep hook */
    snprintf (path, sizeof (path), "%s/state/hpcq.sqlite", f->dir);
    if (sqlite3_open_v2 (path, h, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK
        || sqlite3_prepare_v2 (*h, sql, -1, &st, NULL) != SQLITE_OK) {
        fprintf (stderr, "fixture: %s: %s\n", sql, sqlite3_errmsg (*h));
        abort ();
    }
    return st;
}

int64_t fixture_db_int (struct fixture *f, const char *sql)
{
    sqlite3 *h;
    sqlite3_stmt *st = fx_query (f, &h, sql);
    int64_t v = sqlite3_step (st) == SQLITE_ROW ? sqlite3_column_int64 (st, 0) : -1;

    sqlite3_finalize (st);
    sqlite3_close (h);
    return v;
}

const char *fixture_db_text (struct fixture *f, const char *sql, char *buf, size_t len)
{
    sqlite3 *h;
    sqlite3_stmt *st = fx_query (f, &h, sql);
    const unsigned char *t =
        sqlite3_step (st) == SQLITE_ROW ? sqlite3_column_text (st, 0) : NULL;

    snprintf (buf, len, "%s", t ? (const char *)t : "");
    sqlite3_finalize (st);
    sqlite3_close (h);
    return buf;
}

int fixture_log_has (struct fixture *f, const char *text)
{
    char *log = util_read_file (f->log, 16 << 20, NULL);
    int found = log && strstr (log, text) != NULL;

    free (log);
    return found;
}
