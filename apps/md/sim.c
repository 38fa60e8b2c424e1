/* sim.c - see sim.h.  The step loop is velocity-Verlet with neighbour
 * lists rebuilt by LAMMPS's rule; everything else hangs off it between
 * steps: thermo output, checkpoints, trajectory frames, signals.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "apps/md/checkpoint.h"
#include "apps/md/comm.h"
#include "apps/md/datafile.h"
#include "apps/md/dump.h"
#include "apps/md/lattice.h"
#include "apps/md/sim.h"
#include "apps/md/thermostat.h"

static volatile sig_atomic_t got_usr1, got_term;

static void on_signal (int sig)
{
    if (sig == SIGUSR1)
        got_usr1 = 1;
    else
        got_term = 1;
}

void sim_signals_install (void)
{
    struct sigaction sa;
    memset (&sa, 0, sizeof (sa));
    sa.sa_handler = on_signal;
    sigemptyset (&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction (SIGUSR1, &sa, NULL);
    sigaction (SIGTERM, &sa, NULL);
}

static int sim_pick_backend (struct md_sim *s, struct hpcq_error *err)
{
    char why[256] = "";
    const struct md_backend_ops *gpu = NULL;
    s->ops = &md_backend_cpu;
    if (s->p.backend == MD_BACKEND_CPU)
        return 0;
    if (!system_is_reduced_lj (&s->sys))
        snprintf (why, sizeof (why),
                  "the GPU back end runs one atom type of mass 1 "
                  "with epsilon = sigma = 1");
    else if ((gpu = md_backend_gpu (why, sizeof (why)))) {
        s->ops = gpu;
        return 0;
    }
    if (s->p.backend == MD_BACKEND_GPU)
        return errprintf (err, "--gpu: no usable GPU: %s", why);
#ifdef HAVE_CUDA
    if (comm_rank () == 0)
        fprintf (stderr, "hpcq-md: no usable GPU (%s); using the CPU\n", why);
#endif
    return 0;
}

/* A fresh start: the data file's atoms, or the lattice's with random
 * velocities. */
static int sim_fresh (struct md_sim *s, struct hpcq_error *err)
{
    s->step = s->last_build = 0;
    if (s->p.data[0]) {
        long n;
        if (datafile_read_atoms (s->p.data, &s->sys, s->dom, s->a, err) < 0)
            return -1;
        n = s->a->nlocal;
        comm_sum_long (&n, 1);
        if (n != s->natoms)
            return errprintf (err, "data file '%s': %ld of its %ld atoms placed",
                              s->p.data, n, s->natoms);
        return 0;
    }
    if (lattice_create (&s->p, s->dom, s->a) < 0)
        return errprintf (err, "out of memory creating %ld atoms", s->natoms);
    lattice_velocities (&s->p, s->a, s->natoms);
    return 0;
}

/* The box, types and masses: from the data file or the lattice options. */
static int sim_system (struct md_sim *s, struct hpcq_error *err)
{
    if (s->p.data[0]) {
        if (datafile_read_system (s->p.data, s->p.cutoff, &s->sys, err) < 0)
            return -1;
    } else if (system_lattice (&s->sys, &s->p) < 0) {
        return errprintf (err, "out of memory");
    }
    for (int d = 0; d < 3; d++) {
        double len = s->sys.hi[d] - s->sys.lo[d];
        if (s->p.cutoff > 0.5 * len)
            return errprintf (err,
                              "cutoff %g is larger than half the box "
                              "(%g along %c)",
                              s->p.cutoff, 0.5 * len, "xyz"[d]);
    }
    s->natoms = s->sys.natoms;
    s->dof = 3.0 * s->natoms - 3.0;
    s->volume = system_volume (&s->sys);
    if (!(s->dtfm = malloc ((s->sys.ntypes + 1) * sizeof (double))))
        return errprintf (err, "out of memory");
    /* LAMMPS: dtf = 0.5 dt ftm2v (1 in lj units), dtfm = dtf / mass */
    for (int t = 1; t <= s->sys.ntypes; t++)
        s->dtfm[t] = 0.5 * s->p.dt / s->sys.mass[t];
    return 0;
}

static int sim_setup (struct md_sim *s, int *status, struct hpcq_error *err)
{
    *status = MD_EXIT_USAGE;
    if (sim_system (s, err) < 0
        || !(s->dom =
                 domain_create (s->sys.lo, s->sys.hi, s->p.cutoff + s->p.skin, err)))
        return -1;
    if (sim_pick_backend (s, err) < 0) {
        *status = MD_EXIT_FAIL;
        return -1;
    }
    *status = MD_EXIT_FAIL;
    if (!(s->a = atoms_create (s->ops->mem))
        || !(s->nl = neigh_create (s->p.cutoff + s->p.skin, s->ops != &md_backend_cpu))
        || !(s->fc = force_create (s->p.cutoff, &s->sys)))
        return errprintf (err, "out of memory");
    if (s->p.restart != MD_RESTART_NO) {
        int rc = checkpoint_load (s, err);
        if (rc < 0) {
            *status = errno == EBADMSG ? MD_EXIT_NO_CKPT : MD_EXIT_USAGE;
            return -1;
        }
        if (rc == 1 && s->p.restart == MD_RESTART_YES) {
            *status = MD_EXIT_USAGE;
            return errprintf (err, "no checkpoint in '%s' to restart from",
                              s->p.checkpoint_dir);
        }
        if (rc == 0)
            return 0;
    }
    if (s->p.data[0])
        *status = MD_EXIT_USAGE; /* a bad atom line is bad input */
    return sim_fresh (s, err);
}

/* Swap the current and last-build positions (pointers only). */
static void sim_swap_xb (struct md_sim *s)
{
    for (int d = 0; d < 3; d++) {
        double *t = s->a->x[d];
        s->a->x[d] = s->a->xb[d];
        s->a->xb[d] = t;
    }
}

/* Wrap, migrate, make ghosts and lists; with save_xb, remember these
 * positions as the last build's. */
static int sim_rebuild (struct md_sim *s, int save_xb, struct hpcq_error *err)
{
    struct md_atoms *a = s->a;
    s->ops->to_host (s);
    domain_wrap (s->dom, a);
    if (domain_migrate (s->dom, a) < 0)
        return errprintf (err, "an atom moved further than a neighbouring "
                               "sub-domain between list builds (lower --neigh-every)");
    if (domain_borders (s->dom, a) < 0)
        return errprintf (err, "out of memory for ghost atoms");
    if (save_xb)
        for (int d = 0; d < 3; d++)
            memcpy (a->xb[d], a->x[d], a->nlocal * sizeof (double));
    /* the back end bins on the host, then moves the data back itself */
    if (s->ops->neighbor (s) < 0)
        return errprintf (err, "out of memory for neighbour lists");
    return 0;
}

int sim_reneighbor (struct md_sim *s, struct hpcq_error *err)
{
    if (sim_rebuild (s, 1, err) < 0)
        return -1;
    s->last_build = s->step;
    s->nbuilds++;
    return 0;
}

/* After a checkpoint load: build lists at the positions of the last
 * build (as the interrupted run had them), then move ghosts to the
 * current positions, so the continuation is bitwise the same. */
static int sim_resume_lists (struct md_sim *s, struct hpcq_error *err)
{
    sim_swap_xb (s);
    int rc = sim_rebuild (s, 0, err);
    sim_swap_xb (s);
    if (rc == 0)
        s->ops->forward (s);
    return rc;
}

struct md_sim *sim_create (const struct md_params *p, int *status,
                           struct hpcq_error *err)
{
    struct md_sim *s = calloc (1, sizeof (*s));
    if (!s) {
        errprintf (err, "out of memory");
        *status = MD_EXIT_FAIL;
        return NULL;
    }
    s->p = *p;
    if (sim_setup (s, status, err) < 0)
        goto fail;
    *status = MD_EXIT_FAIL;
    if (s->ops->init (s) < 0) {
        errprintf (err, "%s back end failed to start", s->ops->name);
        goto fail;
    }
    s->start_step = s->step;
    if (s->step > 0) {
        if (sim_resume_lists (s, err) < 0)
            goto fail;
    } else {
        if (sim_reneighbor (s, err) < 0 || s->ops->force (s, 1, &s->pe, &s->vir) < 0)
            goto fail;
        s->nbuilds = 0; /* LAMMPS counts the builds of the run only */
    }
    s->t_last_ckpt = comm_wtime ();
    return s;
fail:
    sim_destroy (s);
    return NULL;
}

void sim_destroy (struct md_sim *s)
{
    if (!s)
        return;
    int saved = errno;
    if (s->ops && s->a)
        s->ops->fini (s);
    dump_close (s);
    force_destroy (s->fc);
    neigh_destroy (s->nl);
    atoms_destroy (s->a);
    domain_destroy (s->dom);
    system_release (&s->sys);
    free (s->dtfm);
    free (s);
    errno = saved;
}

/* ---- output ---- */

static void thermo_header (struct md_sim *s)
{
    if (comm_rank () == 0 && !s->p.quiet)
        printf ("Step Temp E_pair TotEng Press\n");
}

static void thermo_line (struct md_sim *s)
{
    double v[3] = { s->ops->vsq (s), s->pe, s->vir };
    comm_sum (v, 3);
    if (comm_rank () != 0 || s->p.quiet)
        return;
    double ke = 0.5 * v[0], temp = 2.0 * ke / s->dof;
    double press = (2.0 * ke + v[2]) / (3.0 * s->volume);
    int w = s->p.thermo_digits + 7, g = s->p.thermo_digits;
    printf ("%10ld %*.*g %*.*g %*.*g %*.*g\n", s->step, w, g, temp, w, g,
            v[1] / s->natoms, w, g, (v[1] + ke) / s->natoms, w, g, press);
    fflush (stdout);
}

static int is_thermo_step (const struct md_sim *s)
{
    if (s->step == s->p.steps)
        return 1;
    return s->p.thermo > 0 && s->step % s->p.thermo == 0;
}

double *sim_gather (struct md_sim *s, unsigned mask, int *ncols)
{
    int nc = 0, col[5];
    static const int width[5] = { 1, 3, 3, 3, 3 };
    for (int k = 0; k < 5; k++) {
        col[k] = nc;
        if (mask & (1u << k))
            nc += width[k];
    }
    double *t = calloc ((size_t)s->natoms * nc, sizeof (double));
    if (!t)
        return NULL;
    s->ops->to_host (s);
    const struct md_atoms *a = s->a;
    for (long i = 0; i < a->nlocal; i++) {
        double *row = t + (a->id[i] - 1) * nc;
        if (mask & MD_COL_TYPE)
            row[col[0]] = a->type[i];
        for (int d = 0; d < 3; d++) {
            if (mask & MD_COL_X)
                row[col[1] + d] = a->x[d][i];
            if (mask & MD_COL_IMG)
                row[col[2] + d] = a->img[3 * i + d];
            if (mask & MD_COL_V)
                row[col[3] + d] = a->v[d][i];
            if (mask & MD_COL_F)
                row[col[4] + d] = a->f[d][i];
        }
    }
    s->ops->to_device (s);
    comm_sum (t, (int)(s->natoms * nc));
    *ncols = nc;
    return t;
}

/* ---- the loop ---- */

/* LAMMPS's Neighbor::decide and check_distance (triggersq = 0.25 skin
 * skin, a strict comparison): "ago" counts the steps since the last
 * build. */
static int need_rebuild (struct md_sim *s)
{
    long ago = s->step - s->last_build;
    int r;
    if (ago < s->p.neigh_delay || ago % s->p.neigh_every != 0)
        return 0;
    if (!s->p.neigh_check)
        return 1;
    r = s->ops->maxdisp2 (s) > 0.25 * s->p.skin * s->p.skin;
    comm_max_int (&r, 1);
    return r;
}

static int sim_step (struct md_sim *s, struct hpcq_error *err)
{
    int eflag;
    s->ops->integrate1 (s);
    s->step++;
    if (need_rebuild (s)) {
        if (sim_reneighbor (s, err) < 0)
            return -1;
    } else {
        s->ops->forward (s);
    }
    eflag = is_thermo_step (s);
    s->pe = s->vir = 0;
    if (s->ops->force (s, eflag, &s->pe, &s->vir) < 0)
        return errprintf (err, "out of memory in the force computation");
    if (s->p.thermostat == MD_THERMO_LANGEVIN)
        thermostat_langevin (s);
    s->ops->integrate2 (s);
    if (s->p.thermostat == MD_THERMO_BERENDSEN)
        thermostat_berendsen (s);
    if (eflag)
        thermo_line (s);
    return 0;
}

/* Checkpoint now?  (every N steps, every T seconds, SIGUSR1, SIGTERM);
 * rank 0's clock and any rank's signal decide for all. */
static void ckpt_due (struct md_sim *s, int *ckpt, int *stop)
{
    int f[2] = { 0, got_term };
    if (!s->p.checkpoint_dir[0]) {
        f[0] = 0;
    } else {
        f[0] = got_usr1 || got_term
               || (s->p.checkpoint_every > 0 && s->step % s->p.checkpoint_every == 0)
               || (comm_rank () == 0 && s->p.checkpoint_interval > 0
                   && comm_wtime () - s->t_last_ckpt >= s->p.checkpoint_interval);
    }
    comm_max_int (f, 2);
    got_usr1 = 0;
    *ckpt = f[0];
    *stop = f[1];
}

static int sim_checkpoint (struct md_sim *s, struct hpcq_error *err)
{
    s->ops->to_host (s);
    int rc = checkpoint_write (s, err);
    s->ops->to_device (s);
    s->t_last_ckpt = comm_wtime ();
    return rc;
}

static void sim_report (struct md_sim *s, double secs)
{
    long n = s->step - s->start_step;
    long nthreads = 1;
#ifdef _OPENMP
    nthreads = omp_get_max_threads ();
#endif
    if (comm_rank () != 0 || s->p.quiet)
        return;
    printf ("Loop time of %g on %d procs (%ld threads each, %s) for %ld steps "
            "with %ld atoms\n",
            secs, comm_size (), nthreads, s->ops->name, n, s->natoms);
    printf ("Performance: %.6g atom-steps/s, %.6g steps/s, %ld neighbour "
            "list builds\n",
            secs > 0 ? (double)n * s->natoms / secs : 0, secs > 0 ? n / secs : 0,
            s->nbuilds);
    fflush (stdout);
}

int sim_run (struct md_sim *s, struct hpcq_error *err)
{
    int ckpt = 0, stop = 0, rc = 0;
    double t0;
    thermo_header (s);
    if (s->step == 0)
        thermo_line (s);
    if (s->step == 0 && dump_frame (s, err) < 0)
        return -1;
    t0 = comm_wtime ();
    while (s->step < s->p.steps) {
        if (sim_step (s, err) < 0)
            return -1;
        if (dump_frame (s, err) < 0)
            return -1;
        ckpt_due (s, &ckpt, &stop);
        if ((ckpt
             || (s->step == s->p.steps && s->p.checkpoint_dir[0]
                 && (s->p.checkpoint_every || s->p.checkpoint_interval)))
            && sim_checkpoint (s, err) < 0)
            return -1;
        if (stop) {
            if (comm_rank () == 0)
                fprintf (stderr,
                         "hpcq-md: SIGTERM: checkpoint written at "
                         "step %ld, stopping\n",
                         s->step);
            rc = 143;
            break;
        }
    }
    sim_report (s, comm_wtime () - t0);
    if (s->p.dump_state[0] && dump_state (s, s->p.dump_state, err) < 0)
        return -1;
    if (s->p.write_data[0] && datafile_write (s, s->p.write_data, err) < 0)
        return -1;
    return rc;
}
