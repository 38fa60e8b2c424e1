/* job_trace.c - see job_trace.h */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "scheduler/accounting.h"
#include "scheduler/rpc/job_trace.h"
#include "scheduler/server_attr.h"
#include "scheduler/jobs.h"

static const char *sql_job =
    "SELECT seq, uid FROM jobs WHERE seq = ?1 AND array_parent IS NULL";
static const char *sql_subjob =
    "SELECT seq, uid FROM jobs WHERE array_parent = ?1 AND array_index = ?2";
static const char *sql_events =
    "SELECT time, type, actor, detail, old_state, new_state FROM events"
    " WHERE job_seq = ?1 AND time >= ?2 ORDER BY id";

int job_trace_find (struct server *srv, const char *id, int64_t *seq, int64_t *uid,
                    char *idbuf, size_t len)
{
    struct job scratch;
    int pos;
    struct job *top = jobs_find_pos (srv->jobs, id, &pos);
    /* An untouched subjob is looked at, not split out (array.h). */
    const struct job *job =
        top && pos >= 0 ? jobs_subjob_view (srv->jobs, top, pos, &scratch, 0) : top;
    const char *br = strchr (id, '['), *dot;
    int64_t num = jobs_parse_id (id);
    sqlite3_stmt *st;
    long index = -1;
    int found = 0;

    if (job) {
        *seq = job->rec.seq;
        *uid = job->rec.uid;
        snprintf (idbuf, len, "%s", job->id);
        return 0;
    }
    /* Gone from memory: the database keeps it (this server's ids only). */
    dot = strchr (br ? strchr (br, ']') ? strchr (br, ']') : br : id, '.');
    if (num < 0 || (dot && strncmp (dot + 1, srv->name, strlen (srv->name)) != 0))
        return -1;
    if (br && br[1] != ']') {
        char *end;
        index = strtol (br + 1, &end, 10);
        if (end == br + 1 || *end != ']')
            return -1;
    }
    if (!(st = db_stmt (srv->db, index >= 0 ? sql_subjob : sql_job)))
        return -1;
    sqlite3_bind_int64 (st, 1, num);
    if (index >= 0)
        sqlite3_bind_int64 (st, 2, index);
    if (sqlite3_step (st) == SQLITE_ROW) {
        *seq = sqlite3_column_int64 (st, 0);
        *uid = sqlite3_column_int64 (st, 1);
        found = 1;
    }
    sqlite3_reset (st);
    if (index >= 0)
        snprintf (idbuf, len, "%lld[%ld].%s", (long long)num, index, srv->name);
    else
        snprintf (idbuf, len, "%lld%s.%s", (long long)num, br ? "[]" : "", srv->name);
    return found ? 0 : -1;
}

static json_t *col_text (sqlite3_stmt *st, int i)
{
    const unsigned char *s = sqlite3_column_text (st, i);

    return s ? json_string ((const char *)s) : json_null ();
}

static void job_trace (struct server *srv, struct conn *c, struct wire_msg *msg)
{
    const char *id;
    json_int_t since = 0;
    int64_t seq, uid;
    char jobid[192];
    sqlite3_stmt *st;
    json_t *events;

    if (json_unpack (msg->body, "{s:s s?I}", "id", &id, "since", &since) < 0) {
        server_reply_error (c, msg, EPROTO, "job.trace: malformed request");
        return;
    }
    if (job_trace_find (srv, id, &seq, &uid, jobid, sizeof (jobid)) < 0) {
        server_reply_error (c, msg, ENOENT, "Unknown Job Id %s", id);
        return;
    }
    if (!server_may_act (srv, conn_peer_uid (c), uid)
        && !server_attr_query_other_jobs (srv)) {
        server_reply_error (c, msg, EPERM, "Unauthorized Request  %s", jobid);
        return;
    }
    if (!(st = db_stmt (srv->db, sql_events)) || !(events = json_array ())) {
        server_reply_error (c, msg, EIO, "job.trace: cannot read the events");
        return;
    }
    sqlite3_bind_int64 (st, 1, seq);
    sqlite3_bind_int64 (st, 2, since);
    while (sqlite3_step (st) == SQLITE_ROW)
        json_array_append_new (events,
                               json_pack ("{s:I s:o s:o s:o s:o s:o}", "time",
                                          (json_int_t)sqlite3_column_int64 (st, 0),
                                          "type", col_text (st, 1), "actor",
                                          col_text (st, 2), "detail", col_text (st, 3),
                                          "old_state", col_text (st, 4), "new_state",
                                          col_text (st, 5)));
    sqlite3_reset (st);
    (void)conn_reply (c, msg, 0, NULL,
                      json_pack ("{s:s s:o s:s s:s}", "jobid", jobid, "events", events,
                                 "accounting_dir", accounting_dir (srv->accounting),
                                 "log_file", config_get (srv->cfg, "log_file", "")));
}

static const struct handler job_trace_handlers[] = {
    { "job.trace", job_trace, ROLE_ANY },
    { NULL, NULL, 0 },
};

int job_trace_register (struct server *srv)
{
    return server_register (srv, job_trace_handlers);
}
