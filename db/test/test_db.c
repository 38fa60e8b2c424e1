/* test_db.c - the database: migrations, jobs, attempts, events, server
 * settings, nodes and queues, on a fresh file in a temporary folder. */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/util.h"
#include "common/strpool.h"
#include "db/db.h"
#include "db/db_ckpt.h"
#include "db/db_job.h"
#include "db/db_node.h"
#include "db/db_queue.h"
#include "common/test/tap.h"

extern const char *const db_migrations[];
extern const int db_migration_version[];

static char tmpdir[256];

static void tmp_path (char *buf, size_t len, const char *name)
{
    snprintf (buf, len, "%s/%s", tmpdir, name);
}

static int nmigrations (void)
{
    int n = 0;
    while (db_migrations[n])
        n++;
    return n;
}

/* The number of the last migration file: what user_version ends at. */
static int latest (void)
{
    return db_migration_version[nmigrations () - 1];
}

/* First column of the first row of sql as text, into buf ("" if none). */
static const char *query_text (sqlite3 *h, const char *sql, char *buf, size_t len)
{
    sqlite3_stmt *st;

    buf[0] = '\0';
    if (sqlite3_prepare_v2 (h, sql, -1, &st, NULL) != SQLITE_OK) {
        snprintf (buf, len, "(error: %s)", sqlite3_errmsg (h));
        return buf;
    }
    if (sqlite3_step (st) == SQLITE_ROW) {
        const unsigned char *s = sqlite3_column_text (st, 0);
        snprintf (buf, len, "%s", s ? (const char *)s : "(null)");
    }
    sqlite3_finalize (st);
    return buf;
}

static int64_t query_int (sqlite3 *h, const char *sql)
{
    sqlite3_stmt *st;
    int64_t v = -999;

    if (sqlite3_prepare_v2 (h, sql, -1, &st, NULL) != SQLITE_OK)
        return -998;
    if (sqlite3_step (st) == SQLITE_ROW)
        v = sqlite3_column_int64 (st, 0);
    sqlite3_finalize (st);
    return v;
}

/* --- job records --- */

struct jobs {
    struct db_job j[8];
    int n;
};

static int collect (struct db_job *j, void *arg)
{
    struct jobs *js = arg;

    if (js->n == 8) {
        db_job_release (j);
        return -1;
    }
    js->j[js->n++] = *j;
    return 0;
}

static void jobs_release (struct jobs *js)
{
    for (int i = 0; i < js->n; i++)
        db_job_release (&js->j[i]);
    js->n = 0;
}

static int jobs_read (struct db *db, struct jobs *js)
{
    memset (js, 0, sizeof (*js));
    return db_job_foreach (db, collect, js);
}

static int str_same (const char *a, const char *b)
{
    if (!a || !b)
        return a == b;
    return strcmp (a, b) == 0;
}

/* Name of the first field where a and b differ, or NULL. */
static const char *job_diff (const struct db_job *a, const struct db_job *b)
{
    if (a->seq != b->seq)
        return "seq";
    if (strcmp (a->uuid, b->uuid))
        return "uuid";
    if (strcmp (a->owner, b->owner))
        return "owner";
    if (a->uid != b->uid)
        return "uid";
    if (strcmp (a->name, b->name))
        return "name";
    if (strcmp (a->queue, b->queue))
        return "queue";
    if (a->state != b->state)
        return "state";
    if (strcmp (a->hold_types, b->hold_types))
        return "hold_types";
    if (a->priority != b->priority)
        return "priority";
    if (!str_same (a->spec, b->spec))
        return "spec";
    if (a->ctime != b->ctime)
        return "ctime";
    if (a->mtime != b->mtime)
        return "mtime";
    if (a->stime != b->stime)
        return "stime";
    if (a->etime != b->etime)
        return "etime";
    if (a->has_exit != b->has_exit)
        return "has_exit";
    if (a->has_exit && a->exit_status != b->exit_status)
        return "exit_status";
    if (!str_same (a->comment, b->comment))
        return "comment";
    if (a->run_count != b->run_count)
        return "run_count";
    if (!str_same (a->exec_host, b->exec_host))
        return "exec_host";
    if (!str_same (a->exec_vnode, b->exec_vnode))
        return "exec_vnode";
    if (a->session_id != b->session_id)
        return "session_id";
    if (!str_same (a->resources_used, b->resources_used))
        return "resources_used";
    if (!str_same (a->alloc, b->alloc))
        return "alloc";
    return NULL;
}

static char spec1[] = "{\"script\":\"#!/bin/sh\\necho hi\\n\",\"ncpus\":2}";
static char spec_other[] = "{\"changed\":true}";
static char comment1[] = "Job run at Sun Nov 29 at 15:43 on (node1:ncpus=2)";
static char host1[] = "node1/0*2";
static char vnode1[] = "(node1:ncpus=2)";
static char used1[] = "{\"cput\":\"00:00:01\",\"walltime\":\"00:01:40\"}";
static char alloc1[] = "{\"nodes\":[{\"name\":\"node1\",\"ncpus\":2,\"gpus\":[0]}]}";

static void job_init (struct db_job *j, int64_t seq)
{
    memset (j, 0, sizeof (*j));
    j->seq = seq;
    snprintf (j->uuid, sizeof (j->uuid), "123e4567-e89b-12d3-a456-4266141740%02d",
              (int)(seq % 100));
    char name[32];

    snprintf (name, sizeof (name), "job%lld", (long long)seq);
    j->owner = "alice"; /* borrowed: the test never releases these */
    j->uid = 1000;
    j->name = strpool_get (name);
    j->queue = "workq";
    j->state = 'Q';
    snprintf (j->hold_types, sizeof (j->hold_types), "n");
    j->priority = 10;
    j->spec = spec1;
    j->ctime = 1700000000;
    j->mtime = 1700000001;
}

static void test_schema (struct db *db)
{
    sqlite3 *h = db_handle (db);
    char buf[128];
    const char *s;

    ok (nmigrations () >= 1, "there is at least one migration (%d)", nmigrations ());
    ok (db_schema_version (db) == latest (),
        "schema version %d is the last migration's number", db_schema_version (db));
    {
        int asc = 1;
        for (int i = 1; i < nmigrations (); i++)
            asc &= db_migration_version[i] > db_migration_version[i - 1];
        ok (asc && db_migration_version[0] == 1,
            "migration numbers ascend from 1 "
            "(gaps allowed: numbers are reserved per branch)");
    }
    s = query_text (h, "PRAGMA journal_mode", buf, sizeof (buf));
    is (s, "wal", "journal_mode is wal");
    ok (query_int (h, "PRAGMA synchronous") == 2, "synchronous is FULL");
    ok (query_int (h, "PRAGMA foreign_keys") == 1, "foreign keys are enforced");
    ok (query_int (h, "SELECT count(*) FROM sqlite_master WHERE type = 'table'"
                      " AND name IN ('server','queues','jobs','attempts','events',"
                      "'nodes','checkpoints','usage')")
            == 8,
        "the eight tables exist");
}

static int count_queue (const struct db_queue *q, void *arg)
{
    int *n = arg;
    if (strcmp (q->name, "workq") == 0)
        n[1]++;
    n[0]++;
    return 0;
}

static void test_queue (struct db *db)
{
    struct db_queue q;
    int n[2] = { 0, 0 };
    const char *name;

    memset (&q, 0, sizeof (q));
    ok (db_queue_get (db, "workq", &q) == 1, "the default queue workq exists");
    name = q.name;
    is (name, "workq", "its name is filled in");
    ok (q.priority == 0 && q.enabled == 1 && q.started == 1,
        "it is enabled and started with priority 0");
    ok (db_queue_get (db, "workq", NULL) == 1, "db_queue_get accepts a NULL record");
    ok (db_queue_get (db, "nosuch", &q) == 0, "an unknown queue does not exist");
    int rc = db_queue_foreach (db, count_queue, n);
    ok (rc == 0 && n[0] == 1 && n[1] == 1, "db_queue_foreach sees workq only (%d)",
        n[0]);
}

static int find_queue (const struct db_queue *q, void *arg)
{
    struct db_queue *want = arg;
    if (strcmp (q->name, want->name) != 0)
        return 0;
    *want = *q;
    return -1; /* found: stop */
}

static int sum_fairshare (const struct db_fairshare *f, void *arg)
{
    double *sum = arg;
    sum[0] += f->usage;
    sum[1] += (double)f->decayed_at;
    sum[2]++;
    return 0;
}

/* qmgr's changes: create, change every attribute, delete; fair-share rows. */
static void test_queue_admin (struct db *db)
{
    struct db_queue q = { .name = "gpu",
                          .queue_type = "execution",
                          .priority = 100,
                          .enabled = 1,
                          .started = 0,
                          .resources_max = "walltime=24:00:00",
                          .resources_default = "walltime=01:00:00",
                          .max_run = 5,
                          .max_run_user = 2,
                          .node_labels = "spot" },
                    r;
    struct db_fairshare f = { .user = "alice",
                              .usage = 1500.5,
                              .decayed_at = 1700000000 };
    double sum[3] = { 0, 0, 0 };

    ok (db_queue_insert (db, &q) == 0, "a queue is created");
    errno = 0;
    ok (db_queue_insert (db, &q) < 0 && errno == EEXIST,
        "a second one of that name: EEXIST");
    memset (&r, 0, sizeof (r));
    ok (db_queue_get (db, "gpu", &r) == 1 && r.priority == 100 && r.started == 0
            && strcmp (r.resources_max, "walltime=24:00:00") == 0
            && strcmp (r.resources_default, "walltime=01:00:00") == 0 && r.max_run == 5
            && r.max_run_user == 2 && strcmp (r.node_labels, "spot") == 0
            && strcmp (r.queue_type, "execution") == 0,
        "every attribute reads back");
    q.priority = -5;
    q.max_run_user = 0;
    snprintf (q.node_labels, sizeof (q.node_labels), "%s", "");
    ok (db_queue_update (db, &q) == 0, "a queue is changed");
    memset (&r, 0, sizeof (r));
    snprintf (r.name, sizeof (r.name), "gpu");
    ok (db_queue_foreach (db, find_queue, &r) == 0 && r.priority == -5
            && r.max_run_user == 0 && r.node_labels[0] == '\0' && r.max_run == 5,
        "the change reads back through foreach, which stops when asked");
    snprintf (r.name, sizeof (r.name), "nosuch");
    errno = 0;
    ok (db_queue_update (db, &r) < 0 && errno == ENOENT,
        "changing an unknown queue: ENOENT");
    errno = 0;
    ok (db_queue_delete (db, "workq") < 0 && errno == EBUSY,
        "a queue jobs refer to is not deleted (EBUSY)");
    ok (db_queue_delete (db, "gpu") == 0 && db_queue_get (db, "gpu", NULL) == 0,
        "an empty queue is deleted");
    errno = 0;
    ok (db_queue_delete (db, "gpu") < 0 && errno == ENOENT,
        "deleting it again: ENOENT");
    ok (db_fairshare_set (db, &f) == 0, "a user's usage is stored");
    f.usage = 750.25;
    f.decayed_at = 1700000100;
    ok (db_fairshare_set (db, &f) == 0, "and replaced");
    ok (db_fairshare_foreach (db, sum_fairshare, sum) == 0 && sum[2] == 1
            && sum[0] == 750.25 && sum[1] == 1700000100.0,
        "one row with the latest usage and time");
    ok (db_commit (db) == 0, "the changes commit");
}

static void test_jobs (struct db *db)
{
    struct db_job j, j2;
    struct jobs js;
    const char *diff;
    int rc;

    job_init (&j, 1);
    ok (db_txn_ensure (db) == 0 && db_in_txn (db), "db_txn_ensure opens a transaction");
    ok (db_txn_ensure (db) == 0 && db_in_txn (db), "and a second call keeps it");
    ok (db_job_insert (db, &j) == 0, "db_job_insert works");
    ok (db_commit (db) == 0 && !db_in_txn (db), "db_commit ends the transaction");
    ok (db_commit (db) == 0, "db_commit without a transaction is a no-op");

    rc = jobs_read (db, &js);
    ok (rc == 0 && js.n == 1, "db_job_foreach sees one job (%d)", js.n);
    diff = js.n == 1 ? job_diff (&js.j[0], &j) : "count";
    ok (diff == NULL, "every field reads back (first difference: %s)",
        diff ? diff : "none");
    ok (js.n == 1 && js.j[0].stime == 0 && js.j[0].etime == 0 && !js.j[0].has_exit
            && js.j[0].comment == NULL && js.j[0].exec_host == NULL
            && js.j[0].exec_vnode == NULL && js.j[0].resources_used == NULL
            && js.j[0].alloc == NULL && js.j[0].session_id == 0,
        "unset fields read back as 0 / NULL");
    jobs_release (&js);
    ok (query_int (db_handle (db),
                   "SELECT count(*) FROM jobs WHERE seq = 1 AND stime IS NULL"
                   " AND etime IS NULL AND exit_status IS NULL"
                   " AND comment IS NULL AND session_id IS NULL")
            == 1,
        "and are stored as NULL");

    /* Update every mutable field; exit status 0 must not read as unset. */
    j.state = 'R';
    snprintf (j.hold_types, sizeof (j.hold_types), "uos");
    j.priority = -5;
    j.mtime = 1700000100;
    j.stime = 1700000050;
    j.etime = 1700000040;
    j.has_exit = 1;
    j.exit_status = 0;
    j.comment = comment1;
    j.run_count = 1;
    j.exec_host = host1;
    j.exec_vnode = vnode1;
    j.session_id = 4242;
    j.resources_used = used1;
    j.alloc = alloc1;
    ok (db_job_update (db, &j) == 0 && db_in_txn (db),
        "db_job_update works and opens a transaction");
    ok (db_commit (db) == 0, "commit");
    ok (jobs_read (db, &js) == 0 && js.n == 1, "one job after the update");
    diff = js.n == 1 ? job_diff (&js.j[0], &j) : "count";
    ok (diff == NULL, "every updated field reads back (first difference: %s)",
        diff ? diff : "none");
    ok (js.n == 1 && js.j[0].has_exit && js.j[0].exit_status == 0,
        "exit status 0 is distinct from no exit status");
    jobs_release (&js);

    /* Fields db_job_update does not write stay as inserted. */
    j2 = j;
    j2.name = "renamed";
    j2.owner = "mallory";
    j2.uid = 0;
    j2.spec = spec_other;
    j2.ctime = 1;
    j2.has_exit = 1;
    j2.exit_status = 271;
    ok (db_job_update (db, &j2) == 0 && db_commit (db) == 0,
        "update with other fixed fields");
    ok (jobs_read (db, &js) == 0 && js.n == 1, "one job");
    ok (js.n == 1 && strcmp (js.j[0].owner, "alice") == 0 && js.j[0].uid == 1000
            && js.j[0].ctime == 1700000000,
        "owner, uid and ctime are not changed by an update");
    ok (js.n == 1 && strcmp (js.j[0].name, "renamed") == 0
            && str_same (js.j[0].spec, spec_other),
        "name and request are (qalter changes them)");
    ok (js.n == 1 && js.j[0].exit_status == 271, "a non-zero exit status reads back");
    jobs_release (&js);

    /* And back to unset: NULL-able fields return to NULL. */
    j.stime = j.etime = 0;
    j.has_exit = 0;
    j.comment = j.exec_host = j.exec_vnode = j.resources_used = j.alloc = NULL;
    j.session_id = 0;
    ok (db_job_update (db, &j) == 0 && db_commit (db) == 0,
        "update back to unset fields");
    ok (jobs_read (db, &js) == 0 && js.n == 1, "one job");
    diff = js.n == 1 ? job_diff (&js.j[0], &j) : "count";
    ok (diff == NULL, "cleared fields read back unset (first difference: %s)",
        diff ? diff : "none");
    jobs_release (&js);

    /* Rollback leaves nothing. */
    job_init (&j2, 2);
    ok (db_job_insert (db, &j2) == 0 && db_in_txn (db),
        "insert job 2 in a transaction");
    ok (jobs_read (db, &js) == 0 && js.n == 2, "the transaction sees its own insert");
    jobs_release (&js);
    db_rollback (db);
    ok (!db_in_txn (db), "db_rollback ends the transaction");
    rc = jobs_read (db, &js);
    ok (rc == 0 && js.n == 1 && js.j[0].seq == 1,
        "after rollback job 2 is gone (%d jobs)", js.n);
    jobs_release (&js);
    db_rollback (db);
    ok (!db_in_txn (db), "db_rollback without a transaction is harmless");

    /* Constraint failures. */
    job_init (&j2, 1);
    snprintf (j2.uuid, sizeof (j2.uuid), "other-uuid");
    errno = 0;
    ok (db_job_insert (db, &j2) < 0 && errno == EEXIST,
        "a duplicate seq fails with EEXIST");
    job_init (&j2, 3);
    snprintf (j2.uuid, sizeof (j2.uuid), "%s", j.uuid);
    errno = 0;
    ok (db_job_insert (db, &j2) < 0 && errno == EEXIST,
        "a duplicate uuid fails with EEXIST");
    job_init (&j2, 4);
    j2.queue = "nosuch";
    errno = 0;
    ok (db_job_insert (db, &j2) < 0 && errno == EINVAL,
        "a job in an unknown queue is refused with EINVAL");
    job_init (&j2, 5);
    j2.state = 'X';
    errno = 0;
    ok (db_job_insert (db, &j2) < 0 && errno == EINVAL,
        "an invalid state is refused with EINVAL");
    job_init (&j2, 6);
    j2.spec = NULL;
    ok (db_job_insert (db, &j2) < 0, "a job without spec is refused");
    job_init (&j2, 7);
    ok (db_job_insert (db, &j2) == 0 && db_commit (db) == 0,
        "the transaction survives failed statements");
    ok (jobs_read (db, &js) == 0 && js.n == 2 && js.j[0].seq == 1 && js.j[1].seq == 7,
        "only jobs 1 and 7 exist, in seq order");
    jobs_release (&js);
}

/* Migration 0006: state S, and the checkpoint, preemption, interruption,
 * cost and retention records (db_ckpt.h). */
static int count_ckpt (const struct db_ckpt *c, void *arg)
{
    int *n = arg;

    if (c->seq == 40 && c->generation == 3 && c->size == 4096 && c->attempt == 1
        && c->duration > 1.24 && c->duration < 1.26 && c->reason
        && !strcmp (c->reason, "preempt") && c->node && !strcmp (c->node, "n1"))
        n[0]++;
    if (c->seq == 40 && c->generation == 4 && c->size == -1 && c->duration < 0
        && !c->reason)
        n[1]++;
    return 0;
}

static int last_preempt (int64_t seq, int attempt, char method, const char *reason,
                         void *arg)
{
    char *buf = arg;

    snprintf (buf, 64, "%lld:%d:%c:%s", (long long)seq, attempt, method, reason);
    return 0;
}

static int sum_class (const char *cls, double secs, int64_t n, void *arg)
{
    char *buf = arg;
    size_t len = strlen (buf);

    snprintf (buf + len, 128 - len, "%s=%.0f/%lld ", cls, secs, (long long)n);
    return 0;
}

static int due_seq (int64_t seq, const char *path, int64_t uid, void *arg)
{
    char *buf = arg;
    size_t len = strlen (buf);

    snprintf (buf + len, 128 - len, "%lld:%s:%lld ", (long long)seq, path,
              (long long)uid);
    return 0;
}

static void test_ckpt_tables (struct db *db)
{
    struct db_job j;
    struct db_ckpt c = { .seq = 40,
                         .attempt = 1,
                         .generation = 3,
                         .path = "/ck/u",
                         .node = "n1",
                         .size = 4096,
                         .completed_at = 1700000100,
                         .reason = "preempt",
                         .requested_at = 1700000098.75,
                         .duration = 1.25 };
    char buf[128] = "";
    int n[2] = { 0, 0 };

    job_init (&j, 40);
    j.state = 'S';
    ok (db_job_insert (db, &j) == 0 && db_commit (db) == 0,
        "a suspended job (S) is stored");
    job_init (&j, 41);
    j.state = 'Z';
    ok (db_job_insert (db, &j) < 0 && errno == EINVAL,
        "other states are still refused");
    db_rollback (db);
    ok (db_ckpt_add (db, &c) == 1, "a checkpoint is recorded");
    ok (db_ckpt_add (db, &c) == 0,
        "the same generation again is not (a repeated report)");
    c = (struct db_ckpt){ .seq = 40,
                          .attempt = 1,
                          .generation = 4,
                          .path = "/ck/u",
                          .size = -1,
                          .completed_at = 1700000200,
                          .duration = -1 };
    ok (db_ckpt_add (db, &c) == 1 && db_commit (db) == 0,
        "one of unknown size and cost");
    ok (db_ckpt_foreach (db, count_ckpt, n) == 0 && n[0] == 1 && n[1] == 1,
        "both read back as written");
    ok (db_preempt_add (db, 40, 1, 1700000300, 'S', 42, "by 42") == 0
            && db_preempt_add (db, 40, 1, 1700000400, 'C', 43, "by 43") == 0
            && db_commit (db) == 0,
        "preemptions are recorded");
    ok (db_preempt_foreach (db, last_preempt, buf) == 0
            && !strcmp (buf, "40:1:C:by 43"),
        "read back in order: the last is C by 43 (%s)", buf);
    ok (db_preempt_add (db, 40, 1, 1, 'X', 0, "bad") < 0,
        "a method other than S C R D is refused");
    db_rollback (db);
    buf[0] = '\0';
    ok (db_class_exposure_add (db, "spot", 3600) == 0
            && db_class_exposure_add (db, "spot", 1800) == 0
            && db_interruption_add (db, 1, "n1", "spot", "reclaim", "notice") == 0
            && db_interruption_add (db, 2, "n2", "spot", "failure", NULL) == 0
            && db_interruption_add (db, 3, "n3", "big", "failure", NULL) == 0
            && db_commit (db) == 0,
        "up time and interruptions by node class");
    ok (db_class_foreach (db, sum_class, buf) == 0
            && !strcmp (buf, "big=0/1 spot=5400/2 "),
        "per class: up node-seconds and interruptions (%s)", buf);
    ok (db_interruption_add (db, 4, "n1", "spot", "lunch", NULL) < 0,
        "an unknown kind is refused");
    db_rollback (db);
    buf[0] = '\0';
    ok (db_ckptdir_add (db, 40, "/ck/a", 1000, 100) == 0
            && db_ckptdir_add (db, 41, "/ck/b", 1001, 300) == 0 && db_commit (db) == 0,
        "checkpoint folders to remove later");
    ok (db_ckptdir_due (db, 200, 10, due_seq, buf) == 0
            && !strcmp (buf, "40:/ck/a:1000 "),
        "at 200 only the first is due (%s)", buf);
    buf[0] = '\0';
    ok (db_ckptdir_removed (db, 40, 210) == 0 && db_commit (db) == 0
            && db_ckptdir_due (db, 1000, 10, due_seq, buf) == 0
            && !strcmp (buf, "41:/ck/b:1001 "),
        "a removed one is due no more (%s)", buf);
}

static int stop_at_first (struct db_job *j, void *arg)
{
    (*(int *)arg)++;
    db_job_release (j);
    return -1;
}

static void test_foreach_stop (struct db *db)
{
    int calls = 0;

    ok (db_job_foreach (db, stop_at_first, &calls) < 0 && calls == 1,
        "a callback returning -1 stops db_job_foreach");
}

static void test_attempts_events (struct db *db)
{
    sqlite3 *h = db_handle (db);
    char buf[128];
    const char *s;

    ok (db_attempt_start (db, 1, 1, "node1", "node1/0*2", 1700000050) == 0,
        "db_attempt_start works");
    ok (db_attempt_end (db, 1, 1, 1700000150, 0, "exited", 7, 100, 2048) == 0,
        "db_attempt_end works");
    ok (db_attempt_start (db, 1, 2, "node2", NULL, 1700000200) == 0,
        "a second attempt starts");
    ok (db_commit (db) == 0, "commit");
    ok (query_int (h, "SELECT count(*) FROM attempts WHERE job_seq = 1") == 2,
        "two attempts");
    ok (query_int (h, "SELECT count(*) FROM attempts WHERE job_seq = 1 AND attempt = 1"
                      " AND node = 'node1' AND exec_host = 'node1/0*2'"
                      " AND start_time = 1700000050 AND end_time = 1700000150"
                      " AND exit_status = 0 AND reason = 'exited' AND cput = 7"
                      " AND walltime = 100 AND maxrss = 2048")
            == 1,
        "attempt 1 has every field");
    ok (query_int (h, "SELECT count(*) FROM attempts WHERE job_seq = 1 AND attempt = 2"
                      " AND exec_host IS NULL AND end_time IS NULL")
            == 1,
        "attempt 2 is open and has no exec_host");
    errno = 0;
    ok (db_attempt_start (db, 1, 2, "node3", NULL, 1) < 0 && errno == EEXIST,
        "a duplicate attempt fails with EEXIST");
    ok (db_attempt_start (db, 999, 1, "node1", NULL, 1) < 0,
        "an attempt for an unknown job is refused");
    db_rollback (db);

    ok (db_event_add (db, 1, 1700000000, "queued", "alice", NULL) == 0
            && db_event_add (db, 1, 1700000001, "queued", "alice", "again") == 0
            && db_event_add (db, 1, 1700000050, "run", "scheduler", "node1") == 0
            && db_event_add (db, 7, 1700000060, "queued", "alice", NULL) == 0,
        "db_event_add works");
    ok (db_commit (db) == 0, "commit");
    ok (db_event_count (db, 1, "queued") == 2, "two queued events for job 1");
    ok (db_event_count (db, 1, "run") == 1, "one run event for job 1");
    ok (db_event_count (db, 1, "held") == 0, "no held events for job 1");
    ok (db_event_count (db, 7, "queued") == 1, "one queued event for job 7");
    ok (db_event_count (db, 8, "queued") == 0, "none for an unknown job");
    s = query_text (h,
                    "SELECT detail FROM events WHERE job_seq = 1 AND type = 'queued'"
                    " ORDER BY id DESC",
                    buf, sizeof (buf));
    is (s, "again", "the detail is stored");

    ok (db_event_add (db, 0, 1700000000, "server.start", "root", NULL) == 0
            && db_commit (db) == 0,
        "a server event (seq 0) is added");
    ok (query_int (h, "SELECT count(*) FROM events WHERE job_seq IS NULL"
                      " AND type = 'server.start'")
            == 1,
        "it is stored with a NULL job");
    ok (db_event_count (db, 0, "server.start") == 1,
        "db_event_count counts server events (seq 0)");
}

static void test_server (struct db *db)
{
    char buf[64];
    const char *s;

    errno = 0;
    ok (db_server_get (db, "next_seq", buf, sizeof (buf)) < 0 && errno == ENOENT,
        "a missing server key fails with ENOENT");
    ok (db_server_set (db, "next_seq", "42") == 0, "db_server_set works");
    memset (buf, 0, sizeof (buf));
    s = buf;
    ok (db_server_get (db, "next_seq", buf, sizeof (buf)) == 0, "db_server_get works");
    is (s, "42", "the value reads back");
    ok (db_server_set (db, "next_seq", "1234") == 0, "a second set replaces it");
    ok (db_server_get (db, "next_seq", buf, sizeof (buf)) == 0, "db_server_get works");
    is (s, "1234", "the new value reads back");
    ok (db_server_get (db, "next_seq", buf, 3) == 0, "a short buffer");
    is (s, "12", "truncates with a NUL");
    ok (query_int (db_handle (db), "SELECT count(*) FROM server WHERE key = 'next_seq'")
            == 1,
        "one row for the key");
}

static void test_nodes (struct db *db)
{
    sqlite3 *h = db_handle (db);
    struct db_node n = {
        .ncpus = 4, .mem = 8LL << 30, .state = "free", .last_seen = 100
    };

    snprintf (n.name, sizeof (n.name), "node1");
    ok (db_node_upsert (db, &n) == 0 && db_commit (db) == 0, "db_node_upsert inserts");
    ok (query_int (h, "SELECT count(*) FROM nodes WHERE name = 'node1' AND ncpus = 4"
                      " AND mem = 8589934592 AND gpus = '[]' AND labels = ''"
                      " AND state = 'free' AND last_seen = 100")
            == 1,
        "with defaults for NULL gpus and labels");
    n.ncpus = 8;
    n.mem = 16LL << 30;
    n.gpus = "[{\"model\":\"H200\",\"mem\":141}]";
    n.labels = "gpu,fast";
    n.state = "down";
    n.last_seen = 200;
    ok (db_node_upsert (db, &n) == 0 && db_commit (db) == 0, "a second upsert works");
    ok (query_int (h, "SELECT count(*) FROM nodes") == 1, "still one node");
    ok (query_int (
            h, "SELECT count(*) FROM nodes WHERE name = 'node1' AND ncpus = 8"
               " AND mem = 17179869184 AND gpus = '[{\"model\":\"H200\",\"mem\":141}]'"
               " AND labels = 'gpu,fast' AND state = 'down' AND last_seen = 200")
            == 1,
        "every field is updated");
    ok (db_node_set_state (db, "node1", "offline", 300) == 0 && db_commit (db) == 0,
        "db_node_set_state works");
    ok (query_int (h, "SELECT count(*) FROM nodes WHERE name = 'node1' AND ncpus = 8"
                      " AND state = 'offline' AND last_seen = 300")
            == 1,
        "state and last_seen change, the rest stays");
    ok (db_node_set_offline (db, "node1", 1, "bad fan") == 0 && db_commit (db) == 0
            && db_node_upsert (db, &n) == 0 && db_commit (db) == 0,
        "db_node_set_offline works, and a worker's report follows it");
    ok (query_int (h, "SELECT count(*) FROM nodes WHERE name = 'node1' AND offline = 1"
                      " AND comment = 'bad fan'")
            == 1,
        "offline and its comment stay through the worker's report");
    ok (db_node_set_offline (db, "node1", 0, NULL) == 0 && db_commit (db) == 0
            && query_int (
                   h, "SELECT count(*) FROM nodes WHERE offline = 0 AND comment = ''")
                   == 1,
        "back in service: offline 0, no comment");
}

/* A reopened file keeps its data and is not migrated again. */
static void test_reopen (const char *path)
{
    struct hpcq_error err = { "" };
    struct db *db = db_open (path, &err);
    struct jobs js;
    struct db_job j;
    char buf[64];
    const char *s = buf;

    ok (db != NULL, "reopen works (%s)", db ? "" : err.text);
    if (!db)
        return;
    ok (db_schema_version (db) == latest (), "the schema version is unchanged");
    ok (query_int (db_handle (db), "SELECT count(*) FROM queues") == 1,
        "the migration did not run again (one queue)");
    /* 1 and 7 (test_jobs), 40 (test_ckpt_tables). */
    ok (jobs_read (db, &js) == 0 && js.n == 3, "the jobs survived");
    jobs_release (&js);
    ok (db_server_get (db, "next_seq", buf, sizeof (buf)) == 0,
        "server setting survived");
    is (s, "1234", "with its value");

    /* An uncommitted transaction is rolled back by db_close. */
    job_init (&j, 50);
    ok (db_job_insert (db, &j) == 0 && db_in_txn (db), "insert job 50 without commit");
    db_close (db);
    db = db_open (path, &err);
    ok (db && jobs_read (db, &js) == 0 && js.n == 3,
        "db_close dropped the uncommitted job");
    jobs_release (&js);
    db_close (db);
    db_close (NULL);
}

/* A database made by an older build, at user_version 5, gets every
 * migration numbered past 5 and only those, across gaps in the numbers
 * (0007_settings came from a branch while 0006 was reserved for another). */
static void test_gap (void)
{
    struct hpcq_error err = { "" };
    char path[512];
    sqlite3 *h = NULL;
    struct db *db;
    int rc = SQLITE_OK;

    tmp_path (path, sizeof (path), "v5.db");
    if (sqlite3_open (path, &h) != SQLITE_OK) {
        ok (0, "cannot make %s", path);
        sqlite3_close (h);
        return;
    }
    for (int i = 0; db_migrations[i] && db_migration_version[i] <= 5 && rc == SQLITE_OK;
         i++)
        rc = sqlite3_exec (h, db_migrations[i], NULL, NULL, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_exec (h, "PRAGMA user_version = 5", NULL, NULL, NULL);
    sqlite3_close (h);
    ok (rc == SQLITE_OK, "a database at schema version 5, made by hand");
    db = db_open (path, &err);
    ok (db && db_schema_version (db) == latest (), "opened, it is migrated to %d (%s)",
        latest (), db ? "" : err.text);
    ok (db
            && query_int (db_handle (db), "SELECT count(*) FROM sqlite_master"
                                          " WHERE name = 'settings'")
                   == 1,
        "with 0007's settings table");
    db_close (db);
}

static void test_bad_files (void)
{
    struct hpcq_error err;
    char path[512], *text;
    static const char garbage[] = "This is not an SQLite database, just text. "
                                  "0123456789abcdefghijklmnopqrstuvwxyz\n";
    FILE *f;
    sqlite3 *h;
    struct db *db;
    size_t len = 0;
    int n = latest ();

    /* Garbage. */
    tmp_path (path, sizeof (path), "garbage.db");
    f = fopen (path, "w");
    for (int i = 0; f && i < 100; i++)
        fputs (garbage, f);
    if (f)
        fclose (f);
    err.text[0] = '\0';
    db = db_open (path, &err);
    ok (db == NULL, "a file that is not SQLite is refused");
    ok (strstr (err.text, path) != NULL && strstr (err.text, "not a database") != NULL,
        "with a message naming it: '%s'", err.text);
    db_close (db);
    text = util_read_file (path, 1 << 20, &len);
    ok (text && len == 100 * strlen (garbage)
            && strncmp (text, garbage, strlen (garbage)) == 0,
        "and the file is left as it was");
    free (text);

    /* A schema from a newer program. */
    tmp_path (path, sizeof (path), "newer.db");
    if (sqlite3_open (path, &h) == SQLITE_OK) {
        char sql[64];
        snprintf (sql, sizeof (sql), "PRAGMA user_version = %d", n + 1);
        sqlite3_exec (h, "CREATE TABLE future (x)", NULL, NULL, NULL);
        sqlite3_exec (h, sql, NULL, NULL, NULL);
    }
    sqlite3_close (h);
    err.text[0] = '\0';
    errno = 0;
    db = db_open (path, &err);
    ok (db == NULL && errno == EPROTO, "a newer schema is refused with EPROTO");
    ok (strstr (err.text, "newer than this program") != NULL, "message: '%s'",
        err.text);
    db_close (db);
    h = NULL;
    ok (sqlite3_open (path, &h) == SQLITE_OK
            && query_int (h, "PRAGMA user_version") == n + 1
            && query_int (h, "SELECT count(*) FROM sqlite_master WHERE name = 'jobs'")
                   == 0,
        "and it is not migrated");
    sqlite3_close (h);

    /* A migration that fails half way is rolled back whole. */
    tmp_path (path, sizeof (path), "clash.db");
    if (sqlite3_open (path, &h) == SQLITE_OK)
        sqlite3_exec (h, "CREATE TABLE nodes (x)", NULL, NULL, NULL);
    sqlite3_close (h);
    err.text[0] = '\0';
    db = db_open (path, &err);
    ok (db == NULL && strncmp (err.text, "migration 1 failed", 18) == 0,
        "a failing migration is refused: '%s'", err.text);
    ok (strstr (err.text, "already exists") != NULL,
        "the message gives SQLite's reason, not the rollback's");
    db_close (db);
    h = NULL;
    ok (sqlite3_open (path, &h) == SQLITE_OK
            && query_int (h, "PRAGMA user_version") == 0
            && query_int (h, "SELECT count(*) FROM sqlite_master WHERE name IN"
                             " ('server', 'queues', 'jobs')")
                   == 0,
        "and nothing of it remains");
    sqlite3_close (h);

    tmp_path (path, sizeof (path), "no/such/dir/x.db");
    err.text[0] = '\0';
    db = db_open (path, &err);
    ok (db == NULL && strstr (err.text, "cannot open database") != NULL,
        "a path in a missing folder fails: '%s'", err.text);
}

/* Describe a database's schema as one normalized string: every table,
 * index and column, with types, constraints and default values.  A
 * table's own SQL text is left out: ALTER TABLE (later migrations) writes
 * it differently from a CREATE TABLE that has the columns already. */
static char *schema_describe (sqlite3 *h)
{
    static const char *sql =
        "SELECT m.type, m.name, m.tbl_name,"
        " CASE WHEN m.type = 'index' THEN m.sql END,"
        " p.cid, p.name, p.type, p.\"notnull\", p.dflt_value, p.pk"
        " FROM sqlite_master m LEFT JOIN pragma_table_info(m.name) p"
        " WHERE m.name NOT LIKE 'sqlite_%' ORDER BY m.type, m.name, p.cid";
    sqlite3_stmt *st;
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream (&out, &len);

    if (!f)
        return NULL;
    if (sqlite3_prepare_v2 (h, sql, -1, &st, NULL) != SQLITE_OK) {
        fprintf (f, "error: %s", sqlite3_errmsg (h));
        fclose (f);
        return out;
    }
    while (sqlite3_step (st) == SQLITE_ROW) {
        for (int i = 0; i < sqlite3_column_count (st); i++) {
            const unsigned char *s = sqlite3_column_text (st, i);
            int space = 0;
            /* Layout is not schema: collapse whitespace runs. */
            for (; s && *s; s++) {
                if (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
                    space = 1;
                else {
                    if (space)
                        fputc (' ', f);
                    fputc (*s, f);
                    space = 0;
                }
            }
            fprintf (f, "%s|", s ? "" : "NULL");
        }
        fputc ('\n', f);
    }
    sqlite3_finalize (st);
    fclose (f);
    return out;
}

static void test_schema_sql (struct db *db)
{
    const char *builddir = getenv ("HPCQ_BUILDDIR"); /* generated by make */
    char path[1024], *sql, *msg = NULL, *want, *have;
    sqlite3 *h = NULL;

    snprintf (path, sizeof (path), "%s/db/schema.sql", builddir ? builddir : ".");
    sql = util_read_file (path, 1 << 20, NULL);
    ok (sql != NULL, "read %s", path);
    if (!sql)
        return;
    ok (sqlite3_open (":memory:", &h) == SQLITE_OK
            && sqlite3_exec (h, sql, NULL, NULL, &msg) == SQLITE_OK,
        "schema.sql applies to an empty database (%s)", msg ? msg : "ok");
    sqlite3_free (msg);
    want = schema_describe (db_handle (db));
    have = schema_describe (h);
    ok (want && have && strlen (want) > 100 && strcmp (want, have) == 0,
        "schema.sql gives the same tables, columns and indexes as the migrations");
    if (want && have && strcmp (want, have) != 0)
        diag ("migrations:\n%s\nschema.sql:\n%s", want, have);
    ok (query_int (h, "SELECT count(*) FROM queues WHERE name = 'workq'") == 1,
        "schema.sql creates the default queue too");
    free (want);
    free (have);
    sqlite3_close (h);
    free (sql);
}

static void cleanup (void)
{
    const char *names[] = {
        "hpcq.db",      "hpcq.db-wal",  "hpcq.db-shm",    "garbage.db",
        "newer.db",     "newer.db-wal", "newer.db-shm",   "clash.db",
        "clash.db-wal", "clash.db-shm", "garbage.db-wal", "garbage.db-shm",
    };
    char path[512];

    for (size_t i = 0; i < sizeof (names) / sizeof (names[0]); i++) {
        tmp_path (path, sizeof (path), names[i]);
        (void)unlink (path);
    }
    if (rmdir (tmpdir) < 0)
        diag ("cannot remove %s", tmpdir);
}

int main (void)
{
    const char *t = getenv ("TMPDIR");
    struct hpcq_error err = { "" };
    char path[512];
    struct db *db;

    snprintf (tmpdir, sizeof (tmpdir), "%s/test_db.XXXXXX", t && *t ? t : "/tmp");
    if (!mkdtemp (tmpdir)) {
        diag ("mkdtemp failed");
        return 1;
    }
    tmp_path (path, sizeof (path), "hpcq.db");
    db = db_open (path, &err);
    ok (db != NULL, "db_open creates a fresh database (%s)", db ? "" : err.text);
    if (db) {
        test_schema (db);
        test_queue (db);
        test_jobs (db);
        test_queue_admin (db);
        test_foreach_stop (db);
        test_attempts_events (db);
        test_server (db);
        test_nodes (db);
        test_ckpt_tables (db);
        test_schema_sql (db);
        db_close (db);
        test_reopen (path);
    }
    test_bad_files ();
    test_gap ();
    cleanup ();
    return done_testing ();
}
