/* resource.h - what a job asks for: PBS resource lists parsed into numbers.
 *
 * Accepts the PBS Pro and Torque spellings users already write:
 *   -l select=2:ncpus=4:mem=8gb:ngpus=1+1:ncpus=1
 *   -l nodes=2:ppn=4:gpus=1   (Torque: converted as PBS Pro does, torque.h)
 *   -l walltime=01:30:00,mem=4gb,ncpus=8
 *   -l place=scatter
 * and keeps them as chunks (one per select term), each with a repeat count.
 * Job-wide ncpus/mem/ngpus without select become one chunk.  Memory is in
 * bytes, walltime in seconds.
 */
#ifndef HPCQ_COMMON_RESOURCE_H
#define HPCQ_COMMON_RESOURCE_H

#include <stdint.h>

#include "common/error.h"

/* Select terms in one request ("A+B+..."); each term has its own count,
 * so this bounds the parsing, not the size of a job: select=4096:ncpus=64
 * is one term. */
#define HPCQ_MAX_CHUNKS 4096

struct hpcq_chunk {
    int count;    /* how many of this chunk (select=N), >= 1 */
    int ncpus;    /* cores per chunk, >= 1 (default 1) */
    int64_t mem;  /* bytes per chunk, 0 = not requested */
    int ngpus;    /* GPUs per chunk, >= 0 */
    int mpiprocs; /* MPI ranks per chunk (PBS_NODEFILE lines), default 1 */
    /* OpenMP threads per rank (the job's OMP_NUM_THREADS and NCPUS, as
     * PBS Pro sets them); 0 = not asked: the chunk's ncpus, PBS Pro's
     * default.  Read with chunk_ompthreads(). */
    int ompthreads;
    /* Both interned (resource_intern), so a request stays a plain value
     * to copy and costs a pointer, not a buffer, per chunk; NULL = "".
     * Read them with chunk_model() and chunk_mig().
     * gpu_model: "" = any model; else the GPUs must be of a model whose
     * name holds this (case-insensitive: gpu_model=a100 matches "NVIDIA
     * A100-SXM4-40GB").  mig: "" = none; else one MIG instance of this
     * profile ("1g.5gb", "3g.20gb") per chunk.  Whole GPUs (ngpus) and a
     * MIG instance do not mix in one chunk: resource_finalize refuses
     * ngpus > 0 with mig. */
    const char *gpu_model;
    const char *mig;
    /* Also interned, NULL = "".  host: only the node of this name
     * (host=NAME; Torque's nodes=NAME).  labels: comma-separated node
     * labels the node must carry (PBS's NAME=True; Torque's node
     * properties, nodes=2:bigmem).  Read with chunk_host(), chunk_labels(). */
    const char *host;
    const char *labels;
};

#define HPCQ_GPU_MODEL_MAX 47 /* characters in a gpu_model */
#define HPCQ_MIG_MAX 15       /* in a MIG profile name */

static inline const char *chunk_model (const struct hpcq_chunk *c)
{
    return c->gpu_model ? c->gpu_model : "";
}

static inline const char *chunk_mig (const struct hpcq_chunk *c)
{
    return c->mig ? c->mig : "";
}

static inline int chunk_ompthreads (const struct hpcq_chunk *c)
{
    return c->ompthreads > 0 ? c->ompthreads : c->ncpus;
}

static inline const char *chunk_host (const struct hpcq_chunk *c)
{
    return c->host ? c->host : "";
}

static inline const char *chunk_labels (const struct hpcq_chunk *c)
{
    return c->labels ? c->labels : "";
}

#define HPCQ_HOST_MAX 63 /* characters in a host= name */

/* The one copy of s this process keeps (never freed): equal texts give
 * the same pointer.  Safe from several threads.  NULL with errno ENOSPC
 * once RESOURCE_INTERN_MAX different texts are kept (requests naming
 * ever new models cannot grow it without bound). */
#define RESOURCE_INTERN_MAX 4096
const char *resource_intern (const char *s);

/* A request owns its chunk list, sized to it (resource_release frees it):
 * copy one with resource_copy, not by assignment, unless the copy only
 * borrows it (an array's subjobs share their array's request). */
/* What -l spot= asks of spot nodes (scheduler/policy/spotcost.h). */
enum res_spot_want {
    RES_SPOT_ANY = 0, /* the expected cost decides */
    RES_SPOT_PREFER,  /* spot nodes first */
    RES_SPOT_REQUIRE, /* spot nodes only (spot=true) */
    RES_SPOT_AVOID,   /* on-demand nodes first */
    RES_SPOT_NEVER,   /* on-demand nodes only (spot=false) */
};

struct hpcq_resources {
    int nchunks;              /* 0 = nothing asked: one default chunk */
    struct hpcq_chunk *chunk; /* nchunks of them, NULL if none */
    int64_t walltime;         /* seconds; -1 = not requested */
    char place[32];           /* "" or free|pack|scatter[:excl] */
    /* Job-wide values given outside select (-l ncpus=4,mem=2gb), kept so a
     * later select or the default chunk can use them.  -1 = not given. */
    int job_ncpus;
    int64_t job_mem;
    int job_ngpus;
    /* Torque's spelling: the chunks came from nodes= or procs=, so the
     * job-wide ncpus, mem, vmem (whole job) and pmem, pvmem (per process)
     * are spread over them at finalize as PBS Pro converts them
     * (torque.h).  -1 = not given. */
    int torque;
    int64_t job_vmem, job_pmem, job_pvmem;
    /* Which spellings this request used (RESOURCE_SAID_*), so that mixing
     * select= with nodes=/procs= is refused as PBS Pro refuses it, rather
     * than the later one silently replacing the other.  Not stored. */
    int said;
    /* -l spot=true|false: only spot nodes (1), never spot nodes (0), or
     * either (-1, not asked).  spot_want says it in full (RES_SPOT_*):
     * require (true), never (false), and the soft prefer and avoid. */
    int spot;
    int spot_want;
    /* Not part of the request: the preference of the job's queue (its
     * node_preference, set for each scheduling pass): 1 spot nodes, 0
     * on-demand nodes first, -1 none.  Placement takes a preferred node
     * over any other that fits.  force_spot, likewise set each pass
     * (scheduler/spot_choice.h): -1, or only spot (1) or on-demand (0)
     * nodes, as spot would (after spot_max_reclaims). */
    int prefer_spot;
    int force_spot;
    /* Binding inside a node (worker/cores.h), as Slurm's --gpu-bind and
     * --cpu-bind: gpu_bind "" or "closest" (the default: cores near the
     * job's GPUs) or "none"; cpu_bind "" or "cores" (the default: the
     * job's cpuset holds its cores) or "none" (counted, not fenced). */
    char gpu_bind[8];
    char cpu_bind[8];
    /* An OCI container to run the job in (docs/containers.md), interned,
     * NULL = none: container_image, a local OCI image layout ("/path" or
     * "/path:tag"); container_mounts, "SRC:DST[:ro]+..." bind mounts;
     * container_workdir, the working directory inside (default the job's
     * own, mounted at the same path). */
    const char *container_image;
    const char *container_mounts;
    const char *container_workdir;
};

#define RESOURCE_SAID_SELECT 1
#define RESOURCE_SAID_NODES 2 /* nodes= or procs=, Torque's (old) syntax */

/* Set res to "nothing requested" (it owns nothing yet). */
void resource_init (struct hpcq_resources *res);

/* Free res's chunk list and set it to "nothing requested".  NULL is fine. */
void resource_release (struct hpcq_resources *res);

/* Make dst (not yet holding a list) a copy of src with a list of its own.
 * 0, or -1 with errno ENOMEM (dst then holds nothing). */
int resource_copy (struct hpcq_resources *dst, const struct hpcq_resources *src);

/* A new chunk at the end of res's list, set to the defaults (count 1,
 * ncpus 1, mpiprocs 1), or NULL with err when the list is full or memory
 * is short.  For parsers of other spellings (torque.c). */
struct hpcq_chunk *resource_add_chunk (struct hpcq_resources *res,
                                       struct hpcq_error *err);

/* Parse one -l argument (comma separated key=value list) into res, on top
 * of what is already there (later values override).  Unknown resource
 * names, malformed values, negative or zero counts are errors.
 * Returns 0, or -1 with err filled.
 */
int resource_parse_list (struct hpcq_resources *res, const char *arg,
                         struct hpcq_error *err);

/* After all -l options: build the final chunk list (job-wide ncpus/mem/
 * ngpus become one chunk when no select/nodes was given; otherwise they
 * must agree with it) and check it.  Returns 0 or -1 with err. */
int resource_finalize (struct hpcq_resources *res, struct hpcq_error *err);

/* Add the node label name to chunk c's labels.  0 or -1 with err. */
int resource_chunk_add_label (struct hpcq_chunk *c, const char *name,
                              struct hpcq_error *err);

/* 0 if s may be a host= name or a node label (letters, digits, '-', '_',
 * '.'; 1 to HPCQ_HOST_MAX characters), -1 with err naming what. */
int resource_check_word (const char *what, const char *s, struct hpcq_error *err);

/* Totals over all chunks (count * per-chunk value). */
int resource_total_ncpus (const struct hpcq_resources *res);
int64_t resource_total_mem (const struct hpcq_resources *res);
int resource_total_ngpus (const struct hpcq_resources *res);
int resource_total_chunks (const struct hpcq_resources *res);

/* A PBS boolean (true, t, yes, y, 1; false, f, no, n, 0; any case): 1,
 * 0, or -1 if s is neither. */
int resource_parse_bool (const char *s);

/* The longest walltime a job may ask for, in seconds: 2^31 - 1 (about 68
 * years).  Bounded so that every use of it stays far inside int64_t: the
 * worker's timer in milliseconds, a start time plus the walltime in the
 * scheduler's backfill. */
#define RESOURCE_WALLTIME_MAX INT64_C (2147483647)

/* "[[HH:]MM:]SS" or plain seconds -> seconds, at most
 * RESOURCE_WALLTIME_MAX.  Returns -1 with err. */
int resource_parse_walltime (const char *s, int64_t *secs, struct hpcq_error *err);

/* PBS size: integer with optional unit b,kb,mb,gb,tb,pb,w,kw,mw,gw,tw
 * (case-insensitive, k = 1024; no unit = bytes) -> bytes. */
int resource_parse_size (const char *s, int64_t *bytes, struct hpcq_error *err);

/* Formatting for qstat: "HH:MM:SS" and PBS sizes ("4gb", "512kb"). */
void resource_format_walltime (int64_t secs, char *buf, int len);
void resource_format_size (int64_t bytes, char *buf, int len);

/* 0 if s is a MIG profile name: "<slices>g.<memory>gb" with 1-8 compute
 * slices (e.g. 1g.5gb, 3g.20gb, 1g.18gb), -1 with err otherwise. */
int resource_check_mig (const char *s, struct hpcq_error *err);

/* The select statement as PBS shows it: "2:ncpus=4:mem=8gb+1:ncpus=1". */
void resource_format_select (const struct hpcq_resources *res, char *buf, int len);

#endif
