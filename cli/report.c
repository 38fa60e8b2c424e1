/* report.c - see report.h */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/report.h"
#include "common/util.h"

/* The key each row groups by: user, group, account, queue or the job. */
#define KEY_COLS                                                                    \
    " j.owner, coalesce (j.egroup, p.egroup, ''), coalesce (j.account, p.account, " \
    "''),"                                                                          \
    " j.queue, CASE WHEN j.array_parent IS NULL THEN j.seq || '.' || ?4"            \
    " ELSE j.array_parent || '[' || j.array_index || '].' || ?4 END"
#define FROM_JOBS " FROM jobs j LEFT JOIN jobs p ON p.seq = j.array_parent"

/* Attempts that ran in the window: what they held, and for how long. */
static const char *sql_attempts =
    "SELECT a.start_time, coalesce (a.end_time, ?3), a.end_time, a.exit_status,"
    " coalesce (a.ncpus, json_extract (CASE WHEN json_valid (j.resources_used)"
    "   THEN j.resources_used END, '$.ncpus'), 1),"
    " coalesce (a.ngpus, 0), a.mig," KEY_COLS ","
    " a.cost, a.cost_spot, coalesce (a.cost_ondemand, a.cost), coalesce (a.reason, ''),"
    " coalesce (a.gpu_energy_j, 0), coalesce (a.gpu_util * a.gpu_seconds, 0),"
    " coalesce (a.gpu_seconds, 0)"
    " FROM attempts a JOIN jobs j ON j.seq = a.job_seq"
    " LEFT JOIN jobs p ON p.seq = j.array_parent"
    " WHERE a.start_time < ?2 AND coalesce (a.end_time, ?3) > ?1";

/* Jobs that ended in the window, arrays themselves left out (their
 * subjobs are the jobs), and whether a qdel ended them (a "deleted"
 * event of the job or of its array). */
static const char *sql_ended =
    "SELECT j.exit_status, j.run_count," KEY_COLS ","
    " EXISTS (SELECT 1 FROM events e WHERE e.type = 'deleted'"
    "   AND (e.job_seq = j.seq OR e.job_seq = j.array_parent))" FROM_JOBS
    " WHERE j.state = 'F' AND j.etime >= ?1 AND j.etime < ?2"
    " AND (j.array_parent IS NOT NULL OR json_extract (CASE WHEN json_valid (j.spec)"
    "      THEN j.spec END, '$.array') IS NULL)";

/* First starts in the window: how long each job waited. */
static const char *sql_waits =
    "SELECT a.start_time - j.ctime," KEY_COLS
    " FROM attempts a JOIN jobs j ON j.seq = a.job_seq"
    " LEFT JOIN jobs p ON p.seq = j.array_parent"
    " WHERE a.attempt = 1 AND a.start_time >= ?1 AND a.start_time < ?2";

/* Preemptions in the window, by any method (preempt.h: S, C, R, D). */
static const char *sql_preempted =
    "SELECT count (*)," KEY_COLS " FROM preemptions e JOIN jobs j ON j.seq = e.job_seq"
    " LEFT JOIN jobs p ON p.seq = j.array_parent"
    " WHERE e.time >= ?1 AND e.time < ?2 GROUP BY j.seq";

/* Checkpoints completed in the window: their seconds, and the cost and
 * unsuspended run of the attempt they were taken in (NULL while it runs). */
static const char *sql_checkpoints =
    "SELECT coalesce (c.duration, 0), a.cost,"
    " a.end_time - a.start_time - coalesce (a.suspended, 0)," KEY_COLS
    " FROM checkpoints c JOIN jobs j ON j.seq = c.job_seq"
    " LEFT JOIN jobs p ON p.seq = j.array_parent"
    " LEFT JOIN attempts a ON a.job_seq = c.job_seq AND a.attempt = c.attempt"
    " WHERE c.completed_at >= ?1 AND c.completed_at < ?2";

/* The first column of KEY_COLS in each query, and of what follows it in
 * sql_attempts. */
enum { K_ATTEMPTS = 7, K_ENDED = 2, K_WAITS = 1, K_PREEMPTED = 1, K_CKPT = 3 };
enum { E_DELETED = K_ENDED + 5 };
enum {
    A_COST = K_ATTEMPTS + 5,
    A_SPOT,
    A_ONDEMAND,
    A_REASON,
    A_GPU_J,
    A_GPU_UTIL_S,
    A_GPU_S
};

static struct report_row *row_of (struct report *r, sqlite3_stmt *st, int k)
{
    const unsigned char *key = sqlite3_column_text (st, k + (int)r->by);
    struct report_row *row;
    char buf[192];

    snprintf (buf, sizeof (buf), "%s", key && *key ? (const char *)key : "(none)");
    HASH_FIND_STR (r->rows, buf, row);
    if (!row) {
        row = xzalloc (sizeof (*row));
        snprintf (row->key, sizeof (row->key), "%s", buf);
        HASH_ADD_STR (r->rows, key, row);
    }
    return row;
}

static int profile_index (struct report *r, const char *name)
{
    for (int i = 0; i < r->nprofiles; i++)
        if (strcmp (r->profiles[i], name) == 0)
            return i;
    if (r->nprofiles == REPORT_MAX_PROFILES)
        return -1;
    snprintf (r->profiles[r->nprofiles], sizeof (r->profiles[0]), "%s", name);
    return r->nprofiles++;
}

int64_t report_midnight (int64_t t)
{
    time_t tt = (time_t)t;
    struct tm tm;

    localtime_r (&tt, &tm);
    tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
    tm.tm_isdst = -1;
    return (int64_t)mktime (&tm);
}

/* The next local midnight after day_start (days are not all 86400 s). */
static int64_t next_midnight (int64_t day_start)
{
    return report_midnight (day_start + 30 * 3600);
}

/* Spread core, gpu and mig seconds-per-second, and cost per second,
 * over [a, b) into the days. */
static void per_day (struct report *r, int64_t a, int64_t b, double cores, double gpus,
                     double migs, double cost)
{
    int64_t d = r->day0;

    if (cores == 0 && gpus == 0 && migs == 0 && cost == 0)
        return;
    for (int i = 0; i < r->ndays && d < b; i++) {
        int64_t e = next_midnight (d);
        int64_t lo = a > d ? a : d, hi = b < e ? b : e;
        if (hi > lo) {
            r->day_core_s[i] += cores * (double)(hi - lo);
            r->day_gpu_s[i] += gpus * (double)(hi - lo);
            r->day_mig_s[i] += migs * (double)(hi - lo);
            r->day_cost[i] += cost * (double)(hi - lo);
        }
        d = e;
    }
}

/* "1g.5gb*2,3g.20gb*1": add count * seconds to each profile. */
static double add_mig (struct report *r, struct report_row *row, const char *mig,
                       double secs)
{
    char buf[512], *save = NULL;
    double instances = 0;

    if (!mig)
        return 0;
    snprintf (buf, sizeof (buf), "%s", mig);
    for (char *t = strtok_r (buf, ",", &save); t; t = strtok_r (NULL, ",", &save)) {
        char *star = strchr (t, '*');
        int n = star ? atoi (star + 1) : 1, p;
        if (star)
            *star = '\0';
        if ((p = profile_index (r, t)) < 0 || n <= 0)
            continue;
        row->mig_s[p] += n * secs;
        instances += n;
    }
    return instances;
}

/* A spot reclaim ended the attempt: requeued ("reclaimed: ...") or, not
 * rerunnable, failed with it ("Job failed: reclaimed: ..."). */
static int reclaimed (const char *reason)
{
    return !strncmp (reason, "reclaimed:", 10)
           || !strncmp (reason, "Job failed: reclaimed:", 22);
}

/* An ended attempt's cost over [start, end), the part in [lo, hi) into
 * row; its cost per second (0 if none stored) is returned for the days. */
static double attempt_cost (struct report_row *row, sqlite3_stmt *st, int64_t start,
                            int64_t lo, int64_t hi)
{
    int64_t end = sqlite3_column_int64 (st, 2);
    double run, frac;

    if (sqlite3_column_type (st, 2) == SQLITE_NULL
        || sqlite3_column_type (st, A_COST) == SQLITE_NULL)
        return 0;
    run = (double)(end - start);
    /* An attempt that ended the second it started is all in or all out. */
    frac = run > 0 ? (double)(hi > lo ? hi - lo : 0) / run : end >= lo && end < hi;
    row->cost += frac * sqlite3_column_double (st, A_COST);
    row->cost_spot += frac * sqlite3_column_double (st, A_SPOT);
    row->cost_ondemand += frac * sqlite3_column_double (st, A_ONDEMAND);
    return run > 0 ? sqlite3_column_double (st, A_COST) / run : 0;
}

static int report_attempts (struct report *r, sqlite3_stmt *st)
{
    int rc;

    while ((rc = sqlite3_step (st)) == SQLITE_ROW) {
        struct report_row *row = row_of (r, st, K_ATTEMPTS);
        int64_t start = sqlite3_column_int64 (st, 0),
                end = sqlite3_column_int64 (st, 1);
        int64_t lo = start > r->from ? start : r->from;
        int64_t hi = end < r->to ? end : r->to;
        double secs = hi > lo ? (double)(hi - lo) : 0, migs;
        int ngpus = sqlite3_column_int (st, 5);
        row->core_s += sqlite3_column_int (st, 4) * secs;
        row->gpu_s += ngpus * secs;
        migs = add_mig (r, row, (const char *)sqlite3_column_text (st, 6), secs);
        per_day (r, lo, hi, sqlite3_column_int (st, 4), ngpus, migs,
                 attempt_cost (row, st, start, lo, hi));
        /* Still running when the window ends: a job of the window too (at
         * most one attempt of a job runs at a time). */
        if (sqlite3_column_type (st, 2) == SQLITE_NULL
            || sqlite3_column_int64 (st, 2) >= r->to) {
            row->jobs++;
            row->running++;
        }
        if (sqlite3_column_type (st, 2) == SQLITE_NULL
            || sqlite3_column_int64 (st, 2) < r->from
            || sqlite3_column_int64 (st, 2) >= r->to)
            continue; /* it did not end in the window */
        row->gpu_energy_j += sqlite3_column_double (st, A_GPU_J);
        row->gpu_util_s += sqlite3_column_double (st, A_GPU_UTIL_S);
        row->gpu_used_s += sqlite3_column_double (st, A_GPU_S);
        /* An attempt the server ended to run the job again (JOB_EXEC_RERUN). */
        if (sqlite3_column_int (st, 3) == -3)
            row->requeues++;
        if (reclaimed ((const char *)sqlite3_column_text (st, A_REASON)))
            row->reclaims++;
    }
    return rc == SQLITE_DONE ? 0 : -1;
}

static int report_ended (struct report *r, sqlite3_stmt *st)
{
    int rc;

    while ((rc = sqlite3_step (st)) == SQLITE_ROW) {
        struct report_row *row = row_of (r, st, K_ENDED);
        row->jobs++;
        /* A deleted job's status is the signal that ended it: the user's
         * doing, not a failure (counted apart). */
        if (sqlite3_column_int (st, E_DELETED))
            row->deleted++;
        else if (sqlite3_column_type (st, 0) != SQLITE_NULL
                 && sqlite3_column_int (st, 0) != 0 && sqlite3_column_int (st, 1) > 0)
            row->failures++;
    }
    return rc == SQLITE_DONE ? 0 : -1;
}

static void add_wait (struct report_row *row, double w)
{
    if (row->nwaits == row->capwaits) {
        row->capwaits = row->capwaits ? 2 * row->capwaits : 16;
        row->waits = xrealloc (row->waits, row->capwaits * sizeof (*row->waits));
    }
    row->waits[row->nwaits++] = w < 0 ? 0 : w;
}

static int report_waits (struct report *r, sqlite3_stmt *st)
{
    int rc;

    while ((rc = sqlite3_step (st)) == SQLITE_ROW)
        add_wait (row_of (r, st, K_WAITS), (double)sqlite3_column_int64 (st, 0));
    return rc == SQLITE_DONE ? 0 : -1;
}

static int report_checkpoints (struct report *r, sqlite3_stmt *st)
{
    int rc;

    while ((rc = sqlite3_step (st)) == SQLITE_ROW) {
        struct report_row *row = row_of (r, st, K_CKPT);
        double secs = sqlite3_column_double (st, 0),
               run = sqlite3_column_double (st, 2);
        row->checkpoints++;
        row->ckpt_s += secs;
        if (sqlite3_column_type (st, 1) != SQLITE_NULL && run > 0)
            row->ckpt_cost += secs * sqlite3_column_double (st, 1) / run;
    }
    return rc == SQLITE_DONE ? 0 : -1;
}

static int report_preempted (struct report *r, sqlite3_stmt *st)
{
    int rc;

    while ((rc = sqlite3_step (st)) == SQLITE_ROW)
        row_of (r, st, K_PREEMPTED)->preemptions += sqlite3_column_int64 (st, 0);
    return rc == SQLITE_DONE ? 0 : -1;
}

double report_gpu_util (const struct report_row *row)
{
    return row->gpu_used_s > 0 ? row->gpu_util_s / row->gpu_used_s : 0;
}

/* The total row: sums of the rows, and every wait. */
static void report_total (struct report *r)
{
    struct report_row *row, *tmp, *t = &r->total;

    snprintf (t->key, sizeof (t->key), "TOTAL");
    HASH_ITER (hh, r->rows, row, tmp)
    {
        t->jobs += row->jobs;
        t->running += row->running;
        t->deleted += row->deleted;
        t->failures += row->failures;
        t->requeues += row->requeues;
        t->preemptions += row->preemptions;
        t->reclaims += row->reclaims;
        t->checkpoints += row->checkpoints;
        t->cost += row->cost;
        t->cost_spot += row->cost_spot;
        t->cost_ondemand += row->cost_ondemand;
        t->ckpt_s += row->ckpt_s;
        t->ckpt_cost += row->ckpt_cost;
        t->core_s += row->core_s;
        t->gpu_s += row->gpu_s;
        t->gpu_energy_j += row->gpu_energy_j;
        t->gpu_util_s += row->gpu_util_s;
        t->gpu_used_s += row->gpu_used_s;
        for (int p = 0; p < r->nprofiles; p++)
            t->mig_s[p] += row->mig_s[p];
        for (int i = 0; i < row->nwaits; i++)
            add_wait (t, row->waits[i]);
    }
}

static int report_query (sqlite3 *db, struct report *r, const char *sql,
                         int (*fn) (struct report *, sqlite3_stmt *),
                         const char *server)
{
    sqlite3_stmt *st;
    int rc;

    if (sqlite3_prepare_v2 (db, sql, -1, &st, NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_int64 (st, 1, r->from);
    sqlite3_bind_int64 (st, 2, r->to);
    sqlite3_bind_int64 (st, 3, r->now < r->to ? r->now : r->to);
    sqlite3_bind_text (st, 4, server, -1, SQLITE_STATIC);
    rc = fn (r, st);
    sqlite3_finalize (st);
    return rc;
}

/* The server's name, as job ids end ("42.NAME"): what it stored. */
static void server_name (sqlite3 *db, char *buf, size_t len)
{
    sqlite3_stmt *st;

    snprintf (buf, len, "server");
    if (sqlite3_prepare_v2 (db, "SELECT value FROM server WHERE key = 'server_name'",
                            -1, &st, NULL)
        != SQLITE_OK)
        return;
    if (sqlite3_step (st) == SQLITE_ROW)
        snprintf (buf, len, "%s", (const char *)sqlite3_column_text (st, 0));
    sqlite3_finalize (st);
}

int report_run (struct report *r, const char *db_path, struct hpcq_error *err)
{
    char uri[4200], server[128];
    sqlite3 *db = NULL;
    int rc = -1;

    r->now = util_wall_secs ();
    r->day0 = report_midnight (r->from);
    r->ndays = 0;
    for (int64_t d = r->day0; d < r->to && r->ndays < REPORT_MAX_DAYS;
         d = next_midnight (d))
        r->ndays++;
    snprintf (uri, sizeof (uri), "file:%s?mode=ro", db_path);
    if (sqlite3_open_v2 (uri, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL)
        != SQLITE_OK) {
        errprintf (err, "cannot open %s: %s", db_path,
                   db ? sqlite3_errmsg (db) : "no memory");
        goto out;
    }
    sqlite3_busy_timeout (db, 5000);
    server_name (db, server, sizeof (server));
    if (report_query (db, r, sql_attempts, report_attempts, server) < 0
        || report_query (db, r, sql_ended, report_ended, server) < 0
        || report_query (db, r, sql_waits, report_waits, server) < 0
        || report_query (db, r, sql_preempted, report_preempted, server) < 0
        || report_query (db, r, sql_checkpoints, report_checkpoints, server) < 0) {
        errprintf (err, "cannot read %s: %s", db_path, sqlite3_errmsg (db));
        goto out;
    }
    report_total (r);
    rc = 0;
out:
    sqlite3_close (db);
    return rc;
}

void report_release (struct report *r)
{
    struct report_row *row, *tmp;

    HASH_ITER (hh, r->rows, row, tmp)
    {
        HASH_DEL (r->rows, row);
        free (row->waits);
        free (row);
    }
    free (r->total.waits);
}

double report_wait_mean (const struct report_row *row)
{
    double sum = 0;

    for (int i = 0; i < row->nwaits; i++)
        sum += row->waits[i];
    return row->nwaits ? sum / row->nwaits : 0;
}

static int by_value (const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

double report_wait_p95 (struct report_row *row)
{
    int k;

    if (!row->nwaits)
        return 0;
    qsort (row->waits, row->nwaits, sizeof (*row->waits), by_value);
    /* Nearest rank: the smallest value with at least 95% at or below it. */
    k = (int)((95 * (int64_t)row->nwaits + 99) / 100);
    return row->waits[k - 1];
}

static int by_key (const void *a, const void *b)
{
    return strcmp ((*(struct report_row *const *)a)->key,
                   (*(struct report_row *const *)b)->key);
}

/* Job ids in number order: "9.s" before "10.s", an array's subjobs by
 * index ("7[2].s" before "7[10].s"), after the job numbered before it. */
static int by_job_id (const void *a, const void *b)
{
    const char *x = (*(struct report_row *const *)a)->key,
               *y = (*(struct report_row *const *)b)->key;
    char *ex, *ey;
    long long nx = strtoll (x, &ex, 10), ny = strtoll (y, &ey, 10);
    long ix = *ex == '[' ? strtol (ex + 1, NULL, 10) : -1,
         iy = *ey == '[' ? strtol (ey + 1, NULL, 10) : -1;

    if (nx != ny)
        return nx < ny ? -1 : 1;
    if (ix != iy)
        return ix < iy ? -1 : 1;
    return strcmp (x, y);
}

struct report_row **report_sorted (struct report *r, int *n)
{
    struct report_row **v = xzalloc ((HASH_COUNT (r->rows) + 1) * sizeof (*v)), *row,
                      *tmp;
    int k = 0;

    HASH_ITER (hh, r->rows, row, tmp)
    v[k++] = row;
    qsort (v, k, sizeof (*v), r->by == BY_JOB ? by_job_id : by_key);
    *n = k;
    return v;
}
