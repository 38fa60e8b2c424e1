/* test_md.c - unit tests for hpcq-md's pieces: option parsing, the
 * lattice, LJ forces against the energy's finite differences (one type,
 * and two types with mixed coefficients), LAMMPS's wrap with image flags.
 * TAP output.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "apps/md/domain.h"
#include "apps/md/force.h"
#include "apps/md/lattice.h"
#include "apps/md/neigh.h"
#include "apps/md/params.h"
#include "apps/md/system.h"
#include "common/test/tap.h"

static int parse (struct md_params *p, const char *a1, const char *a2)
{
    char *argv[] = { "hpcq-md", (char *)a1, (char *)a2, NULL };
    struct hpcq_error err = { "" };
    int rc = params_parse (p, a2 ? 3 : 2, argv, &err);
    if (rc < 0)
        diag ("%s", err.text);
    return rc;
}

static void test_params (void)
{
    struct md_params p;
    unsetenv ("HPCQ_CHECKPOINT_DIR");
    ok (parse (&p, "--cells", "3x4x5") == 0 && p.cells[0] == 3 && p.cells[2] == 5,
        "--cells 3x4x5");
    ok (parse (&p, "--dt=0.002", NULL) == 0 && p.dt == 0.002, "--dt=0.002");
    ok (parse (&p, "--cells", "3x4") < 0, "--cells 3x4 refused");
    ok (parse (&p, "--cells", "3x-4x5") < 0, "negative cells refused");
    ok (parse (&p, "--density", "0") < 0, "zero density refused");
    ok (parse (&p, "--dt", "nan") < 0, "NaN timestep refused");
    ok (parse (&p, "--bogus", NULL) < 0, "unknown option refused");
    ok (parse (&p, "--gpu", NULL) == 0 && p.backend == MD_BACKEND_GPU, "--gpu");
    ok (parse (&p, "--cpu=1", NULL) < 0, "flag with a value refused");
    ok (parse (&p, "--neigh-delay", "3") == 0 && p.neigh_delay == 3
            && p.neigh_every == 1 && p.neigh_check == 1,
        "--neigh-delay; LAMMPS's defaults every 1 check yes");
    ok (parse (&p, "--checkpoint-keep", "0") < 0, "--checkpoint-keep 0 refused");
    ok (parse (&p, "--data", "x.data") == 0 && strcmp (p.data, "x.data") == 0,
        "--data");
    setenv ("HPCQ_CHECKPOINT_DIR", "/tmp/x", 1);
    setenv ("HPCQ_CHECKPOINT_INTERVAL", "30", 1);
    ok (parse (&p, "--steps", "5") == 0 && strcmp (p.checkpoint_dir, "/tmp/x") == 0
            && p.checkpoint_interval == 30,
        "HPCQ_CHECKPOINT_DIR and _INTERVAL");
    unsetenv ("HPCQ_CHECKPOINT_DIR");
    unsetenv ("HPCQ_CHECKPOINT_INTERVAL");
}

/* Total energy of the configuration (pair sum through the lists). */
static double energy (struct md_force *fc, struct md_neigh *nl, struct md_domain *dom,
                      struct md_atoms *a)
{
    double pe, vir;
    domain_borders (dom, a);
    neigh_build (nl, dom, a);
    force_compute (fc, nl, a, 1, &pe, &vir);
    domain_reverse (dom, a);
    return pe;
}

/* -dE/dx of atom k against its force, with the system fc was made for */
static void check_force (struct md_force *fc, struct md_neigh *nl,
                         struct md_domain *dom, struct md_atoms *a, long k,
                         const char *what)
{
    energy (fc, nl, dom, a);
    double f = a->f[0][k], h = 1e-6, x0 = a->x[0][k];
    a->x[0][k] = x0 + h;
    double ep = energy (fc, nl, dom, a);
    a->x[0][k] = x0 - h;
    double em = energy (fc, nl, dom, a);
    a->x[0][k] = x0;
    double fd = -(ep - em) / (2 * h);
    ok (fabs (fd - f) < 1e-6 * (1 + fabs (f)), "%s: force %g matches -dE/dx %g", what,
        f, fd);
}

static void test_forces (void)
{
    struct md_params p;
    struct md_system sys;
    struct hpcq_error err = { "" };
    parse (&p, "--cells", "3x3x3");
    p.cutoff = 2.0;
    ok (system_lattice (&sys, &p) == 0 && sys.natoms == 108 && sys.ntypes == 1
            && system_is_reduced_lj (&sys),
        "the lattice's system: 108 atoms, one type");
    struct md_domain *dom = domain_create (sys.lo, sys.hi, p.cutoff + p.skin, &err);
    struct md_atoms *a = atoms_create (NULL);
    struct md_neigh *nl = neigh_create (p.cutoff + p.skin, 0);
    struct md_force *fc = force_create (p.cutoff, &sys);
    ok (dom && lattice_create (&p, dom, a) == 0 && a->nlocal == 108,
        "3x3x3 fcc cells hold 108 atoms");
    lattice_velocities (&p, a, a->nlocal);
    double ke = 0;
    for (int d = 0; d < 3; d++)
        for (long i = 0; i < a->nlocal; i++)
            ke += a->v[d][i] * a->v[d][i];
    ok (fabs (ke / (3.0 * 108 - 3) - p.temp) < 1e-12, "velocities scaled to T exactly");
    /* displace the lattice so forces are not zero */
    for (int d = 0; d < 3; d++)
        for (long i = 0; i < a->nlocal; i++)
            a->x[d][i] += 0.05 * (lattice_uniform (7, i, d) - 0.5);
    check_force (fc, nl, dom, a, 5, "one type");

    /* two types, geometric mixing: every other atom of type 2 */
    struct md_system two;
    ok (system_alloc (&two, 2) == 0, "room for two types");
    memcpy (two.lo, sys.lo, sizeof (sys.lo));
    memcpy (two.hi, sys.hi, sizeof (sys.hi));
    two.natoms = sys.natoms;
    two.mass[1] = 1.0;
    two.mass[2] = 2.0;
    *system_eps (&two, 1, 1) = 1.0;
    *system_sigma (&two, 1, 1) = 1.0;
    *system_eps (&two, 2, 2) = 0.5;
    *system_sigma (&two, 2, 2) = 1.1;
    ok (system_complete (&two, &err) == 0
            && fabs (*system_eps (&two, 1, 2) - sqrt (0.5)) < 1e-16
            && *system_sigma (&two, 2, 1) == *system_sigma (&two, 1, 2),
        "unlike pairs mixed geometrically, symmetric");
    struct md_force *fc2 = force_create (p.cutoff, &two);
    for (long i = 0; i < a->nlocal; i += 2)
        a->type[i] = 2;
    check_force (fc2, nl, dom, a, 5, "two types");
    check_force (fc2, nl, dom, a, 6, "two types, the other kind");

    /* LAMMPS's pbc: one box length off, counted in the image flag */
    double lo = dom->blo[0], L = dom->L[0];
    a->x[0][0] = lo - 0.25;
    a->x[0][1] = lo + L + 0.5;
    a->img[0] = a->img[3] = 0;
    domain_wrap (dom, a);
    ok (a->x[0][0] == lo - 0.25 + L && a->img[0] == -1 && a->x[0][1] == lo + L + 0.5 - L
            && a->img[3] == 1,
        "wrap: positions back in the box, image flags counted");
    double x[3] = { lo - 2.5 * L, lo + 0.1, lo + 3.2 * L };
    int32_t img[3] = { 0, 0, 0 };
    domain_remap (dom, x, img);
    ok (img[0] == -3 && img[1] == 0 && img[2] == 3 && x[0] >= lo && x[0] < lo + L
            && x[2] >= lo && x[2] < lo + L,
        "remap: several box lengths");
    force_destroy (fc2);
    system_release (&two);
    force_destroy (fc);
    neigh_destroy (nl);
    atoms_destroy (a);
    domain_destroy (dom);
    system_release (&sys);
}

int main (void)
{
    plan (NO_PLAN);
    test_params ();
    test_forces ();
    done_testing ();
}
