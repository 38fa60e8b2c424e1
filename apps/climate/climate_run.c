/* climate_run.c - see climate_run.h.
 *
 * The clock is the step count: time(n) = n dt, except the last step ends
 * exactly at --sim-time.  A checkpoint therefore needs only the fields and
 * the step to continue bitwise.  Signals only set flags; the loop looks at
 * them between steps and every rank agrees on them through one reduction
 * per step, so all ranks checkpoint or stop at the same step.
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "apps/climate/climate_ckpt.h"
#include "apps/climate/climate_comm.h"
#include "apps/climate/climate_gpu.h"
#include "apps/climate/climate_model.h"
#include "apps/climate/climate_output.h"
#include "apps/climate/climate_run.h"
#include "apps/climate/climate_step.h"

enum { WANT_CKPT = 1, WANT_STOP = 2 };

static volatile sig_atomic_t sig_bits;

static void on_signal (int sig)
{
    sig_bits |= (sig == SIGTERM) ? (WANT_CKPT | WANT_STOP) : WANT_CKPT;
}

struct climate_run {
    struct climate_opts opts;
    struct climate_comm *comm;
    struct climate_model *m;
    struct climate_output *out;
    double *global; /* rank 0: gathered fields */
    long nsteps;
    struct ckptfile_store store; /* rank 0's checkpoints */
    double mass0, mass_bg, energy0;
    double last_ckpt_wall;
    double wall0;
    long step0;
};

static double wall_now (void)
{
    struct timespec ts;

    clock_gettime (CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* Make every rank see rank 0's verdict (and message). */
static int agree (struct climate_comm *c, int rc, struct hpcq_error *err)
{
    climate_comm_bcast (c, &rc, sizeof (rc));
    if (rc < 0 && err)
        climate_comm_bcast (c, err->text, sizeof (err->text));
    return rc;
}

static double time_at (struct climate_run *r, long n)
{
    return n >= r->nsteps ? r->opts.sim_time : n * r->m->dt;
}

static const struct climate_backend *pick_backend (const struct climate_opts *o,
                                                   struct hpcq_error *err)
{
    char why[200];
    const char *lr = getenv ("OMPI_COMM_WORLD_LOCAL_RANK");
    const struct climate_backend *be;

    if (o->device == CLIMATE_DEV_CPU)
        return &climate_cpu_backend;
    be = climate_gpu_backend (lr ? atoi (lr) : 0, why, sizeof (why));
    if (be)
        return be;
    if (o->device == CLIMATE_DEV_GPU) {
        errprintf_code (err, ENODEV, "--gpu: no usable GPU (%s)", why);
        return NULL;
    }
    return &climate_cpu_backend;
}

static void global_sums (struct climate_run *r, double *mp, double *mb, double *en)
{
    climate_model_sums (r->m, mp, mb, en);
    *mp = climate_comm_sum (r->comm, *mp);
    *mb = climate_comm_sum (r->comm, *mb);
    *en = climate_comm_sum (r->comm, *en);
}

static void fill_meta (struct climate_run *r, struct climate_ckpt_meta *meta)
{
    memset (meta, 0, sizeof (*meta));
    snprintf (meta->case_name, sizeof (meta->case_name), "%s", r->m->cas->name);
    meta->nx = r->m->nx;
    meta->nz = r->m->nz;
    meta->nranks = r->comm->size;
    meta->step = r->m->step;
    meta->time = r->m->time;
    meta->dt = r->m->dt;
    meta->mass0_prime = r->mass0;
    meta->mass_bg = r->mass_bg;
    meta->energy0 = r->energy0;
}

/* Restore the newest valid checkpoint.  Returns 0 (restored or none; a
 * folder of damaged checkpoints only is reported and counts as none), -1
 * for a foreign checkpoint. */
static int restore (struct climate_run *r, struct hpcq_error *err)
{
    struct climate_ckpt_meta want, meta;
    const double *fields = NULL;
    void *buf = NULL;
    char path[4200] = "";
    int rc = 0;

    fill_meta (r, &want);
    if (r->comm->rank == 0) {
        rc = climate_ckpt_read (&r->store, &want, &meta, &fields, &buf, path,
                                sizeof (path), err);
        if (rc < 0 && errno == EBADMSG) {
            fprintf (stderr, "hpcq-climate: %s\n", err->text);
            rc = 0;
        }
    }
    rc = agree (r->comm, rc, err);
    if (rc < 0)
        return -1;
    if (rc == 0) {
        if (r->comm->rank == 0 && !r->opts.quiet)
            printf ("no checkpoint in %s: starting from the beginning\n",
                    r->opts.checkpoint_dir);
        return 0;
    }
    climate_comm_bcast (r->comm, &meta, sizeof (meta));
    climate_comm_scatter (r->comm, r->m, fields);
    free (buf);
    r->m->step = meta.step;
    r->m->time = meta.time;
    r->mass0 = meta.mass0_prime;
    r->mass_bg = meta.mass_bg;
    r->energy0 = meta.energy0;
    if (r->comm->rank == 0 && !r->opts.quiet)
        printf ("restarted from %s at step %ld, t = %.6g s\n", path, (long)meta.step,
                meta.time);
    return 0;
}

static int setup_model (struct climate_run *r, struct hpcq_error *err)
{
    const struct climate_opts *o = &r->opts;
    struct climate_comm *c = r->comm;
    const struct climate_backend *be = pick_backend (o, err);
    int i0, nxl;

    if (!be)
        return -1;
    climate_comm_slab (c->size, c->rank, o->nx, &i0, &nxl);
    if (o->nx / c->size < CL_HS)
        return errprintf_code (err, EINVAL,
                               "grid too small for %d ranks: "
                               "--nx %d gives fewer than %d columns per rank",
                               c->size, o->nx, CL_HS);
    r->m = climate_model_create (climate_case_find (o->case_name), be, o->nx, o->nz, i0,
                                 nxl);
    if (!r->m)
        return errprintf (err, "cannot allocate a %d x %d grid", o->nx, o->nz);
    r->nsteps = (long)ceil (o->sim_time / r->m->dt - 1e-9);
    if (r->nsteps < 1)
        r->nsteps = 1;
    return 0;
}

struct climate_run *climate_run_create (const struct climate_opts *o,
                                        struct climate_comm *c, struct hpcq_error *err)
{
    struct climate_run *r = calloc (1, sizeof (*r));
    int rc = 0;

    if (!r) {
        errprintf (err, "out of memory");
        return NULL;
    }
    r->opts = *o;
    r->comm = c;
    r->store = (struct ckptfile_store){ r->opts.checkpoint_dir, "climate",
                                        r->opts.checkpoint_keep, "hpcq-climate" };
    if (agree (c, setup_model (r, err), err) < 0)
        goto fail;
    if (c->rank == 0) {
        r->global = malloc ((size_t)CL_NV * o->nx * o->nz * sizeof (double));
        if (!r->global)
            rc = errprintf (err, "out of memory for the output buffer");
    }
    if (agree (c, rc, err) < 0)
        goto fail;
    global_sums (r, &r->mass0, &r->mass_bg, &r->energy0);
    if (o->restart && restore (r, err) < 0)
        goto fail;
    if (o->output && c->rank == 0) {
        /* extend the file only when continuing a run that wrote it */
        r->out = climate_output_open (o->output, r->m, r->m->step > 0, r->m->time, err);
        rc = r->out ? 0 : -1;
    }
    if (agree (c, rc, err) < 0)
        goto fail;
    if (r->m->be != &climate_cpu_backend)
        climate_gpu_prefetch (r->m);
    return r;
fail:
    climate_run_destroy (r);
    return NULL;
}

void climate_run_destroy (struct climate_run *r)
{
    if (!r)
        return;
    climate_output_close (r->out, NULL);
    climate_model_destroy (r->m);
    free (r->global);
    free (r);
}

static int write_snapshot (struct climate_run *r, struct hpcq_error *err)
{
    int rc = 0;

    if (climate_comm_gather (r->comm, r->m, r->global) < 0)
        rc = errprintf (err, "out of memory gathering a snapshot");
    else if (r->comm->rank == 0)
        rc = climate_output_write (r->out, r->m, r->m->time, r->global, err);
    return agree (r->comm, rc, err);
}

static int write_checkpoint (struct climate_run *r, struct hpcq_error *err)
{
    struct climate_ckpt_meta meta;
    char path[4200] = "";
    int rc = 0;

    fill_meta (r, &meta);
    if (climate_comm_gather (r->comm, r->m, r->global) < 0)
        rc = errprintf (err, "out of memory gathering a checkpoint");
    else if (r->comm->rank == 0)
        rc = climate_ckpt_write (&r->store, &meta, r->global, path, sizeof (path), err);
    rc = agree (r->comm, rc, err);
    if (rc == 0 && r->comm->rank == 0 && !r->opts.quiet)
        printf ("checkpoint at step %ld, t = %.6g s -> %s\n", r->m->step, r->m->time,
                path);
    fflush (stdout);
    r->last_ckpt_wall = wall_now ();
    return rc;
}

/* Is a snapshot due after the step that ended at t1 (began at t0)? */
static int snapshot_due (struct climate_run *r, double t0, double t1)
{
    if (!r->opts.output)
        return 0;
    if (r->m->step == r->nsteps)
        return 1;
    if (r->opts.out_every <= 0)
        return 0;
    return floor (t1 / r->opts.out_every + 1e-9)
           > floor (t0 / r->opts.out_every + 1e-9);
}

static int wanted (struct climate_run *r)
{
    const struct climate_opts *o = &r->opts;
    int bits = sig_bits;

    sig_bits = 0;
    if (o->checkpoint_every && r->m->step % o->checkpoint_every == 0)
        bits |= WANT_CKPT;
    if (o->checkpoint_interval > 0 && r->comm->rank == 0
        && wall_now () - r->last_ckpt_wall >= o->checkpoint_interval)
        bits |= WANT_CKPT;
    if (o->stop_after && r->m->step - r->step0 >= o->stop_after
        && r->m->step < r->nsteps)
        bits |= WANT_CKPT | WANT_STOP;
    return climate_comm_or (r->comm, bits);
}

static void progress (struct climate_run *r)
{
    long n = r->m->step, every = r->nsteps / 10;

    if (r->opts.quiet || r->comm->rank != 0)
        return;
    if (every < 1)
        every = 1;
    /* the first step of a run is always shown: scripts wait for it */
    if (n % every == 0 || n == r->nsteps || n == r->step0 + 1) {
        printf ("step %ld/%ld t = %.6g s\n", n, r->nsteps, r->m->time);
        fflush (stdout);
    }
}

static void print_start (struct climate_run *r)
{
    struct climate_model *m = r->m;

    if (r->opts.quiet || r->comm->rank != 0)
        return;
    printf ("hpcq-climate: case %s, grid %d x %d (dx %.6g m, dz %.6g m), "
            "dt %.6g s, %ld steps to t = %.6g s, %s back end, %d rank%s\n",
            m->cas->name, m->nx, m->nz, m->dx, m->dz, m->dt, r->nsteps,
            r->opts.sim_time, m->be->name, r->comm->size,
            r->comm->size == 1 ? "" : "s");
    fflush (stdout);
}

int climate_run_loop (struct climate_run *r, struct hpcq_error *err)
{
    struct climate_model *m = r->m;
    struct sigaction sa;

    memset (&sa, 0, sizeof (sa));
    sa.sa_handler = on_signal;
    sigemptyset (&sa.sa_mask);
    sigaction (SIGUSR1, &sa, NULL);
    sigaction (SIGTERM, &sa, NULL);
    print_start (r);
    r->last_ckpt_wall = r->wall0 = wall_now ();
    r->step0 = m->step;
    if (m->step == 0 && r->opts.output && write_snapshot (r, err) < 0)
        return 1;
    while (m->step < r->nsteps) {
        double t0 = time_at (r, m->step), t1 = time_at (r, m->step + 1);
        climate_step (m, r->comm, t1 - t0);
        m->step++;
        m->time = t1;
        progress (r);
        if (snapshot_due (r, t0, t1) && write_snapshot (r, err) < 0)
            return 1;
        int bits = wanted (r);
        if ((bits & WANT_CKPT) && write_checkpoint (r, err) < 0)
            return 1;
        if (bits & WANT_STOP) {
            if (r->comm->rank == 0)
                printf ("stopped at step %ld after a checkpoint\n", m->step);
            return 143;
        }
    }
    m->be->sync ();
    return 0;
}

int climate_run_report (struct climate_run *r, struct hpcq_error *err)
{
    struct climate_model *m = r->m;
    double mp, mb, en, wall = wall_now () - r->wall0;
    int rc = 0;

    global_sums (r, &mp, &mb, &en);
    if (r->opts.dump && climate_comm_gather (r->comm, m, r->global) < 0)
        rc = errprintf (err, "out of memory gathering the final state");
    if (r->comm->rank != 0)
        return agree (r->comm, rc, err);
    double total0 = r->mass_bg + r->mass0;
    printf ("mass: start %.15e end %.15e kg/m, relative change %+.3e\n", total0,
            mb + mp, (mp - r->mass0) / total0);
    printf ("energy: start %.15e end %.15e J/m, relative change %+.3e\n", r->energy0,
            en, (en - r->energy0) / r->energy0);
    long steps = m->step - r->step0;
    if (!r->opts.quiet && wall > 0)
        printf ("performance: %ld steps in %.3f s, %.4g cell-updates/s\n", steps, wall,
                (double)m->nx * m->nz * steps / wall);
    if (rc == 0 && r->opts.dump) {
        FILE *f = fopen (r->opts.dump, "wb");
        size_t n = (size_t)CL_NV * m->nx * m->nz;
        if (!f || fwrite (r->global, sizeof (double), n, f) != n)
            rc = errprintf (err, "cannot write '%s': %s", r->opts.dump,
                            strerror (errno));
        if (f && fclose (f) != 0 && rc == 0)
            rc = errprintf (err, "cannot write '%s': %s", r->opts.dump,
                            strerror (errno));
    }
    fflush (stdout);
    return agree (r->comm, rc, err);
}
