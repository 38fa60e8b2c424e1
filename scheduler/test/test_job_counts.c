/* test_job_counts.c - the job counts jobs.c keeps as jobs change
 * (scheduler/job_counts.h), on a real server: after every step of a mixed
 * workload (submissions, holds, starts, ends, deletions, an array whose
 * subjobs split out and are held, a requeue when a node loses its jobs,
 * a scheduler restart) they equal a recount over every job.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <stdio.h>
#include <string.h>

#include "common/test/tap.h"
#include "common/util.h"
#include "scheduler/job_counts.h"
#include "scheduler/jobs.h"
#include "scheduler/test/fixture.h"

static struct fixture f;
static struct fx_peer *u;

/* The kept counts equal a recount. */
static void check (const char *step)
{
    struct job_counts *fresh = jobs_counts_recount (f.srv->jobs);
    char diff[256] = "";

    ok (job_counts_equal (jobs_counts (f.srv->jobs), fresh, diff, sizeof (diff)),
        "%s: the kept counts equal a recount %s", step, diff);
    job_counts_destroy (fresh);
}

static int count (char state)
{
    return job_counts_get (jobs_counts (f.srv->jobs), f.srv->default_queue, state);
}

static int user_rpc (const char *type, const char *id)
{
    json_t *body = json_object ();

    json_object_set_new (body, "id", json_string (id));
    return fixture_rpc (&f, u, type, body, NULL, NULL, 0);
}

static int id_rpc (const char *type, int64_t seq, const char *suffix)
{
    char id[64];

    snprintf (id, sizeof (id), "%lld%s", (long long)seq, suffix);
    return user_rpc (type, id);
}

static int node_rpc (struct fx_peer *w, const char *type, int64_t seq, int attempt,
                     int exit_status)
{
    return fixture_rpc (&f, w, type,
                        json_pack ("{s:I s:i s:i s:i}", "seq", (json_int_t)seq,
                                   "attempt", attempt, "exit_status", exit_status,
                                   "session_id", 100),
                        NULL, NULL, 0);
}

/* The launches sent to w: their seqs into seqs (at most max); how many. */
static int launches (struct fx_peer *w, int64_t *seqs, int max)
{
    struct wire_msg *m;
    int n = 0;

    while ((m = fixture_next_ms (&f, w, "job.launch", 300))) {
        if (n < max)
            seqs[n] = json_integer_value (json_object_get (m->body, "seq"));
        n++;
        fixture_msg_free (m);
    }
    return n;
}

int main (void)
{
    struct fx_peer *w;
    int64_t a, b, c, arr, run[16];
    int n;

    plan (NO_PLAN);
    fixture_start (&f, (const char *const[]){ "sched_interval_ms", "50", NULL });
    u = fixture_user (&f);
    a = fixture_submit (&f, u, (const char *const[]){ NULL });
    b = fixture_submit (&f, u, (const char *const[]){ "-h", NULL });
    c = fixture_submit (&f, u, (const char *const[]){ NULL });
    check ("three submitted, one held");
    ok (count ('Q') == 2 && count ('H') == 1, "2 queued, 1 held (%d, %d)", count ('Q'),
        count ('H'));

    w = fixture_worker (&f, "n1", 4, 8LL << 30);
    n = launches (w, run, 16);
    check ("two started");
    ok (n == 2 && count ('R') == 2 && count ('Q') == 0, "2 running (%d)", count ('R'));
    ok (node_rpc (w, "job.started", a, 1, 0) == 0
            && node_rpc (w, "job.finished", a, 1, 0) == 0,
        "one ends");
    check ("one finished");
    ok (id_rpc ("job.delete", b, "") == 0, "qdel of the held job");
    check ("a held job deleted");

    arr = fixture_submit (&f, u, (const char *const[]){ "-J", "1-20", NULL });
    n = launches (w, run, 16);
    check ("an array, 3 subjobs split out and started");
    ok (n == 3 && count ('R') == 4 && count ('Q') == 17,
        "4 running, 17 queued untouched (%d launched; %d, %d)", n, count ('R'),
        count ('Q'));
    ok (id_rpc ("job.hold", arr, "[15]") == 0, "qhold of subjob 15");
    check ("a subjob split out by a hold");
    ok (id_rpc ("job.hold", arr, "[]") == 0, "qhold of the array");
    check ("the array held");
    ok (count ('H') == 17 && count ('Q') == 0,
        "17 held: 16 untouched and subjob 15 (%d)", count ('H'));
    ok (id_rpc ("job.release", arr, "[]") == 0, "qrls of the array");
    check ("the array released");
    ok (node_rpc (w, "job.finished", run[0], 1, 3) == 0, "a subjob fails");
    n = launches (w, run, 16);
    check ("the next subjob started");

    fixture_disconnect (w); /* the worker dies and comes back without its jobs */
    fixture_turn (&f);
    w = fixture_worker (&f, "n1", 4, 8LL << 30);
    n = launches (w, run, 16);
    check ("the lost jobs requeued and started again");
    ok (n == 4, "4 started again (%d)", n);

    fixture_restart (&f);
    u = fixture_user (&f);
    check ("after a restart");
    ok (count ('R') == 4, "4 still running after the restart (%d)", count ('R'));
    w = fixture_worker (&f, "n1", 4, 8LL << 30);
    fixture_turns (&f, 300);
    check ("the worker back after the restart");
    ok (id_rpc ("job.delete", c, "") == 0, "qdel of a running job");
    check ("a running job deleted");
    ok (id_rpc ("job.delete", arr, "[]") == 0, "qdel of the array");
    check ("the array deleted");
    fixture_disconnect (w);
    fixture_turns (&f, 300);
    check ("the worker gone");
    fixture_stop (&f);
    done_testing ();
}
