/* job_stat.c - see job_stat.h
 *
 * Streaming: an answer of many jobs goes out in parts ("more": true on
 * all but the last), and only as the client reads.  A cursor walks the
 * jobs by sequence number, never by pointer, because jobs may be added,
 * finish or leave memory between two parts; it makes one part each time
 * the socket has room (conn_set_drain), so every other client and every
 * worker's heartbeat is served between parts.  The client's next request
 * waits in its socket until the last part is out (conn_pause_input): a
 * client pipelining requests it never reads holds one part of memory,
 * and is dropped once idle for client_idle_timeout.
 *
 * Privacy (query_other_jobs, PBS Pro's server attribute, default False
 * here): callers see their own jobs in full and others' jobs as the qstat
 * table shows them (job_attr_public); operators and managers see every
 * job in full.  PBS Pro with False hides others' jobs altogether; hpcq
 * keeps the table public, as Slurm does without PrivateData=jobs, so that
 * users can see how busy the queue is.
 *
 * Arrays are one record (array.h): an untouched subjob, listed by -t or
 * named by its id, is described in the cursor's scratch job
 * (jobs_subjob_view) and never split out, so listing a million-task array
 * makes no job of any of its subjobs.  A view carries its array's owner,
 * so the privacy filter treats it as its array.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/util.h"
#include "scheduler/array.h"
#include "scheduler/job_attr.h"
#include "scheduler/rpc/job_stat.h"
#include "scheduler/jobs.h"
#include "scheduler/server_attr.h"

/* One part of an answer: at most this many jobs, and about this many
 * bytes (so that a part is a few milliseconds of work and far under
 * WIRE_MAX_MSG; a part that still does not fit is made again, halved). */
#define STAT_PART_JOBS 64
#define STAT_PART_ROWS 1000
#define STAT_PART_BYTES (32 * 1024)
/* The next part is made once no more than this is still queued. */
#define STAT_LOW_WATER (16 * 1024)

/* Where the walk stands: the top-level job (all jobs: the first with a
 * sequence number >= seq; ids: the id at index idx), and with -t the
 * next of its subjobs (sub; -1: the job itself comes first). */
struct stat_pos {
    int64_t seq;
    int idx;
    int sub;
};

/* A job named by id: a top-level job (pos -1), or the subjob of the array
 * seq at position pos, split out or not. */
struct stat_id {
    int64_t seq;
    int pos;
};

struct stat_cursor {
    struct server *srv;
    struct conn *c;
    struct wire_msg req; /* type and id for the replies */
    int table, history, subjobs;
    int see_all; /* operator, or query_other_jobs */
    uid_t uid;
    char *user;          /* -u filter, or NULL */
    struct stat_id *ids; /* the jobs named, in the order given */
    int nids;
    int by_ids;
    struct stat_pos pos;
    json_t *unknown, *finished;
    struct job scratch; /* the untouched subjob last described */
};

static void cursor_free (void *arg)
{
    struct stat_cursor *cur = arg;

    if (!cur)
        return;
    free (cur->user);
    free (cur->ids);
    json_decref (cur->unknown);
    json_decref (cur->finished);
    free (cur);
}

/* Does the walk over all jobs show this one? */
static int wanted (const struct stat_cursor *cur, const struct job *job)
{
    if (job->rec.state == 'F' && !cur->history)
        return 0;
    return !cur->user || strcmp (job->rec.owner, cur->user) == 0;
}

/* The first job in all[0..n) with a sequence number >= seq. */
static int first_from (struct job **all, int n, int64_t seq)
{
    int lo = 0, hi = n;

    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (all[mid]->rec.seq < seq)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The top-level job at p (moving p past jobs that are gone or not
 * wanted), or NULL when the walk is over. */
static struct job *cursor_top (struct stat_cursor *cur, struct stat_pos *p)
{
    struct job **all;
    int n, i;

    if (cur->by_ids) {
        for (; p->idx < cur->nids; p->idx++, p->sub = -1) {
            struct job *job = jobs_lookup (cur->srv->jobs, cur->ids[p->idx].seq);
            if (job)
                return job;
        }
        return NULL;
    }
    all = jobs_all (cur->srv->jobs, &n);
    for (i = first_from (all, n, p->seq); i < n; i++) {
        if (all[i]->rec.seq != p->seq)
            p->sub = -1; /* a new job: it comes before its subjobs */
        p->seq = all[i]->rec.seq;
        if (wanted (cur, all[i]))
            return all[i];
    }
    return NULL;
}

static void cursor_next_top (struct stat_cursor *cur, struct stat_pos *p,
                             const struct job *top)
{
    if (cur->by_ids)
        p->idx++;
    else
        p->seq = top->rec.seq + 1;
    p->sub = -1;
}

/* The subjob of array at pos as it is now: split out, or described in the
 * cursor's scratch job (with its UUID for the full attributes only). */
static const struct job *cursor_subjob (struct stat_cursor *cur, struct job *array,
                                        int pos)
{
    return jobs_subjob_view (cur->srv->jobs, array, pos, &cur->scratch, !cur->table);
}

/* The next job to show, advancing p past it; NULL when the walk is over.
 * A subjob view lasts until the next call. */
static const struct job *cursor_next (struct stat_cursor *cur, struct stat_pos *p)
{
    struct job *top;

    while ((top = cursor_top (cur, p))) {
        if (p->sub < 0) {
            int named = cur->by_ids ? cur->ids[p->idx].pos : -1;
            if (named >= 0) { /* a subjob named by its id */
                cursor_next_top (cur, p, top);
                if (top->arr && named < array_size (top->arr))
                    return cursor_subjob (cur, top, named);
                continue;
            }
            if (cur->subjobs && top->arr)
                p->sub = 0;
            else
                cursor_next_top (cur, p, top);
            return top;
        }
        if (top->arr && p->sub < array_size (top->arr))
            return cursor_subjob (cur, top, p->sub++);
        cursor_next_top (cur, p, top);
    }
    return NULL;
}

/* A rough size of job's full attributes, to cut parts by bytes: its
 * long strings (the environment above all) plus the fixed part. */
static size_t attr_size_hint (const struct job *job)
{
    const struct hpcq_jobspec *s = &job->spec;
    size_t n = 1024;

    for (int i = 0; i < s->nenv; i++)
        n += strlen (s->env[i]) + 8;
    if (s->submit_args)
        n += strlen (s->submit_args);
    if (s->workdir)
        n += 3 * strlen (s->workdir);
    if (s->output_path)
        n += strlen (s->output_path);
    if (s->error_path)
        n += strlen (s->error_path);
    return n;
}

static json_t *job_view (struct stat_cursor *cur, const struct job *job)
{
    if (cur->see_all || (int64_t)cur->uid == job->rec.uid)
        return job_attr_json (cur->srv, job);
    return job_attr_public (cur->srv, job);
}

/* The jobs of one part, from p (advanced past them): table rows as text,
 * else an object of attribute sets.  *count: how many.  NULL on ENOMEM. */
static json_t *part_jobs (struct stat_cursor *cur, struct stat_pos *p, int max,
                          int *count, int *done)
{
    char *text = NULL;
    size_t len = 0, bytes = 0;
    FILE *f = NULL;
    json_t *jobs = NULL;
    const struct job *job = NULL;
    int rc = 0;

    *count = 0;
    if (cur->table ? !(f = open_memstream (&text, &len)) : !(jobs = json_object ()))
        return NULL;
    while (*count < max && bytes < STAT_PART_BYTES && rc == 0
           && (job = cursor_next (cur, p))) {
        if (f) {
            rc = job_attr_row (f, job);
            bytes = (size_t)ftell (f);
        } else {
            rc = json_object_set_new (jobs, job->id, job_view (cur, job));
            bytes += attr_size_hint (job);
        }
        (*count)++;
    }
    /* Done when the walk ran out, not merely the part. */
    *done = !job || !cursor_top (cur, p);
    if (!f)
        return rc == 0 ? jobs : (json_decref (jobs), NULL);
    if (fclose (f) == 0 && rc == 0)
        jobs = json_stringn (text, len);
    free (text);
    return jobs;
}

/* Send the next part.  1 if more follow, 0 after the last, -1 if the
 * connection cannot take it (it is being closed). */
static int send_part (struct stat_cursor *cur)
{
    int max = cur->table ? STAT_PART_ROWS : STAT_PART_JOBS;

    for (;;) {
        struct stat_pos p = cur->pos;
        struct wire_msg m;
        json_t *jobs, *body;
        int count, done, rc;

        jobs = part_jobs (cur, &p, max, &count, &done);
        body = jobs ? json_pack ("{s:s s:I s:O s:O s:b s:o}", "server", cur->srv->name,
                                 "timestamp", (json_int_t)util_wall_secs (), "unknown",
                                 cur->unknown, "finished", cur->finished, "more", !done,
                                 cur->table ? "rows" : "jobs", jobs)
                    : NULL;
        if (body && cur->table)
            json_object_set_new (body, "columns",
                                 json_pack ("[ssssss]", JOB_ATTR_ROW_COLUMNS));
        if (!body) {
            server_reply_error (cur->c, &cur->req, ENOMEM, "job.stat: out of memory");
            return -1;
        }
        wire_reply_init (&m, &cur->req, 0, NULL, body);
        rc = conn_send (cur->c, &m);
        wire_msg_release (&m);
        if (rc == 0) {
            cur->pos = p;
            return done ? 0 : 1;
        }
        /* Larger than a message may be (strings the size hint
         * underrated): the same jobs again, in smaller parts. */
        if (errno == EMSGSIZE && count > 1) {
            max = count / 2;
            continue;
        }
        if (errno == EMSGSIZE)
            server_reply_error (cur->c, &cur->req, EMSGSIZE,
                                "job.stat: a job's "
                                "attributes are larger than a message may be");
        else if (errno != ENOBUFS && errno != EPIPE)
            log_error ("job.stat reply to %s", conn_peer_name (cur->c));
        return -1;
    }
}

/* The socket has room again: the next part. */
static void stat_drain (struct conn *c, void *arg)
{
    struct stat_cursor *cur = arg;

    if (send_part (cur) == 1)
        return;
    conn_set_drain (c, NULL, NULL, 0, NULL);
    conn_pause_input (c, 0);
    cursor_free (cur);
}

/* The jobs a request names (in the order given), the unknown ones and
 * (without -x) the finished ones apart.  A subjob is looked at, not split
 * out. */
static int stat_ids (struct stat_cursor *cur, json_t *ids)
{
    json_t *v;
    size_t i;
    struct job scratch;

    cur->by_ids = 1;
    cur->ids = calloc (json_array_size (ids) + 1, sizeof (*cur->ids));
    if (!cur->ids)
        return -1;
    json_array_foreach (ids, i, v)
    {
        const char *id = json_string_value (v);
        int pos;
        struct job *job = jobs_find_pos (cur->srv->jobs, id, &pos);
        const struct job *seen =
            job && pos >= 0 ? jobs_subjob_view (cur->srv->jobs, job, pos, &scratch, 0)
                            : job;
        if (job && job->parent) { /* a split-out subjob: by its array */
            pos = job->array_pos;
            job = job->parent;
        }
        if (!job)
            json_array_append_new (cur->unknown, json_string (id ? id : "?"));
        else if (seen->rec.state == 'F' && !cur->history)
            json_array_append_new (cur->finished, json_string (seen->id));
        else
            cur->ids[cur->nids++] = (struct stat_id){ job->rec.seq, pos };
    }
    return 0;
}

static void job_stat (struct server *srv, struct conn *c, struct wire_msg *msg)
{
    struct stat_cursor *cur = xzalloc (sizeof (*cur));
    const char *user = NULL;
    json_t *ids = NULL;
    int rc;

    if (json_unpack (msg->body, "{s?o s?s s?b s?b s?b}", "ids", &ids, "user", &user,
                     "history", &cur->history, "table", &cur->table, "subjobs",
                     &cur->subjobs)
            < 0
        || (ids && !json_is_array (ids))) {
        server_reply_error (c, msg, EPROTO, "job.stat: malformed request");
        cursor_free (cur);
        return;
    }
    cur->srv = srv;
    cur->c = c;
    cur->req.id = msg->id;
    snprintf (cur->req.type, sizeof (cur->req.type), "%s", msg->type);
    cur->uid = conn_peer_uid (c);
    cur->see_all =
        server_attr_query_other_jobs (srv) || server_is_operator (srv, cur->uid);
    cur->user = user ? xstrdup (user) : NULL;
    cur->pos = (struct stat_pos){ .seq = 0, .idx = 0, .sub = -1 };
    /* Right after a restart only the table of all jobs is answered from
     * the records alone; anything more waits for the parsed requests. */
    if ((!cur->table || cur->subjobs || (ids && json_array_size (ids) > 0))
        && jobs_load_wait (srv->jobs) < 0) {
        server_reply_error (c, msg, EIO, "job.stat: cannot load jobs");
        cursor_free (cur);
        return;
    }
    cur->unknown = json_array ();
    cur->finished = json_array ();
    if (!cur->unknown || !cur->finished
        || (ids && json_array_size (ids) > 0 && stat_ids (cur, ids) < 0)) {
        server_reply_error (c, msg, ENOMEM, "job.stat: out of memory");
        cursor_free (cur);
        return;
    }
    if ((rc = send_part (cur)) != 1) {
        cursor_free (cur);
        return;
    }
    /* More to come, as the client reads. */
    conn_set_drain (c, stat_drain, cur, STAT_LOW_WATER, cursor_free);
    conn_pause_input (c, 1);
}

static const struct handler stat_handlers[] = {
    { "job.stat", job_stat, ROLE_ANY },
    { NULL, NULL, 0 },
};

int job_stat_register (struct server *srv)
{
    return server_register (srv, stat_handlers);
}
