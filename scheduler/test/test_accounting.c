/* test_accounting.c - the accounting log is written once, and only what
 * was committed.
 *
 * A real server (fixture.h) runs a job through its life: its Q, S and E
 * records reach the day's file and leave the outbox.  Then the states a
 * crash can leave are made by hand between two lives of the server (rows
 * in the outbox, the file with or without their lines, a line torn in
 * half) and a restart must leave every record in the file exactly once.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/test/tap.h"
#include "common/util.h"
#include "scheduler/acct_record.h"
#include "scheduler/test/fixture.h"

static char file[512];

/* Today's accounting file, as the scheduler names it. */
static void set_file (struct fixture *f)
{
    char day[16];

    acct_record_day (util_wall_secs (), day, sizeof (day));
    snprintf (file, sizeof (file), "%s/state/accounting/%s", f->dir, day);
}

static char *contents (void)
{
    char *text = util_read_file (file, 1 << 24, NULL);

    return text ? text : xstrdup ("");
}

static int count (const char *text, const char *needle)
{
    int n = 0;

    for (const char *p = strstr (text, needle); p; p = strstr (p + 1, needle))
        n++;
    return n;
}

/* Turn the loop for a while: the outbox is flushed once a second. */
static void settle (struct fixture *f, int ms)
{
    int64_t end = util_now_ms () + ms;

    while (util_now_ms () < end)
        fixture_turn (f);
}

/* Rows put in the outbox by hand, as a crash would leave them. */
static void outbox_add (struct fixture *f, const char *const *lines)
{
    char path[256];
    sqlite3 *h;
    sqlite3_stmt *st;

    snprintf (path, sizeof (path), "%s/state/hpcq.sqlite", f->dir);
    if (sqlite3_open (path, &h) != SQLITE_OK
        || sqlite3_prepare_v2 (h,
                               "INSERT INTO acct_outbox (time, record) VALUES (?1, ?2)",
                               -1, &st, NULL)
               != SQLITE_OK)
        abort ();
    sqlite3_busy_timeout (h, 5000);
    for (int i = 0; lines[i]; i++) {
        sqlite3_bind_int64 (st, 1, util_wall_secs ());
        sqlite3_bind_text (st, 2, lines[i], -1, SQLITE_STATIC);
        if (sqlite3_step (st) != SQLITE_DONE)
            abort ();
        sqlite3_reset (st);
    }
    sqlite3_finalize (st);
    sqlite3_close (h);
}

static void file_append (const char *text)
{
    FILE *fp = fopen (file, "a");

    if (!fp || fputs (text, fp) < 0 || fclose (fp) != 0)
        abort ();
}

static void test_life (struct fixture *f)
{
    struct fx_peer *user = fixture_user (f), *w = fixture_worker (f, "w1", 2, 1 << 30);
    int64_t seq = fixture_submit (f, user, NULL);
    struct wire_msg *launch = fixture_next (f, w, "job.launch");
    char *text;
    char q[64], s[64], e[64];

    ok (seq > 0 && launch != NULL, "a job is submitted and launched");
    fixture_msg_free (launch);
    ok (fixture_rpc (f, w, "job.finished",
                     json_pack ("{s:I s:i s:i s:i s:i s:I}", "seq", (json_int_t)seq,
                                "attempt", 1, "exit_status", 0, "cput", 1, "walltime",
                                2, "maxrss", (json_int_t)4096),
                     NULL, NULL, 0)
            == 0,
        "its worker reports its end");
    settle (f, 1300);
    set_file (f);
    text = contents ();
    snprintf (q, sizeof (q), ";Q;%lld.fx;", (long long)seq);
    snprintf (s, sizeof (s), ";S;%lld.fx;", (long long)seq);
    snprintf (e, sizeof (e), ";E;%lld.fx;", (long long)seq);
    ok (count (text, q) == 1 && count (text, s) == 1 && count (text, e) == 1,
        "its Q, S and E records are in the day's file once each");
    ok (strstr (text, " Exit_status=0 ") && strstr (text, " resources_used.mem=4kb ")
            && strstr (text, " run_count=1"),
        "E carries the worker's usage");
    ok (fixture_db_int (f, "SELECT count(*) FROM acct_outbox") == 0,
        "once the file is on disk the outbox is empty");
    free (text);
}

static void test_catch_up (struct fixture *f)
{
    static const char *const missing[] = { "11/30/2026 10:00:00;D;900.fx;requestor=x@h",
                                           NULL };
    static const char *const present[] = { "11/30/2026 10:00:01;D;901.fx;requestor=x@h",
                                           "11/30/2026 10:00:02;D;902.fx;requestor=x@h",
                                           NULL };
    static const char *const torn[] = { "11/30/2026 10:00:03;D;903.fx;requestor=x@h",
                                        "11/30/2026 10:00:04;D;904.fx;requestor=x@h",
                                        NULL };
    char *text;
    size_t len;

    /* A crash after the commit, before the write: the record is only in
     * the outbox. */
    outbox_add (f, missing);
    fixture_restart (f);
    text = contents ();
    ok (count (text, ";900.fx;") == 1,
        "a record only in the outbox is written at start");
    free (text);

    /* A crash after the write, before the outbox let go: the first of two
     * records is already at the file's end. */
    file_append ("11/30/2026 10:00:01;D;901.fx;requestor=x@h\n");
    outbox_add (f, present);
    fixture_restart (f);
    text = contents ();
    ok (count (text, ";901.fx;") == 1 && count (text, ";902.fx;") == 1,
        "records already in the file are not written again, the rest are");
    free (text);

    /* A crash in the middle of a write: half a line at the end. */
    file_append ("11/30/2026 10:00:03;D;90");
    outbox_add (f, torn);
    fixture_restart (f);
    text = contents ();
    len = strlen (text);
    ok (count (text, ";903.fx;") == 1 && count (text, ";904.fx;") == 1
            && count (text, "10:00:03;D;90\n") == 0 && len > 0 && text[len - 1] == '\n',
        "a torn last line is cut off and its record written whole");
    ok (fixture_log_has (f, "ended in a torn record"), "and the cut is logged");
    ok (fixture_db_int (f, "SELECT count(*) FROM acct_outbox") == 0,
        "the outbox is empty");
    free (text);
}

/* A job submitted now: its Q record reaches the file once and leaves the
 * outbox within the next sync. */
static int submit_reaches_file (struct fixture *f)
{
    int64_t seq = fixture_submit (f, fixture_user (f), NULL);
    char sql[160], q[64];
    char *text;
    int rc;

    settle (f, 1300);
    snprintf (sql, sizeof (sql),
              "SELECT count(*) FROM acct_outbox WHERE record LIKE '%%;Q;%lld.fx;%%'",
              (long long)seq);
    snprintf (q, sizeof (q), ";Q;%lld.fx;", (long long)seq);
    text = contents ();
    rc = seq > 0 && count (text, q) == 1 && fixture_db_int (f, sql) == 0;
    free (text);
    return rc;
}

/* An emptied outbox table numbers a new row 1 again (SQLite's rowid):
 * records made afterwards still reach the file and leave it (they stayed,
 * never synced, until the next start while the ids were SQLite's). */
static void test_after_empty (struct fixture *f)
{
    static const char *const left[] = { "11/30/2026 10:00:05;D;905.fx;requestor=x@h",
                                        "11/30/2026 10:00:06;D;906.fx;requestor=x@h",
                                        NULL };

    ok (fixture_db_int (f, "SELECT count(*) FROM acct_outbox") == 0
            && submit_reaches_file (f),
        "after the outbox was emptied by a sync, a new record reaches the file and "
        "leaves it");
    outbox_add (f, left);
    fixture_restart (f);
    ok (submit_reaches_file (f), "after a start that emptied the outbox, too");
}

int main (void)
{
    struct fixture f;

    fixture_start (&f, NULL);
    test_life (&f);
    test_catch_up (&f);
    test_after_empty (&f);
    fixture_stop (&f);
    return done_testing ();
}
