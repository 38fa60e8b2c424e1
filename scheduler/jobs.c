/* jobs.c - see jobs.h */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <uuid/uuid.h>

#include "common/arrayspec.h"
#include "common/log.h"
#include "common/util.h"
#include "scheduler/jobs.h"
#include "scheduler/nodes.h"

struct jobs {
    struct server *srv;
    struct job **v; /* sorted by seq: seqs only grow */
    int n, cap;
    int64_t next_seq;
    struct job_queue queued; /* jobs in state Q */
    int nqueued;
    struct job_list running;   /* jobs holding an allocation */
    struct job_list suspended; /* jobs in state S */
};

static void suspended_link (struct jobs *js, struct job *job)
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

static void queue_link (struct jobs *js, struct job *job)
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
    LIST_INIT (&js->suspended);
    return js;
}

static void job_free (struct job *job)
{
    if (!job)
        return;
    for (int i = 0; i < job->nsub; i++)
        job_free (job->sub[i]);
    free (job->sub);
    db_job_release (&job->rec);
    if (!job->parent)
        jobspec_release (&job->spec); /* a subjob's is its array's */
    free (job->alloc);
    free (job->resv);
    free (job->ck);
    free (job);
}

void jobs_destroy (struct jobs *js)
{
    if (!js)
        return;
    for (int i = 0; i < js->n; i++)
        job_free (js->v[i]);
    free (js->v);
    free (js);
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
    if (job->rec.state == 'Q' && !job->is_array)
        queue_link (js, job);
    if (job->rec.seq >= js->next_seq)
        js->next_seq = job->rec.seq + 1;
    return 0;
}

static void job_make_id (struct server *srv, struct job *job)
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

/* A subjob of array: everything its own but the request, which it shares. */
static struct job *subjob_new (struct job *array, int pos, int index)
{
    struct job *sj = xzalloc (sizeof (*sj));
    uuid_t ns, u;
    char name[32];

    sj->parent = array;
    sj->array_index = index;
    sj->spec = array->spec;
    sj->rec = array->rec;
    sj->rec.seq = JOB_SUBKEY (array->rec.seq, pos);
    sj->rec.array_parent = array->rec.seq;
    sj->rec.array_index = index;
    /* Each subjob is an identity of its own (its checkpoints, its runs),
     * derived from its array's and its index (a name-based UUID), so a
     * subjob that has no row yet is the same one after a restart. */
    snprintf (name, sizeof (name), "subjob %d", index);
    if (uuid_parse (array->rec.uuid, ns) == 0)
        uuid_generate_sha1 (u, ns, name, strlen (name));
    else
        uuid_generate (u);
    uuid_unparse_lower (u, sj->rec.uuid);
    sj->rec.spec = NULL; /* its request is its array's */
    sj->rec.comment = NULL;
    sj->rec.exec_host = sj->rec.exec_vnode = NULL;
    sj->rec.resources_used = sj->rec.alloc = NULL;
    return sj;
}

void job_drop_spec_text (struct job *job)
{
    free (job->rec.spec);
    job->rec.spec = NULL;
}

static int array_append (struct job *array, struct job *sj)
{
    struct job **v = realloc (array->sub, (array->nsub + 1) * sizeof (*v));

    if (!v)
        return -1;
    array->sub = v;
    array->sub[array->nsub++] = sj;
    return 0;
}

/* Loading parses every stored request, most of a restart's time on a
 * deep queue, so the rows are read first and their requests parsed on
 * several threads; linking them in then goes in sequence order. */
struct load {
    struct job **v; /* one per row, in sequence order */
    int n, cap;
    int *bad; /* parse failed: the reason is logged */
    /* The rows' request texts, kept together until parsed so that freeing
     * them leaves no holes between the jobs' long-lived allocations:
     * written to one memory stream, each ending in its '\0'. */
    FILE *texts;
    char *text; /* the stream's buffer, once closed */
    size_t len;
    size_t *off; /* v[i]'s text at text + off[i] */
};

static int load_collect (struct db_job *rec, void *arg)
{
    struct load *l = arg;
    struct job *job;

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
    if (fputs (rec->spec ? rec->spec : "", l->texts) == EOF
        || putc ('\0', l->texts) == EOF)
        return -1;
    job = xzalloc (sizeof (*job));
    job->rec = *rec; /* takes what rec points to */
    job_drop_spec_text (job);
    jobspec_init (&job->spec);
    l->v[l->n++] = job;
    return 0;
}

static int load_parse_one (struct job *job, const char *text)
{
    struct hpcq_error err;
    json_t *o = json_loads (text, 0, NULL);

    if (!o || jobspec_from_json (o, &job->spec, &err) < 0) {
        log_msg (LOG_ERR, "job %lld: stored request unreadable: %s",
                 (long long)job->rec.seq, o ? err.text : "bad JSON");
        json_decref (o);
        return -1;
    }
    json_decref (o);
    return 0;
}

struct load_slice {
    struct load *l;
    int from, to;
};

static void *load_parse_slice (void *arg)
{
    struct load_slice *sl = arg;

    for (int i = sl->from; i < sl->to; i++)
        if (!sl->l->v[i]->rec.array_parent)
            sl->l->bad[i] =
                load_parse_one (sl->l->v[i], sl->l->text + sl->l->off[i]) < 0;
    return NULL;
}

/* Parse every request, on up to one thread per CPU (8 at most).  jansson
 * is safe across threads for separate values once its hash seed is set. */
static int load_parse (struct load *l)
{
    enum { MAX_THREADS = 8, MIN_PER_THREAD = 2000 };
    struct load_slice sl[MAX_THREADS];
    pthread_t tid[MAX_THREADS];
    long cpus = sysconf (_SC_NPROCESSORS_ONLN);
    int nt = cpus < 1 ? 1 : cpus > MAX_THREADS ? MAX_THREADS : (int)cpus, started = 0;

    if (nt > l->n / MIN_PER_THREAD)
        nt = l->n / MIN_PER_THREAD > 0 ? l->n / MIN_PER_THREAD : 1;
    if (!(l->bad = calloc (l->n ? l->n : 1, sizeof (*l->bad))))
        return -1;
    json_object_seed (0);
    for (int t = 0; t < nt; t++) {
        sl[t] = (struct load_slice){ l, (int)((int64_t)l->n * t / nt),
                                     (int)((int64_t)l->n * (t + 1) / nt) };
        /* Slice 0 is ours; a thread that cannot start is done here too. */
        if (t == 0 || pthread_create (&tid[t], NULL, load_parse_slice, &sl[t]) != 0)
            continue;
        started |= 1 << t;
    }
    load_parse_slice (&sl[0]);
    for (int t = 1; t < nt; t++) {
        if (started & (1 << t))
            pthread_join (tid[t], NULL);
        else
            load_parse_slice (&sl[t]);
    }
    return 0;
}

/* A loaded job's allocation: held again if it runs (R, E); kept but not
 * held if it is suspended (S), which joins the suspended list.  1 if it
 * has one. */
static int load_alloc (struct jobs *js, struct job *job)
{
    if (!strchr ("RES", job->rec.state) || !job->rec.alloc
        || !(job->alloc = alloc_from_json (js->srv->nodes, job->rec.alloc)))
        return 0;
    if (job->rec.state == 'S') {
        suspended_link (js, job);
        return 1;
    }
    alloc_apply (job->alloc, job->rec.seq, 1);
    jobs_running_add (js, job);
    return 1;
}

/* A subjob row: it joins its array (loaded before it: rows come by seq). */
static int load_link_subjob (struct jobs *js, struct job *row)
{
    struct job *array = jobs_lookup (js, row->rec.array_parent), *sj;
    int64_t pos = array ? row->rec.seq - JOB_SUBKEY (array->rec.seq, 0) : -1;

    /* The array made its subjobs as it was linked; this row is what
     * became of one of them. */
    if (!array || !array->is_array || pos < 0 || pos >= array->nsub) {
        log_msg (LOG_ERR, "subjob row %lld without its array %lld",
                 (long long)row->rec.seq, (long long)row->rec.array_parent);
        job_free (row);
        return 0;
    }
    sj = array->sub[pos];
    if (sj->rec.state == 'Q')
        queue_unlink (js, sj);
    db_job_release (&sj->rec);
    sj->rec = row->rec; /* the subjob takes the row's record */
    free (row);
    job_make_id (js->srv, sj);
    if (sj->rec.state == 'Q')
        queue_link (js, sj);
    if (load_alloc (js, sj))
        array->array_running++;
    return 0;
}

/* A parsed top-level row: its array settings, id and allocation. */
static int load_link (struct jobs *js, struct job *job)
{
    job->is_array = job->spec.array != NULL;
    job_make_id (js->srv, job);
    (void)load_alloc (js, job);
    if (jobs_add (js, job) < 0) {
        job_free (job);
        return -1;
    }
    /* Its subjobs as submitted; the rows of those that changed follow. */
    return job->is_array ? jobs_add_subjobs (js, job) : 0;
}

int jobs_load (struct jobs *js, int64_t finished_before)
{
    struct load l = { 0 };
    char buf[32];
    int i, rc = 0;

    if (!(l.texts = open_memstream (&l.text, &l.len))
        || db_job_foreach_since (js->srv->db, finished_before, load_collect, &l) < 0)
        rc = -1;
    if (l.texts && fclose (l.texts) != 0)
        rc = -1;
    if (rc == 0 && load_parse (&l) < 0)
        rc = -1;
    /* Each link step owns its row: it links it in or frees it. */
    for (i = 0; rc == 0 && i < l.n; i++) {
        if (l.v[i]->rec.array_parent)
            rc = load_link_subjob (js, l.v[i]);
        else if (l.bad && l.bad[i]) {
            job_free (l.v[i]);
            rc = -1;
        } else
            rc = load_link (js, l.v[i]);
    }
    for (; i < l.n; i++) /* after a failure: the rows never linked */
        job_free (l.v[i]);
    free (l.v);
    free (l.bad);
    free (l.off);
    free (l.text);
    if (rc < 0)
        return -1;
    /* next_seq is also stored so numbers are never reused, even if the
     * newest jobs were purged. */
    if (db_server_get (js->srv->db, "next_seq", buf, sizeof (buf)) == 0
        && atoll (buf) > js->next_seq)
        js->next_seq = atoll (buf);
    log_msg (LOG_INFO, "loaded %d jobs (%d queued, %d running), next job %lld", js->n,
             jobs_count_state (js, 'Q'), jobs_count_state (js, 'R'),
             (long long)js->next_seq);
    return 0;
}

int64_t jobs_next_seq (struct jobs *js)
{
    return js->next_seq;
}

int jobs_insert (struct jobs *js, struct job *job)
{
    char buf[32];

    job_make_id (js->srv, job);
    if (db_job_insert (js->srv->db, &job->rec) < 0)
        return -1;
    snprintf (buf, sizeof (buf), "%lld", (long long)job->rec.seq + 1);
    return db_server_set (js->srv->db, "next_seq", buf);
}

void jobs_refile (struct jobs *js, struct job *job, char old)
{
    if (job->is_array)
        return; /* an array never runs itself: only its subjobs queue */
    if (old == 'Q' && job->rec.state != 'Q')
        queue_unlink (js, job);
    else if (old != 'Q' && job->rec.state == 'Q')
        queue_link (js, job);
    if (old == 'S' && job->rec.state != 'S')
        suspended_unlink (js, job);
    /* Deleted while suspended: exiting, it is found with the running jobs
     * (its resources stay released: job_ckpt.released). */
    if (old == 'S' && job->rec.state == 'E')
        jobs_running_add (js, job);
    else if (old != 'S' && job->rec.state == 'S')
        suspended_link (js, job);
}

int jobs_write (struct jobs *js, struct job *job)
{
    job->rec.mtime = util_wall_secs ();
    return db_job_update (js->srv->db, &job->rec);
}

int jobs_add_subjobs (struct jobs *js, struct job *array)
{
    struct arrayspec a;

    if (arrayspec_parse (array->spec.array, &a, NULL) < 0)
        return -1;
    array->is_array = 1;
    array->array_limit = a.limit;
    /* In memory only: a subjob's row is written when it first changes
     * (db_job_update), so an array of any size is one row at submission. */
    for (int pos = 0; pos < a.n; pos++) {
        struct job *sj = subjob_new (array, pos, a.index[pos]);
        job_make_id (js->srv, sj);
        if (array_append (array, sj) < 0) {
            job_free (sj);
            arrayspec_release (&a);
            return -1;
        }
        if (sj->rec.state == 'Q')
            queue_link (js, sj);
    }
    arrayspec_release (&a);
    return 0;
}

/* A subjob by its key: its array, then its position there. */
static struct job *subjob_lookup (struct jobs *js, int64_t key)
{
    int64_t rel = key - JOB_SUBKEY_BASE;
    int64_t pos = rel & ((INT64_C (1) << JOB_SUBKEY_BITS) - 1);
    struct job *array = jobs_lookup (js, rel >> JOB_SUBKEY_BITS);

    return array && pos < array->nsub ? array->sub[pos] : NULL;
}

int jobs_purge (struct jobs *js, int64_t finished_before,
                int (*keep) (const struct job *job, void *arg), void *arg)
{
    int k = 0, n = 0;

    for (int i = 0; i < js->n; i++) {
        struct job *job = js->v[i];
        if (job->rec.state == 'F' && job->rec.etime < finished_before
            && !(keep && keep (job, arg))) {
            job_free (job);
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
    int lo = 0, hi = js->n - 1;

    if (seq >= JOB_SUBKEY_BASE)
        return subjob_lookup (js, seq);
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
static struct job *array_find (struct jobs *js, const char *id, const char *br)
{
    struct job *array = jobs_lookup (js, jobs_parse_id (id));
    char *end;
    long index;

    if (!array || !array->is_array)
        return NULL;
    if (br[1] == ']')
        return array;
    index = strtol (br + 1, &end, 10);
    if (end == br + 1 || *end != ']')
        return NULL;
    for (int i = 0; i < array->nsub; i++)
        if (array->sub[i]->array_index == index)
            return array->sub[i];
    return NULL;
}

struct job *jobs_find (struct jobs *js, const char *id)
{
    const char *br = id ? strchr (id, '[') : NULL;
    const char *close = br ? strchr (br, ']') : NULL;
    const char *dot = id ? strchr (close ? close : id, '.') : NULL;
    size_t len = strlen (js->srv->name);

    if (dot
        && (strncmp (dot + 1, js->srv->name, len) != 0
            || (dot[1 + len] != '\0' && dot[1 + len] != '.')))
        return NULL;
    if (br)
        return close && (close[1] == '\0' || close[1] == '.') ? array_find (js, id, br)
                                                              : NULL;
    return jobs_lookup (js, jobs_parse_id (id));
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

json_t *alloc_to_json (const struct alloc *a)
{
    json_t *arr = json_array ();

    for (int i = 0; arr && i < a->n; i++) {
        const struct alloc_slot *s = &a->slot[i];
        json_t *gpus = json_array ();
        for (int g = 0; gpus && g < s->ngpus; g++)
            json_array_append_new (gpus, json_integer (s->gpus[g]));
        /* "o" steals gpus into the new object. */
        json_t *o = json_pack ("{s:s s:i s:I s:o s:i s:b}", "node", s->node_name,
                               "ncpus", s->ncpus, "mem", (json_int_t)s->mem, "gpus",
                               gpus, "mpiprocs", s->mpiprocs, "excl", s->excl);
        /* The MIG instance as [gpu, instance], so a restart keeps it. */
        if (o && s->nmig)
            json_object_set_new (o, "mig",
                                 json_pack ("[i i]", s->mig_gpu, s->mig_inst));
        json_array_append_new (arr, o);
    }
    return arr;
}

struct alloc *alloc_from_json (struct nodes *ns, const char *text)
{
    json_t *arr = json_loads (text, 0, NULL), *o;
    struct alloc *a = NULL;
    size_t i;

    if (!json_is_array (arr) || json_array_size (arr) == 0
        || json_array_size (arr) > INT_MAX
        || !(a = alloc_new ((int)json_array_size (arr))))
        goto error;
    json_array_foreach (arr, i, o)
    {
        struct alloc_slot *s = &a->slot[i];
        const char *node;
        json_t *gpus, *g, *mig = NULL;
        json_int_t mem;
        size_t k;
        if (json_unpack (o, "{s:s s:i s:I s:o s:i s:b s?o}", "node", &node, "ncpus",
                         &s->ncpus, "mem", &mem, "gpus", &gpus, "mpiprocs",
                         &s->mpiprocs, "excl", &s->excl, "mig", &mig)
                < 0
            || !json_is_array (gpus) || json_array_size (gpus) > 16
            || (mig && json_unpack (mig, "[i i]", &s->mig_gpu, &s->mig_inst) < 0))
            goto error;
        s->nmig = mig != NULL;
        s->mem = mem;
        snprintf (s->node_name, sizeof (s->node_name), "%s", node);
        s->node = nodes_get (ns, node);
        json_array_foreach (gpus, k, g) s->gpus[s->ngpus++] =
            (int)json_integer_value (g);
    }
    json_decref (arr);
    return a;
error:
    log_msg (LOG_ERR, "unreadable allocation record: %s", text);
    json_decref (arr);
    free (a);
    return NULL;
}

/* Close a memory stream and return its text (the caller frees it), or
 * NULL if it could not be made or written. */
static char *stream_text (FILE *f, char **text)
{
    int bad = !f || ferror (f);

    if (f && fclose (f) != 0)
        bad = 1;
    if (bad) {
        free (*text);
        *text = NULL;
    }
    return *text;
}

/* exec_host "n1/0*2+n2/0*2", exec_vnode "(n1:ncpus=2:ngpus=1)+(n2:ncpus=2:mig=1g.5gb)". */
void alloc_format_exec (const struct alloc *a, char **exec_host, char **exec_vnode)
{
    char *host = NULL, *vnode = NULL;
    size_t hlen, vlen;
    FILE *h = open_memstream (&host, &hlen), *v = open_memstream (&vnode, &vlen);

    /* Streams, not a string grown slot by slot: a job of thousands of
     * nodes would copy its text thousands of times. */
    for (int i = 0; h && v && i < a->n; i++) {
        const struct alloc_slot *s = &a->slot[i];
        fprintf (h, "%s%s/0*%d", i ? "+" : "", s->node_name, s->ncpus);
        fprintf (v, "%s(%s:ncpus=%d", i ? "+" : "", s->node_name, s->ncpus);
        if (s->mem > 0) {
            char sz[24];
            resource_format_size (s->mem, sz, sizeof (sz));
            fprintf (v, ":mem=%s", sz);
        }
        if (s->ngpus)
            fprintf (v, ":ngpus=%d", s->ngpus);
        if (s->nmig && s->node && s->mig_gpu >= 0 && s->mig_gpu < s->node->ngpus
            && s->mig_inst >= 0 && s->mig_inst < s->node->gpu[s->mig_gpu].nmig)
            fprintf (v, ":mig=%s", s->node->gpu[s->mig_gpu].mig[s->mig_inst].profile);
        fputc (')', v);
    }
    *exec_host = stream_text (h, &host);
    *exec_vnode = stream_text (v, &vnode);
}
