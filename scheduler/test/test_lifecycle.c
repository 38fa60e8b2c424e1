/* test_lifecycle.c - the job state machine and its one owner.
 *
 * The table of legal transitions is checked against a list written out by
 * hand here from PBS's states (every legal move accepted, every other
 * (from, to, event, kind) refused); refused changes are logged as bugs and
 * change nothing.  Then a real server (fixture.h) takes jobs through their
 * lives, and the events table must show each transition with its cause;
 * an illegal change asked of the daemon's lifecycle leaves the job, its
 * node and its history untouched.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "common/test/tap.h"
#include "common/util.h"
#include "scheduler/policy/job_state.h"
#include "scheduler/jobs.h"
#include "scheduler/lifecycle.h"
#include "scheduler/nodes.h"
#include "scheduler/test/fixture.h"

/* The legal moves, written from PBS's states independently of the table:
 * "FROM TO EVENT KINDS", '-' the state of a job not yet submitted, kinds
 * j (job or subjob) and a (array). */
static const char *const legal[] = {
    "- Q submitted ja",
    "- H submitted ja",
    "- W submitted j",
    "Q H held j",
    "H H held j",
    "W H held j",
    "H Q released ja",
    "H H released ja",
    "H W released j",
    "H H dependency_failed ja",
    "W Q eligible j",
    "Q Q altered j",
    "H H altered j",
    "W W altered j",
    "Q R started j",
    "R E deleted j",
    "E E deleted j",
    "S E deleted j",
    "Q F deleted j",
    "H F deleted j",
    "W F deleted j",
    "R F finished j",
    "E F finished j",
    "S F finished j",
    "R Q requeued j",
    "S Q requeued j",
    "R S suspended j",
    "S R resumed j",
    "Q H held a",
    "H H held a",
    "Q E deleted a",
    "H E deleted a",
    "E E deleted a",
    /* Checkpoints leave the state as it is: asked of a running job; their
     * report may come while it is deleted, or be given up on while it is
     * suspended. */
    "R R checkpoint_requested j",
    "R R checkpoint j",
    "E E checkpoint j",
    "S S checkpoint j",
    "R R checkpoint_missed j",
    "E E checkpoint_missed j",
    "S S checkpoint_missed j",
    "Q F finished a",
    "H F finished a",
    "E F finished a",
};

static const char states[] = "-QHWRESF";

static char st (char c)
{
    return c == '-' ? JOB_STATE_NEW : c;
}

/* 1 if the hand-written list allows it. */
static int listed (char from, char to, enum job_event ev, int kind)
{
    for (size_t i = 0; i < ARRAY_SIZE (legal); i++) {
        char f, t, name[32], kinds[4];
        if (sscanf (legal[i], "%c %c %31s %3s", &f, &t, name, kinds) != 4)
            return -1;
        if (st (f) == from && st (t) == to && strcmp (name, job_event_name (ev)) == 0
            && strchr (kinds, kind == JOB_KIND_JOB ? 'j' : 'a'))
            return 1;
    }
    return 0;
}

static void test_table (void)
{
    int n, rows = 0, wrong = 0, accepted = 0, refused_rows = 0;
    const struct job_transition *t = job_state_table (&n);

    for (size_t i = 0; i < ARRAY_SIZE (legal); i++)
        rows += strchr (strrchr (legal[i], ' '), 'j') != NULL;
    for (size_t i = 0; i < ARRAY_SIZE (legal); i++)
        rows += strchr (strrchr (legal[i], ' '), 'a') != NULL;
    /* Every (from, to, event, kind) there is: legal exactly when listed. */
    for (const char *f = states; *f; f++)
        for (const char *to = states + 1; *to; to++)
            for (int ev = 0; ev < JOB_EV_COUNT; ev++)
                for (int kind = JOB_KIND_JOB; kind <= JOB_KIND_ARRAY; kind++) {
                    int want = listed (st (*f), *to, ev, kind);
                    int got = job_state_legal (st (*f), *to, ev, kind);
                    accepted += got;
                    if (want != got) {
                        wrong++;
                        diag ("%c -> %c %s (%s): table says %d, PBS says %d", *f, *to,
                              job_event_name (ev),
                              kind == JOB_KIND_JOB ? "job" : "array", got, want);
                    }
                }
    ok (wrong == 0,
        "every (from, to, event, kind) is legal exactly when PBS allows it "
        "(%d legal of %d)",
        accepted, 8 * 7 * JOB_EV_COUNT * 2);
    ok (accepted == rows, "the table accepts the %d moves listed, no more", rows);
    ok (n == (int)ARRAY_SIZE (legal), "one table row per listed move (%d)", n);
    for (int i = 0; i < n; i++)
        if (!job_state_legal (t[i].from, t[i].to, t[i].event,
                              t[i].kinds & JOB_KIND_JOB ? JOB_KIND_JOB
                                                        : JOB_KIND_ARRAY))
            refused_rows++;
    ok (refused_rows == 0, "each row of the table is accepted");
    is (job_event_name (JOB_EV_REQUEUED), "requeued", "events are named as stored");
    is (job_event_name (JOB_EV_COUNT), "?", "an event out of range is named '?'");
}

/* A sample of illegal changes on a job in memory: refused, logged, and
 * the state stays. */
static void test_illegal (struct fixture *f)
{
    static const struct {
        char from, to;
        enum job_event ev;
        int array;
    } bad[] = {
        { 'F', 'Q', JOB_EV_REQUEUED, 0 }, /* a finished job never comes back */
        { 'F', 'R', JOB_EV_STARTED, 0 },
        { 'Q', 'F', JOB_EV_FINISHED, 0 }, /* only what ran can finish */
        { 'H', 'R', JOB_EV_STARTED, 0 },  /* a held job never starts */
        { 'R', 'R', JOB_EV_STARTED, 0 },  /* started twice: a job never runs twice */
        { 'Q', 'E', JOB_EV_DELETED, 0 },
        { 'E', 'Q', JOB_EV_REQUEUED, 0 }, /* being deleted: it ends, never requeues */
        { 'Q', 'H', JOB_EV_RELEASED, 0 }, /* right states, wrong cause */
        { 'Q', 'R', JOB_EV_STARTED, 1 },  /* an array never runs itself */
        { 'Q', 'F', JOB_EV_DELETED, 1 },  /* an array is E while subjobs run on */
        { JOB_STATE_NEW, 'R', JOB_EV_SUBMITTED, 0 },
        { 'Q', 'X', JOB_EV_HELD, 0 }, /* not a state */
    };
    char want[256];

    for (size_t i = 0; i < ARRAY_SIZE (bad); i++) {
        struct job job = { .is_array = bad[i].array };
        int rc;
        snprintf (job.id, sizeof (job.id), "%zu.fx", i + 1);
        job.rec.owner = "alice";
        job.rec.state = bad[i].from;
        errno = 0;
        rc = job_state_set (&job, bad[i].to, bad[i].ev, "alice", __func__);
        snprintf (want, sizeof (want),
                  "bug: job %zu.fx (alice): illegal state change "
                  "%c -> %c (%s%s) by alice in test_illegal: refused",
                  i + 1, bad[i].from ? bad[i].from : '-', bad[i].to,
                  job_event_name (bad[i].ev), bad[i].array ? ", array" : "");
        ok (rc == -1 && errno == EINVAL && job.rec.state == bad[i].from
                && fixture_log_has (f, want),
            "%c -> %c (%s%s) refused with EINVAL, state kept, "
            "logged",
            bad[i].from ? bad[i].from : '-', bad[i].to, job_event_name (bad[i].ev),
            bad[i].array ? ", array" : "");
    }
    {
        struct job job = { .rec.state = 'Q' };
        ok (job_state_set (&job, 'R', JOB_EV_STARTED, "scheduler", __func__) == 0
                && job.rec.state == 'R',
            "a legal change is made");
    }
}

static char user[64];

/* A job's history as "event:from>to:actor ..." in order. */
static const char *history (struct fixture *f, int64_t seq, char *buf, size_t len)
{
    char sql[512];

    snprintf (sql, sizeof (sql),
              "SELECT group_concat (type || ':' || coalesce (old_state, "
              "'-') || '>' || coalesce (new_state, '-') || ':' || actor, ' ') FROM "
              "(SELECT * FROM events WHERE job_seq = %lld ORDER BY id)",
              (long long)seq);
    return fixture_db_text (f, sql, buf, len);
}

static int node_rpc (struct fixture *f, struct fx_peer *w, const char *type,
                     int64_t seq, int attempt, json_t *extra)
{
    json_t *body = json_pack ("{s:I s:i}", "seq", (json_int_t)seq, "attempt", attempt);

    json_object_update (body, extra);
    json_decref (extra);
    return fixture_rpc (f, w, type, body, NULL, NULL, 0);
}

static int job_rpc (struct fixture *f, struct fx_peer *u, const char *type, int64_t seq)
{
    char id[64];

    snprintf (id, sizeof (id), "%lld.fx", (long long)seq);
    return fixture_rpc (f, u, type, json_pack ("{s:s}", "id", id), NULL, NULL, 0);
}

/* Held, released, started, finished: each step an event with its cause. */
static void test_life (struct fixture *f, struct fx_peer *u, struct fx_peer *w)
{
    const char *const opts[] = { "-h", NULL };
    int64_t seq = fixture_submit (f, u, opts);
    struct wire_msg *launch;
    char h[1024], want[1024];

    ok (seq > 0 && jobs_lookup (f->srv->jobs, seq)->rec.state == 'H', "qsub -h: held");
    ok (job_rpc (f, u, "job.release", seq) == 0, "released");
    launch = fixture_next (f, w, "job.launch");
    ok (launch && json_integer_value (json_object_get (launch->body, "seq")) == seq,
        "the scheduler started it: the worker got job.launch");
    fixture_msg_free (launch);
    ok (node_rpc (f, w, "job.started", seq, 1, json_pack ("{s:i}", "session_id", 4242))
                == 0
            && node_rpc (f, w, "job.finished", seq, 1,
                         json_pack ("{s:i}", "exit_status", 0))
                   == 0,
        "the worker reported it started and finished");
    snprintf (want, sizeof (want),
              "submitted:->H:%s released:H>Q:%s started:Q>R:scheduler "
              "finished:R>F:n1",
              user, user);
    is (history (f, seq, h, sizeof (h)), want,
        "its events show each transition and its cause");
    is (fixture_db_text (
            f, "SELECT detail FROM events WHERE type = 'started' ORDER BY id DESC", h,
            sizeof (h)),
        "n1/0*1", "started names where it runs");
    ok (fixture_db_int (
            f, "SELECT count(*) FROM jobs WHERE state = 'F' AND session_id = 4242")
            == 1,
        "the session the worker reported was written through, with no event");
}

/* The node forgot the job (it restarted): the rerunnable job is requeued
 * and starts again; a second job is deleted while running. */
static void test_requeue_delete (struct fixture *f, struct fx_peer *u,
                                 struct fx_peer **w)
{
    const char *const opts[] = { NULL };
    int64_t seq = fixture_submit (f, u, opts), seq2;
    struct wire_msg *m;
    char h[1024], want[1024];

    fixture_msg_free (fixture_next (f, *w, "job.launch"));
    node_rpc (f, *w, "job.started", seq, 1, json_pack ("{s:i}", "session_id", 1));
    fixture_disconnect (*w); /* the worker dies... */
    fixture_turn (f);
    *w = fixture_worker (f, "n1", 1, 1 << 30); /* ...and is back with nothing running */
    m = fixture_next (f, *w, "job.launch");
    ok (m && json_integer_value (json_object_get (m->body, "attempt")) == 2,
        "requeued and started again as attempt 2");
    fixture_msg_free (m);
    snprintf (want, sizeof (want),
              "submitted:->Q:%s started:Q>R:scheduler "
              "requeued:R>Q:scheduler started:Q>R:scheduler",
              user);
    is (history (f, seq, h, sizeof (h)), want,
        "the requeue is an event: R -> Q by the "
        "scheduler");
    is (fixture_db_text (f, "SELECT detail FROM events WHERE type = 'requeued'", h,
                         sizeof (h)),
        "its node restarted and lost it", "with the reason");

    ok (job_rpc (f, u, "job.delete", seq) == 0, "qdel of the running job");
    m = fixture_next (f, *w, "job.signal");
    ok (m
            && strcmp (json_string_value (json_object_get (m->body, "signal")), "TERM")
                   == 0,
        "the worker is told to stop it");
    fixture_msg_free (m);
    ok (jobs_lookup (f->srv->jobs, seq)->rec.state == 'E', "it is exiting");
    ok (node_rpc (f, *w, "job.finished", seq, 2,
                  json_pack ("{s:i}", "exit_status", 271))
            == 0,
        "the worker reports its end");
    snprintf (want, sizeof (want),
              "submitted:->Q:%s started:Q>R:scheduler "
              "requeued:R>Q:scheduler started:Q>R:scheduler deleted:R>E:%s "
              "finished:E>F:n1",
              user, user);
    is (history (f, seq, h, sizeof (h)), want,
        "deleted by the user, finished by the node");
    seq2 = fixture_submit (f, u, (const char *const[]){ "-h", NULL });
    ok (job_rpc (f, u, "job.delete", seq2) == 0, "qdel of a held job");
    snprintf (want, sizeof (want), "submitted:->H:%s deleted:H>F:%s", user, user);
    is (history (f, seq2, h, sizeof (h)), want, "it goes from H to F at once");
}

/* Illegal changes asked of the daemon's lifecycle: refused before any
 * side effect. */
static void test_illegal_daemon (struct fixture *f, struct fx_peer *u)
{
    int64_t held = fixture_submit (f, u, (const char *const[]){ "-h", NULL });
    int64_t events = fixture_db_int (f, "SELECT count(*) FROM events");
    int64_t attempts = fixture_db_int (f, "SELECT count(*) FROM attempts");
    struct job *job = jobs_lookup (f->srv->jobs, held);
    struct node *n = nodes_lookup (f->srv->nodes, "n1");
    int queued = jobs_queued_count (f->srv->jobs), used = n->ncpus_used;
    struct alloc *a = alloc_new (1);
    char want[256];

    a->slot[0].node = n;
    a->slot[0].ncpus = 1;
    snprintf (a->slot[0].node_name, sizeof (a->slot[0].node_name), "n1");
    errno = 0;
    ok (lifecycle_start (f->srv, job, a) == -1 && errno == EINVAL
            && job->rec.state == 'H' && !job->alloc && n->ncpus_used == used
            && job->rec.run_count == 0,
        "starting a held job is refused: no allocation, no attempt");
    free (a);
    snprintf (want, sizeof (want),
              "bug: job %lld.fx (%s): illegal state change H -> R "
              "(started) by scheduler in test_illegal_daemon: refused",
              (long long)held, user);
    ok (fixture_log_has (f, want),
        "and logged as a bug naming job, states, actor and caller");
    errno = 0;
    ok (lifecycle_end (f->srv, job, 0, NULL, 0, 0, 0, "n1") == -1 && errno == EINVAL
            && job->rec.state == 'H' && !job->rec.has_exit,
        "ending a job that never ran is refused");
    ok (lifecycle_change (f->srv, job, 'Q', JOB_EV_REQUEUED, "test", NULL) == -1
            && job->rec.state == 'H' && jobs_queued_count (f->srv->jobs) == queued,
        "requeueing a held job is refused: it does not join the queue");
    ok (lifecycle_change (f->srv, job, 'F', JOB_EV_DELETED, "test", "queued") == 0
            && job->rec.state == 'F',
        "a legal change on the same job goes through");
    ok (lifecycle_change (f->srv, job, 'Q', JOB_EV_RELEASED, "test", NULL) == -1
            && job->rec.state == 'F',
        "a finished job is never released");
    ok (fixture_db_int (f, "SELECT count(*) FROM events") == events + 1
            && fixture_db_int (f, "SELECT count(*) FROM attempts") == attempts,
        "the refused changes wrote no event and no attempt; the legal one its event");
    ok (fixture_db_int (
            f, "SELECT count(*) FROM events WHERE type = 'deleted' AND actor = "
               "'test' AND old_state = 'H' AND new_state = 'F'")
            == 1,
        "the legal one is recorded H -> F by its actor");
}

/* An array finishes when its last subjob has: the scheduler's event. */
static void test_array (struct fixture *f, struct fx_peer *u, struct fx_peer *w)
{
    int64_t seq = fixture_submit (f, u, (const char *const[]){ "-J", "0-1", NULL });
    char h[1024], want[256];

    for (int i = 0; i < 2; i++) {
        struct wire_msg *m = fixture_next (f, w, "job.launch");
        int64_t sub = m ? json_integer_value (json_object_get (m->body, "seq")) : -1;
        fixture_msg_free (m);
        ok (sub > 0
                && node_rpc (f, w, "job.finished", sub, 1,
                             json_pack ("{s:i}", "exit_status", 0))
                       == 0,
            "subjob %d ran and finished", i);
    }
    snprintf (want, sizeof (want), "submitted:->Q:%s finished:Q>F:scheduler", user);
    is (history (f, seq, h, sizeof (h)), want,
        "the array's events: submitted, then finished "
        "by the scheduler when its last subjob did");
}

int main (void)
{
    static const char *const settings[] = { "sched_interval_ms", "50", NULL };
    struct passwd *pw = getpwuid (getuid ());
    struct fixture f;
    struct fx_peer *u, *w;

    plan (NO_PLAN);
    snprintf (user, sizeof (user), "%s", pw ? pw->pw_name : "?");
    if (!pw)
        snprintf (user, sizeof (user), "uid%u", (unsigned)getuid ());
    fixture_start (&f, settings);
    test_table ();
    test_illegal (&f);
    u = fixture_user (&f);
    w = fixture_worker (&f, "n1", 1, 1 << 30);
    test_life (&f, u, w);
    test_requeue_delete (&f, u, &w);
    test_illegal_daemon (&f, u);
    test_array (&f, u, w);
    fixture_stop (&f);
    done_testing ();
}
