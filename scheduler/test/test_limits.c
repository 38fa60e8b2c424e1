/* test_limits.c - PBS's limit syntax, what max_queued admits (and the
 * words it refuses with), and Slurm's token bucket, on the limits module
 * alone (no server: nothing is stored or recounted from a job list). */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/util.h"
#include "scheduler/jobs.h"
#include "scheduler/limits.h"
#include "scheduler/server.h"
#include "common/test/tap.h"

/* What limits.c links against in the daemon but never calls without a
 * server (srv NULL): the job list to recount from, whether it is still
 * loading, and user names. */
struct job **jobs_all (struct jobs *js, int *n)
{
    *n = 0;
    return NULL;
}

int jobs_loading (const struct jobs *js)
{
    return 0;
}

void server_user_name (uid_t uid, char *buf, int len)
{
    snprintf (buf, len, "uid%u", (unsigned)uid);
}

static void test_parse (void)
{
    struct hpcq_error err = { "" };
    struct limit_list *l, *add, *m;
    char buf[512];

    l = limit_list_parse ("[u:PBS_GENERIC=10],[u:alice=20] , [o:PBS_ALL=1000]", 0,
                          &err);
    limit_list_format (l, buf, sizeof (buf));
    ok (l && !strcmp (buf, "[o:PBS_ALL=1000], [u:PBS_GENERIC=10], [u:alice=20]"),
        "entries parse, with or without spaces, and print in PBS's order: %s", buf);
    add = limit_list_parse ("[u:bob=5] [u:alice=7]", 0, &err);
    m = limit_list_merge (l, add, '+', &err);
    limit_list_format (m, buf, sizeof (buf));
    ok (m
            && !strcmp (buf,
                        "[o:PBS_ALL=1000], [u:PBS_GENERIC=10], [u:alice=7], [u:bob=5]"),
        "+= adds entries and replaces those of the same entity: %s", buf);
    limit_list_free (m);
    m = limit_list_merge (l, add, '-', &err);
    limit_list_format (m, buf, sizeof (buf));
    ok (m && !strcmp (buf, "[o:PBS_ALL=1000], [u:PBS_GENERIC=10]"),
        "-= removes entries by entity, whatever their value: %s", buf);
    limit_list_free (m);
    limit_list_free (add);
    limit_list_free (l);

    l = limit_list_parse ("[u:PBS_GENERIC=4gb], [g:staff=512mb]", 1, &err);
    limit_list_format (l, buf, sizeof (buf));
    ok (l && !strcmp (buf, "[u:PBS_GENERIC=4gb], [g:staff=512mb]"),
        "sizes for max_queued_res.mem: %s", buf);
    limit_list_free (l);

    static const struct {
        const char *text;
        const char *why;
    } bad[] = {
        { "", "sets no limit" },
        { "u:alice=1", "limits are written" },
        { "[u:alice=1", "limits are written" },
        { "[u:alice]", "is not [u:USER=N]" },
        { "[x:alice=1]", "unknown limit entity" },
        { "[p:proj=1]", "project limits" },
        { "[o:alice=1]", "PBS_ALL" },
        { "[u:PBS_ALL=1]", "PBS_ALL" },
        { "[u:alice=-1]", "whole number" },
        { "[u:alice=1x]", "whole number" },
        { "[u:a lice=1]", "unknown limit entity" },
    };
    for (size_t i = 0; i < sizeof (bad) / sizeof (bad[0]); i++) {
        err.text[0] = '\0';
        l = limit_list_parse (bad[i].text, 0, &err);
        ok (!l && errno == EINVAL && strstr (err.text, bad[i].why),
            "'%s' is refused: %s", bad[i].text, err.text);
        limit_list_free (l);
    }
    ok (limits_attr_index ("max_queued", NULL) == 0
            && limits_attr_index ("MAX_QUEUED_RES.mem", NULL) > 0
            && limits_attr_index ("max_run", NULL) == -1
            && limits_attr_index ("max_queued_res.walltime", &err) == -2
            && strstr (err.text, "Unknown resource walltime"),
        "attribute names: max_queued, max_queued_res.{ncpus,mem,ngpus}");
}

/* A queued job of owner in queue asking for res (-l text). */
static struct job *job_of (uid_t uid, const char *owner, const char *queue,
                           const char *res)
{
    struct job *j = xzalloc (sizeof (*j));

    j->rec.uid = uid;
    j->rec.owner = owner; /* borrowed: the callers' strings outlive the job */
    j->rec.queue = queue;
    j->rec.state = 'Q';
    resource_init (&j->spec.res);
    if (res && resource_parse_list (&j->spec.res, res, NULL) < 0)
        diag ("bad resources %s", res);
    (void)resource_finalize (&j->spec.res, NULL);
    return j;
}

static void job_free (struct job *j)
{
    resource_release (&j->spec.res);
    free (j);
}

static int admit (struct limits *lim, uid_t uid, const char *user, const char *queue,
                  const char *res, int n, struct hpcq_error *err)
{
    struct job *j = job_of (uid, user, queue, res);
    struct limits_req r = { uid, user, queue, &j->spec.res, n };
    int rc;

    err->text[0] = '\0';
    rc = limits_admit (lim, &r, err);
    job_free (j);
    return rc;
}

static void test_admit (void)
{
    struct limits *lim = limits_create (NULL, NULL);
    struct hpcq_error err = { "" };
    struct job *jobs[8];
    int k = 0;

    ok (admit (lim, 1001, "alice", "workq", NULL, 100000, &err) == 0,
        "no limit set: anything is admitted");
    ok (limits_set (lim, NULL, "max_queued",
                    "[u:PBS_GENERIC=2], [u:alice=3], [o:PBS_ALL=6]", '=', &err)
            == 0,
        "set the server's max_queued");
    for (; k < 3; k++) {
        jobs[k] = job_of (1001, "alice", "workq", NULL);
        limits_account (lim, jobs[k], 1);
    }
    ok (admit (lim, 1001, "alice", "workq", NULL, 1, &err) < 0 && errno == EDQUOT
            && !strcmp (err.text,
                        "Maximum number of jobs for user alice already in complex"),
        "alice past her own limit: %s", err.text);
    ok (admit (lim, 1002, "bob", "workq", NULL, 2, &err) == 0,
        "bob may queue two (the generic limit)");
    ok (admit (lim, 1002, "bob", "workq", NULL, 3, &err) < 0
            && !strcmp (err.text, "would exceed complex's per-user limit"),
        "an array of three is three jobs: %s", err.text);
    jobs[k] = job_of (1002, "bob", "workq", NULL);
    limits_account (lim, jobs[k++], 1);
    for (int c = 0; c < 2; c++) {
        jobs[k] = job_of (1003, "carol", "workq", "ncpus=1");
        limits_account (lim, jobs[k++], 1);
    }
    ok (admit (lim, 1004, "dave", "workq", NULL, 1, &err) < 0
            && !strcmp (err.text, "Maximum number of jobs already in complex"),
        "six queued: the overall limit: %s", err.text);
    /* As job_set_state does: out of the counts, then finished. */
    limits_account (lim, jobs[0], -1);
    jobs[0]->rec.state = 'F';
    ok (admit (lim, 1004, "dave", "workq", NULL, 1, &err) == 0,
        "a job that finishes leaves room");

    ok (limits_set (lim, "small", "max_queued", "[u:PBS_GENERIC=1]", '=', &err) == 0
            && limits_set (lim, NULL, "max_queued", NULL, '=', &err) == 0,
        "a queue's limit; the server's unset");
    ok (admit (lim, 1002, "bob", "small", NULL, 1, &err) == 0, "bob has none in small");
    jobs[k] = job_of (1002, "bob", "small", NULL);
    limits_account (lim, jobs[k++], 1);
    ok (admit (lim, 1002, "bob", "small", NULL, 1, &err) < 0
            && !strcmp (err.text, "would exceed queue small's per-user limit"),
        "the queue's generic limit, in its words: %s", err.text);
    ok (admit (lim, 1002, "bob", "workq", NULL, 1, &err) == 0,
        "other queues are not limited");

    ok (limits_set (lim, NULL, "max_queued_res.ncpus",
                    "[u:PBS_GENERIC=8], [o:PBS_ALL=14]", '=', &err)
            == 0,
        "max_queued_res.ncpus");
    ok (admit (lim, 1002, "bob", "workq", "ncpus=7", 1, &err) < 0
            && !strcmp (err.text,
                        "would exceed per-user limit on resource ncpus in complex"),
        "bob's 2 cpus queued + 7: %s", err.text);
    ok (admit (lim, 1005, "erin", "workq", "select=2:ncpus=2", 1, &err) == 0,
        "4 more cpus are fine for erin (10 of 14 in all)");
    ok (admit (lim, 1005, "erin", "workq", "select=2:ncpus=2", 3, &err) < 0
            && !strcmp (err.text, "would exceed limit on resource ncpus in complex"),
        "but not three times (an array of three): %s", err.text);
    ok (limits_set (lim, NULL, "max_queued_res.mem", "[u:erin=1gb]", '=', &err) == 0
            && admit (lim, 1005, "erin", "workq", "mem=2gb", 1, &err) < 0
            && !strcmp (err.text,
                        "would exceed user erin's limit on resource mem in complex"),
        "a user's own limit on mem: %s", err.text);
    {
        json_t *o = json_object ();
        limits_attrs_json (lim, NULL, o);
        ok (!strcmp (json_string_value (json_object_get (
                         json_object_get (o, "max_queued_res"), "ncpus")),
                     "[o:PBS_ALL=14], [u:PBS_GENERIC=8]")
                && !json_object_get (o, "max_queued"),
            "the attributes as qmgr lists them");
        json_decref (o);
    }
    for (int i = 0; i < k; i++)
        job_free (jobs[i]);
    limits_destroy (lim);
}

static void test_bucket (void)
{
    struct limits *lim = limits_create (NULL, NULL);
    struct hpcq_error err = { "" };
    int64_t t = 999999; /* a period starts here (rl_refill_period 3) */
    int n = 0;

    ok (limits_rate_at (lim, 1001, t, &err) == 0, "off by default (rl_enable)");
    limits_rate_config (lim, 1, 5, 2, 3);
    while (n < 10 && limits_rate_at (lim, 1001, t, &err) == 0)
        n++;
    ok (n == 5 && errno == EAGAIN
            && strstr (err.text, "rate limit: user uid1001 submitted"),
        "a burst of rl_bucket_size (%d), then: %s", n, err.text);
    ok (limits_rate_at (lim, 1002, t, &err) == 0,
        "another user has a bucket of their own");
    ok (limits_rate_at (lim, 0, t, &err) == 0, "root is not limited");
    ok (limits_rate_at (lim, 1001, t + 2, &err) < 0, "no token before the period ends");
    n = 0;
    while (n < 10 && limits_rate_at (lim, 1001, t + 3, &err) == 0)
        n++;
    ok (n == 2, "rl_refill_rate tokens a period later (%d)", n);
    n = 0;
    while (n < 10 && limits_rate_at (lim, 1001, t + 3000, &err) == 0)
        n++;
    ok (n == 5, "a long pause refills up to rl_bucket_size, no more (%d)", n);
    limits_destroy (lim);
}

int main (void)
{
    plan (NO_PLAN);
    test_parse ();
    test_admit ();
    test_bucket ();
    return done_testing ();
}
