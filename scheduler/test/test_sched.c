/* test_sched.c - the scheduling pass (scheduler/sched.c) on a real server:
 * whether a request could ever run (sched_feasible, and its reasons), the
 * job.launch a worker receives (durable first: after the commit), jobs
 * taken in priority order, a pass only when one was asked for, and jobs
 * starting as room frees up.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/test/tap.h"
#include "scheduler/jobs.h"
#include "scheduler/sched.h"
#include "scheduler/test/fixture.h"

static struct fixture f;
static struct fx_peer *u;

static int feasible (const char *list, const char *labels, struct hpcq_error *err)
{
    struct hpcq_resources res;
    int rc = -2;

    resource_init (&res);
    if (resource_parse_list (&res, list, err) == 0
        && resource_finalize (&res, err) == 0)
        rc = sched_feasible (f.srv, &res, labels, err);
    resource_release (&res);
    return rc;
}

static int64_t launched (struct fx_peer *w, int ms)
{
    struct wire_msg *m = fixture_next_ms (&f, w, "job.launch", ms);
    int64_t seq = m ? json_integer_value (json_object_get (m->body, "seq")) : -1;

    fixture_msg_free (m);
    return seq;
}

static int finish (struct fx_peer *w, int64_t seq)
{
    return fixture_rpc (&f, w, "job.finished",
                        json_pack ("{s:I s:i s:i}", "seq", (json_int_t)seq, "attempt",
                                   1, "exit_status", 0),
                        NULL, NULL, 0);
}

static struct fx_peer *test_feasible (void)
{
    struct hpcq_error err;
    struct fx_peer *w;

    ok (feasible ("ncpus=1000", NULL, &err) == 0,
        "with no worker known yet, nothing is judged infeasible");
    w = fixture_worker (&f, "n1", 4, 8LL << 30);
    ok (feasible ("ncpus=4,mem=8gb", NULL, &err) == 0,
        "a request that fills n1 is feasible");
    ok (feasible ("ncpus=8", NULL, &err) == -1 && errno == E2BIG
            && strstr (err.text, "no node can satisfy select=1:ncpus=8")
            && strstr (err.text, "largest has 4 cpus"),
        "8 cores never fit: %s", err.text);
    ok (feasible ("select=1:ncpus=1:ngpus=1:gpu_model=H100", NULL, &err) == -1
            && strstr (err.text, "no node has GPUs of model 'H100'"),
        "a GPU model no node has: %s", err.text);
    ok (feasible ("ncpus=1", "ib_switch=s9", &err) == -1
            && strstr (err.text, "queue's node_labels=ib_switch=s9"),
        "no node with the queue's labels: %s", err.text);
    ok (fixture_submit (&f, u, (const char *const[]){ "-l", "ncpus=64", NULL }) == -1
            && errno == E2BIG,
        "qsub of such a job is refused by the server");
    return w;
}

static void test_launch (struct fx_peer *w)
{
    const char *const opts[] = { "-l", "select=1:ncpus=2:mpiprocs=2", "-l",
                                 "walltime=00:05:00", NULL };
    int64_t seq = fixture_submit (&f, u, opts);
    struct wire_msg *m = fixture_next (&f, w, "job.launch");
    struct job *job = jobs_lookup (f.srv->jobs, seq);
    json_t *b = m ? m->body : NULL;
    char *nodefile =
        b ? json_dumps (json_object_get (b, "nodefile"), JSON_COMPACT) : NULL;
    char want[64];

    snprintf (want, sizeof (want), "%lld.fx", (long long)seq);
    ok (m && json_integer_value (json_object_get (b, "seq")) == seq
            && json_integer_value (json_object_get (b, "attempt")) == 1,
        "the worker is sent job.launch for attempt 1");
    is (b ? json_string_value (json_object_get (b, "jobid")) : "", want,
        "with the job's id");
    ok (b && json_integer_value (json_object_get (b, "ncpus")) == 2
            && json_integer_value (json_object_get (b, "walltime")) == 300
            && !strcmp (json_string_value (json_object_get (b, "queue")), "workq")
            && !strcmp (json_string_value (json_object_get (b, "uuid")), job->rec.uuid),
        "its cores, walltime, queue and UUID");
    is (nodefile, "[\"n1\",\"n1\"]", "a nodefile line per MPI process");
    is (job->rec.exec_host, "n1/0*2", "exec_host is recorded");
    ok (fixture_db_int (&f, "SELECT count(*) FROM attempts WHERE node = 'n1'") == 1,
        "and the attempt, before the launch was sent (group commit)");
    ok (finish (w, seq) == 0 && job->rec.state == 'F',
        "the worker reports it finished");
    free (nodefile);
    fixture_msg_free (m);
}

/* One core: who goes first is the pass's choice. */
static void test_order (void)
{
    struct fx_peer *w;
    int64_t low, high, plain;

    fixture_restart (&f);
    u = fixture_user (&f);
    low = fixture_submit (&f, u, (const char *const[]){ "-p", "-10", NULL });
    plain = fixture_submit (&f, u, (const char *const[]){ NULL });
    high = fixture_submit (&f, u, (const char *const[]){ "-p", "100", NULL });
    w = fixture_worker (&f, "n2", 1, 1LL << 30);
    ok (launched (w, 1000) == high,
        "the highest qsub -p starts first on a one-core node");
    ok (launched (w, 200) == -1, "and only it: no core is left");
    ok (finish (w, high) == 0 && launched (w, 1000) == plain, "then the plain one");
    ok (finish (w, plain) == 0 && launched (w, 1000) == low, "then the lowest");
    ok (finish (w, low) == 0 && jobs_queued_count (f.srv->jobs) == 0,
        "and the queue is empty");
}

static void test_requested (void)
{
    struct fx_peer *w2;

    fixture_turn (&f);
    ok (!f.srv->pass_requested, "after a turn no pass is pending");
    fixture_submit (&f, u, (const char *const[]){ "-h", NULL });
    ok (jobs_count_state (f.srv->jobs, 'H') == 1, "a held job");
    w2 = fixture_worker (&f, "n3", 2, 1LL << 30);
    ok (launched (w2, 200) == -1, "is never started, whatever passes run");
}

int main (void)
{
    /* A long interval: passes come when something asks for one. */
    plan (NO_PLAN);
    fixture_start (&f, (const char *const[]){ "sched_interval_ms", "600000", NULL });
    u = fixture_user (&f);
    test_launch (test_feasible ());
    test_order ();
    test_requested ();
    fixture_stop (&f);
    done_testing ();
}
