/* test_nodes.c - the workers the scheduler knows (scheduler/nodes.c) on a
 * real server: node.hello registers a node with its GPUs and MIG
 * instances, a malformed one changes nothing, a second worker of the same
 * name takes over, a node whose link dropped gets no new jobs, a node
 * that stops sending heartbeats goes down and its jobs are requeued or
 * failed, and a worker that comes back with a copy the scheduler no longer
 * expects is told to kill it; reports about jobs a node does not run are
 * ignored.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/test/tap.h"
#include "scheduler/jobs.h"
#include "scheduler/nodes.h"
#include "scheduler/test/fixture.h"

static struct fixture f;
static struct fx_peer *u;

static int hello (struct fx_peer *p, const char *name, int ncpus, json_t *gpus,
                  json_t *running, char *err, size_t len)
{
    return fixture_rpc (&f, p, "node.hello",
                        json_pack ("{s:s s:i s:I s:o s:s s:o s:[]}", "name", name,
                                   "ncpus", ncpus, "mem", (json_int_t)(4LL << 30),
                                   "gpus", gpus ? gpus : json_array (), "labels",
                                   "spot", "running", running ? running : json_array (),
                                   "finished"),
                        NULL, err, len);
}

static int64_t launched (struct fx_peer *w, int ms)
{
    struct wire_msg *m = fixture_next_ms (&f, w, "job.launch", ms);
    int64_t seq = m ? json_integer_value (json_object_get (m->body, "seq")) : -1;

    fixture_msg_free (m);
    return seq;
}

static int node_rpc (struct fx_peer *w, const char *type, int64_t seq, json_t *extra)
{
    json_t *body = json_pack ("{s:I s:i}", "seq", (json_int_t)seq, "attempt", 1);

    json_object_update (body, extra);
    json_decref (extra);
    return fixture_rpc (&f, w, type, body, NULL, NULL, 0);
}

static void test_hello (void)
{
    struct fx_peer *p = fixture_user (&f);
    json_t *gpus =
        json_pack ("[{s:i s:s s:I s:s s:b} {s:i s:s s:I s:s s:b s:[{s:s s:s}]}]",
                   "index", 4, "model", "NVIDIA A100", "mem", (json_int_t)(40LL << 30),
                   "uuid", "GPU-a", "simulated", 1, "index", 5, "model", "NVIDIA A100",
                   "mem", (json_int_t)(40LL << 30), "uuid", "GPU-b", "simulated", 1,
                   "mig", "profile", "3g.20gb", "uuid", "MIG-SIM-x");
    struct node *n;
    char err[256], text[256];

    ok (hello (p, "g1", 16, gpus, NULL, err, sizeof (err)) == 0, "node.hello from g1");
    n = nodes_lookup (f.srv->nodes, "g1");
    ok (n && n->state == NODE_UP && n->reachable && n->ncpus == 16
            && n->mem == 4LL << 30 && !strcmp (n->labels, "spot"),
        "g1 is up and reachable, with its cores, memory and "
        "labels");
    ok (n && n->ngpus == 2 && n->gpu[0].index == 0 && n->gpu[1].index == 1
            && !strcmp (n->gpu[0].model, "NVIDIA A100") && n->gpu[1].nmig == 1
            && !strcmp (n->gpu[1].mig[0].profile, "3g.20gb"),
        "its GPUs, numbered the scheduler's way, and GPU 1's MIG instance");
    is (fixture_db_text (
            &f,
            "SELECT state || ' ' || ncpus || ' ' || labels FROM nodes WHERE "
            "name = 'g1'",
            text, sizeof (text)),
        "free 16 spot", "the node is in the database, free (PBS's word for up)");
    ok (fixture_rpc (&f, fixture_user (&f), "node.heartbeat", NULL, NULL, err,
                     sizeof (err))
            == EPROTO,
        "a heartbeat before hello is refused: %s", err);
    ok (hello (fixture_user (&f), "bad1", 0, NULL, NULL, err, sizeof (err)) == EPROTO
            && !nodes_lookup (f.srv->nodes, "bad1"),
        "a hello with 0 cores creates no node: %s", err);
    ok (hello (fixture_user (&f), "bad2", 4,
               json_pack ("[{s:i s:[{s:s}]}]", "index", 0, "mig", "profile", "9g.1gb"),
               NULL, err, sizeof (err))
                == EPROTO
            && !nodes_lookup (f.srv->nodes, "bad2"),
        "nor one with an impossible MIG profile: %s", err);
    ok (fixture_rpc (&f, fixture_user (&f), "node.hello",
                     json_pack ("{s:s}", "name", "g1"), NULL, err, sizeof (err))
                == EPROTO
            && n->reachable && n->ncpus == 16,
        "and a malformed hello leaves the node of that name alone: %s", err);
    ok (hello (fixture_user (&f), "g1", 8, NULL, NULL, err, sizeof (err)) == EEXIST
            && n->ncpus == 16 && n->ngpus == 2 && strstr (err, "held by a live worker"),
        "a second worker of that name is refused while the first one's link lives: %s",
        err);
    fixture_turn (&f);
    ok (fixture_connected (p) && n->conn && n->reachable,
        "and the first worker keeps its link and its node");
    fixture_disconnect (p);
    fixture_turn (&f);
    ok (hello (fixture_user (&f), "g1", 8, NULL, NULL, err, sizeof (err)) == 0
            && n->ncpus == 8 && n->ngpus == 0,
        "once that link is gone, a new worker takes the "
        "name");
}

/* InfiniBand ports ride in the hello (common/ib.h): kept in the node
 * record, listed by node.stat, a malformed list refused. */
static void test_hello_ib (void)
{
    struct fx_peer *p = fixture_user (&f);
    json_t *body = json_pack ("{s:s s:i s:I s:[] s:[] s:[]}", "name", "ib1", "ncpus", 4,
                              "mem", (json_int_t)(1LL << 30), "gpus", "running",
                              "finished"),
           *reply = NULL, *bad;
    struct node *n;
    char err[256];

    json_object_set_new (body, "ib",
                         json_pack ("[{s:s s:i s:s s:s s:s} {s:s s:i s:s s:s s:s}]",
                                    "hca", "mlx5_0", "port", 1, "state", "ACTIVE",
                                    "link_layer", "InfiniBand", "rate",
                                    "200 Gb/sec (4X HDR)", "hca", "mlx5_0", "port", 2,
                                    "state", "DOWN", "link_layer", "InfiniBand", "rate",
                                    "10 Gb/sec (4X SDR)"));
    bad = json_deep_copy (body);
    ok (fixture_rpc (&f, p, "node.hello", body, NULL, err, sizeof (err)) == 0,
        "a hello with two InfiniBand ports");
    n = nodes_lookup (f.srv->nodes, "ib1");
    ok (n && n->nib == 2 && !strcmp (n->ib[0].hca, "mlx5_0") && n->ib[1].port == 2
            && !strcmp (n->ib[1].state, "DOWN"),
        "the node record keeps them");
    ok (fixture_rpc (&f, fixture_user (&f), "node.stat",
                     json_pack ("{s:[s]}", "names", "ib1"), &reply, err, sizeof (err))
                == 0
            && !strcmp (json_string_value (json_object_get (
                            json_array_get (json_object_get (reply, "nodes"), 0),
                            "ib_hcas")),
                        "mlx5_0:1"),
        "node.stat (pbsnodes) lists the active port as ib_hcas");
    json_decref (reply);
    json_object_set_new (bad, "name", json_string ("ib2"));
    json_object_set_new (bad, "ib",
                         json_pack ("[{s:s s:i s:s s:s s:s}]", "hca", "../x", "port", 1,
                                    "state", "ACTIVE", "link_layer", "InfiniBand",
                                    "rate", ""));
    ok (fixture_rpc (&f, fixture_user (&f), "node.hello", bad, NULL, err, sizeof (err))
                == EPROTO
            && !nodes_lookup (f.srv->nodes, "ib2"),
        "an HCA named like a path: the hello is refused, no node made: %s", err);
    /* ib1 goes away again: the tests below count on their own nodes only. */
    fixture_disconnect (p);
    fixture_turn (&f);
}

/* n1 loses its link: no new job goes there until it says hello again. */
static void test_link (void)
{
    struct fx_peer *w = fixture_user (&f);
    struct node *n;
    int64_t seq;

    ok (hello (w, "n1", 2, NULL, NULL, NULL, 0) == 0, "n1 says hello");
    n = nodes_lookup (f.srv->nodes, "n1");
    /* The node the other test made must not take these jobs. */
    nodes_lookup (f.srv->nodes, "g1")->offline = 1;
    seq = fixture_submit (&f, u, (const char *const[]){ "-l", "ncpus=2", NULL });
    ok (launched (w, 1000) == seq, "a job starts there");
    ok (node_rpc (w, "job.started", seq, json_pack ("{s:i}", "session_id", 77)) == 0
            && jobs_lookup (f.srv->jobs, seq)->rec.session_id == 77,
        "and reports its session");
    ok (node_rpc (w, "job.finished", seq, json_pack ("{s:i}", "exit_status", 0)) == 0
            && jobs_lookup (f.srv->jobs, seq)->rec.state == 'F',
        "then its end");
    fixture_disconnect (w);
    fixture_turns (&f, 50);
    ok (!n->reachable && !n->conn && n->state == NODE_UP,
        "n1's link drops: up until its heartbeats time out, but not reachable");
    seq = fixture_submit (&f, u, (const char *const[]){ "-l", "ncpus=1", NULL });
    fixture_turns (&f, 200);
    ok (jobs_lookup (f.srv->jobs, seq)->rec.state == 'Q', "so a new job waits");
    w = fixture_user (&f);
    ok (hello (w, "n1", 2, NULL, NULL, NULL, 0) == 0 && launched (w, 1000) == seq,
        "and starts when n1 is back");
    ok (node_rpc (w, "job.finished", seq, json_pack ("{s:i}", "exit_status", 0)) == 0,
        "(finished)");
}

/* Reports about jobs a node does not run change nothing. */
static void test_foreign_reports (void)
{
    struct fx_peer *a = fixture_user (&f), *b = fixture_user (&f);
    int64_t seq;
    struct job *job;

    hello (a, "a1", 1, NULL, NULL, NULL, 0);
    nodes_lookup (f.srv->nodes, "n1")->offline = 1;
    seq = fixture_submit (&f, u, (const char *const[]){ NULL });
    ok (launched (a, 1000) == seq, "a job runs on a1");
    hello (b, "b1", 1, NULL, NULL, NULL, 0);
    job = jobs_lookup (f.srv->jobs, seq);
    ok (node_rpc (b, "job.started", seq, json_pack ("{s:i}", "session_id", 99)) == 0
            && job->rec.session_id != 99,
        "b1 reporting a session for it is ignored");
    ok (node_rpc (b, "job.finished", seq, json_pack ("{s:i}", "exit_status", 5)) == 0
            && job->rec.state == 'R',
        "and so is b1 reporting its end");
    ok (fixture_rpc (&f, a, "job.finished",
                     json_pack ("{s:I s:i s:i}", "seq", (json_int_t)seq, "attempt", 7,
                                "exit_status", 5),
                     NULL, NULL, 0)
                == 0
            && job->rec.state == 'R',
        "a1 reporting the end of another attempt is ignored");
}

/* a1 stops sending heartbeats: down after node_timeout; its rerunnable job
 * is requeued, the -r n one fails.  When a1 comes back reporting the old
 * copy, it is told to kill it. */
static void test_timeout (void)
{
    struct fx_peer *a, *c;
    struct node *n;
    int64_t keep, fail;
    struct job *jk, *jf;
    struct wire_msg *m;

    /* A scheduler with a node_timeout of 1 s (the nodes of the other
     * tests, not heard from again, go down too). */
    config_set (f.cfg, "node_timeout", "1");
    fixture_restart (&f);
    u = fixture_user (&f);
    a = fixture_user (&f);
    c = fixture_user (&f);
    hello (a, "t1", 2, NULL, NULL, NULL, 0);
    keep = fixture_submit (&f, u, (const char *const[]){ NULL });
    fail = fixture_submit (&f, u, (const char *const[]){ "-r", "n", NULL });
    ok (launched (a, 1000) > 0 && launched (a, 1000) > 0, "two jobs run on t1");
    jk = jobs_lookup (f.srv->jobs, keep);
    jf = jobs_lookup (f.srv->jobs, fail);
    node_rpc (a, "job.started", keep, json_pack ("{s:i}", "session_id", 1));
    node_rpc (a, "job.started", fail, json_pack ("{s:i}", "session_id", 2));
    n = nodes_lookup (f.srv->nodes, "t1");
    fixture_turns (&f,
                   2600); /* node_timeout is 1 s; the first 1 s after start is grace */
    ok (n->state == NODE_DOWN && !n->reachable,
        "t1 is down after its heartbeats stopped");
    ok (jk->rec.state == 'Q' && jk->rec.run_count == 1 && jk->rec.comment
            && strstr (jk->rec.comment, "stopped sending heartbeats"),
        "the rerunnable job is queued again: %s", jk->rec.comment);
    ok (jf->rec.state == 'F' && jf->rec.exit_status == JOB_EXEC_NODE_LOST,
        "the -r n one failed with Exit_status %d", jf->rec.exit_status);
    ok (hello (c, "t1", 2, NULL,
               json_pack ("[{s:I s:i}]", "seq", (json_int_t)keep, "attempt", 1), NULL,
               0)
            == 0,
        "t1 comes back, still running the old copy");
    m = fixture_next (&f, c, "job.signal");
    ok (m && json_integer_value (json_object_get (m->body, "seq")) == keep
            && !strcmp (json_string_value (json_object_get (m->body, "signal")), "KILL")
            && !strcmp (json_string_value (json_object_get (m->body, "reason")),
                        "stale"),
        "and is told to kill it (stale)");
    fixture_msg_free (m);
}

int main (void)
{
    plan (NO_PLAN);
    fixture_start (&f, (const char *const[]){ "sched_interval_ms", "50", NULL });
    u = fixture_user (&f);
    test_hello ();
    test_hello_ib ();
    test_link ();
    test_foreign_reports ();
    test_timeout ();
    fixture_stop (&f);
    done_testing ();
}
