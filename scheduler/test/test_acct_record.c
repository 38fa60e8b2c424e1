/* test_acct_record.c - accounting lines as PBS Pro writes them.
 *
 * The expected lines are written out by hand from PBS Pro's record format
 * (OpenPBS src/server/accounting.c: "%02d/%02d/%04d %02d:%02d:%02d;%c;%s;%s",
 * acct_job's key order, account_jobend's usage), in UTC so they do not
 * depend on the machine's zone.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/resource.h"
#include "common/test/tap.h"
#include "scheduler/acct_record.h"

static struct hpcq_resources two_chunks (void)
{
    struct hpcq_resources res;

    resource_init (&res);
    if (resource_parse_list (&res, "select=2:ncpus=4:mem=8gb:ngpus=1", NULL) < 0
        || resource_parse_list (&res, "walltime=01:30:00,place=scatter", NULL) < 0
        || resource_finalize (&res, NULL) < 0)
        abort ();
    return res;
}

static void test_job_records (void)
{
    struct hpcq_resources res = two_chunks ();
    /* 2026-11-30 22:15:41 UTC */
    struct acct_fields f = {
        .type = ACCT_QUEUED,
        .time = 1796076941,
        .id = "42.head",
        .user = "alice",
        .group = "physics",
        .jobname = "md-run",
        .queue = "workq",
        .ctime = 1796076941,
        .qtime = 1796076941,
        .etime = 1796076950,
        .res = &res,
    };
    char *line = acct_record_format (&f);
    const char *rl =
        "Resource_List.mem=16gb Resource_List.ncpus=8 Resource_List.ngpus=2 "
        "Resource_List.nodect=2 Resource_List.place=scatter "
        "Resource_List.select=2:ncpus=4:mem=8gb:ngpus=1 "
        "Resource_List.walltime=01:30:00";
    char want[2048];

    snprintf (want, sizeof (want),
              "11/30/2026 22:15:41;Q;42.head;user=alice group=physics "
              "jobname=md-run queue=workq ctime=1796076941 qtime=1796076941 "
              "etime=1796076950 %s",
              rl);
    is (line, want, "Q: the job, its times and Resource_List, no start");
    free (line);

    f.type = ACCT_STARTED;
    f.start = 1796076960;
    f.exec_host = "n1/0*4+n2/0*4";
    f.exec_vnode = "(n1:ncpus=4:mem=8gb:ngpus=1)+(n2:ncpus=4:mem=8gb:ngpus=1)";
    f.account = "proj 7";
    line = acct_record_format (&f);
    snprintf (
        want, sizeof (want),
        "11/30/2026 22:15:41;S;42.head;user=alice group=physics "
        "account=\"proj 7\" jobname=md-run queue=workq ctime=1796076941 "
        "qtime=1796076941 etime=1796076950 start=1796076960 exec_host=n1/0*4+n2/0*4 "
        "exec_vnode=(n1:ncpus=4:mem=8gb:ngpus=1)+(n2:ncpus=4:mem=8gb:ngpus=1) %s",
        rl);
    is (line, want, "S: start, hosts and the account, quoted as PBS always does");
    free (line);

    f.type = ACCT_ENDED;
    f.account = NULL;
    f.session = 4365;
    f.end = 1796080561;
    f.exit_status = 0;
    f.cput = 3 * 3600 + 7;
    f.walltime = 3601;
    f.mem = 1617920;
    f.ncpus = 8;
    f.run_count = 1;
    line = acct_record_format (&f);
    snprintf (want, sizeof (want),
              "11/30/2026 22:15:41;E;42.head;user=alice group=physics "
              "jobname=md-run queue=workq ctime=1796076941 qtime=1796076941 "
              "etime=1796076950 start=1796076960 exec_host=n1/0*4+n2/0*4 "
              "exec_vnode=(n1:ncpus=4:mem=8gb:ngpus=1)+(n2:ncpus=4:mem=8gb:ngpus=1) %s "
              "session=4365 end=1796080561 Exit_status=0 resources_used.cput=03:00:07 "
              "resources_used.mem=1580kb resources_used.ncpus=8 "
              "resources_used.walltime=01:00:01 run_count=1",
              rl);
    is (line, want, "E: the usage after the job's part, mem in kb, run_count last");
    free (line);

    f.type = ACCT_RERUN;
    f.exit_status = -3;
    line = acct_record_format (&f);
    ok (line && strstr (line, ";R;42.head;") && strstr (line, " Exit_status=-3 ")
            && strstr (line, " run_count=1"),
        "R: the E layout for the attempt that ended");
    free (line);
    resource_release (&res);
}

static void test_text_records (void)
{
    struct acct_fields d = { .type = ACCT_DELETED,
                             .time = 1796076941,
                             .id = "7[3].head",
                             .text = "requestor=bob@head" };
    struct acct_fields a = { .type = ACCT_ABORTED,
                             .time = 1796076941,
                             .id = "8.head",
                             .text =
                                 "Job failed: node n3 stopped; sending\nheartbeats" };
    char *line = acct_record_format (&d);

    is (line, "11/30/2026 22:15:41;D;7[3].head;requestor=bob@head",
        "D: the requestor only, a subjob by its array id");
    free (line);
    line = acct_record_format (&a);
    is (line,
        "11/30/2026 22:15:41;A;8.head;Job failed: node n3 stopped  sending heartbeats",
        "A: the reason, with ';' and newlines (which would break the line) as spaces");
    free (line);
}

static void test_values (void)
{
    struct acct_fields f = { .type = ACCT_QUEUED,
                             .time = 1796076941,
                             .id = "9.head",
                             .user = "carol",
                             .group = "g",
                             .jobname = "say \"hi\" now",
                             .queue = "q;x",
                             .array_indices = "1-10:2" };
    char *line = acct_record_format (&f);

    is (line,
        "11/30/2026 22:15:41;Q;9.head;user=carol group=g jobname='say \"hi\" now' "
        "queue=\"q x\" ctime=0 qtime=0 etime=0 array_indices=1-10:2",
        "values with spaces quoted (' when they hold \"), an array's indices");
    free (line);
}

int main (void)
{
    char day[16];

    setenv ("TZ", "UTC", 1);
    tzset ();
    test_job_records ();
    test_text_records ();
    test_values ();
    acct_record_day (1796076941, day, sizeof (day));
    is (day, "20261130", "a record's file is its day: YYYYMMDD");
    return done_testing ();
}
