/* test_admin.c - metrics, GPU telemetry, node health and job history on a
 * real server (fixture.h).
 *
 *  - the counters and gauges of /metrics follow a job's life;
 *  - a worker's node.telemetry becomes DCGM-named series with the job
 *    holding the GPU, and a node without a report exports none;
 *  - node.health takes a node offline with its reason and brings back
 *    only a node the check took out;
 *  - with a short job_history_duration finished jobs leave memory, stay
 *    in the database, and are not loaded again at a restart.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/test/tap.h"
#include "common/util.h"
#include "scheduler/history.h"
#include "scheduler/jobs.h"
#include "scheduler/web/metrics.h"
#include "scheduler/nodes.h"
#include "scheduler/test/fixture.h"

static char *render (struct fixture *f)
{
    char *text = NULL;
    size_t len = 0;
    FILE *fp = open_memstream (&text, &len);

    if (!fp || metrics_render (f->srv->metrics, fp, 1, 0) < 0 || fclose (fp) != 0)
        abort ();
    return text;
}

static int has (const char *text, const char *line)
{
    return strstr (text, line) != NULL;
}

static void finish (struct fixture *f, struct fx_peer *w, int64_t seq, int status)
{
    if (fixture_rpc (f, w, "job.finished",
                     json_pack ("{s:I s:i s:i}", "seq", (json_int_t)seq, "attempt", 1,
                                "exit_status", status),
                     NULL, NULL, 0)
        != 0)
        abort ();
}

static void test_exit_classes (void)
{
    ok (!strcmp (metrics_exit_class (0, 0), "success")
            && !strcmp (metrics_exit_class (3, 0), "failure")
            && !strcmp (metrics_exit_class (271, 0), "signal")
            && !strcmp (metrics_exit_class (JOB_EXEC_KILL_WALLTIME, 0), "walltime")
            && !strcmp (metrics_exit_class (JOB_EXEC_NODE_LOST, 0), "node_lost")
            && !strcmp (metrics_exit_class (JOB_EXEC_FAIL1, 0), "system")
            && !strcmp (metrics_exit_class (271, 1), "deleted"),
        "exit classes: 0 success, 1-255 failure, 256+ signal, PBS's codes, qdel");
}

static void test_metrics (struct fixture *f, struct fx_peer *user, struct fx_peer *w)
{
    static const char *const held[] = { "-h", NULL };
    int64_t a = fixture_submit (f, user, NULL), b;
    struct wire_msg *m = fixture_next (f, w, "job.launch");
    char *text;

    fixture_msg_free (m);
    b = fixture_submit (f, user, held);
    text = render (f);
    ok (has (text, "hpcq_jobs{queue=\"workq\",state=\"running\"} 1\n")
            && has (text, "hpcq_jobs{queue=\"workq\",state=\"held\"} 1\n"),
        "hpcq_jobs counts the running and the held job");
    ok (has (text, "hpcq_node_cpus_allocated{node=\"w1\"} 1\n")
            && has (text, "hpcq_cpus_allocated 1\n"),
        "the node's core is allocated");
    ok (has (text, "hpcq_user_jobs{user="),
        "per-user series are there for an operator");
    free (text);
    finish (f, w, a, 3);
    text = render (f);
    ok (has (text, "hpcq_jobs_submitted_total{queue=\"workq\"} 2\n")
            && has (text, "hpcq_jobs_started_total{queue=\"workq\"} 1\n")
            && has (
                text,
                "hpcq_jobs_ended_total{queue=\"workq\",exit_class=\"failure\"} 1\n"),
        "submissions, starts and an end by exit class are counted");
    ok (has (text, "hpcq_job_wait_seconds_count{queue=\"workq\"} 1\n")
            && has (text, "hpcq_scheduling_pass_duration_seconds_count ")
            && has (text, "hpcq_db_commit_duration_seconds_count "),
        "the wait, pass and commit histograms have observations");
    free (text);
    (void)b;
}

static void test_telemetry (struct fixture *f)
{
    struct fx_peer *g = fixture_user (f), *user = fixture_user (f);
    static const char *const gpu[] = { "-l", "select=1:ncpus=1:ngpus=1", NULL };
    int64_t seq;
    char *text;
    int rc;

    rc = fixture_rpc (f, g, "node.hello",
                      json_pack ("{s:s s:i s:I s:[{s:i s:s s:I s:s}] s:s s:[] s:[]}",
                                 "name", "g1", "ncpus", 1, "mem", (json_int_t)(1 << 30),
                                 "gpus", "index", 0, "model", "NVIDIA H200", "mem",
                                 (json_int_t)1 << 30, "uuid", "GPU-1234", "labels", "",
                                 "running", "finished"),
                      NULL, NULL, 0);
    ok (rc == 0, "a worker with one real GPU says hello");
    text = render (f);
    ok (!has (text, "DCGM_FI_DEV"), "no telemetry reported: no DCGM series at all");
    free (text);
    seq = fixture_submit (f, user, gpu);
    fixture_msg_free (fixture_next (f, g, "job.launch"));
    rc = fixture_rpc (f, g, "node.telemetry",
                      json_pack ("{s:[{s:i s:s s:s s:i s:f s:i s:f s:i s:I}]}", "gpus",
                                 "index", 0, "uuid", "GPU-1234", "model", "NVIDIA H200",
                                 "util", 37, "fb_used", 1024.5, "temp", 61, "power",
                                 312.25, "sm_clock", 1980, "xid", (json_int_t)0),
                      NULL, NULL, 0);
    ok (rc == 0, "its worker reports the GPU's telemetry");
    text = render (f);
    ok (has (text,
             "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",UUID=\"GPU-1234\",device=\"nvidia0\","
             "modelName=\"NVIDIA H200\",Hostname=\"g1\",hpc_job=")
            && has (text, ".fx\"} 37\n"),
        "DCGM_FI_DEV_GPU_UTIL with DCGM's labels and the job holding the GPU");
    ok (has (text, "} 1024.5\n") && has (text, "DCGM_FI_DEV_POWER_USAGE{")
            && has (text, "} 312.25\n") && has (text, "DCGM_FI_DEV_SM_CLOCK{"),
        "memory, power and clock are exported");
    ok (!has (text, "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL"),
        "a value the report did not carry (NVML could not read it) is not exported");
    free (text);
    rc = fixture_rpc (f, g, "node.telemetry",
                      json_pack ("{s:[{s:s}]}", "gpus", "uuid", "x"), NULL, NULL, 0);
    ok (rc != 0, "a malformed report is refused");
    rc = fixture_rpc (f, g, "node.telemetry",
                      json_pack ("{s:[{s:i s:i} {s:i s:i}]}", "gpus", "index", 0,
                                 "util", 5, "index", 0, "util", 6),
                      NULL, NULL, 0);
    text = render (f);
    ok (rc != 0 && has (text, ".fx\"} 37\n") && !has (text, ".fx\"} 5\n")
            && !has (text, ".fx\"} 6\n"),
        "a report naming one GPU twice is refused (two equal series would fail the "
        "scrape); the last good one stands");
    free (text);
    (void)seq;
}

static void test_health (struct fixture *f, struct fx_peer *w, struct fx_peer *user)
{
    struct node *n = nodes_lookup (f->srv->nodes, "w1");
    char comment[256];
    int rc;

    rc = fixture_rpc (f, w, "node.health",
                      json_pack ("{s:b s:s}", "ok", 0, "reason",
                                 "ERROR: /scratch is full"),
                      NULL, NULL, 0);
    ok (rc == 0 && n->offline && !strcmp (n->comment, "ERROR: /scratch is full"),
        "a failing check takes the node offline, its reason the comment");
    ok (fixture_db_int (f, "SELECT health_offline FROM nodes WHERE name = 'w1'") == 1
            && !strcmp (fixture_db_text (f,
                                         "SELECT comment FROM nodes WHERE name = 'w1'",
                                         comment, sizeof (comment)),
                        "ERROR: /scratch is full"),
        "durably, marked as the check's doing");
    rc = fixture_rpc (f, w, "node.health",
                      json_pack ("{s:b s:s}", "ok", 1, "reason", ""), NULL, NULL, 0);
    ok (rc == 0 && !n->offline && n->comment[0] == '\0',
        "a passing check brings it back");
    rc = fixture_rpc (f, user, "node.offline",
                      json_pack ("{s:[s] s:b s:s}", "names", "w1", "offline", 1,
                                 "comment", "memory test"),
                      NULL, NULL, 0);
    ok (rc == 0 && n->offline, "an operator takes the node offline");
    (void)fixture_rpc (f, w, "node.health",
                       json_pack ("{s:b s:s}", "ok", 1, "reason", ""), NULL, NULL, 0);
    (void)fixture_rpc (f, w, "node.health",
                       json_pack ("{s:b s:s}", "ok", 0, "reason", "ERROR: fan"), NULL,
                       NULL, 0);
    (void)fixture_rpc (f, w, "node.health",
                       json_pack ("{s:b s:s}", "ok", 1, "reason", ""), NULL, NULL, 0);
    ok (n->offline && !strcmp (n->comment, "memory test"),
        "the check neither brings back nor rewrites a node an operator took out");
    rc = fixture_rpc (f, user, "node.offline",
                      json_pack ("{s:[s] s:b}", "names", "w1", "offline", 0), NULL,
                      NULL, 0);
    ok (rc == 0 && !n->offline, "the operator puts it back");
    rc = fixture_rpc (f, w, "node.health", json_pack ("{s:s}", "reason", "x"), NULL,
                      NULL, 0);
    ok (rc != 0, "a malformed verdict is refused");
}

static void test_history (void)
{
    static const char *const settings[] = { "job_history_duration", "00:00:01", NULL };
    struct fixture f;
    struct fx_peer *user, *w;
    int64_t seq;

    fixture_start (&f, settings);
    user = fixture_user (&f);
    w = fixture_worker (&f, "w1", 2, 1 << 30);
    seq = fixture_submit (&f, user, NULL);
    fixture_msg_free (fixture_next (&f, w, "job.launch"));
    finish (&f, w, seq, 0);
    ok (jobs_lookup (f.srv->jobs, seq) != NULL,
        "a job just finished is in memory (qstat -x)");
    {
        int64_t end = util_now_ms () + 4000;
        while (jobs_lookup (f.srv->jobs, seq) && util_now_ms () < end) {
            (void)history_purge (f.srv->history);
            fixture_turn (&f);
        }
    }
    ok (jobs_lookup (f.srv->jobs, seq) == NULL,
        "after job_history_duration it has left memory");
    ok (fixture_db_int (&f, "SELECT count(*) FROM jobs WHERE state = 'F'") == 1,
        "it stays in the database");
    fixture_restart (&f);
    ok (jobs_lookup (f.srv->jobs, seq) == NULL, "a restart does not load it again");
    fixture_stop (&f);
}

int main (void)
{
    struct fixture f;
    struct fx_peer *user, *w;

    test_exit_classes ();
    fixture_start (&f, NULL);
    user = fixture_user (&f);
    w = fixture_worker (&f, "w1", 1, 1 << 30);
    test_metrics (&f, user, w);
    test_telemetry (&f);
    test_health (&f, w, user);
    fixture_stop (&f);
    test_history ();
    return done_testing ();
}
