/* db_job.c - see db_job.h */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/gpu.h"
#include "common/strpool.h"
#include "db/db.h"
#include "db/db_job.h"

static const char *sql_insert =
    "INSERT INTO jobs (seq, uuid, owner, uid, name, queue, state, hold_types,"
    " priority, spec, ctime, mtime, stime, etime, exit_status, comment,"
    " run_count, exec_host, exec_vnode, session_id, resources_used, alloc,"
    " array_parent, array_index)"
    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14,"
    " ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24)";

/* qdel -x: a finished job (an array with its subjobs) leaves the history. */
static const char *sql_purge =
    "UPDATE jobs SET purged = 1 WHERE seq = ?1 OR array_parent = ?1";

static const char *sql_update =
    "UPDATE jobs SET state = ?7, hold_types = ?8, priority = ?9, mtime = ?12,"
    " stime = ?13, etime = ?14, exit_status = ?15, comment = ?16,"
    " run_count = ?17, exec_host = ?18, exec_vnode = ?19, session_id = ?20,"
    " resources_used = ?21, queue = ?6, alloc = ?22, name = ?5,"
    " spec = coalesce (?10, spec)"
    " WHERE seq = ?1";

/* Every job but those that finished before ?1 (0: every job); an array's
 * subjobs go with their array. */
static const char *sql_select =
    "SELECT seq, uuid, owner, uid, name, queue, state, hold_types, priority,"
    " spec, ctime, mtime, stime, etime, exit_status, comment, run_count,"
    " exec_host, exec_vnode, session_id, resources_used, alloc, array_parent,"
    " array_index FROM jobs j"
    " WHERE j.purged = 0 AND (?1 = 0 OR j.state != 'F' OR coalesce (j.etime, ?1) >= ?1"
    " OR (j.array_parent IS NOT NULL AND EXISTS (SELECT 1 FROM jobs p"
    "     WHERE p.seq = j.array_parent"
    "     AND (p.state != 'F' OR coalesce (p.etime, ?1) >= ?1))))"
    " ORDER BY seq";

static const char *sql_attempt_start =
    "INSERT INTO attempts (job_seq, attempt, node, exec_host, start_time)"
    " VALUES (?1, ?2, ?3, ?4, ?5)";

static const char *sql_attempt_end =
    "UPDATE attempts SET end_time = ?3, exit_status = ?4, reason = ?5,"
    " cput = ?6, walltime = ?7, maxrss = ?8"
    " WHERE job_seq = ?1 AND attempt = ?2";

static const char *sql_attempt_gpu =
    "UPDATE attempts SET gpu_seconds = ?3, gpu_util = ?4, gpu_mem_peak = ?5,"
    " gpu_energy_j = ?6, gpu_simulated = ?7 WHERE job_seq = ?1 AND attempt = ?2";

static const char *sql_event_add =
    "INSERT INTO events (job_seq, time, type, actor, detail, old_state, new_state)"
    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)";

/* IS, not =: server events (seq 0) are stored with a NULL job. */
static const char *sql_seq_by_uuid = "SELECT seq FROM jobs WHERE uuid = ?1";
static const char *sql_event_count =
    "SELECT count(*) FROM events WHERE job_seq IS ?1 AND type = ?2";

void db_job_release (struct db_job *j)
{
    if (!j)
        return;
    free (j->spec);
    free (j->comment);
    free (j->exec_host);
    free (j->exec_vnode);
    free (j->resources_used);
    free (j->alloc);
    strpool_put (j->owner);
    strpool_put (j->name);
    strpool_put (j->queue);
    j->spec = j->comment = j->exec_host = j->exec_vnode = NULL;
    j->resources_used = j->alloc = NULL;
    j->owner = j->name = j->queue = NULL;
}

static void bind_opt_int (sqlite3_stmt *st, int i, int64_t v)
{
    if (v)
        sqlite3_bind_int64 (st, i, v);
    else
        sqlite3_bind_null (st, i);
}

static void bind_opt_text (sqlite3_stmt *st, int i, const char *s)
{
    if (s)
        sqlite3_bind_text (st, i, s, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null (st, i);
}

/* Both insert and update use the same parameter numbers. */
static void db_job_bind (sqlite3_stmt *st, const struct db_job *j)
{
    char state[2] = { j->state, '\0' };

    sqlite3_bind_int64 (st, 1, j->seq);
    sqlite3_bind_text (st, 2, j->uuid, -1, SQLITE_STATIC);
    sqlite3_bind_text (st, 3, j->owner, -1, SQLITE_STATIC);
    sqlite3_bind_int64 (st, 4, j->uid);
    sqlite3_bind_text (st, 5, j->name, -1, SQLITE_STATIC);
    sqlite3_bind_text (st, 6, j->queue, -1, SQLITE_STATIC);
    sqlite3_bind_text (st, 7, state, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text (st, 8, j->hold_types, -1, SQLITE_STATIC);
    sqlite3_bind_int (st, 9, j->priority);
    bind_opt_text (st, 10, j->spec);
    sqlite3_bind_int64 (st, 11, j->ctime);
    sqlite3_bind_int64 (st, 12, j->mtime);
    bind_opt_int (st, 13, j->stime);
    bind_opt_int (st, 14, j->etime);
    if (j->has_exit)
        sqlite3_bind_int (st, 15, j->exit_status);
    else
        sqlite3_bind_null (st, 15);
    bind_opt_text (st, 16, j->comment);
    sqlite3_bind_int (st, 17, j->run_count);
    bind_opt_text (st, 18, j->exec_host);
    bind_opt_text (st, 19, j->exec_vnode);
    bind_opt_int (st, 20, j->session_id);
    bind_opt_text (st, 21, j->resources_used);
    bind_opt_text (st, 22, j->alloc);
    if (j->array_parent) {
        sqlite3_bind_int64 (st, 23, j->array_parent);
        sqlite3_bind_int (st, 24, j->array_index);
    }
}

int db_job_insert (struct db *db, const struct db_job *j)
{
    sqlite3_stmt *st;

    if (db_txn_ensure (db) < 0 || !(st = db_stmt (db, sql_insert)))
        return -1;
    db_job_bind (st, j);
    return db_exec_stmt (db, st);
}

int db_job_update (struct db *db, const struct db_job *j)
{
    sqlite3_stmt *st;

    if (db_txn_ensure (db) < 0 || !(st = db_stmt (db, sql_update)))
        return -1;
    db_job_bind (st, j);
    if (db_exec_stmt (db, st) < 0)
        return -1;
    /* An array's subjob has no row until something happens to it (its
     * request is its array's: the stored text is empty, unless qalter
     * gave it one of its own). */
    if (sqlite3_changes (db_handle (db)) == 0 && j->array_parent) {
        struct db_job row = *j;
        if (!row.spec)
            row.spec = (char *)"";
        return db_job_insert (db, &row);
    }
    return 0;
}

int db_job_purge (struct db *db, int64_t seq)
{
    sqlite3_stmt *st;

    if (db_txn_ensure (db) < 0 || !(st = db_stmt (db, sql_purge)))
        return -1;
    sqlite3_bind_int64 (st, 1, seq);
    return db_exec_stmt (db, st);
}

static char *col_dup (sqlite3_stmt *st, int i)
{
    const unsigned char *s = sqlite3_column_text (st, i);
    return s ? strdup ((const char *)s) : NULL;
}

static const char *col_pool (sqlite3_stmt *st, int i)
{
    const unsigned char *s = sqlite3_column_text (st, i);
    return strpool_get (s ? (const char *)s : "");
}

static void col_copy (sqlite3_stmt *st, int i, char *buf, size_t len)
{
    const unsigned char *s = sqlite3_column_text (st, i);
    snprintf (buf, len, "%s", s ? (const char *)s : "");
}

static void db_job_read_row (sqlite3_stmt *st, struct db_job *j)
{
    memset (j, 0, sizeof (*j));
    j->seq = sqlite3_column_int64 (st, 0);
    col_copy (st, 1, j->uuid, sizeof (j->uuid));
    j->owner = col_pool (st, 2);
    j->uid = sqlite3_column_int64 (st, 3);
    j->name = col_pool (st, 4);
    j->queue = col_pool (st, 5);
    j->state = (char)sqlite3_column_text (st, 6)[0];
    col_copy (st, 7, j->hold_types, sizeof (j->hold_types));
    j->priority = sqlite3_column_int (st, 8);
    j->spec = col_dup (st, 9);
    j->ctime = sqlite3_column_int64 (st, 10);
    j->mtime = sqlite3_column_int64 (st, 11);
    j->stime = sqlite3_column_int64 (st, 12);
    j->etime = sqlite3_column_int64 (st, 13);
    j->has_exit = sqlite3_column_type (st, 14) != SQLITE_NULL;
    j->exit_status = sqlite3_column_int (st, 14);
    j->comment = col_dup (st, 15);
    j->run_count = sqlite3_column_int (st, 16);
    j->exec_host = col_dup (st, 17);
    j->exec_vnode = col_dup (st, 18);
    j->session_id = sqlite3_column_int64 (st, 19);
    j->resources_used = col_dup (st, 20);
    j->alloc = col_dup (st, 21);
    j->array_parent = sqlite3_column_int64 (st, 22);
    j->array_index = sqlite3_column_int (st, 23);
}

int db_job_foreach (struct db *db, db_job_f cb, void *arg)
{
    return db_job_foreach_since (db, 0, cb, arg);
}

int db_job_foreach_since (struct db *db, int64_t finished_before, db_job_f cb,
                          void *arg)
{
    sqlite3_stmt *st = db_stmt (db, sql_select);
    int rc;

    if (!st)
        return -1;
    sqlite3_bind_int64 (st, 1, finished_before);
    while ((rc = sqlite3_step (st)) == SQLITE_ROW) {
        struct db_job j;
        db_job_read_row (st, &j);
        if (cb (&j, arg) < 0) {
            sqlite3_reset (st);
            return -1;
        }
    }
    sqlite3_reset (st);
    if (rc != SQLITE_DONE)
        return db_fail (db, "read jobs");
    return 0;
}

int db_attempt_start (struct db *db, int64_t seq, int attempt, const char *node,
                      const char *exec_host, int64_t start)
{
    sqlite3_stmt *st;

    if (db_txn_ensure (db) < 0 || !(st = db_stmt (db, sql_attempt_start)))
        return -1;
    sqlite3_bind_int64 (st, 1, seq);
    sqlite3_bind_int (st, 2, attempt);
    sqlite3_bind_text (st, 3, node, -1, SQLITE_STATIC);
    bind_opt_text (st, 4, exec_host);
    sqlite3_bind_int64 (st, 5, start);
    return db_exec_stmt (db, st);
}

int db_attempt_gpu (struct db *db, int64_t seq, int attempt, const struct gpu_usage *u)
{
    sqlite3_stmt *st;

    if (db_txn_ensure (db) < 0 || !(st = db_stmt (db, sql_attempt_gpu)))
        return -1;
    sqlite3_bind_int64 (st, 1, seq);
    sqlite3_bind_int (st, 2, attempt);
    sqlite3_bind_int64 (st, 3, u->seconds);
    sqlite3_bind_double (st, 4, u->util_mean);
    sqlite3_bind_int64 (st, 5, u->mem_peak);
    sqlite3_bind_double (st, 6, u->energy_j);
    sqlite3_bind_int (st, 7, u->simulated);
    return db_exec_stmt (db, st);
}

int db_attempt_end (struct db *db, int64_t seq, int attempt, int64_t end,
                    int exit_status, const char *reason, int64_t cput, int64_t walltime,
                    int64_t maxrss)
{
    sqlite3_stmt *st;

    if (db_txn_ensure (db) < 0 || !(st = db_stmt (db, sql_attempt_end)))
        return -1;
    sqlite3_bind_int64 (st, 1, seq);
    sqlite3_bind_int (st, 2, attempt);
    sqlite3_bind_int64 (st, 3, end);
    sqlite3_bind_int (st, 4, exit_status);
    bind_opt_text (st, 5, reason);
    sqlite3_bind_int64 (st, 6, cput);
    sqlite3_bind_int64 (st, 7, walltime);
    sqlite3_bind_int64 (st, 8, maxrss);
    return db_exec_stmt (db, st);
}

/* A state letter as text, or NULL for none. */
static void bind_opt_state (sqlite3_stmt *st, int i, char state)
{
    if (state)
        sqlite3_bind_text (st, i, &state, 1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null (st, i);
}

int db_event_add_state (struct db *db, int64_t seq, int64_t time, const char *type,
                        const char *actor, const char *detail, char old_state,
                        char new_state)
{
    sqlite3_stmt *st;

    if (db_txn_ensure (db) < 0 || !(st = db_stmt (db, sql_event_add)))
        return -1;
    bind_opt_int (st, 1, seq);
    sqlite3_bind_int64 (st, 2, time);
    sqlite3_bind_text (st, 3, type, -1, SQLITE_STATIC);
    sqlite3_bind_text (st, 4, actor, -1, SQLITE_STATIC);
    bind_opt_text (st, 5, detail);
    bind_opt_state (st, 6, old_state);
    bind_opt_state (st, 7, new_state);
    return db_exec_stmt (db, st);
}

int db_event_add (struct db *db, int64_t seq, int64_t time, const char *type,
                  const char *actor, const char *detail)
{
    return db_event_add_state (db, seq, time, type, actor, detail, 0, 0);
}

int db_event_count (struct db *db, int64_t seq, const char *type)
{
    sqlite3_stmt *st = db_stmt (db, sql_event_count);
    int n = -1;

    if (!st)
        return -1;
    bind_opt_int (st, 1, seq);
    sqlite3_bind_text (st, 2, type, -1, SQLITE_STATIC);
    if (sqlite3_step (st) == SQLITE_ROW)
        n = sqlite3_column_int (st, 0);
    sqlite3_reset (st);
    return n;
}

int64_t db_job_seq_by_uuid (struct db *db, const char *uuid)
{
    sqlite3_stmt *st = db_stmt (db, sql_seq_by_uuid);
    int64_t seq = 0;
    int rc;

    if (!st)
        return -1;
    sqlite3_bind_text (st, 1, uuid, -1, SQLITE_STATIC);
    if ((rc = sqlite3_step (st)) == SQLITE_ROW)
        seq = sqlite3_column_int64 (st, 0);
    sqlite3_reset (st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return db_fail (db, "find a job by uuid");
    return seq;
}
