/* jobs_load.c - a restart's load of the job registry (jobs.h's
 * jobs_load, jobs_loading, jobs_load_wait), apart from the registry
 * itself (jobs.c), whose insides both share through jobs_impl.h.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "common/util.h"
#include "scheduler/jobs.h"
#include "scheduler/jobs_impl.h"
#include "scheduler/nodes.h"

/* A restart reads and links every row first: the index, the lists,
 * arrays and allocations, all that a job's record says.  The server
 * answers from that at once, while the stored requests (most of a
 * restart's time on a deep queue: JSON to parse) are parsed on threads of
 * their own.  Until they are (jobs_loading), only what reads records may
 * run; the server holds everything else behind jobs_load_wait.  The
 * threads write nothing but their jobs' spec and flags; what they
 * allocate for good is moved to the loop's own heap when the loop takes
 * the results in (load_finish), so the threads' arenas are left empty and
 * given back to the system. */
#define LOAD_MAX_THREADS 8

struct load;

struct load_slice {
    struct load *l;
    int from, to;
};

struct load {
    struct job **v; /* the jobs whose request is to be parsed */
    int n, cap;
    int *bad; /* the request of v[i] is unreadable (logged) */
    int nthreads;
    pthread_t tid[LOAD_MAX_THREADS];
    struct load_slice sl[LOAD_MAX_THREADS];
    atomic_int done; /* threads that have finished */
    struct loop_timer *poll;
    jobs_loaded_f cb;
    void *arg;
    /* The rows' request texts, kept together until parsed so that freeing
     * them leaves no holes between the jobs' long-lived allocations (a
     * quarter more resident memory at 100,000 jobs): written to one memory
     * stream, each ending in its '\0', v[i]'s at text + off[i]. */
    FILE *texts;
    char *text; /* the stream's buffer, once closed */
    size_t len;
    size_t *off;
};

/* job's request is to be parsed: its text moves to the stream. */
static int load_want_parse (struct load *l, struct job *job)
{
    if (l->n == l->cap) {
        int cap = l->cap ? l->cap * 2 : 1024;
        struct job **nv = realloc (l->v, cap * sizeof (*nv));
        size_t *no = realloc (l->off, cap * sizeof (*no));
        if (nv)
            l->v = nv;
        if (no)
            l->off = no;
        if (!nv || !no)
            return -1;
        l->cap = cap;
    }
    l->off[l->n] = (size_t)ftell (l->texts);
    if (fputs (job->rec.spec ? job->rec.spec : "", l->texts) == EOF
        || putc ('\0', l->texts) == EOF)
        return -1;
    job_drop_spec_text (job);
    l->v[l->n++] = job;
    return 0;
}

static int load_parse_one (struct job *job, const char *text)
{
    struct hpcq_error err;
    json_t *o = json_loads (text ? text : "", 0, NULL);

    if (!o || jobspec_from_json (o, &job->spec, &err) < 0) {
        log_msg (LOG_ERR, "job %lld: stored request unreadable: %s",
                 (long long)job->rec.seq, o ? err.text : "bad JSON");
        json_decref (o);
        return -1;
    }
    json_decref (o);
    return 0;
}

/* A loaded job's allocation: held again if it runs (R, E); kept but not
 * held if it is suspended (S), which joins the suspended list.  1 if it
 * has one. */
static int load_alloc (struct jobs *js, struct job *job)
{
    if (!strchr ("RES", job->rec.state) || !job->rec.alloc
        || !(job->alloc = alloc_from_json (js->srv->nodes, nodes_get, job->rec.alloc)))
        return 0;
    if (job->rec.state == 'S') {
        jobs_suspended_link (js, job);
        return 1;
    }
    alloc_apply (job->alloc, job->rec.seq, 1);
    jobs_running_add (js, job);
    return 1;
}

/* A subjob row: a subjob that was split out (its array, read before it
 * since rows come by seq, has every subjob untouched until now).  Its
 * request is its array's (set once that is parsed) unless it has one of
 * its own. */
static int load_link_subjob (struct jobs *js, struct job *row)
{ /* 1: linked; 0: dropped (freed); -1: out of memory (freed) */
    int pos;
    struct job *array = jobs_subkey_split (js, row->rec.seq, &pos);

    if (!array || array->rec.seq != row->rec.array_parent
        || array_sub (array->arr, pos)) {
        log_msg (LOG_ERR, "subjob row %lld without its array %lld",
                 (long long)row->rec.seq, (long long)row->rec.array_parent);
        jobs_job_free (row);
        return 0;
    }
    row->parent = array;
    row->array_pos = pos;
    row->array_index = array_index_at (array->arr, pos);
    row->own_spec = row->rec.spec && row->rec.spec[0];
    jobs_make_id (js->srv, row);
    if (array_split_add (array->arr, row) < 0) {
        jobs_job_free (row);
        return -1;
    }
    jobs_counts_split (js, array, row, 1);
    if (row->rec.state == 'Q')
        jobs_queue_link (js, row);
    if (load_alloc (js, row))
        array->arr->running++; /* it holds an allocation (R, E, S) */
    jobs_pending_update (js, array);
    return 1;
}

/* A top-level row: its array record (the range read straight from the
 * stored text), id and allocation. */
static int load_link (struct jobs *js, struct job *job)
{
    struct hpcq_error err;
    char *range = NULL;
    int rc = jobspec_text_array (job->rec.spec, &range);

    /* A form the quick read does not take: parse this one now. */
    if (rc < 0 && load_parse_one (job, job->rec.spec) == 0 && job->spec.array)
        range = xstrdup (job->spec.array);
    if (range) {
        job->arr = array_create (job, range, &err);
        free (range);
        if (!job->arr) {
            log_msg (LOG_ERR, "job %lld: %s", (long long)job->rec.seq, err.text);
            jobs_job_free (job);
            return -1;
        }
        job->is_array = 1;
    }
    jobs_make_id (js->srv, job);
    (void)load_alloc (js, job);
    if (jobs_add (js, job) < 0) {
        jobs_job_free (job);
        return -1;
    }
    jobs_pending_update (js, job);
    return 0;
}

static int load_row (struct db_job *rec, void *arg)
{
    struct jobs *js = arg;
    struct job *job = xzalloc (sizeof (*job));
    int own;

    job->rec = *rec; /* takes what rec points to */
    jobspec_init (&job->spec);
    /* A subjob's row has a request of its own only once qalter gave it one. */
    own = job->rec.spec && job->rec.spec[0];
    if (job->rec.array_parent) {
        int rc = load_link_subjob (js, job);
        if (rc <= 0)
            return rc;
        if (!own) { /* the array's request, parsed with the array */
            job_drop_spec_text (job);
            return 0;
        }
    } else if (load_link (js, job) < 0)
        return -1;
    return load_want_parse (js->load, job);
}

static void *load_parse_slice (void *arg)
{
    struct load_slice *sl = arg;

    for (int i = sl->from; i < sl->to; i++)
        if (!sl->l->v[i]->spec.name) /* else parsed as it was read */
            sl->l->bad[i] =
                load_parse_one (sl->l->v[i], sl->l->text + sl->l->off[i]) < 0;
    atomic_fetch_add (&sl->l->done, 1);
    return NULL;
}

/* A copy of n bytes of p on the caller's heap (p freed), so that what a
 * parsing thread allocated for good leaves its arena. */
static void *rehome (void *p, size_t n)
{
    void *q;

    if (!p || !n)
        return p;
    q = xrealloc (NULL, n);
    memcpy (q, p, n);
    free (p);
    return q;
}

/* Take a parsed request in: its texts into the pool, its lists onto our
 * heap, the stored text dropped. */
static int load_adopt (struct job *job)
{
    struct hpcq_jobspec *s = &job->spec;

    if (!job->parent && !s->array != !job->arr) {
        log_msg (LOG_ERR, "job %lld: its stored request and its array range disagree",
                 (long long)job->rec.seq);
        return -1;
    }

    jobspec_pool (s);
    s->env = rehome (s->env, (size_t)s->nenv * sizeof (*s->env));
    s->res.chunk =
        rehome (s->res.chunk, (size_t)s->res.nchunks * sizeof (*s->res.chunk));
    job_drop_spec_text (job);
    return 0;
}

/* Split-out subjobs share their array's request, parsed only now. */
static void load_share_specs (struct jobs *js)
{
    for (int i = 0; i < js->n; i++) {
        struct job_array *a = js->v[i]->arr;
        for (int k = 0; a && k < a->nsub; k++)
            if (!a->sub[k]->own_spec)
                a->sub[k]->spec = js->v[i]->spec;
    }
}

static void load_free (struct load *l)
{
    loop_timer_remove (l->poll);
    if (l->texts)
        fclose (l->texts);
    free (l->text);
    free (l->off);
    free (l->v);
    free (l->bad);
    free (l);
}

/* The threads are done: take their results in.  0, or -1 if a stored
 * request could not be read. */
static int load_finish (struct jobs *js)
{
    struct load *l = js->load;
    int rc = 0;

    for (int t = 0; t < l->nthreads; t++)
        pthread_join (l->tid[t], NULL);
    for (int i = 0; i < l->n; i++)
        if (!l->bad || l->bad[i] || load_adopt (l->v[i]) < 0)
            rc = -1;
    load_share_specs (js);
    js->load = NULL;
    if (l->cb)
        l->cb (js, rc, l->arg);
    load_free (l);
    malloc_trim (0); /* the threads' arenas, now empty */
    if (rc == 0)
        log_msg (LOG_INFO, "loaded %d jobs (%d queued, %d running), next job %lld",
                 js->n, jobs_count_state (js, 'Q'), jobs_count_state (js, 'R'),
                 (long long)js->next_seq);
    return rc;
}

static void load_poll (struct loop *loop, void *arg)
{
    struct jobs *js = arg;

    if (js->load && atomic_load (&js->load->done) == js->load->nthreads)
        (void)load_finish (js);
}

/* Parse every request, on up to one thread per CPU (8 at most).  jansson
 * is safe across threads for separate values once its hash seed is set. */
static int load_start (struct jobs *js)
{
    enum { MIN_PER_THREAD = 2000 };
    struct load *l = js->load;
    long cpus = sysconf (_SC_NPROCESSORS_ONLN);
    int nt = cpus < 1 ? 1 : cpus > LOAD_MAX_THREADS ? LOAD_MAX_THREADS : (int)cpus;

    if (nt > l->n / MIN_PER_THREAD)
        nt = l->n / MIN_PER_THREAD > 0 ? l->n / MIN_PER_THREAD : 1;
    if (fclose (l->texts) != 0) { /* its buffer, l->text, is complete */
        l->texts = NULL;
        return -1;
    }
    l->texts = NULL;
    if (!(l->bad = calloc (l->n ? l->n : 1, sizeof (*l->bad))))
        return -1;
    json_object_seed (0);
    for (int t = 0; t < nt; t++) {
        l->sl[t] = (struct load_slice){ l, (int)((int64_t)l->n * t / nt),
                                        (int)((int64_t)l->n * (t + 1) / nt) };
        if (pthread_create (&l->tid[t], NULL, load_parse_slice, &l->sl[t]) != 0)
            break;
        l->nthreads++;
    }
    /* What no thread took is parsed here and now. */
    for (int t = l->nthreads; t < nt; t++)
        load_parse_slice (&l->sl[t]);
    atomic_fetch_sub (&l->done, nt - l->nthreads);
    log_msg (LOG_INFO, "parsing %d stored requests on %d threads", l->n, l->nthreads);
    if (l->nthreads == 0)
        return load_finish (js);
    if (!(l->poll = loop_timer_add (js->srv->loop, 5, 5, load_poll, js)))
        return -1;
    return 0;
}

int jobs_load (struct jobs *js, int64_t finished_before, jobs_loaded_f cb, void *arg)
{
    char buf[32];

    if (!(js->load = calloc (1, sizeof (*js->load))))
        return -1;
    if (!(js->load->texts = open_memstream (&js->load->text, &js->load->len))) {
        free (js->load);
        js->load = NULL;
        return -1;
    }
    js->load->cb = cb;
    js->load->arg = arg;
    if (db_job_foreach_since (js->srv->db, finished_before, load_row, js) < 0) {
        load_free (js->load);
        js->load = NULL;
        return -1;
    }
    /* next_seq is also stored so numbers are never reused, even if the
     * newest jobs were purged. */
    if (db_server_get (js->srv->db, "next_seq", buf, sizeof (buf)) == 0
        && atoll (buf) > js->next_seq)
        js->next_seq = atoll (buf);
    log_msg (LOG_INFO, "read %d jobs", js->n);
    if (load_start (js) < 0) {
        jobs_load_wait (js);
        return -1;
    }
    return 0;
}

void jobs_load_cancel (struct jobs *js)
{
    if (js->load) {
        js->load->cb = NULL;
        (void)load_finish (js);
    }
}

int jobs_loading (const struct jobs *js)
{
    return js->load != NULL;
}

int jobs_load_wait (struct jobs *js)
{
    return js->load ? load_finish (js) : 0;
}
