/* test_depend.c - job dependencies (scheduler/depend.c) on a real server:
 * a dependent job is held with the system hold 's' until its dependencies
 * are met, then queued (or kept held if a user hold remains); one that can
 * never be met says so; malformed ones are refused at submission; waiting
 * jobs wait again after a restart.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/test/tap.h"
#include "scheduler/depend.h"
#include "scheduler/jobs.h"
#include "scheduler/test/fixture.h"

static struct fixture f;
static struct fx_peer *u, *w;

static int64_t submit_dep (const char *dep, int hold)
{
    const char *opts[] = { "-W", dep, hold ? "-h" : NULL, NULL };
    char arg[256];

    snprintf (arg, sizeof (arg), "depend=%s", dep);
    opts[1] = arg;
    return fixture_submit (&f, u, opts);
}

static struct job *job (int64_t seq)
{
    return jobs_lookup (f.srv->jobs, seq);
}

/* Run the job the worker is told to launch to its end with exit status. */
static int64_t run_next (int status)
{
    struct wire_msg *m = fixture_next (&f, w, "job.launch");
    int64_t seq = m ? json_integer_value (json_object_get (m->body, "seq")) : -1;

    fixture_msg_free (m);
    if (seq > 0
        && fixture_rpc (&f, w, "job.finished",
                        json_pack ("{s:I s:i s:i}", "seq", (json_int_t)seq, "attempt",
                                   1, "exit_status", status),
                        NULL, NULL, 0)
               != 0)
        return -1;
    return seq;
}

static int release (int64_t seq, const char *types)
{
    char id[64];

    snprintf (id, sizeof (id), "%lld.fx", (long long)seq);
    return fixture_rpc (&f, u, "job.release",
                        json_pack ("{s:s s:s}", "id", id, "hold_types", types), NULL,
                        NULL, 0);
}

static void test_afterok (void)
{
    int64_t a = fixture_submit (&f, u, (const char *const[]){ "-h", NULL });
    char dep[64], want[128];
    int64_t b;

    snprintf (dep, sizeof (dep), "afterok:%lld.fx", (long long)a);
    b = submit_dep (dep, 0);
    snprintf (want, sizeof (want), "Job held: waiting for afterok:%lld.fx",
              (long long)a);
    ok (b > 0 && job (b)->rec.state == 'H' && !strcmp (job (b)->rec.hold_types, "s")
            && depend_waiting (job (b)) && depend_count (f.srv) == 1,
        "afterok on a held job: held with the system hold, waiting");
    is (job (b)->rec.comment, want, "its comment names what it waits for");
    ok (release (a, "u") == 0 && run_next (0) == a,
        "the other job is released and succeeds");
    ok (run_next (0) == b, "then the dependent job runs");
    ok (depend_count (f.srv) == 0 && !depend_waiting (job (b)),
        "nothing waits any more");
    ok (fixture_db_int (
            &f, "SELECT count(*) FROM events WHERE type = 'released' AND actor = "
                "'scheduler' AND old_state = 'H' AND new_state = 'Q'")
            == 1,
        "the scheduler released it (an event)");
}

static void test_never (void)
{
    int64_t c = fixture_submit (&f, u, (const char *const[]){ NULL }), d, e;
    char dep[64], sql[256], text[16];

    ok (run_next (3) == c, "a job fails with exit status 3");
    snprintf (dep, sizeof (dep), "afterok:%lld", (long long)c);
    d = submit_dep (dep, 0);
    fixture_turn (&f);
    ok (job (d)->rec.state == 'H'
            && strstr (job (d)->rec.comment, "can never be satisfied"),
        "afterok on it: held for good, saying so: %s", job (d)->rec.comment);
    ok (fixture_db_int (&f,
                        "SELECT count(*) FROM events WHERE type = 'dependency_failed'")
            == 1,
        "a dependency_failed event");
    snprintf (dep, sizeof (dep), "afternotok:%lld", (long long)c);
    e = submit_dep (dep, 0);
    snprintf (sql, sizeof (sql),
              "SELECT new_state FROM events WHERE job_seq = %lld AND "
              "type = 'submitted'",
              (long long)e);
    ok (job (e)->rec.state != 'H' && !strcmp (job (e)->rec.hold_types, "n")
            && !strcmp (fixture_db_text (&f, sql, text, sizeof (text)), "Q"),
        "afternotok on the failed job is met at once: submitted queued, no hold");
    ok (run_next (0) == e, "and runs");
}

static void test_user_hold (void)
{
    int64_t a = fixture_submit (&f, u, (const char *const[]){ "-h", NULL }), b;
    char dep[64];

    snprintf (dep, sizeof (dep), "afterany:%lld", (long long)a);
    b = submit_dep (dep, 1);
    is (job (b)->rec.hold_types, "us", "a user hold and a dependency: hold types us");
    ok (release (a, "u") == 0 && run_next (1) == a,
        "the other job ends (failed: afterany)");
    fixture_turn (&f);
    ok (job (b)->rec.state == 'H' && !strcmp (job (b)->rec.hold_types, "u"),
        "the dependency's hold goes, the user's stays");
    ok (release (b, "u") == 0 && run_next (0) == b, "qrls lets it run");
}

static void test_bad (void)
{
    const char *const bad[] = { "afterok:999", "before:1", "afterok:", "afterok",
                                NULL };

    for (int i = 0; bad[i]; i++) {
        int64_t seq;
        errno = 0;
        seq = submit_dep (bad[i], 0);
        ok (seq == -1 && errno != 0, "depend=%s is refused (errno %d)", bad[i], errno);
    }
    ok (fixture_db_int (&f, "SELECT count(*) FROM jobs WHERE spec LIKE '%before:1%'")
            == 0,
        "nothing of them was stored");
}

static void test_restart (void)
{
    int64_t a = fixture_submit (&f, u, (const char *const[]){ "-h", NULL }), b;
    char dep[64];

    snprintf (dep, sizeof (dep), "after:%lld", (long long)a);
    b = submit_dep (dep, 0);
    fixture_restart (&f);
    u = fixture_user (&f);
    w = fixture_worker (&f, "n1", 1, 1LL << 30);
    ok (depend_count (f.srv) == 2 && job (b)->rec.state == 'H'
            && depend_waiting (job (b)),
        "after a restart the dependent job waits again (with the one that never can)");
    ok (release (a, "u") == 0, "the other job is released");
    {
        struct wire_msg *m = fixture_next (&f, w, "job.launch");
        ok (m && json_integer_value (json_object_get (m->body, "seq")) == a,
            "and starts");
        fixture_msg_free (m);
    }
    fixture_turns (&f, 200);
    ok (job (b)->rec.state == 'Q',
        "after: the dependent job is queued once it started");
}

int main (void)
{
    plan (NO_PLAN);
    fixture_start (&f, (const char *const[]){ "sched_interval_ms", "50", NULL });
    u = fixture_user (&f);
    w = fixture_worker (&f, "n1", 1, 1LL << 30);
    test_afterok ();
    test_never ();
    test_user_hold ();
    test_bad ();
    test_restart ();
    fixture_stop (&f);
    done_testing ();
}
