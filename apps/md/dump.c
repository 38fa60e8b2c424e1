/* dump.c - see dump.h */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apps/md/comm.h"
#include "apps/md/dump.h"
#include "apps/md/sim.h"

/* Open a trajectory on first use: appended to when the run continues
 * one that wrote it. */
static int traj_open (struct md_sim *s, FILE **f, const char *path,
                      struct hpcq_error *err)
{
    if (*f)
        return 0;
    if (!(*f = fopen (path, s->start_step ? "a" : "w")))
        return errprintf (err, "cannot write '%s': %s", path, strerror (errno));
    return 0;
}

static void lammps_frame (struct md_sim *s, FILE *f, const double *t, int nc)
{
    const struct md_system *sys = &s->sys;
    fprintf (f,
             "ITEM: TIMESTEP\n%ld\nITEM: NUMBER OF ATOMS\n%ld\n"
             "ITEM: BOX BOUNDS pp pp pp\n",
             s->step, sys->natoms);
    for (int d = 0; d < 3; d++)
        fprintf (f, "%-1.16e %-1.16e\n", sys->lo[d], sys->hi[d]);
    fprintf (f, "ITEM: ATOMS id type x y z vx vy vz fx fy fz\n");
    for (long i = 0; i < sys->natoms; i++) {
        const double *r = t + i * nc;
        fprintf (f, "%ld %d", i + 1, (int)r[0]);
        for (int c = 1; c < nc; c++)
            fprintf (f, " %.17g", r[c]);
        fputc ('\n', f);
    }
    fflush (f);
}

static void xyz_frame (struct md_sim *s, FILE *f, const double *t, int nc)
{
    const struct md_system *sys = &s->sys;
    double L[3];
    for (int d = 0; d < 3; d++)
        L[d] = sys->hi[d] - sys->lo[d];
    fprintf (
        f,
        "%ld\nLattice=\"%.10g 0 0 0 %.10g 0 0 0 %.10g\" Origin=\"%.10g %.10g "
        "%.10g\" Properties=species:S:1:pos:R:3 pbc=\"T T T\" Time=%.6g Step=%ld\n",
        sys->natoms, L[0], L[1], L[2], sys->lo[0], sys->lo[1], sys->lo[2],
        s->step * s->p.dt, s->step);
    for (long i = 0; i < sys->natoms; i++) {
        const double *r = t + i * nc;
        double x[3];
        for (int d = 0; d < 3; d++)
            x[d] = r[1 + d] - L[d] * floor ((r[1 + d] - sys->lo[d]) / L[d]);
        /* one type: argon, as before; several: the type number */
        if (sys->ntypes == 1)
            fprintf (f, "Ar %.8f %.8f %.8f\n", x[0], x[1], x[2]);
        else
            fprintf (f, "%d %.8f %.8f %.8f\n", (int)r[0], x[0], x[1], x[2]);
    }
    fflush (f);
}

int dump_frame (struct md_sim *s, struct hpcq_error *err)
{
    int lmp = s->p.dump[0] != 0, xyz = s->p.dump_xyz[0] != 0, nc, rc = 0;
    double *t;

    if ((!lmp && !xyz) || s->step % s->p.dump_every != 0)
        return 0;
    t = sim_gather (s, MD_COL_TYPE | MD_COL_X | (lmp ? MD_COL_V | MD_COL_F : 0), &nc);
    if (!t)
        return errprintf (err, "out of memory for the trajectory");
    if (comm_rank () == 0) {
        if (lmp && (rc = traj_open (s, &s->lmp, s->p.dump, err)) == 0)
            lammps_frame (s, s->lmp, t, nc);
        if (rc == 0 && xyz && (rc = traj_open (s, &s->xyz, s->p.dump_xyz, err)) == 0)
            xyz_frame (s, s->xyz, t, nc);
    }
    free (t);
    return rc;
}

void dump_close (struct md_sim *s)
{
    if (s->xyz)
        fclose (s->xyz);
    if (s->lmp)
        fclose (s->lmp);
    s->xyz = s->lmp = NULL;
}

int dump_state (struct md_sim *s, const char *path, struct hpcq_error *err)
{
    int nc, rc = 0;
    double *t = sim_gather (s, MD_COL_X | MD_COL_V | MD_COL_F, &nc);
    if (!t)
        return errprintf (err, "out of memory for the state dump");
    if (comm_rank () == 0) {
        FILE *f = fopen (path, "w");
        if (!f) {
            free (t);
            return errprintf (err, "cannot write '%s': %s", path, strerror (errno));
        }
        fprintf (f, "# hpcq-md state at step %ld: id x y z vx vy vz fx fy fz\n",
                 s->step);
        for (long i = 0; i < s->natoms; i++) {
            fprintf (f, "%ld", i + 1);
            for (int c = 0; c < nc; c++)
                fprintf (f, " %a", t[i * nc + c]);
            fputc ('\n', f);
        }
        if (fclose (f) != 0)
            rc = errprintf (err, "cannot write '%s': %s", path, strerror (errno));
    }
    free (t);
    return rc;
}
