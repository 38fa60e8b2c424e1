/* job_step.c - see job_step.h */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "db/db.h"
#include "scheduler/jobs.h"
#include "scheduler/rpc/job_step.h"
#include "scheduler/rpc/job_trace.h"
#include "scheduler/server_attr.h"

#define STEP_NAME_MAX 256
#define STEP_NODELIST_MAX 65536

/* The next number in the same statement: one transaction per loop turn,
 * so two begins of one turn see each other's rows. */
static const char *sql_begin =
    "INSERT INTO steps (job_seq, attempt, step, name, ntasks, nnodes, nodelist,"
    " start_time) SELECT ?1, ?2, coalesce (max (step) + 1, 0), ?3, ?4, ?5, ?6, ?7"
    " FROM steps WHERE job_seq = ?1 AND attempt = ?2";
static const char *sql_last =
    "SELECT max (step) FROM steps WHERE job_seq = ?1 AND attempt = ?2";
static const char *sql_end =
    "UPDATE steps SET end_time = ?4, exit_code = ?5"
    " WHERE job_seq = ?1 AND attempt = ?2 AND step = ?3 AND end_time IS NULL";
static const char *sql_of_job =
    "SELECT step, attempt, name, ntasks, nnodes, nodelist, start_time, end_time,"
    " exit_code FROM steps WHERE job_seq = ?1 ORDER BY attempt, step";
static const char *sql_running =
    "SELECT step, attempt, name, ntasks, nnodes, nodelist, start_time, end_time,"
    " exit_code FROM steps WHERE job_seq = ?1 AND attempt = ?2 AND end_time IS NULL"
    " ORDER BY step";

/* The job id names, if the caller may act on it and it runs (running:
 * 1), or has run (0: a step may end after its job, as mpirun's orted
 * step does when the script exits at once).  NULL with a reply sent. */
static const struct job *step_job (struct server *srv, struct conn *c,
                                   const struct wire_msg *msg, const char *id,
                                   struct job *scratch, int running)
{
    int pos;
    struct job *top = jobs_find_pos (srv->jobs, id, &pos);
    const struct job *job =
        top && pos >= 0 ? jobs_subjob_view (srv->jobs, top, pos, scratch, 0) : top;

    if (!job) {
        server_reply_error (c, msg, ENOENT, "Unknown Job Id %s", id);
        return NULL;
    }
    if (!server_may_act (srv, conn_peer_uid (c), job->rec.uid)) {
        server_reply_error (c, msg, EPERM, "Unauthorized Request  %s", job->id);
        return NULL;
    }
    if (running ? job->rec.state != 'R' : job->rec.run_count < 1) {
        server_reply_error (c, msg, EINVAL, "job %s is not running", job->id);
        return NULL;
    }
    return job;
}

static void step_begin (struct server *srv, struct conn *c, struct wire_msg *msg)
{
    const char *id, *name = "", *nodelist = "";
    int ntasks = 1, nnodes = 1, step = -1;
    struct job scratch;
    const struct job *job;
    sqlite3_stmt *st;

    if (json_unpack (msg->body, "{s:s s?s s?i s?i s?s}", "id", &id, "name", &name,
                     "ntasks", &ntasks, "nnodes", &nnodes, "nodelist", &nodelist)
        < 0) {
        server_reply_error (c, msg, EPROTO, "job.step.begin: malformed request");
        return;
    }
    /* What a user may store: a name as long as a job's, a host list a
     * node list could need. */
    if (strlen (name) > STEP_NAME_MAX || strlen (nodelist) > STEP_NODELIST_MAX
        || ntasks < 1 || nnodes < 1) {
        server_reply_error (c, msg, EINVAL,
                            "job.step.begin: name, node list or counts "
                            "out of range");
        return;
    }
    if (!(job = step_job (srv, c, msg, id, &scratch, 1)))
        return;
    if (db_txn_ensure (srv->db) < 0 || !(st = db_stmt (srv->db, sql_begin))) {
        server_reply_error (c, msg, EIO, "job.step.begin: %s", strerror (errno));
        return;
    }
    sqlite3_bind_int64 (st, 1, job->rec.seq);
    sqlite3_bind_int (st, 2, job->rec.run_count);
    sqlite3_bind_text (st, 3, name, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int (st, 4, ntasks);
    sqlite3_bind_int (st, 5, nnodes);
    sqlite3_bind_text (st, 6, nodelist, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64 (st, 7, (int64_t)time (NULL));
    if (db_exec_stmt (srv->db, st) < 0 || !(st = db_stmt (srv->db, sql_last))) {
        server_reply_error (c, msg, EIO, "job.step.begin: %s", strerror (errno));
        return;
    }
    sqlite3_bind_int64 (st, 1, job->rec.seq);
    sqlite3_bind_int (st, 2, job->rec.run_count);
    if (sqlite3_step (st) == SQLITE_ROW)
        step = sqlite3_column_int (st, 0);
    sqlite3_reset (st);
    server_reply_after_commit (srv, c, msg, json_pack ("{s:i}", "step", step));
}

static void step_end (struct server *srv, struct conn *c, struct wire_msg *msg)
{
    const char *id;
    int step, code;
    struct job scratch;
    const struct job *job;
    sqlite3_stmt *st;

    if (json_unpack (msg->body, "{s:s s:i s:i}", "id", &id, "step", &step, "exit",
                     &code)
        < 0) {
        server_reply_error (c, msg, EPROTO, "job.step.end: malformed request");
        return;
    }
    if (!(job = step_job (srv, c, msg, id, &scratch, 0)))
        return;
    if (db_txn_ensure (srv->db) < 0 || !(st = db_stmt (srv->db, sql_end))) {
        server_reply_error (c, msg, EIO, "job.step.end: %s", strerror (errno));
        return;
    }
    sqlite3_bind_int64 (st, 1, job->rec.seq);
    sqlite3_bind_int (st, 2, job->rec.run_count);
    sqlite3_bind_int (st, 3, step);
    sqlite3_bind_int64 (st, 4, (int64_t)time (NULL));
    sqlite3_bind_int (st, 5, code);
    if (db_exec_stmt (srv->db, st) < 0) {
        server_reply_error (c, msg, EIO, "job.step.end: %s", strerror (errno));
        return;
    }
    server_reply_after_commit (srv, c, msg, json_object ());
}

static json_t *col_int (sqlite3_stmt *st, int i)
{
    return sqlite3_column_type (st, i) == SQLITE_NULL
               ? json_null ()
               : json_integer (sqlite3_column_int64 (st, i));
}

/* The rows of st (bound) as steps of jobid, onto out. */
static void steps_rows (sqlite3_stmt *st, const char *jobid, json_t *out)
{
    while (sqlite3_step (st) == SQLITE_ROW) {
        const unsigned char *name = sqlite3_column_text (st, 2),
                            *nodes = sqlite3_column_text (st, 5);
        json_array_append_new (
            out,
            json_pack ("{s:s s:i s:i s:s s:i s:i s:s s:I s:o s:o}", "jobid", jobid,
                       "step", sqlite3_column_int (st, 0), "attempt",
                       sqlite3_column_int (st, 1), "name",
                       name ? (const char *)name : "", "ntasks",
                       sqlite3_column_int (st, 3), "nnodes", sqlite3_column_int (st, 4),
                       "nodelist", nodes ? (const char *)nodes : "", "start",
                       (json_int_t)sqlite3_column_int64 (st, 6), "end", col_int (st, 7),
                       "exit", col_int (st, 8)));
    }
    sqlite3_reset (st);
}

static int may_see (struct server *srv, struct conn *c, int64_t uid)
{
    return server_may_act (srv, conn_peer_uid (c), uid)
           || server_attr_query_other_jobs (srv);
}

static void steps_list (struct server *srv, struct conn *c, struct wire_msg *msg)
{
    json_t *ids = NULL, *v, *out = json_array ();
    size_t i;
    sqlite3_stmt *st;
    struct job *job;

    if (json_unpack (msg->body, "{s?o}", "ids", &ids) < 0
        || (ids && !json_is_array (ids))) {
        json_decref (out);
        server_reply_error (c, msg, EPROTO, "job.steps: malformed request");
        return;
    }
    if (!ids) {
        LIST_FOREACH (job, jobs_running (srv->jobs), r_link)
        {
            if (!may_see (srv, c, job->rec.uid)
                || !(st = db_stmt (srv->db, sql_running)))
                continue;
            sqlite3_bind_int64 (st, 1, job->rec.seq);
            sqlite3_bind_int (st, 2, job->rec.run_count);
            steps_rows (st, job->id, out);
        }
    }
    json_array_foreach (ids, i, v)
    {
        int64_t seq, uid;
        char jobid[192];
        if (!json_is_string (v)
            || job_trace_find (srv, json_string_value (v), &seq, &uid, jobid,
                               sizeof (jobid))
                   < 0
            || !may_see (srv, c, uid) || !(st = db_stmt (srv->db, sql_of_job)))
            continue;
        sqlite3_bind_int64 (st, 1, seq);
        steps_rows (st, jobid, out);
    }
    (void)conn_reply (c, msg, 0, NULL, json_pack ("{s:o}", "steps", out));
}

static const struct handler job_step_handlers[] = {
    { "job.step.begin", step_begin, ROLE_ANY },
    { "job.step.end", step_end, ROLE_ANY },
    { "job.steps", steps_list, ROLE_ANY },
    { NULL, NULL, 0 },
};

int job_step_register (struct server *srv)
{
    return server_register (srv, job_step_handlers);
}
