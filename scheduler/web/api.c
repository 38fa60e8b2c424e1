/* api.c - see api.h */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <microhttpd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "scheduler/web/api.h"
#include "scheduler/web/api_query.h"
#include "scheduler/job_attr.h"
#include "scheduler/rpc/server_rpc.h"
#include "scheduler/policy/job_state.h"
#include "scheduler/jobs.h"
#include "scheduler/node_admin.h"
#include "scheduler/nodes.h"
#include "scheduler/queue.h"
#include "scheduler/queue_attr.h"

/* Jobs per part of a streamed list: a few milliseconds of work. */
#define API_PART_JOBS 100
#define API_EVENTS_MAX 200

static const char *sql_events =
    "SELECT e.id, e.time, e.type, e.actor, e.detail, e.old_state, e.new_state,"
    " e.job_seq, j.uid, j.array_parent, j.array_index"
    " FROM events e LEFT JOIN jobs j ON j.seq = e.job_seq"
    " ORDER BY e.id DESC LIMIT ?1";
/* A user's own: among the newest events only, so the walk stays short. */
static const char *sql_events_of =
    "SELECT e.id, e.time, e.type, e.actor, e.detail, e.old_state, e.new_state,"
    " e.job_seq, j.uid, j.array_parent, j.array_index"
    " FROM events e JOIN jobs j ON j.seq = e.job_seq"
    " WHERE j.uid = ?2 AND e.id > (SELECT coalesce (max (id), 0) FROM events) - 20000"
    " ORDER BY e.id DESC LIMIT ?1";

static json_t *api_meta (struct http_req *r)
{
    struct server *srv = r->srv;

    return json_pack ("{s:{s:s s:s} s:{s:s s:s} s:{s:s s:s}}", "plugin", "type",
                      "api/v1", "name", "hpcq REST API v1", "client", "source",
                      r->who.addr, "user", r->who.user, "hpcq", "version",
                      PACKAGE_VERSION, "server", srv->name);
}

/* {"meta":..., "errors":[], "warnings":[], key: data} */
static int api_answer (struct http_req *r, const char *key, json_t *data)
{
    json_t *o =
        json_pack ("{s:o s:[] s:[]}", "meta", api_meta (r), "errors", "warnings");

    if (!o || !data || json_object_set_new (o, key, data) < 0) {
        json_decref (o);
        return http_reply_error (r, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
    }
    return http_reply_json (r, MHD_HTTP_OK, o);
}

/* ---- jobs --------------------------------------------------------------- */

/* What anyone may see of a job they may not see in full: the qstat table. */
static json_t *api_job_public (struct server *srv, const struct job *job)
{
    char state = job_state_display (job);

    return json_pack ("{s:s s:s s:s s:s% s:s s:s}", "id", job->id, "Job_Name",
                      job->spec.name ? job->spec.name : job->rec.name, "Job_Owner",
                      job->rec.owner, "job_state", &state, (size_t)1, "queue",
                      job->rec.queue, "server", srv->name);
}

static json_t *api_job (struct http_req *r, const struct job *job)
{
    enum http_view view = http_job_view (r, job->rec.uid);
    json_t *o;

    if (view == HTTP_VIEW_TABLE)
        return api_job_public (r->srv, job);
    if (!(o = job_attr_json (r->srv, job)))
        return NULL;
    json_object_set_new (o, "id", json_string (job->id));
    return o;
}

struct jobs_cursor {
    struct http_req r;  /* who asked (conn is not used later) */
    struct api_query q; /* which jobs */
    int64_t next;       /* the next top-level job: seq >= next */
    int sub;            /* the position of its subjob last sent, -1 none */
    struct job scratch; /* an untouched subjob as it is (jobs_subjob_view) */
    int phase;          /* 0 opening, 1 jobs, 2 closing, 3 done */
    int count;
    char *buf; /* a part made, not yet all sent */
    size_t len, off;
};

static int cursor_wants (const struct jobs_cursor *c, const struct job *job)
{
    char st = job_state_display (job);

    if (c->q.user[0] && strcmp (job->rec.owner, c->q.user) != 0)
        return 0;
    if (c->q.states[0])
        return strchr (c->q.states, st) != NULL
               || strchr (c->q.states, job->rec.state) != NULL;
    return c->q.history || job->rec.state != 'F';
}

/* The index of the first job with seq >= c->next (they are sorted). */
static int cursor_find (struct job **all, int n, int64_t seq)
{
    int lo = 0, hi = n;

    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (all[mid]->rec.seq < seq)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void cursor_put (struct jobs_cursor *c, FILE *f, const struct job *job)
{
    json_t *o;
    char *text;

    if ((c->q.limit && c->count >= c->q.limit) || !cursor_wants (c, job)
        || !(o = api_job (&c->r, job)))
        return;
    text = json_dumps (o, JSON_COMPACT);
    json_decref (o);
    if (text)
        fprintf (f, "%s%s", c->count++ ? "," : "", text);
    free (text);
}

/* Make the next part into c->buf.  -1 when there is nothing left. */
static int cursor_part (struct jobs_cursor *c)
{
    struct server *srv = c->r.srv;
    FILE *f;
    int n, i, made = 0;
    struct job **all;

    if (c->phase == 3)
        return -1;
    free (c->buf);
    c->buf = NULL;
    c->len = c->off = 0;
    if (!(f = open_memstream (&c->buf, &c->len)))
        return -1;
    if (c->phase == 0) {
        json_t *meta = api_meta (&c->r);
        char *m = meta ? json_dumps (meta, JSON_COMPACT) : NULL;
        fprintf (f, "{\"meta\":%s,\"errors\":[],\"warnings\":[],\"jobs\":[",
                 m ? m : "{}");
        free (m);
        json_decref (meta);
        c->phase = 1;
    }
    all = jobs_all (srv->jobs, &n);
    /* At most API_PART_JOBS jobs and subjobs looked at per part. */
    for (i = cursor_find (all, n, c->next); c->phase == 1 && made < API_PART_JOBS;) {
        struct job *job;
        if (i >= n) {
            c->phase = 2;
            break;
        }
        job = all[i];
        if (c->q.limit && c->count >= c->q.limit) {
            c->phase = 2; /* as many as asked for */
            break;
        }
        if (job->rec.seq != c->next)
            c->sub = -1; /* the array half sent has left memory: go on */
        if (c->sub < 0) {
            cursor_put (c, f, job);
            made++;
        }
        if (c->q.subjobs && job->arr) {
            /* A big array goes out a part of its subjobs at a time, each
             * as it is now: an untouched one is described, not split out
             * (array.h). */
            int size = array_size (job->arr);
            while (c->sub + 1 < size && made < API_PART_JOBS) {
                cursor_put (c, f,
                            jobs_subjob_view (srv->jobs, job, ++c->sub, &c->scratch,
                                              1));
                made++;
            }
            if (c->sub + 1 < size) {
                c->next = job->rec.seq; /* the rest of this array in the next part */
                continue;
            }
        }
        c->sub = -1;
        c->next = job->rec.seq + 1;
        i++;
    }
    if (c->phase == 2) {
        fputs ("]}", f);
        c->phase = 3;
    }
    if (fclose (f) != 0)
        return -1;
    return 0;
}

static ssize_t cursor_fill (void *arg, char *buf, size_t max)
{
    struct jobs_cursor *c = arg;
    size_t n;

    while (c->off >= c->len)
        if (cursor_part (c) < 0)
            return -1;
    n = c->len - c->off < max ? c->len - c->off : max;
    memcpy (buf, c->buf + c->off, n);
    c->off += n;
    return (ssize_t)n;
}

static void cursor_free (void *arg)
{
    struct jobs_cursor *c = arg;

    free (c->buf);
    free (c);
}

static int api_jobs (struct http_req *r)
{
    struct jobs_cursor *c = xzalloc (sizeof (*c));
    struct hpcq_error err;

    if (api_query_jobs (&c->q, http_arg (r, "user"), http_arg (r, "state"),
                        http_arg (r, "history"), http_arg (r, "subjobs"),
                        http_arg (r, "limit"), &err)
        < 0) {
        free (c);
        return http_reply_error (r, MHD_HTTP_BAD_REQUEST, "%s", err.text);
    }
    c->r = *r;
    c->sub = -1;
    return http_reply_stream (r, "application/json", cursor_fill, c, cursor_free);
}

static int api_job_one (struct http_req *r, const char *id)
{
    struct job scratch;
    int pos;
    struct job *job = jobs_find_pos (r->srv->jobs, id, &pos);
    /* Looking at an untouched subjob does not split it out. */
    const struct job *seen =
        job && pos >= 0 ? jobs_subjob_view (r->srv->jobs, job, pos, &scratch, 1) : job;

    if (!seen)
        return http_reply_error (r, MHD_HTTP_NOT_FOUND, "Unknown Job Id %.128s", id);
    return api_answer (r, "jobs", json_pack ("[o]", api_job (r, seen)));
}

/* ---- nodes, queues, server, events ------------------------------------- */

static int api_nodes (struct http_req *r)
{
    struct server *srv = r->srv;
    json_t *list = json_array (), *map = node_admin_jobs_map (srv);
    int n;
    struct node **all = nodes_all (srv->nodes, &n);

    for (int i = 0; list && map && i < n; i++)
        if (all[i]->ncpus > 0)
            json_array_append_new (list, node_admin_json (all[i], map));
    json_decref (map);
    return api_answer (r, "nodes", list);
}

static int api_queues (struct http_req *r)
{
    struct server *srv = r->srv;
    json_t *list = json_array ();
    int n;
    struct queue **all = queue_all (srv->queues, &n);

    for (int i = 0; list && i < n; i++) {
        json_t *o = queue_attrs_json (all[i]);
        if (!o)
            continue;
        json_object_set_new (o, "name", json_string (all[i]->rec.name));
        json_object_set_new (o, "state_count",
                             server_rpc_state_counts (srv, all[i]->rec.name));
        json_array_append_new (list, o);
    }
    return api_answer (r, "queues", list);
}

static int api_server (struct http_req *r)
{
    return api_answer (r, "server", server_rpc_json (r->srv));
}

static void api_event_id (struct server *srv, sqlite3_stmt *st, char *buf, size_t len)
{
    int64_t seq = sqlite3_column_int64 (st, 7);
    /* A subjob by its array and index: a lookup by key would split it out. */
    struct job *job =
        seq && seq < JOB_SUBKEY_BASE ? jobs_lookup (srv->jobs, seq) : NULL;

    if (job)
        snprintf (buf, len, "%s", job->id);
    else if (sqlite3_column_type (st, 9) != SQLITE_NULL)
        snprintf (buf, len, "%lld[%d].%s", (long long)sqlite3_column_int64 (st, 9),
                  sqlite3_column_int (st, 10), srv->name);
    else
        snprintf (buf, len, "%lld.%s", (long long)seq, srv->name);
}

static json_t *api_text (sqlite3_stmt *st, int i)
{
    const unsigned char *s = sqlite3_column_text (st, i);

    return s ? json_string ((const char *)s) : json_null ();
}

json_t *api_events_list (struct http_req *r, long limit)
{
    struct server *srv = r->srv;
    int restricted = !http_may_see (r, -1);
    sqlite3_stmt *st;
    json_t *list = json_array ();

    if (!list || (restricted && !r->who.known))
        return list; /* nobody's in particular */
    if (!(st = db_stmt (srv->db, restricted ? sql_events_of : sql_events))) {
        json_decref (list);
        return NULL;
    }
    sqlite3_bind_int (st, 1, (int)limit);
    if (restricted)
        sqlite3_bind_int64 (st, 2, r->who.uid);
    while (list && sqlite3_step (st) == SQLITE_ROW) {
        char id[160];
        api_event_id (srv, st, id, sizeof (id));
        json_array_append_new (
            list, json_pack ("{s:I s:I s:s s:o s:o s:o s:o s:o}", "id",
                             (json_int_t)sqlite3_column_int64 (st, 0), "time",
                             (json_int_t)sqlite3_column_int64 (st, 1), "job", id,
                             "type", api_text (st, 2), "actor", api_text (st, 3),
                             "detail", api_text (st, 4), "old_state", api_text (st, 5),
                             "new_state", api_text (st, 6)));
    }
    sqlite3_reset (st);
    return list;
}

static int api_events (struct http_req *r)
{
    struct hpcq_error err;
    long limit;
    json_t *list;

    if (api_query_limit (http_arg (r, "limit"), 20, API_EVENTS_MAX, &limit, &err) < 0)
        return http_reply_error (r, MHD_HTTP_BAD_REQUEST, "%s", err.text);
    if (!(list = api_events_list (r, limit)))
        return http_reply_error (r, MHD_HTTP_INTERNAL_SERVER_ERROR, "database: %s",
                                 strerror (errno));
    return api_answer (r, "events", list);
}

/* ---- routing ------------------------------------------------------------ */

static int api_v1 (struct http_req *r, void *arg)
{
    const char *p = r->rest;

    /* Right after a restart the jobs' requests may still be parsed
     * (jobs.h): the answers read them, so they wait, as the scheduler's
     * own requests do (server.c). */
    if (jobs_loading (r->srv->jobs) && jobs_load_wait (r->srv->jobs) < 0)
        return http_reply_error (r, MHD_HTTP_SERVICE_UNAVAILABLE,
                                 "cannot load jobs from the database");

    if (strcmp (p, "jobs") == 0)
        return api_jobs (r);
    if (strncmp (p, "jobs/", 5) == 0 && p[5] && !strchr (p + 5, '/'))
        return api_job_one (r, p + 5);
    if (strcmp (p, "nodes") == 0)
        return api_nodes (r);
    if (strcmp (p, "queues") == 0)
        return api_queues (r);
    if (strcmp (p, "server") == 0)
        return api_server (r);
    if (strcmp (p, "events") == 0)
        return api_events (r);
    return http_reply_error (r, MHD_HTTP_NOT_FOUND, "no such path: %.200s", r->path);
}

static int api_versions (struct http_req *r, void *arg)
{
    return api_answer (r, "versions", json_pack ("[s]", "v1"));
}

int api_register (struct server *srv, struct http *h)
{
    if (!h)
        return 0;
    return http_route (h, "/api/v1/", 1, api_v1, NULL) < 0
                   || http_route (h, "/api", 0, api_versions, NULL) < 0
                   || http_route (h, "/api/", 0, api_versions, NULL) < 0
               ? -1
               : 0;
}
