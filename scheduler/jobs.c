/* jobs.c - see jobs.h */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uuid/uuid.h>

#include "common/arrayspec.h"
#include "common/log.h"
#include "common/strpool.h"
#include "common/util.h"
#include "scheduler/job_counts.h"
#include "scheduler/jobs.h"
#include "scheduler/jobs_impl.h"
#include "scheduler/nodes.h"

void jobs_suspended_link (struct jobs *js, struct job *job)
{
    LIST_INSERT_HEAD (&js->suspended, job, s_link);
}

static void suspended_unlink (struct jobs *js, struct job *job)
{
    if (!job->s_link.le_prev)
        return; /* not linked */
    LIST_REMOVE (job, s_link);
    job->s_link.le_prev = NULL;
}

struct job_list *jobs_suspended (struct jobs *js)
{
    return &js->suspended;
}

void jobs_running_add (struct jobs *js, struct job *job)
{
    LIST_INSERT_HEAD (&js->running, job, r_link);
}

void jobs_running_remove (struct jobs *js, struct job *job)
{
    if (!job->r_link.le_prev)
        return; /* not linked */
    LIST_REMOVE (job, r_link);
    job->r_link.le_prev = NULL;
}

struct job_list *jobs_running (struct jobs *js)
{
    return &js->running;
}

void jobs_queue_link (struct jobs *js, struct job *job)
{
    TAILQ_INSERT_TAIL (&js->queued, job, q_link);
    js->nqueued++;
}

static void queue_unlink (struct jobs *js, struct job *job)
{
    TAILQ_REMOVE (&js->queued, job, q_link);
    js->nqueued--;
}

struct job_queue *jobs_queued (struct jobs *js)
{
    return &js->queued;
}

int jobs_queued_count (struct jobs *js)
{
    return js->nqueued;
}

struct jobs *jobs_create (struct server *srv)
{
    struct jobs *js = calloc (1, sizeof (*js));

    if (!js)
        return NULL;
    js->srv = srv;
    js->next_seq = 1;
    TAILQ_INIT (&js->queued);
    LIST_INIT (&js->running);
    TAILQ_INIT (&js->pending);
    LIST_INIT (&js->suspended);
    js->counts = job_counts_create ();
    return js;
}

void jobs_job_free (struct job *job)
{
    if (!job)
        return;
    if (job->arr) {
        for (int i = 0; i < job->arr->nsub; i++)
            jobs_job_free (job->arr->sub[i]);
        array_destroy (job->arr);
    }
    db_job_release (&job->rec);
    if (!job->parent || job->own_spec)
        jobspec_release (&job->spec); /* a subjob's is its array's */
    free (job->alloc);
    free (job->resv);
    free (job->ck);
    free (job->binding);
    free (job->gpu_live);
    free (job);
}

void jobs_destroy (struct jobs *js)
{
    if (!js)
        return;
    jobs_load_cancel (js); /* the parsing threads still use the jobs */
    for (int i = 0; i < js->n; i++)
        jobs_job_free (js->v[i]);
    free (js->v);
    free (js->transient);
    job_counts_destroy (js->counts);
    free (js);
}

/* The job numbers a job takes: one, or as many as its tasks for an array
 * in Slurm's dialect, whose tasks are jobs of their own numbers there
 * (SLURM_JOB_ID; SLURM_ARRAY_JOB_ID is the array's): task at position p
 * of array N is N + p, as sbatch numbers them. */
static int64_t job_span (const struct job *job)
{
    struct arrayspec a;
    int64_t n = 1;

    if (job->is_array && job->spec.slurm && job->spec.array
        && arrayspec_parse (job->spec.array, &a, NULL) == 0) {
        n = a.n > 1 ? a.n : 1;
        arrayspec_release (&a);
    }
    return n;
}

int jobs_add (struct jobs *js, struct job *job)
{
    if (js->n == js->cap) {
        int cap = js->cap ? js->cap * 2 : 256;
        struct job **nv = realloc (js->v, cap * sizeof (*nv));
        if (!nv)
            return -1;
        js->v = nv;
        js->cap = cap;
    }
    js->v[js->n++] = job;
    job_counts_job (js->counts, job, 1);
    if (job->rec.state == 'Q' && !job->is_array)
        jobs_queue_link (js, job);
    if (job->rec.seq + job_span (job) > js->next_seq && !job->parent)
        js->next_seq = job->rec.seq + job_span (job);
    return 0;
}

void jobs_make_id (struct server *srv, struct job *job)
{
    if (job->parent)
        snprintf (job->id, sizeof (job->id), "%lld[%d].%s",
                  (long long)job->parent->rec.seq, job->array_index, srv->name);
    else if (job->is_array)
        snprintf (job->id, sizeof (job->id), "%lld[].%s", (long long)job->rec.seq,
                  srv->name);
    else
        snprintf (job->id, sizeof (job->id), "%lld.%s", (long long)job->rec.seq,
                  srv->name);
}

int64_t job_subkey (int64_t parent_seq, int pos, int n)
{
    if (n > 1 << JOB_SUBKEY_BITS)
        return JOB_SUBKEY_BIG + (parent_seq << JOB_SUBKEY_BIG_BITS) + pos;
    return JOB_SUBKEY (parent_seq, pos);
}

void jobs_key_text (struct jobs *js, int64_t key, char *buf, size_t len)
{
    int64_t parent = key, pos = -1;
    struct job *a;

    if (key >= JOB_SUBKEY_BIG) {
        parent = (key - JOB_SUBKEY_BIG) >> JOB_SUBKEY_BIG_BITS;
        pos = (key - JOB_SUBKEY_BIG) & ((INT64_C (1) << JOB_SUBKEY_BIG_BITS) - 1);
    } else if (key >= JOB_SUBKEY_BASE) {
        parent = (key - JOB_SUBKEY_BASE) >> JOB_SUBKEY_BITS;
        pos = (key - JOB_SUBKEY_BASE) & ((INT64_C (1) << JOB_SUBKEY_BITS) - 1);
    }
    if (pos < 0)
        snprintf (buf, len, "%lld.%s", (long long)key, js->srv->name);
    else if ((a = jobs_lookup (js, parent)) && a->arr)
        snprintf (buf, len, "%lld[%d].%s", (long long)parent,
                  array_index_at (a->arr, (int)pos), js->srv->name);
    else /* the array is gone from memory: its position */
        snprintf (buf, len, "%lld[#%lld].%s", (long long)parent, (long long)pos,
                  js->srv->name);
}

/* An array joins the arrays a pass takes subjobs from while it is queued
 * and has untouched subjobs, and leaves when not. */
void jobs_pending_update (struct jobs *js, struct job *array)
{
    struct job_array *a = array->arr;
    int want = a && array->rec.state == 'Q' && a->untouched > 0;

    if (!a || want == a->pending)
        return;
    if (want)
        TAILQ_INSERT_TAIL (&js->pending, a, pending_link);
    else
        TAILQ_REMOVE (&js->pending, a, pending_link);
    a->pending = want;
}

struct job_array *jobs_pending_arrays_first (struct jobs *js)
{
    return TAILQ_FIRST (&js->pending);
}

struct job_array *jobs_pending_arrays_next (struct job_array *a)
{
    return TAILQ_NEXT (a, pending_link);
}

/* The subjob at pos of array as it is while untouched: everything its own
 * but the request, which it shares, and the strings of the array's record,
 * which it borrows (the caller clears them if it keeps the job). */
static void subjob_fill (struct jobs *js, struct job *array, int pos, struct job *sj,
                         int with_uuid)
{
    struct job_array *a = array->arr;
    int index = array_index_at (a, pos);
    char st = array_untouched_state (array);

    memset (sj, 0, sizeof (*sj));
    sj->parent = array;
    sj->array_pos = pos;
    sj->array_index = index;
    sj->spec = array->spec;
    sj->rec = array->rec;
    sj->rec.seq = job_subkey (array->rec.seq, pos, array_size (a));
    sj->rec.array_parent = array->rec.seq;
    sj->rec.array_index = index;
    sj->rec.state = st;
    sj->rec.run_count = 0;
    sj->rec.has_exit = 0;
    sj->rec.exit_status = 0;
    sj->rec.stime = 0;
    sj->rec.session_id = 0;
    /* Deleted with its array: it ended when the array was deleted. */
    sj->rec.etime = st == 'F' ? array->rec.mtime : 0;
    sj->rec.comment =
        st == 'F' ? (char *)"Job deleted with its array before it ran" : NULL;
    sj->rec.spec = NULL; /* its request is its array's */
    sj->rec.exec_host = sj->rec.exec_vnode = NULL;
    sj->rec.resources_used = sj->rec.alloc = NULL;
    sj->prio = array->prio;
    sj->prio_f = array->prio_f;
    sj->rec.uuid[0] = '\0';
    if (with_uuid) {
        /* Each subjob is an identity of its own (its checkpoints, its
         * runs), derived from its array's and its index (a name-based
         * UUID), so a subjob that has no row yet is the same one after a
         * restart. */
        uuid_t ns, u;
        char name[32];
        snprintf (name, sizeof (name), "subjob %d", index);
        if (uuid_parse (array->rec.uuid, ns) == 0)
            uuid_generate_sha1 (u, ns, name, strlen (name));
        else
            uuid_generate (u);
        uuid_unparse_lower (u, sj->rec.uuid);
    }
    jobs_make_id (js->srv, sj);
}

const struct job *jobs_subjob_view (struct jobs *js, struct job *array, int pos,
                                    struct job *scratch, int uuid)
{
    struct job *sj = array_sub (array->arr, pos);

    if (sj)
        return sj;
    subjob_fill (js, array, pos, scratch, uuid);
    return scratch;
}

static int transient_push (struct jobs *js, struct job *sj)
{
    if (js->ntransient == js->transient_cap) {
        int cap = js->transient_cap ? js->transient_cap * 2 : 256;
        struct job **v = realloc (js->transient, cap * sizeof (*v));
        if (!v)
            return -1;
        js->transient = v;
        js->transient_cap = cap;
    }
    js->transient[js->ntransient++] = sj;
    return 0;
}

/* Subjob sj of array is split out (sign 1) or given back (-1): it counts
 * on its own, and the array has one untouched subjob fewer (more). */
void jobs_counts_split (struct jobs *js, const struct job *array, const struct job *sj,
                        int sign)
{
    job_counts_add (js->counts, array->rec.queue, array->rec.owner,
                    array_untouched_state (array), -sign);
    job_counts_job (js->counts, sj, sign);
    js->nsplit += sign;
}

struct job *jobs_subjob (struct jobs *js, struct job *array, int pos, int transient)
{
    struct job_array *a = array->arr;
    struct job *sj;

    if (!a || pos < 0 || pos >= array_size (a))
        return NULL;
    if ((sj = array_sub (a, pos))) {
        if (!transient)
            sj->transient = 0;
        return sj;
    }
    sj = xzalloc (sizeof (*sj));
    subjob_fill (js, array, pos, sj, 1);
    /* What the fill borrowed from the array is the subjob's own now. */
    if (sj->rec.comment)
        sj->rec.comment = xstrdup (sj->rec.comment);
    strpool_ref (sj->rec.owner);
    strpool_ref (sj->rec.name);
    strpool_ref (sj->rec.queue);
    sj->transient = transient;
    if (array_split_add (a, sj) < 0 || (transient && transient_push (js, sj) < 0)) {
        array_split_remove (a, sj);
        jobs_job_free (sj);
        return NULL;
    }
    jobs_counts_split (js, array, sj, 1);
    if (sj->rec.state == 'Q')
        jobs_queue_link (js, sj);
    jobs_pending_update (js, array);
    return sj;
}

void jobs_unsplit_transient (struct jobs *js)
{
    for (int i = 0; i < js->ntransient; i++) {
        struct job *sj = js->transient[i];
        /* Started, or the top job with its reservation: it stays. */
        if (!sj->transient || sj->rec.state != 'Q' || sj->rec.run_count > 0
            || sj->est_start > 0 || sj->resv) {
            sj->transient = 0;
            continue;
        }
        queue_unlink (js, sj);
        jobs_counts_split (js, sj->parent, sj, -1);
        array_split_remove (sj->parent->arr, sj);
        jobs_pending_update (js, sj->parent);
        jobs_job_free (sj);
    }
    js->ntransient = 0;
}

void job_drop_spec_text (struct job *job)
{
    free (job->rec.spec);
    job->rec.spec = NULL;
}

/* The top-level job numbered seq (no subjob), or NULL. */
static struct job *top_lookup (struct jobs *js, int64_t seq)
{
    int lo = 0, hi = js->n - 1;

    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (js->v[mid]->rec.seq == seq)
            return js->v[mid];
        if (js->v[mid]->rec.seq < seq)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return NULL;
}

/* A subjob key's array and position; the array NULL if there is none. */
struct job *jobs_subkey_split (struct jobs *js, int64_t key, int *pos)
{
    int big = key >= JOB_SUBKEY_BIG;
    int bits = big ? JOB_SUBKEY_BIG_BITS : JOB_SUBKEY_BITS;
    int64_t rel = key - (big ? JOB_SUBKEY_BIG : JOB_SUBKEY_BASE);
    struct job *array = top_lookup (js, rel >> bits);

    *pos = (int)(rel & ((INT64_C (1) << bits) - 1));
    if (!array || !array->arr || (array_size (array->arr) > 1 << JOB_SUBKEY_BITS) != big
        || *pos >= array_size (array->arr))
        return NULL;
    return array;
}

int64_t jobs_next_seq (struct jobs *js)
{
    return js->next_seq;
}

int jobs_insert (struct jobs *js, struct job *job)
{
    char buf[32];

    jobs_make_id (js->srv, job);
    if (db_job_insert (js->srv->db, &job->rec) < 0)
        return -1;
    snprintf (buf, sizeof (buf), "%lld",
              (long long)job->rec.seq + (job->parent ? 1 : job_span (job)));
    return db_server_set (js->srv->db, "next_seq", buf);
}

void jobs_refile (struct jobs *js, struct job *job, char old)
{
    job_counts_moved (js->counts, job, old);
    if (job->is_array) {
        jobs_pending_update (js, job); /* it never runs itself: its subjobs do */
        return;
    }
    if (old == 'Q' && job->rec.state != 'Q')
        queue_unlink (js, job);
    else if (old != 'Q' && job->rec.state == 'Q')
        jobs_queue_link (js, job);
    if (job->parent)
        array_recount (job->parent->arr, job);
    if (old == 'S' && job->rec.state != 'S')
        suspended_unlink (js, job);
    /* Deleted while suspended: exiting, it is found with the running jobs
     * (its resources stay released: job_ckpt.released). */
    if (old == 'S' && job->rec.state == 'E')
        jobs_running_add (js, job);
    else if (old != 'S' && job->rec.state == 'S')
        jobs_suspended_link (js, job);
}

int jobs_write (struct jobs *js, struct job *job)
{
    job->rec.mtime = util_wall_secs ();
    return db_job_update (js->srv->db, &job->rec);
}

int jobs_add_subjobs (struct jobs *js, struct job *array)
{
    struct hpcq_error err;

    /* In memory only, and none of them a job yet: a subjob is split out,
     * and its row written, when something happens to it. */
    if (!(array->arr = array_create (array, array->spec.array, &err))) {
        log_msg (LOG_ERR, "job %s: %s", array->id, err.text);
        return -1;
    }
    array->is_array = 1;
    job_counts_job (js->counts, array, 1); /* its untouched subjobs */
    jobs_pending_update (js, array);
    return 0;
}

/* job leaves the index (finished: nothing of it is counted, unless a
 * count was wrong, which this keeps from lasting). */
static void counts_forget (struct jobs *js, const struct job *job)
{
    job_counts_job (js->counts, job, -1);
    if (!job->arr)
        return;
    for (int i = 0; i < job->arr->nsub; i++)
        job_counts_job (js->counts, job->arr->sub[i], -1);
    js->nsplit -= job->arr->nsub;
}

int jobs_in_memory (const struct jobs *js)
{
    return js->n + js->nsplit;
}

const struct job_counts *jobs_counts (struct jobs *js)
{
    return js->counts;
}

struct job_counts *jobs_counts_recount (struct jobs *js)
{
    struct job_counts *c = job_counts_create ();
    int n;
    struct job **all = jobs_all (js, &n);

    for (int i = 0; i < n; i++) {
        const struct job *j = all[i];
        job_counts_job (c, j, 1);
        if (j->arr)
            for (int s = 0; s < j->arr->nsub; s++)
                job_counts_job (c, j->arr->sub[s], 1);
    }
    return c;
}

int jobs_purge (struct jobs *js, int64_t finished_before,
                int (*keep) (const struct job *job, void *arg), void *arg)
{
    int k = 0, n = 0;

    if (js->load)
        return 0; /* the parsing threads still use the jobs */
    for (int i = 0; i < js->n; i++) {
        struct job *job = js->v[i];
        if (job->rec.state == 'F' && job->rec.etime < finished_before
            && !(keep && keep (job, arg))) {
            if (job->arr && job->arr->pending) { /* not while F; to be sure */
                job->arr->pending = 0;
                TAILQ_REMOVE (&js->pending, job->arr, pending_link);
            }
            counts_forget (js, job);
            jobs_job_free (job); /* an array with its split-out subjobs */
            n++;
            continue;
        }
        js->v[k++] = job;
    }
    js->n = k;
    /* Give back the index too once it is mostly empty. */
    if (js->cap > 1024 && js->n < js->cap / 4) {
        struct job **nv = realloc (js->v, (js->cap / 2) * sizeof (*nv));
        if (nv) {
            js->v = nv;
            js->cap /= 2;
        }
    }
    return n;
}

struct job *jobs_lookup (struct jobs *js, int64_t seq)
{
    struct job *array;
    int pos;

    if (seq < JOB_SUBKEY_BASE)
        return top_lookup (js, seq);
    array = jobs_subkey_split (js, seq, &pos);
    return array ? jobs_subjob (js, array, pos, 0) : NULL;
}

int64_t jobs_parse_id (const char *s)
{
    char *end;
    long long v;

    if (!s || *s < '0' || *s > '9')
        return -1;
    errno = 0;
    v = strtoll (s, &end, 10);
    if (errno || v <= 0 || (*end != '\0' && *end != '.' && *end != '['))
        return -1;
    return v;
}

/* "N[]" names the array, "N[I]" its subjob of index I. */
/* "N[]" names the array, "N[I]" its subjob of index I: the split one, or
 * the array with *pos the untouched one's position. */
static struct job *array_find (struct jobs *js, const char *id, const char *br,
                               int *pos)
{
    struct job *array = top_lookup (js, jobs_parse_id (id)), *sj;
    char *end;
    long index;

    if (!array || !array->arr)
        return NULL;
    if (br[1] == ']')
        return array;
    errno = 0;
    index = strtol (br + 1, &end, 10);
    if (end == br + 1 || *end != ']' || errno || index < 0 || index > INT_MAX
        || (*pos = array_pos_of (array->arr, (int)index)) < 0)
        return NULL;
    if ((sj = array_sub (array->arr, *pos)))
        *pos = -1;
    return sj ? sj : array;
}

struct job *jobs_find_pos (struct jobs *js, const char *id, int *pos)
{
    const char *br = id ? strchr (id, '[') : NULL;
    const char *close = br ? strchr (br, ']') : NULL;
    const char *dot = id ? strchr (close ? close : id, '.') : NULL;
    size_t len = strlen (js->srv->name);

    *pos = -1;
    if (dot
        && (strncmp (dot + 1, js->srv->name, len) != 0
            || (dot[1 + len] != '\0' && dot[1 + len] != '.')))
        return NULL;
    if (br)
        return close && (close[1] == '\0' || close[1] == '.')
                   ? array_find (js, id, br, pos)
                   : NULL;
    return top_lookup (js, jobs_parse_id (id));
}

struct job *jobs_find (struct jobs *js, const char *id)
{
    int pos;
    struct job *job = jobs_find_pos (js, id, &pos);

    return job && pos >= 0 ? jobs_subjob (js, job, pos, 0) : job;
}

struct job **jobs_all (struct jobs *js, int *n)
{
    *n = js->n;
    return js->v;
}

int jobs_count_state (struct jobs *js, char state)
{
    int count = 0;
    for (int i = 0; i < js->n; i++)
        if (js->v[i]->rec.state == state)
            count++;
    return count;
}

void job_set_comment (struct job *job, const char *fmt, ...)
{
    char buf[512];
    va_list ap;

    va_start (ap, fmt);
    vsnprintf (buf, sizeof (buf), fmt, ap);
    va_end (ap);
    free (job->rec.comment);
    job->rec.comment = xstrdup (buf);
    job->why_code = 0; /* why_pass says its reason again (policy/why.h) */
}

static void signal_node (struct job *job, struct node *n, const char *sig,
                         const char *reason)
{
    struct wire_msg m;

    wire_request_init (&m, "job.signal", job->rec.seq,
                       json_pack ("{s:I s:i s:s s:s}", "seq", (json_int_t)job->rec.seq,
                                  "attempt", job->rec.run_count, "signal", sig,
                                  "reason", reason));
    if (nodes_send (n, &m) < 0)
        log_msg (LOG_WARNING,
                 "job %s: node %s unreachable; the signal is sent "
                 "again when it returns",
                 job->id, n->name);
    wire_msg_release (&m);
}

void job_signal_worker (struct job *job, const char *sig, const char *reason)
{
    signal_node (job, job->alloc->slot[0].node, sig, reason);
}

void job_signal_nodes (struct job *job, const char *sig, const char *reason)
{
    for (int i = 0; i < job->alloc->n; i++) {
        int seen = 0;
        for (int k = 0; k < i; k++)
            seen |= job->alloc->slot[k].node == job->alloc->slot[i].node;
        if (!seen)
            signal_node (job, job->alloc->slot[i].node, sig, reason);
    }
}
