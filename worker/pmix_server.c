/* pmix_server.c - see pmix_server.h.  The keys each rank can ask for are
 * those Slurm's mpi/pmix plugin registers (pmixp_client.c: sizes, maps,
 * local peers, per-rank PMIX_PROC_DATA), which Open MPI's ess/pmi reads
 * at MPI_Init. */
#include <config.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_server.h>

#include "common/util.h"
#include "worker/pmix_server.h"

static struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int registering; /* registrations not yet acknowledged */
    pmix_status_t reg_status;
    pmix_modex_cbfunc_t fence_cb; /* the fence in progress */
    void *fence_cbdata;
    pmixsrv_fence_f fence;
    pmixsrv_abort_f abort_cb;
    void *arg;
    char nspace[PMIX_MAX_NSLEN + 1];
    int started;
} ps = { .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER };

static pmix_status_t ps_fence (const pmix_proc_t procs[], size_t nprocs,
                               const pmix_info_t info[], size_t ninfo, char *data,
                               size_t ndata, pmix_modex_cbfunc_t cbfunc, void *cbdata)
{
    unsigned char *copy = malloc (ndata ? ndata : 1);

    (void)info;
    (void)ninfo;
    /* Every fence Open MPI makes is over the whole step (the wildcard
     * rank); a fence over some ranks only is not carried. */
    if (!copy || nprocs != 1 || procs[0].rank != PMIX_RANK_WILDCARD) {
        free (copy);
        return PMIX_ERR_NOT_SUPPORTED;
    }
    if (ndata)
        memcpy (copy, data, ndata);
    pthread_mutex_lock (&ps.lock);
    ps.fence_cb = cbfunc;
    ps.fence_cbdata = cbdata;
    pthread_mutex_unlock (&ps.lock);
    ps.fence (copy, ndata, ps.arg);
    return PMIX_SUCCESS;
}

static pmix_status_t ps_abort (const pmix_proc_t *proc, void *server_object, int status,
                               const char msg[], pmix_proc_t procs[], size_t nprocs,
                               pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    (void)proc;
    (void)server_object;
    (void)procs;
    (void)nprocs;
    ps.abort_cb (status, msg, ps.arg);
    if (cbfunc)
        cbfunc (PMIX_SUCCESS, cbdata);
    return PMIX_SUCCESS;
}

static pmix_server_module_t ps_module = {
    .abort = ps_abort,
    .fence_nb = ps_fence,
};

static void ps_registered (pmix_status_t status, void *cbdata)
{
    (void)cbdata;
    pthread_mutex_lock (&ps.lock);
    if (status != PMIX_SUCCESS)
        ps.reg_status = status;
    ps.registering--;
    pthread_cond_signal (&ps.cond);
    pthread_mutex_unlock (&ps.lock);
}

static void ps_wait_registered (void)
{
    pthread_mutex_lock (&ps.lock);
    while (ps.registering > 0)
        pthread_cond_wait (&ps.cond, &ps.lock);
    pthread_mutex_unlock (&ps.lock);
}

/* A growing info array. */
struct infos {
    pmix_info_t *v;
    size_t n, cap;
};

static pmix_info_t *infos_add (struct infos *a)
{
    if (a->n == a->cap) {
        pmix_info_t *nv;
        a->cap = a->cap ? 2 * a->cap : 32;
        PMIX_INFO_CREATE (nv, a->cap);
        for (size_t i = 0; i < a->n; i++)
            PMIX_INFO_XFER (&nv[i], &a->v[i]);
        if (a->v)
            PMIX_INFO_FREE (a->v, a->n);
        a->v = nv;
    }
    return &a->v[a->n++];
}

static void add_u32 (struct infos *a, const char *key, uint32_t v)
{
    PMIX_INFO_LOAD (infos_add (a), key, &v, PMIX_UINT32);
}

static void add_u16 (struct infos *a, const char *key, uint16_t v)
{
    PMIX_INFO_LOAD (infos_add (a), key, &v, PMIX_UINT16);
}

static void add_str (struct infos *a, const char *key, const char *v)
{
    PMIX_INFO_LOAD (infos_add (a), key, v, PMIX_STRING);
}

/* rank's PMIX_PROC_DATA: its ranks, and where it runs. */
static void add_proc (struct infos *a, const struct pmixsrv_step *s, int rank)
{
    struct infos p = { 0 };
    pmix_data_array_t *d;
    pmix_rank_t r = (pmix_rank_t)rank;
    int local = 0;

    for (int i = 0; i < rank; i++)
        local += s->task_node[i] == s->task_node[rank];
    PMIX_INFO_LOAD (infos_add (&p), PMIX_RANK, &r, PMIX_PROC_RANK);
    add_u32 (&p, PMIX_APPNUM, 0);
    add_u32 (&p, PMIX_APPLDR, 0);
    add_u32 (&p, PMIX_GLOBAL_RANK, rank);
    add_u32 (&p, PMIX_APP_RANK, rank);
    add_u16 (&p, PMIX_LOCAL_RANK, local);
    add_u16 (&p, PMIX_NODE_RANK, local);
    add_u32 (&p, PMIX_NODEID, s->task_node[rank]);
    add_str (&p, PMIX_HOSTNAME, s->nodes[s->task_node[rank]]);
    PMIX_DATA_ARRAY_CREATE (d, p.n, PMIX_INFO);
    memcpy (d->array, p.v, p.n * sizeof (pmix_info_t));
    free (p.v); /* its contents now belong to d */
    PMIX_INFO_LOAD (infos_add (a), PMIX_PROC_DATA, d, PMIX_DATA_ARRAY);
    PMIX_DATA_ARRAY_FREE (d); /* PMIX_INFO_LOAD copied it */
}

/* The node map ("n1,n2") and process map ("0,1;2,3") as libpmix's regexes. */
static int add_maps (struct infos *a, const struct pmixsrv_step *s)
{
    size_t len = 16, o = 0;
    char *in, *re = NULL;
    int rc;

    for (int k = 0; k < s->nnodes; k++)
        len += strlen (s->nodes[k]) + 1;
    len += (size_t)s->ntasks * 12 + s->nnodes;
    in = xzalloc (len);
    for (int k = 0; k < s->nnodes; k++)
        o += snprintf (in + o, len - o, "%s%s", k ? "," : "", s->nodes[k]);
    if ((rc = PMIx_generate_regex (in, &re)) != PMIX_SUCCESS)
        goto done;
    add_str (a, PMIX_NODE_MAP, re);
    free (re);
    o = 0;
    for (int k = 0; k < s->nnodes; k++) {
        int first = 1;
        o += snprintf (in + o, len - o, "%s", k ? ";" : "");
        for (int t = 0; t < s->ntasks; t++)
            if (s->task_node[t] == k) {
                o += snprintf (in + o, len - o, "%s%d", first ? "" : ",", t);
                first = 0;
            }
    }
    if ((rc = PMIx_generate_ppn (in, &re)) != PMIX_SUCCESS)
        goto done;
    add_str (a, PMIX_PROC_MAP, re);
    free (re);
done:
    free (in);
    return rc == PMIX_SUCCESS ? 0 : -1;
}

/* The job-level keys, then each rank's. */
static int step_infos (const struct pmixsrv_step *s, struct infos *a, int *nlocal)
{
    char peers[16384];
    size_t o = 0;
    int leader = -1;

    *nlocal = 0;
    peers[0] = '\0';
    for (int t = 0; t < s->ntasks; t++)
        if (s->task_node[t] == s->nodeid) {
            o += snprintf (peers + o, o < sizeof (peers) ? sizeof (peers) - o : 0,
                           "%s%d", o ? "," : "", t);
            if (leader < 0)
                leader = t;
            (*nlocal)++;
        }
    if (o >= sizeof (peers) || *nlocal == 0)
        return -1;
    add_str (a, PMIX_JOBID, s->jobid);
    add_u32 (a, PMIX_NODEID, s->nodeid);
    add_str (a, PMIX_HOSTNAME, s->nodes[s->nodeid]);
    add_u32 (a, PMIX_UNIV_SIZE, s->ntasks);
    add_u32 (a, PMIX_JOB_SIZE, s->ntasks);
    add_u32 (a, PMIX_APP_SIZE, s->ntasks);
    add_u32 (a, PMIX_MAX_PROCS, s->ntasks);
    add_u32 (a, PMIX_LOCAL_SIZE, *nlocal);
    add_u32 (a, PMIX_NODE_SIZE, *nlocal);
    add_u32 (a, PMIX_NUM_NODES, s->nnodes);
    add_u32 (a, PMIX_APPNUM, 0);
    add_u32 (a, PMIX_APPLDR, 0);
    add_str (a, PMIX_LOCAL_PEERS, peers);
    add_u32 (a, PMIX_LOCALLDR, leader);
    add_str (a, PMIX_TMPDIR, s->tmpdir);
    add_str (a, PMIX_NSDIR, s->tmpdir);
    if (add_maps (a, s) < 0)
        return -1;
    for (int t = 0; t < s->ntasks; t++)
        add_proc (a, s, t);
    return 0;
}

int pmixsrv_start (const struct pmixsrv_step *s, pmixsrv_fence_f fence,
                   pmixsrv_abort_f abort_cb, void *arg, struct hpcq_error *err)
{
    struct infos init = { 0 }, job = { 0 };
    pmix_status_t rc;
    int nlocal;
    bool no = false;

    ps.fence = fence;
    ps.abort_cb = abort_cb;
    ps.arg = arg;
    snprintf (ps.nspace, sizeof (ps.nspace), "%s", s->nspace);
    add_str (&init, PMIX_SERVER_TMPDIR, s->tmpdir);
    PMIX_INFO_LOAD (infos_add (&init), PMIX_SERVER_TOOL_SUPPORT, &no, PMIX_BOOL);
    PMIX_INFO_LOAD (infos_add (&init), PMIX_SERVER_SYSTEM_SUPPORT, &no, PMIX_BOOL);
    rc = PMIx_server_init (&ps_module, init.v, init.n);
    PMIX_INFO_FREE (init.v, init.n);
    if (rc != PMIX_SUCCESS)
        return errprintf (err, "PMIx_server_init: %s", PMIx_Error_string (rc));
    ps.started = 1;
    if (step_infos (s, &job, &nlocal) < 0) {
        if (job.v)
            PMIX_INFO_FREE (job.v, job.n);
        return errprintf (err, "the step's maps do not fit PMIx");
    }
    ps.registering = 1 + nlocal;
    rc = PMIx_server_register_nspace (s->nspace, nlocal, job.v, job.n, ps_registered,
                                      NULL);
    if (rc != PMIX_SUCCESS)
        ps_registered (rc, NULL);
    for (int t = 0; t < s->ntasks; t++) {
        pmix_proc_t p;
        if (s->task_node[t] != s->nodeid)
            continue;
        PMIX_LOAD_PROCID (&p, s->nspace, t);
        rc = PMIx_server_register_client (&p, getuid (), getgid (), NULL, ps_registered,
                                          NULL);
        if (rc != PMIX_SUCCESS)
            ps_registered (rc, NULL);
    }
    ps_wait_registered ();
    PMIX_INFO_FREE (job.v, job.n);
    if (ps.reg_status != PMIX_SUCCESS)
        return errprintf (err, "PMIx registration: %s",
                          PMIx_Error_string (ps.reg_status));
    return 0;
}

int pmixsrv_fork_env (int rank, char ***env, struct hpcq_error *err)
{
    pmix_proc_t p;
    pmix_status_t rc;

    PMIX_LOAD_PROCID (&p, ps.nspace, rank);
    if ((rc = PMIx_server_setup_fork (&p, env)) != PMIX_SUCCESS)
        return errprintf (err, "PMIx_server_setup_fork: %s", PMIx_Error_string (rc));
    return 0;
}

static void ps_release (void *cbdata)
{
    free (cbdata);
}

void pmixsrv_fence_done (const unsigned char *data, size_t len)
{
    pmix_modex_cbfunc_t cb;
    void *cbdata;
    char *copy = malloc (len ? len : 1);

    pthread_mutex_lock (&ps.lock);
    cb = ps.fence_cb;
    cbdata = ps.fence_cbdata;
    ps.fence_cb = NULL;
    pthread_mutex_unlock (&ps.lock);
    if (!cb) {
        free (copy);
        return;
    }
    if (!copy) {
        cb (PMIX_ERR_NOMEM, NULL, 0, cbdata, NULL, NULL);
        return;
    }
    memcpy (copy, data, len);
    /* libpmix reads the data until it calls ps_release. */
    cb (PMIX_SUCCESS, copy, len, cbdata, ps_release, copy);
}

void pmixsrv_stop (void)
{
    if (ps.started)
        (void)PMIx_server_finalize ();
    ps.started = 0;
}
